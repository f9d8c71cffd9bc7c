"""Captions true on every run: a number a caption quotes follows the run's own files.

A copy of the CI run has every measured metric of its cells moved (v -> 0.9 v + 0.05, each file
rewritten with its digest, as a job writes it); the tables and figures are rebuilt from the
copies. Every decimal number of a caption (the text around the tables, not their cells or the
plotted values) that stays the same must come from something that did not move: the config, the
papers' numbers (config/paper_results.csv), the settings the papers state (studies/*/paper.py),
or a paragraph that names the run it quotes by its date (a measurement elsewhere, "measured ...
2026-11-27"). A number measured once and typed into a caption's code breaks the rule."""

import re
import shutil
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
from pipeline import ROOT, run_targets

REBUILT = [  # the tables and figures whose captions quote numbers computed from their cells
    "table_sdca_2",
    "table_sdca_3",
    "table_oasis_2",
    "table_oahu_3",
    "figure_oahu_7",
    "figure_sdca_1",
    "figure_sdca_2",
    "figure_oasis_3",
    "figure_oasis_2",
    "table_svm_1",
]
NUMBER = re.compile(r"(?<![\w.])\d*\.\d{2,}")  # decimals of two or more places: 0.294, 3.14
DATED = re.compile(r"20\d\d-\d\d-\d\d")


def _move(values: pd.Series, path: str, salt: int) -> pd.Series:
    """Every non-integral number of ``values`` (str) moved by an affine map of its own file
    (slope 0.6-0.95, offset 0.01-0.2, from the path's checksum and ``salt``): the methods'
    ranks change too, so statistics of ranks move with them. Integral values (counts, sizes,
    K) stay."""
    num = pd.to_numeric(values, errors="coerce")
    hit = num.notna() & (num != num.round())
    rng = np.random.default_rng([zlib.crc32(path.encode()), salt])
    slope, offset = rng.uniform(0.6, 0.95), rng.uniform(0.01, 0.2)
    out = values.copy()
    out[hit] = (num[hit] * slope + offset).map(repr)
    return out


def _move_info(path: Path, rel: str, salt: int) -> bool:
    """Move the measured numbers of a feature file's ``info`` (a JSON record: the image
    features' timings and sizes), keeping the file's time, so that only the tables rerun."""
    import json
    import os

    from tripletbench.files import save_npz

    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    if "info" not in arrays:
        return False
    info = pd.Series(json.loads(str(arrays["info"])), dtype=object)
    moved = _move(info.astype(str), rel, salt)
    arrays["info"] = np.asarray(json.dumps({k: float(v) for k, v in moved.items()}))
    times = (path.stat().st_atime, path.stat().st_mtime)
    save_npz(path, **arrays)
    os.utime(path, times)
    return True


def perturb(root: Path, salt: int) -> int:
    """Move every measured number of the cells under ``root`` (tidy files: the ``value`` of
    every metric row; feature files: their ``info`` record) by :func:`_move`, each result file
    rewritten with its digest as a job writes it; the number of files rewritten."""
    from tripletbench.harness.io import save_csv

    n = sum(
        _move_info(p, p.relative_to(root).as_posix(), salt) for p in root.rglob("features/**/*.npz")
    )
    for path in sorted(root.rglob("*.csv")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(("tables/", "figures/")) or "all_runs" in rel or "summary" in rel:
            continue
        try:
            df = pd.read_csv(path, dtype=str, keep_default_na=False)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError):
            continue
        if {"metric", "value"} <= set(df.columns):
            df["value"] = _move(df["value"], rel, salt)
            save_csv(path, df)
            n += 1
    return n


def caption_paragraphs(md: str) -> list[str]:
    """The caption text of a generated ``.md``, one paragraph (line) each: table rows and
    plotted values (lines starting with "|") left out. A paragraph is the unit: a measurement
    quoted from elsewhere is one paragraph that names its date."""
    return [line for line in md.splitlines() if line.strip() and not line.lstrip().startswith("|")]


def unmoved(before: str, after: str) -> dict[tuple, tuple[str, str]]:
    """(paragraph index, place) -> ``(number, paragraph)`` of every decimal that stayed in its
    place: paragraph by paragraph, the k-th number of the rebuilt paragraph equal to the k-th
    of the original (where a paragraph's numbers changed in count, any number in both, placed
    by its value)."""
    out = {}
    for i, (then, now) in enumerate(zip(caption_paragraphs(before), caption_paragraphs(after))):
        a, b = NUMBER.findall(then), NUMBER.findall(now)
        if len(a) == len(b):
            out.update({(i, k): (x, now) for k, (x, y) in enumerate(zip(a, b)) if x == y})
        else:
            out.update({(i, x): (x, now) for x in set(a) & set(b)})
    return out


def constants() -> str:
    """The text of everything a caption may quote that no cell moves."""
    parts = [ROOT / "config/ci.yaml", ROOT / "config/paper_results.csv"]
    parts += sorted((ROOT / "studies").glob("*/paper.py"))
    return "\n".join(p.read_text() for p in parts)


def _accounted(num: str, paragraph: str, fixed: str) -> bool:
    if DATED.search(paragraph):
        return True  # a measurement elsewhere, named by its date
    stripped = num.rstrip("0").rstrip(".")
    return bool(re.search(rf"(?<![\d.]){re.escape(stripped)}(?!\d)", fixed))


def test_every_number_a_caption_quotes_follows_its_runs_files(ci_run, tmp_path):
    """Two copies, each moved by its own maps (a number left in place by one map's chance, as
    a mean of two moved seeds can be, is moved by the other); a number in place in both is
    stale unless accounted for (module docstring)."""
    fixed = constants()
    in_place = []
    for salt in (1, 2):
        out = tmp_path / f"moved{salt}"
        shutil.copytree(ci_run, out)
        assert perturb(out, salt) > 10
        # the tables rerun on their cells' settings, not on file times: force them (not cells)
        run_targets(REBUILT, out, extra=("--forcerun", *REBUILT))
        stayed, compared = {}, []
        for before in sorted(Path(ci_run).rglob("*.md")):
            rel = before.relative_to(ci_run)
            after = out / rel
            if "logs" in rel.parts or not after.exists() or before.read_text() == after.read_text():
                continue
            compared.append(rel.name)
            for place, found in unmoved(before.read_text(), after.read_text()).items():
                stayed[(str(rel), *place)] = found
        assert len(compared) >= len(REBUILT), compared  # each rebuilt caption moved somewhere
        in_place.append(stayed)
    stale = [
        f"{place[0]}: {num} in: {p[:300]}"
        for place, (num, p) in sorted(in_place[1].items(), key=str)
        if place in in_place[0] and not _accounted(num, p, fixed)
    ]
    assert not stale, "\n".join(stale)
