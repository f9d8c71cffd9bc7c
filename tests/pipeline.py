"""Shared by the pipeline tests: run Snakemake targets of this checkout into a temporary folder."""

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _package_dirs(repo: Path) -> dict[str, str]:
    """Sub-package name -> folder of ``repo`` holding it (``algorithms`` -> ``algorithms``), from
    pyproject.toml's package-dir: the one list of what is installed under ``tripletbench.``."""
    table = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["setuptools"]
    return {
        name.removeprefix("tripletbench."): folder
        for name, folder in table["package-dir"].items()
        if name.startswith("tripletbench.")
    }


def checkout_env(repo: Path) -> dict:
    """The environment under which Python imports ``tripletbench`` from the checkout ``repo`` (a
    copy made by a test) rather than from the installed one: a folder beside it holding
    ``tripletbench/`` with links to every entry of the copy's ``src/tripletbench/`` and to each
    package folder pyproject.toml maps under ``tripletbench.`` (a module or package left out
    would be found by the editable install's finder in the original checkout, so a change to the
    copy would go unseen), first on ``PYTHONPATH`` (tests only; a user's checkout is installed,
    setup.sh)."""
    repo = Path(repo).resolve()
    if repo == ROOT:
        return dict(os.environ)
    pkg = repo.parent / f"{repo.name}-import" / "tripletbench"
    if not pkg.exists():
        pkg.mkdir(parents=True)
        for entry in (repo / "src/tripletbench").iterdir():
            if entry.name != "__pycache__":
                (pkg / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
        for name, folder in _package_dirs(repo).items():
            (pkg / name).symlink_to(repo / folder, target_is_directory=True)
    path = [str(pkg.parent), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


def copy_checkout(dest: Path) -> Path:
    """The checkout's code and configs (no results, caches or virtual environment) at ``dest``."""
    skip = shutil.ignore_patterns(
        ".git", ".venv", ".snakemake", "data_cache", "results", "figures", "__pycache__", "*.egg-info"
    )
    shutil.copytree(ROOT, dest, ignore=skip)
    checkout_env(dest)  # the copy's own code, imported as tripletbench.* by its jobs
    return dest


def run_targets(targets, out, configfile="config/ci.yaml", extra=(), timeout=600):
    """``snakemake TARGETS --configfile CONFIGFILE`` with results and figures under ``out``, on 2
    cores; fails the test with the log's tail if Snakemake fails."""
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        *targets,
        "--configfile",
        str(configfile),
        "--config",
        f"results_dir={out}",
        f"figures_dir={out}/figures",
        "--cores",
        "2",
        "--nolock",
        *extra,
    ]
    res = subprocess.run(
        cmd, check=False, cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    assert res.returncode == 0, f"pipeline failed:\n{(res.stdout + res.stderr)[-6000:]}"


def issue_mentions(out):
    """Lines of the captions (.md) and LaTeX tables (.tex) under ``out`` that mention an issue
    (our tracker's numbering means nothing to a reader of the results): "path:line: text"."""
    import re

    found = []
    for path in sorted(Path(out).rglob("*")):
        if path.suffix not in (".md", ".tex") or not path.is_file():
            continue
        for i, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if re.search(r"\bissues?\b", line, re.I):
                found.append(f"{path.relative_to(out)}:{i}: {line.strip()[:120]}")
    return found


def latex_failures(out, max_overfull_pt=5.0):
    """Compile every ``.tex`` under ``out`` with pdflatex, each ``\\input`` into a bare ``article``
    with exactly the preamble its header comment names (tripletbench.harness.tables.LATEX_PREAMBLE); returns
    "name: why" for each that fails or overfills a line by more than ``max_overfull_pt``.

    Skips the calling test when pdflatex cannot be had and setup.sh said why
    (``.venv/.latex-unavailable``, not root); fails it when pdflatex is missing otherwise."""
    import re
    import shutil
    import tempfile

    import pytest

    if shutil.which("pdflatex") is None:
        why = ROOT / ".venv" / ".latex-unavailable"
        if why.exists():
            pytest.skip(f"LaTeX tables not compiled: {why.read_text().strip()}")
        pytest.fail("pdflatex not found: run `bash setup.sh` as root (installs texlive)")
    found = []
    files = sorted(Path(out).rglob("*.tex"))
    assert files, f"no .tex under {out}"
    for tex in files:
        text = tex.read_text()
        preamble = [m[1] for m in re.finditer(r"^%\s+(\\usepackage.*)$", text, re.M)]
        with tempfile.TemporaryDirectory() as tmp:
            doc = Path(tmp) / "doc.tex"
            doc.write_text(
                "\\documentclass{article}\n" + "\n".join(preamble) + "\n\\begin{document}\n"
                f"\\input{{{tex.resolve()}}}\n\\end{{document}}\n"
            )
            res = subprocess.run(
                ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                cwd=tmp, capture_output=True, text=True, timeout=120, check=False,
            )
            log = (Path(tmp) / "doc.log").read_text(errors="replace")
        if res.returncode != 0:
            errors = [line for line in log.splitlines() if line.startswith("!")]
            found.append(f"{tex.name}: pdflatex failed: {' | '.join(errors[:3])}")
            continue
        over = [float(v) for v in re.findall(r"Overfull \\hbox \((\d+\.?\d*)pt too wide", log)]
        if over and max(over) > max_overfull_pt:
            found.append(f"{tex.name}: a line {max(over):.0f} pt wider than the text")
        if "Float too large" in log:
            found.append(f"{tex.name}: a float taller than the page")
    return found


def planned_jobs(out, configfile, targets=("table_sdca_2",)):
    """(rule, first output relative to ``out``) of every job a dry run of ``targets`` with
    ``configfile`` plans against results folder ``out``."""
    res = subprocess.run(
        [sys.executable, "-m", "snakemake", *targets, "-n", "--configfile", str(configfile),
         "--config", f"results_dir={out}", f"figures_dir={out}/figures", "--nolock"],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=300,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    # a job of a group ("cells") is listed indented under its group job
    jobs = re.findall(
        r"^[ ]*(?:local)?rule (\w+):\n(?:.*\n)*?[ ]+output: ([^,\n]+)", res.stdout, re.M
    )
    print(res.stdout)  # the plan and Snakemake's reasons, shown when an assertion fails
    return {(rule, str(Path(o).relative_to(out))) for rule, o in jobs}


def _link_or_copy(src, dst):
    """A hard link (our writes replace a file by a new one, harness.io.atomic_path, so the
    original keeps its bytes), a copy across file systems."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _b64_target(parts) -> str:
    from base64 import urlsafe_b64decode

    return urlsafe_b64decode("".join(p.lstrip("@") for p in parts)).decode()


def _record_path(subject: Path, target: str) -> Path:
    """Where Snakemake's file persistence keeps the record of ``target`` (its ``_record_path``:
    the urlsafe base64 of the path, cut into name-length pieces)."""
    from base64 import urlsafe_b64encode

    max_len = os.pathconf(subject, "PC_NAME_MAX") or 255
    b64 = urlsafe_b64encode(target.encode()).decode()
    pieces = [b64[i : i + max_len - 1] for i in range(0, len(b64), max_len - 1)]
    return subject.joinpath(*["@" + s for s in pieces[:-1]], pieces[-1])


def clone_run(run_dir, dest):
    """A copy of this checkout at ``dest/checkout`` (tracked and untracked, non-ignored files,
    times kept) holding the run in ``run_dir`` (results and figures, made by
    :func:`run_targets` with this checkout) at ``results/ci`` together with Snakemake's records
    of its jobs (``.snakemake/metadata``, every path of ``run_dir`` and of this checkout
    rewritten to the copy's), a copy of the data cache (hard links) and ``dest/shared`` -> the
    ``shared`` folder beside this checkout (``human.mirror: ../shared/mirror``). A code change
    in the copy then reruns the jobs whose params (code hashes) it changes, as it would here;
    nothing of this checkout or of ``run_dir`` is modified. Returns (checkout, results)."""
    run_dir, dest = Path(run_dir).resolve(), Path(dest)
    ck = dest / "checkout"
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")
    for name in filter(None, listed):
        src = ROOT / name
        if src.is_file():
            (ck / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, ck / name, follow_symlinks=False)
    if (ROOT / "data_cache").is_dir():
        shutil.copytree(ROOT / "data_cache", ck / "data_cache", copy_function=_link_or_copy)
    if (ROOT.parent / "shared").is_dir():
        (dest / "shared").symlink_to(ROOT.parent / "shared", target_is_directory=True)
    results = ck / "results" / "ci"
    shutil.copytree(run_dir, results, symlinks=True)
    src_meta = ROOT / ".snakemake" / "metadata"
    dst_meta = ck / ".snakemake" / "metadata"
    dst_meta.mkdir(parents=True)
    swaps = [(str(run_dir), str(results.resolve())), (str(ROOT), str(ck.resolve()))]
    for rec in src_meta.rglob("*"):
        if not rec.is_file():
            continue
        target = _b64_target(rec.relative_to(src_meta).parts)
        if target.startswith(str(run_dir) + os.sep):
            target = str(results.resolve()) + target[len(str(run_dir)) :]
        elif os.path.isabs(target):
            continue  # another run's job
        text = rec.read_text()
        for old, new in swaps:
            text = text.replace(old, new)
        out = _record_path(dst_meta, target)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
    return ck, results


# one OAHU Table 3 cell pair and one SVM cell, for the "results follow their inputs" dry runs
OAHU_SVM_CELLS = [
    "oahu/table3/vehicle/seed0/OAHU.csv",
    "oahu/table3/vehicle/seed0/OASIS.csv",
    "svm/runs/vehicle/seed0.csv",
]

# what the CI run (the ci_run fixture, conftest.py) builds: regression_check (every table whose
# numbers config/ci_expected.csv stores) and the figures and tables the pipeline tests read
CI_TARGETS = [
    "regression_check",
    "figure_sdca_1",
    "figure_sdca_2",
    "figure_oasis_3",
    "figure_scaling",
    "performance",
    # test_pipeline_svm.py
    "table_svm_1",
    "figure_svm_2",
    "figure_svm_mds",
    "svm_scaling",
    "table_svm_readings",
    "figure_svm_c_sweep",
    # test_pipeline_oahu.py, test_pipeline_oahu_sensitivity.py
    "table_oahu_3",
    "figure_oahu_4",
    "figure_oahu_5",
    "figure_oahu_7",
    "oahu_sensitivity",
    # test_pipeline_images.py (the stand-in)
    "table_sdca_3",
    "figure_oasis_2",
    "table_oasis_2",
    # test_human_pipeline.py (from ../shared/mirror where it exists)
    "table_human",
    "figure_human_curve",
]
