"""Shared by the pipeline tests: run Snakemake targets of this checkout into a temporary folder."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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
