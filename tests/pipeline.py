"""Shared by the pipeline tests: run Snakemake targets of this checkout into a temporary folder."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("algorithms", "datasets", "evaluation", "harness")


def checkout_env(repo: Path) -> dict:
    """The environment under which Python imports ``tripletbench`` from the checkout ``repo`` (a
    copy made by a test) rather than from the installed one: a folder beside it holding
    ``tripletbench/`` with links to the copy's ``src/tripletbench/__init__.py`` and its four
    package folders, first on ``PYTHONPATH`` (tests only; a user's checkout is installed, setup.sh)."""
    repo = Path(repo).resolve()
    if repo == ROOT:
        return dict(os.environ)
    pkg = repo.parent / f"{repo.name}-import" / "tripletbench"
    if not pkg.exists():
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").symlink_to(repo / "src/tripletbench/__init__.py")
        for name in PACKAGES:
            (pkg / name).symlink_to(repo / name, target_is_directory=True)
    path = [str(pkg.parent), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


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
