"""The performance harness measures with one BLAS thread whatever the environment says."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_measurements_run_single_threaded_even_when_the_environment_asks_for_more():
    code = (
        "from tripletbench.harness.performance import blas_threads, single_threaded, run\n"
        "outside = blas_threads()\n"
        "inside = single_threaded(blas_threads)()\n"
        "df = run(dense_dims=(8,), sparse=(), n_triplets=200, n_points=50, log=lambda *a: None)\n"
        "print(outside, inside, int(df.blas_threads.max()))\n"
    )
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "2",
        "OPENBLAS_NUM_THREADS": "2",
    }
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    outside, inside, in_table = map(int, out.stdout.split())
    assert outside == 2 and inside == 1 and in_table == 1


def test_no_other_learner_gives_an_empty_table_with_its_columns():
    """A config with the performance block alone (no SDCA Table 2 rows) times no other learner;
    the rule still merges and writes that table (it failed with KeyError 'learner')."""
    from tripletbench.harness.performance import other_learners

    empty = other_learners({}, log=lambda *a: None)
    assert empty.empty and {"learner", "s_per_10k_triplets", "settings"} <= set(empty.columns)
