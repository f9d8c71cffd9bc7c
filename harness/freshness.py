"""Refuse a Snakemake report built from outdated results.

``snakemake --report`` builds the report from the files on disk and runs no job, so after a
changed config value, reference number or line of code it would show the old results as if they
were the new ones. The workflow, when started with ``--report``, first plans the same targets as
a dry run (:func:`planned_jobs`); if any job is due, it stops and names them.
"""

from __future__ import annotations

import re
import subprocess
import sys


def without_report_options(argv) -> list[str]:
    """``argv`` (a Snakemake command line, without the program) less every ``--report*`` option
    and its value."""
    out, skip = [], False
    for tok in argv:
        if skip:
            skip = False
            if not tok.startswith("-"):
                continue
        if tok.startswith("--report"):
            skip = "=" not in tok
            continue
        out.append(tok)
    return out


class StaleResults(RuntimeError):
    """The results a report would show are not those the config, the reference numbers and
    the code now imply."""


def is_report_run(argv) -> bool:
    """True if the command line ``argv`` asks Snakemake for a report of the results on disk
    (``--report``, not ``--report-after-run``, which runs the jobs first)."""
    asks = any(tok == "--report" or tok.startswith("--report=") for tok in argv)
    return asks and "--report-after-run" not in argv


def check_report_fresh(argv, cwd) -> None:
    """Raise :class:`StaleResults` naming the due jobs if a report of command line ``argv``
    would show outdated results (:func:`planned_jobs`)."""
    due = planned_jobs(argv, cwd)
    if due:
        raise StaleResults(
            "the report would show outdated results: a dry run of the same targets plans "
            f"{', '.join(due)}. Run the targets first (e.g. snakemake reproduce_all with the "
            "same config), then build the report"
        )


def planned_jobs(argv, cwd) -> list[str]:
    """The rules of the jobs that a dry run of command line ``argv`` (the report's own, less
    its report options) would run in ``cwd``; ``[]`` when every result is up to date.

    Raises ``RuntimeError`` if the dry run itself fails."""
    cmd = [sys.executable, "-m", "snakemake", *without_report_options(argv), "-n", "--nolock"]
    res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    out = res.stdout + res.stderr
    if res.returncode != 0:
        raise RuntimeError(f"the report's freshness check (a dry run) failed:\n{out[-3000:]}")
    stats = re.search(r"^Job stats:\n(.*?)^total\s+\d+", out, re.M | re.S)
    if stats is None:
        return []
    rows = [line.split() for line in stats.group(1).splitlines()[2:] if line.strip()]
    return [f"{r[0]} ({r[1]})" for r in rows if len(r) == 2]


def check_report_pages(paths) -> None:
    """Raise :class:`StaleResults` when any of the report's pages or captions ``paths`` (the
    outputs of rule report_pages) is missing: Snakemake would stop on a raw "Error loading
    caption file ... FileNotFoundError" (``--report`` of one table's target after building that
    table alone)."""
    import os

    missing = [str(p) for p in paths if not os.path.exists(str(p))]
    if missing:
        raise StaleResults(
            f"the report's pages and captions are not built yet ({len(missing)} missing, e.g. "
            f"{missing[0]}): rule report_pages writes them from every table and figure the "
            "config switches on. Run `snakemake report_pages` (or reproduce_all) with the same "
            "config first, then build the report"
        )
