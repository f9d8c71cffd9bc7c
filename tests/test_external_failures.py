"""Rule: an external learner that fails, or returns a metric that cannot rank, only on real data
(it passed the start-up trial fit on 40 synthetic points) stops its cell with an error naming
the learner, the dataset, the seed and grid point, and the remedy; never a raw library
traceback, never a table of NaN or tied scores."""

from __future__ import annotations

import re

import numpy as np
import pytest
from tripletbench.algorithms.external import ExternalLearnerError, check_evaluable
from tripletbench.datasets.constraints import sample_class_triplets
from tripletbench.datasets.preprocess import make_split
from tripletbench.harness.experiment import run_cell

CASES = {
    "tests.external_fixtures.FailsOnRealData": r"failed to fit on \d+ labels \(LinAlgError: SVD",
    "tests.external_fixtures.NaNOnRealData": r"NaN or inf entries: it cannot rank",
    "tests.external_fixtures.ZeroOnRealData": r"all-zero matrix .*: it cannot rank",
}


@pytest.mark.parametrize("path", list(CASES))
def test_an_external_learner_failing_only_on_real_data_names_learner_dataset_and_remedy(path):
    assert check_evaluable(path, "labels") == "labels"  # the start-up trial passes
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 40)
    X = rng.normal(size=(120, 5)) + y[:, None]
    split = make_split(y, 0, 0.7, 0.8)
    t_fit = sample_class_triplets(y[split["fit"]], 200, np.random.default_rng(1))
    t_train = sample_class_triplets(y[split["train"]], 200, np.random.default_rng(2))
    cfg = {"algorithm": path, "constraints": "labels"}
    base = {"dataset": "vehicle", "seed": 0, "algorithm": "lib"}
    with pytest.raises(ExternalLearnerError) as err:
        run_cell("lib", cfg, X, y, split, t_fit, t_train, 0, base)
    msg = str(err.value)
    assert msg.startswith("lib on vehicle, seed 0, test ") and path in msg, msg
    assert re.search(CASES[path], msg), msg
    assert "leave it out of this dataset" in msg and "fixed/grid" in msg, msg
