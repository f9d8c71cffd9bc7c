"""Ordinal embeddings from cblearn as feature-free rows of the human-judgment table
(:func:`tripletbench.studies.human.experiment.fit_ordinal_embedding`, :func:`~tripletbench.studies.human.experiment.cell_rows`,
:func:`tripletbench.studies.human.config.check_ordinal_embedding`): cblearn's triplet convention on items
on a line, a row without features (n/a on held-out items, scored on (a), (c), (d)), the start-up
check of a misspelt class or hyperparameter, reproducibility, and one fit on the real material
answers (skipped where no mirror stands beside the checkout)."""

import itertools
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import ROOT

from tripletbench.studies.human import experiment as human

MIRROR = ROOT.parent / "shared" / "mirror"
SOE = "cblearn.embedding.SOE"
GNMDS = "cblearn.embedding.GNMDS"

# eight items on a line at unequal gaps; every ordered triplet (anchor, positive, negative) with
# the anchor strictly closer to the positive: 164 of the 336
LINE = np.array([0.0, 1, 2, 4, 7, 11, 16, 22])
ON_LINE = np.array(
    [
        (i, j, k)
        for i, j, k in itertools.permutations(range(len(LINE)), 3)
        if abs(LINE[i] - LINE[j]) < abs(LINE[i] - LINE[k])
    ]
)


def _right(E, t):
    """Share of triplets (anchor, positive, negative) whose anchor is strictly nearer the positive."""
    D = human.item_scores(E, E)[0]
    return float(np.mean(D[t[:, 0], t[:, 1]] < D[t[:, 0], t[:, 2]]))


def test_cblearn_reads_a_row_as_anchor_closer_to_positive_than_to_negative():
    """Our rows are (anchor, positive, negative), "anchor closer to positive"; cblearn's
    ``list-order`` row (i, j, k) means d(i, j) < d(i, k): the same order. A 1-d embedding of
    the line's 164 true triplets orders every one of them right (the line recovered up to a
    flip: read the other way round, no embedding could); fitted on the same rows with positive
    and negative swapped (a set no line satisfies) it gets most true triplets wrong (measured
    0.34 right) and most swapped rows right."""
    E, timing = human.fit_ordinal_embedding(GNMDS, {"n_components": 1}, ON_LINE, len(LINE), 0)
    assert E.shape == (len(LINE), 1) and E.dtype == np.float64
    assert set(timing) == {"fit_wall_s", "fit_cpu_s"}
    assert _right(E, ON_LINE) == 1.0
    assert abs(np.corrcoef(E[:, 0], LINE)[0, 1]) > 0.95
    swapped = ON_LINE[:, [0, 2, 1]]
    E_swapped, _ = human.fit_ordinal_embedding(GNMDS, {"n_components": 1}, swapped, len(LINE), 0)
    assert _right(E_swapped, ON_LINE) < 0.5 < _right(E_swapped, swapped)
    # SOE (its own loss, its own restarts) agrees on the convention
    E_soe, _ = human.fit_ordinal_embedding(
        SOE, {"n_components": 1, "n_init": 2}, ON_LINE, len(LINE), 0
    )
    assert _right(E_soe, ON_LINE) == 1.0


def test_an_item_in_no_training_answer_still_gets_a_position():
    """``n_objects`` = the set's items: an item that no training answer names (item 9 of 10)
    still has a row of the embedding, so a test answer naming it can be scored."""
    t = ON_LINE[(ON_LINE < 8).all(axis=1)]
    E, _ = human.fit_ordinal_embedding(GNMDS, {"n_components": 2}, t, 10, 0)
    assert E.shape == (10, 2) and np.isfinite(E).all()
    with pytest.raises(ValueError, match="outside"):
        human.fit_ordinal_embedding(GNMDS, {"n_components": 2}, t, 5, 0)


def test_the_same_seed_gives_the_same_embedding():
    """One seed, one embedding (``random_state`` from the cell's seed); another seed starts
    elsewhere."""
    args = (SOE, {"n_components": 2, "n_init": 2}, ON_LINE, len(LINE))
    a, _ = human.fit_ordinal_embedding(*args, seed=3)
    b, _ = human.fit_ordinal_embedding(*args, seed=3)
    c, _ = human.fit_ordinal_embedding(*args, seed=4)
    assert np.array_equal(a, b)
    assert not np.allclose(a, c)
    with pytest.raises(ValueError, match="random_state"):
        human.fit_ordinal_embedding(SOE, {"random_state": 1}, ON_LINE, len(LINE), 0)


def _cfg(methods):
    return {"protocols": ["triplets", "items", "curve", "publisher"], "n_splits": 2,
            "methods": methods}


def test_a_feature_free_row_is_na_on_held_out_items_and_scored_on_a_c_and_d():
    """:func:`~tripletbench.studies.human.experiment.cell_rows` of an ordinal-embedding row: fitted once per fold
    (not per feature set), rows with ``features`` "" on (a), (c) and (d) and none on (b); the
    table's status (:func:`~tripletbench.studies.human.experiment.table_status` with the config's
    :func:`~tripletbench.studies.human.experiment.feature_free_rows`) says n/a on every (b) column only."""
    methods = {
        "OASIS": {"fixed": {"C": 0.1, "n_epochs": 1}},
        "GNMDS": {"algorithm": GNMDS, "fixed": {"n_components": 1}},
    }
    assert human.feature_free_rows(methods) == ["GNMDS"]
    assert human.is_feature_free(methods["GNMDS"]) and not human.is_feature_free(methods["OASIS"])
    judgments = SimpleNamespace(items=list(range(len(LINE))), counts=None, triplets=ON_LINE)
    tests = {"answers": (ON_LINE, None)}
    folds = [
        ("triplets", "0", ON_LINE, tests),
        ("curve", "0", ON_LINE[::4], tests),
        ("items", "0", ON_LINE, tests),
        ("publisher", "publisher", ON_LINE, {**tests, "majority": (ON_LINE[:20], None)}),
    ]
    features = {"global": np.eye(len(LINE)), "hog": np.eye(len(LINE))[:, ::-1]}
    rows = human.cell_rows(judgments, features, _cfg(methods), "GNMDS", 0, folds)
    assert set(rows.protocol) == {"triplets", "curve", "publisher"}  # not (b)
    assert set(rows.features) == {""} and set(rows.method) == {"GNMDS"}
    assert len(rows) == 4  # (a), (c), (d) answers and majority: one row each, no feature sets
    assert (rows[rows.protocol == "triplets"].value == 1.0).all()  # the line, recovered
    assert (rows.fit_s > 0).all() and set(rows.metric) == {"triplet_accuracy"}
    # the learner row is per feature set and on (b) too
    learner = human.cell_rows(judgments, features, _cfg(methods), "OASIS", 0, folds)
    assert "items" in set(learner.protocol) and set(learner.features) == {"global", "hog"}
    cols = ["material (a)", "material (b)", "cars60 (b)", "material (d) answers"]
    table_rows = ["Eucl · hog", "OASIS · hog", "GNMDS", "chance", "ceiling"]
    st = human.table_status(cols, table_rows, {}, human.feature_free_rows(methods))
    na = "n/a (no feature map: cannot place a held-out item)"
    assert st[("material (b)", "GNMDS")] == na and st[("cars60 (b)", "GNMDS")] == na
    assert ("material (a)", "GNMDS") not in st and ("material (d) answers", "GNMDS") not in st
    assert ("material (b)", "OASIS · hog") not in st


@pytest.mark.parametrize(
    "row, needle",
    [
        ({"algorithm": "cblearn.embedding.SOEE"}, r"human\.methods\.E\.algorithm: cannot import"),
        ({"algorithm": "cblearn.embeding.SOE"}, r"human\.methods\.E\.algorithm: cannot import"),
        ({"algorithm": "cblearn.embedding.MLDS"}, r"E\.algorithm: .*no n_objects"),
        ({"algorithm": "cblearn.cluster.ComparisonHC"}, r"E\.algorithm: .*not a cblearn triplet"),
        ({"algorithm": SOE, "fixed": {"n_component": 2}}, r"E\.fixed\.n_component: .*has no hyper"),
        ({"algorithm": SOE, "fixed": {"random_state": 2}}, r"E\.fixed\.random_state: set by"),
        ({"algorithm": SOE, "fixed": {"n_components": 0}}, r"E\.fixed: .*trial fit.*n_components"),
        ({"algorithm": SOE, "fixed": {"backend": "numpy"}}, r"E\.fixed: .*trial fit.*backend"),
    ],
)
def test_a_misspelt_embedding_class_or_hyperparameter_is_refused_at_start_up(row, needle):
    """:func:`tripletbench.harness.config.check_config` (through ``_check_human``, before any job):
    an ordinal-embedding row is not a metric learner (``check_evaluable`` would refuse it) and
    has its own check, naming the key: a class that cannot be imported or cannot place every
    item, a hyperparameter the class lacks, ``random_state`` (set from the seed), and settings
    that cblearn's own fit refuses (a trial fit, iterations capped)."""
    from tripletbench.harness.config import ConfigError
    from tripletbench.studies.human.config import _check_human

    with pytest.raises(ConfigError, match=needle):
        _check_human({"methods": {"E": {"fixed": {}, **row}}})


def test_a_jobs_own_process_leaves_the_library_checks_to_the_main_process():
    """``check_config(config, libraries=False)`` (the Snakefile passes it in a job's process):
    nothing is imported, so a misspelt class passes there (the run's main process refused it
    before any job); ``random_state`` is still refused."""
    from tripletbench.harness.config import ConfigError
    from tripletbench.studies.human.config import _check_human

    _check_human({"methods": {"E": {"algorithm": "cblearn.embedding.SOEE"}}}, libraries=False)
    with pytest.raises(ConfigError, match="random_state"):
        _check_human(
            {"methods": {"E": {"algorithm": SOE, "fixed": {"random_state": 0}}}}, libraries=False
        )


@pytest.mark.skipif(
    not (MIRROR / "SHA256SUMS").is_file(), reason="no data mirror beside the checkout"
)
def test_an_embedding_of_the_real_material_answers_scores_well_above_chance(tmp_path):
    """STE in 2-d, trained on 2,000 answers of the material set's (a) fold 0 (5 folds grouped by
    question, seed 0), scored on that whole test fold (every answer once, ties half): chance is
    0.5, the test answers' human ceiling 0.838."""
    from tripletbench.evaluation.human_protocols import human_ceiling

    j = human.load("material", tmp_path, str(MIRROR))
    cfg = {"protocols": ["triplets"], "n_splits": 5, "group_by": "unit", "max_train_triplets": 2000}
    folds, _ = human.splits(j, cfg, 0)
    _, _, train, tests = folds[0]
    tt, w = tests["answers"]
    assert len(train) == 2000 and len(j.items) == 100
    E, timing = human.fit_ordinal_embedding(
        "cblearn.embedding.STE", {"n_components": 2}, train, len(j.items), 0
    )
    got = human._accuracy(human.item_scores(E, E), tt, w)["triplet_accuracy"]
    ceiling = human_ceiling(tt, w)["ceiling"]
    print(f"\nSTE 2-d on 2,000 material answers: test accuracy {got:.4f} (ceiling {ceiling:.4f}), "
          f"fit {timing['fit_cpu_s']:.2f} s CPU")
    assert got > 0.65, f"measured 0.7250 on 2026-11-26 (chance 0.5, ceiling 0.838); got {got:.4f}"
