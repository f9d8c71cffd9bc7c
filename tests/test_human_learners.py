"""The human-judgment table's learner rows (``config/default.yaml``, ``human.methods``): every row
that is fitted learns from people's answers with no class labels (the material mirror files: a
few hundred answers of one fold), a row's ``features`` restricts the feature sets it is fitted
on (the table says n/a with its reason elsewhere; a feature set the block does not compute is
refused at start-up), a row with ``not_run`` (OPML, which needs class labels) is one n/a row
and is never fitted, and a learning-curve point a learner refuses (SCML: fewer answers than
features) is a row without a value instead of a failed cell."""

import numpy as np
import pytest
import yaml
from conftest import ROOT

MIRROR = ROOT.parent / "shared" / "mirror"
needs_mirror = pytest.mark.skipif(
    not (MIRROR / "SHA256SUMS").is_file(), reason="no data mirror beside the checkout"
)
DEFAULT = yaml.safe_load((ROOT / "config/default.yaml").read_text())["human"]
FITTED = [m for m, mcfg in DEFAULT["methods"].items() if not mcfg.get("not_run")]
N_TRAIN = 300  # answers per fit: above every row's needs (SCML: at least as many as features)


@pytest.fixture(scope="module")
def material(tmp_path_factory):
    """Material's judgments from the mirror, HOG at 16 px (36-d: every row, SCML with its
    80 d basis included, fits in seconds; the table's HOG is 64 px, 1,764-d), and protocol (a)'s
    first fold of a 2-fold split with at most N_TRAIN training answers."""
    from tripletbench.datasets import human_features as hf
    from tripletbench.studies.human import experiment as human

    j = human.load("material", tmp_path_factory.mktemp("cache"), str(MIRROR))
    X = human.normalize(hf.item_features(j, "hog", size=16), "l2")
    cfg = {"protocols": ["triplets"], "n_splits": 2, "max_train_triplets": N_TRAIN}
    folds, _ = human.splits(j, cfg, 0)
    return j, X, folds[:1]


def test_the_default_rows_are_every_triplet_learner_of_the_project():
    """The rows the table has: OASIS, its variants, SDCA, SVM-relative, COMET, OAHU, the pair
    learners LEGO and RDML, SCML (metric-learn) and OPML shown as not run; the restricted rows
    name feature sets of human.features and say why."""
    methods = DEFAULT["methods"]
    for row in ("OASIS", "OASIS-sym", "OASIS-psd-end", "Dissim-OASIS", "SDCA", "SVM-relative",
                "COMET", "OAHU", "LEGO", "RDML", "OPML", "SCML"):
        assert row in methods, row
    assert methods["SCML"]["algorithm"] == "metric_learn.SCML"
    assert list(methods)[:2] == ["OASIS", "SDCA"]  # the first rows stay as they were
    assert methods["OPML"]["not_run"].startswith("needs class labels")
    for m, mcfg in methods.items():
        if "features" in mcfg:
            assert set(mcfg["features"]) <= set(DEFAULT["features"]) and mcfg["features_reason"]


@needs_mirror
@pytest.mark.parametrize("method", FITTED)
def test_every_fitted_row_learns_from_the_material_answers(material, method):
    """Each row as configured (its fixed settings, algorithm, constraint conversion; its
    feature restriction lifted: the test's one feature set is HOG at 16 px) fits on the first
    fold's training answers with no labels and scores the whole test fold: a finite accuracy
    in (0, 1), one row per scoring."""
    from tripletbench.studies.human import experiment as human

    j, X, folds = material
    row = {k: v for k, v in DEFAULT["methods"][method].items()
           if k not in ("features", "features_reason")}
    cfg = {"methods": {method: row}}
    rows = human.cell_rows(j, {"hog": X}, cfg, method, 0, folds)
    assert len(rows) == 1 and rows.n_train.iloc[0] == N_TRAIN, rows
    value = float(rows.value.iloc[0])
    assert np.isfinite(value) and 0.0 < value < 1.0, (method, value)
    assert rows.fit_s.iloc[0] > 0
    print(f"{method}: triplet accuracy {value:.4f}, fit {rows.fit_s.iloc[0]:.2f} s")


@needs_mirror
def test_opml_forms_no_triplet_from_the_answers_its_row_says_why(material):
    """The measured reason of OPML's not_run: fitted as the harness fits a label learner (the
    items of the training answers with their labels, here one class), its one-pass
    construction forms no triplet."""
    from tripletbench.datasets.base import DataError
    from tripletbench.harness.experiment import fit_learner

    j, X, folds = material
    train = folds[0][2]
    with pytest.raises(DataError, match="forms no triplet"):
        fit_learner("OPML", {"gamma": 1e-3}, train, X, np.zeros(len(X), int), 0, verbose=False)


def _toy():
    from types import SimpleNamespace

    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 12))
    t = np.array([rng.choice(20, 3, replace=False) for _ in range(90)], dtype=np.int64)
    tests = {"answers": (t[60:], None)}
    folds = [("triplets", "0", t[:60], tests), ("curve", "0", t[:5], tests)]
    return SimpleNamespace(counts=None), {"a": X, "b": X[:, :6]}, folds


def test_a_row_restricted_to_some_feature_sets_is_fitted_on_those_only():
    """cell_rows fits a row with features: [b] on b only (no row for a; the Euclidean cell
    keeps every feature set); a curve point the learner refuses (SCML: 5 answers, 12 features)
    is a row with no value and its error, while a refusal on (a) stops the cell."""
    from tripletbench.studies.human import experiment as human

    j, features, folds = _toy()
    cfg = {"methods": {"OASIS": {"fixed": {"n_epochs": 1}, "features": ["b"],
                                 "features_reason": "test"},
                       "SCML": {"algorithm": "metric_learn.SCML",
                                "fixed": {"max_iter": 200, "output_iter": 100}}}}
    rows = human.cell_rows(j, features, cfg, "OASIS", 0, folds)
    assert set(rows.features) == {"b"} and rows.value.notna().all()
    eucl = human.cell_rows(j, features, cfg, human.EUCLIDEAN, 0, folds)
    assert {"a", "b"} <= set(eucl.features)
    scml = human.cell_rows(j, {"a": features["a"]}, cfg, "SCML", 0, folds)
    curve = scml[scml.protocol == "curve"]
    assert len(curve) == 1 and curve.value.isna().all()
    assert "greater than the number of triplets" in curve.error.iloc[0]
    assert scml[scml.protocol == "triplets"].value.notna().all()
    with pytest.raises(ValueError, match="greater than the number of triplets"):
        human.cell_rows(j, {"a": features["a"]}, cfg, "SCML", 0,
                        [("triplets", "0", folds[1][2], folds[1][3])])


def test_restricted_and_not_run_rows_are_na_in_the_table_with_their_reason():
    """table_status with not_run_status: a restricted row is n/a on the other feature sets of
    every set that ran, with its reason; a not_run row is one row, n/a in every column; a set
    that did not run keeps its own reason; ingredients stays Food-100's."""
    from tripletbench.studies.human.experiment import not_run_status, row_name, table_status

    methods = {
        "OASIS": {},
        "COMET": {"features": ["global", "ingredients"], "features_reason": "slow at 1,764-d"},
        "OPML": {"not_run": "needs class labels"},
    }
    feats = ["global", "hog", "ingredients"]
    nr = not_run_status(methods, feats)
    assert nr == {"COMET · hog": "n/a (not run on this feature set: slow at 1,764-d)",
                  "OPML": "n/a (needs class labels)"}
    rows = [row_name(m, f) for m in ("OASIS", "COMET") for f in feats] + ["OPML", "chance"]
    cols = ["material (a)", "food100 (a)", "cars60 (b)", "material (d) majority"]
    st = table_status(cols, rows, {"cars60": "needs download"}, not_run=nr)
    for col in ("material (a)", "food100 (a)", "material (d) majority"):
        assert st[(col, "COMET · hog")] == nr["COMET · hog"]
        assert st[(col, "OPML")] == "n/a (needs class labels)"
        assert (col, "COMET · global") not in st and (col, "OASIS · hog") not in st
    assert st[("material (a)", "COMET · ingredients")] == "n/a (Food-100 only)"
    assert ("food100 (a)", "COMET · ingredients") not in st
    assert st["cars60 (b)"] == "needs download"


@pytest.mark.parametrize(
    "row, needle",
    [
        ({"features": ["sift"], "features_reason": "x"}, r"OASIS.features: 'sift' not in human.features"),
        ({"features": ["ingredients"], "features_reason": "x"},
         r"'ingredients' not in human.features \['global', 'hog'\]"),
        ({"features": ["global"]}, "features without features_reason"),
        ({"features_reason": "x"}, "features_reason without features"),
        ({"algorithm": "OPML"}, "learns from labels.*not_run"),
        ({"algorithm": "OPML", "not_run": "x", "features": ["global"],
          "features_reason": "x"}, "not_run and features"),
    ],
)
def test_a_feature_restriction_the_block_cannot_honour_is_refused_at_start_up(row, needle):
    """studies.human.config._check_human (run by check_config before any job): a row's features
    must be feature sets of human.features and come with features_reason; a label learner
    needs not_run."""
    from tripletbench.harness.config import ConfigError
    from tripletbench.studies.human.config import _check_human

    block = {"features": ["global", "hog"], "methods": {"OASIS": row}}
    with pytest.raises(ConfigError, match=needle):
        _check_human(block)
    _check_human({"features": ["global", "hog"],
                  "methods": {"OASIS": {"features": ["hog"], "features_reason": "x"},
                              "OPML": {"not_run": "needs class labels"}}})


def test_the_schema_refuses_an_unknown_feature_set_on_a_row_and_accepts_the_defaults():
    """The shipped default's rows validate; a row naming a feature set that does not exist is
    refused by the schema, a known one outside human.features by check_config (start-up)."""
    from snakemake.utils import validate

    from tripletbench.harness.config import ConfigError, check_config, schema_file

    cfg = yaml.safe_load((ROOT / "config/default.yaml").read_text())
    validate(cfg, schema_file())
    check_config(cfg)
    bad = yaml.safe_load((ROOT / "config/default.yaml").read_text())
    bad["human"]["methods"]["COMET"]["features"] = ["sift"]
    with pytest.raises(Exception, match="sift"):
        validate(bad, schema_file())
    bad = yaml.safe_load((ROOT / "config/default.yaml").read_text())
    bad["human"]["features"] = ["hog"]
    with pytest.raises(ConfigError, match=r"human.methods.\S+.features: 'global'.* not in "
                       r"human.features \['hog'\]"):
        check_config(bad)
