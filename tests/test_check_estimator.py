"""scikit-learn's ``check_estimator`` (scikit-learn 1.7.2) on every learner fitted on labelled
points: LMNN, OPML and every ``*_Supervised`` variant (as metric-learn's
``test/test_sklearn_compat.py`` runs it on its supervised learners).

Each estimator's checks run once (``on_fail=None`` returns one result per check); the test
asserts that exactly the checks listed in ``EXPECTED_FAILURES`` fail: an unlisted failure fails
the test, and so does a listed check that passes (the list must not go stale). Every listed
failure has its one-line reason. Small settings keep the module fast (a few seconds per
estimator); they do not change what the checks test.
"""

import re
import warnings

import pytest
from sklearn.utils.estimator_checks import check_estimator

from tripletbench.algorithms import LMNN, OPML
from tripletbench.algorithms import supervised as sv

TRIPLET_API = (
    "predict/decision_function take triplets ((n, 3, d) points or (n, 3) indices: the "
    "benchmark's triplet API), and scikit-learn calls them on X; LMNN and OPML keep "
    "them (the *_Supervised variants have none, as metric-learn's)"
)
# the checks that call predict / decision_function on samples X
TRIPLET_API_CHECKS = (
    "check_n_features_in_after_fitting",
    "check_estimators_dtypes",
    "check_dtype_object",
    "check_estimators_nan_inf",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_dict_unchanged",
    "check_fit_idempotent",
    "check_fit2d_predict1d",
)
OAHU_LAYERS = (
    "OAHU.transform returns one embedding per layer, shape (L+1, n, m), not (n, k): "
    "scikit-learn's transformer checks index its output by sample"
)

ESTIMATORS = {
    "LMNN": LMNN(n_neighbors=2, max_iter=30),
    "OPML": OPML(),
    "Euclidean_Supervised": sv.Euclidean_Supervised(),
    "RCA_Supervised": sv.RCA_Supervised(),
    "ITML_Supervised": sv.ITML_Supervised(max_iter=30),
    "OnlineITML_Supervised": sv.OnlineITML_Supervised(),
    "LEGO_Supervised": sv.LEGO_Supervised(),
    "RDML_Supervised": sv.RDML_Supervised(),
    "OASIS_Supervised": sv.OASIS_Supervised(n_epochs=2),
    "DissimOASIS_Supervised": sv.DissimOASIS_Supervised(n_epochs=2),
    "SDCA_Supervised": sv.SDCA_Supervised(n_epochs=2),
    "COMET_Supervised": sv.COMET_Supervised(n_sweeps=2),
    "SparseCOMET_Supervised": sv.SparseCOMET_Supervised(n_sweeps=2),
    "OAHU_Supervised": sv.OAHU_Supervised(
        n_hidden_layers=1, n_hidden=8, embedding_dim=4, dtype="float64", device="cpu"
    ),
    "SVMRelative_Supervised": sv.SVMRelative_Supervised(),
}

EXPECTED_FAILURES = {
    "LMNN": dict.fromkeys(TRIPLET_API_CHECKS, TRIPLET_API),
    "OPML": dict.fromkeys(TRIPLET_API_CHECKS, TRIPLET_API),
    "OAHU_Supervised": {
        "check_transformer_data_not_an_array": OAHU_LAYERS,
        "check_transformer_general": OAHU_LAYERS,
        "check_methods_sample_order_invariance": OAHU_LAYERS,
        "check_methods_subset_invariance": OAHU_LAYERS,
    },
}


def test_every_supervised_variant_is_checked():
    assert {type(e).__name__ for e in ESTIMATORS.values()} == set(ESTIMATORS)
    assert {f"{name}_Supervised" for name in sv.SUPERVISED} | {"LMNN", "OPML"} == set(ESTIMATORS)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_check_estimator(name):
    expected = EXPECTED_FAILURES.get(name, {})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(
            ESTIMATORS[name], on_fail=None, on_skip=None, expected_failed_checks=expected
        )
    unexpected = {
        r["check_name"]: repr(r["exception"])[:300] for r in results if r["status"] == "failed"
    }
    failed_as_expected = {r["check_name"] for r in results if r["status"] == "xfail"}
    assert not unexpected, f"{name}: unexpected failures {unexpected}"
    assert failed_as_expected == set(expected), (
        f"{name}: listed failures that now pass (drop them): "
        f"{sorted(set(expected) - failed_as_expected)}"
    )
    assert all(r["status"] in ("passed", "xfail") for r in results)


def test_the_check_estimator_list_in_the_docs_is_the_tests():
    """docs/library.md's table lists, per estimator, exactly the checks this module expects to
    fail, with their reason; every other estimator is in its "every check passes" row."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs/library.md").read_text()
    section = text.split("## scikit-learn's check_estimator", 1)[1].split("\n## ", 1)[0]
    rows = [r for r in section.splitlines() if r.startswith("| `")]
    for name in ESTIMATORS:
        (row,) = [r for r in rows if f"`{name}`" in r.split("|")[1]]
        listed = set(re.findall(r"`(check_\w+)`", row))
        expected = EXPECTED_FAILURES.get(name, {})
        assert listed == set(expected), (name, listed ^ set(expected))
        if expected:
            assert next(iter(expected.values())) in row, name
        else:
            assert "none: every check passes" in row, name
