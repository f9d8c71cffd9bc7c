"""The rows behind the OASIS runtime table: each cell's CPU seconds."""

from __future__ import annotations

import pandas as pd


def job_cpu_values(runs: pd.DataFrame, metric: str = "job_cpu_s") -> pd.DataFrame:
    """The whole CPU seconds of each cell as tidy per-seed rows (dataset, algorithm, metric, seed,
    value) for :class:`tripletbench.harness.paper_table.PaperTable`: the ``job_cpu_s`` column that
    each cell stamps on its rows (:func:`tripletbench.harness.io.stamp_cell`: the process CPU time
    of the cell, plus its share of its job's start-up, imports included), one value per cell. Not
    Snakemake's ``benchmark:`` ``cpu_time``: that is a psutil sample taken every few seconds and
    fell below the cell's own ``fit_cpu_s`` in 4 of 63 cells of a default run (measured 2026-11-27). Raises ``ValueError``
    naming the cells without the column's value (rows written before the column existed: rerun
    them)."""
    cells = ["dataset", "algorithm", "seed"]
    if "job_cpu_s" not in runs:
        raise ValueError("the runs have no job_cpu_s column: their cells predate it; rerun them")
    per_cell = runs.groupby(cells, sort=False).job_cpu_s.first().reset_index()
    lacking = per_cell[per_cell.job_cpu_s.isna()]
    if len(lacking):
        raise ValueError(
            "cells without job_cpu_s (rerun them): "
            + ", ".join("/".join(map(str, r)) for r in lacking[cells].itertuples(index=False))
        )
    return per_cell.rename(columns={"job_cpu_s": "value"}).assign(metric=metric)[
        ["dataset", "algorithm", "metric", "seed", "value"]
    ]
