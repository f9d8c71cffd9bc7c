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
