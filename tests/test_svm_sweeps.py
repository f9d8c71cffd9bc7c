"""The sweeps around Schultz & Joachims' Table 1 (tripletbench.studies.svm.sweeps): the variants a config
names, their settings, the rule that ranks the page readings (mean distance to the paper's six
learned and Binary cells, computed by hand here), the readings table's text, and the robust axis
limits of the MDS panels (tripletbench.harness.plots.robust_limits)."""

import numpy as np
import pandas as pd
import pytest

from tripletbench.studies.svm import sweeps as svm_sweeps
from tripletbench.harness.plots import robust_limits
from tripletbench.studies.svm.rows import readings_markdown

pytestmark = pytest.mark.slow  # runs the workflow: not in the fast subset (-m "not slow")

SVM = {
    "C": 1.0,
    "kernel": {"n_train_triplets": 300, "gamma": None, "solver": "CLARABEL"},
    "mds": {"notion": "webkb_topic", "notion_c": "webkb_topic_facultystudent", "seed": 0},
    "text_features": {"reading": "whole_page", "lowercase": True, "scale": "unit"},
    "static_preprocessing": ["none", "stop"],
    "n_train_triplets": [1000, 2000],
    "n_test_triplets": 500,
    "readings": {
        "readings": ["visible_text", "whole_page"],
        "lowercase": [True, False],
        "scales": ["none", "unit"],
        "n_train_triplets": {"none": 200, "unit": 2000},
        "notions": ["webkb_topic", "webkb_university"],
        "seeds": [0, 1],
    },
    "c_sweep": {"C": {"none": [0.01, 1], "unit": [1, 100]}, "notion": "reuters_topic", "seeds": [3]},
}
PAPER = pd.DataFrame(
    [
        ("webkb_university", "SVM-relative", 0.9843),
        ("webkb_university", "Binary", 0.6788),
        ("webkb_university", "TFIDF", 0.8072),
        ("webkb_topic", "SVM-relative", 0.7540),
        ("webkb_topic", "Binary", 0.6182),
        ("webkb_topic", "TFIDF", 0.5557),
    ],
    columns=["notion", "method", "value"],
)


def test_each_sweep_names_its_variants_and_overrides_only_what_it_varies():
    readings = svm_sweeps.variants(SVM, "readings")
    assert len(readings) == 2 * 2 * 2
    v = readings["visible_text-case-none"]
    assert v["text_features"] == {"reading": "visible_text", "lowercase": False, "scale": "none"}
    assert v["n_train_triplets"] == [200] and readings["whole_page-lower-unit"]["n_train_triplets"] == [2000]
    assert v["kernel"]["n_train_triplets"] is None  # no kernel row in a sweep
    cs = svm_sweeps.variants(SVM, "c_sweep")
    assert sorted(cs) == ["C0.01-none", "C1-none", "C1-unit", "C100-unit"]
    assert cs["C0.01-none"]["C"] == 0.01
    assert cs["C0.01-none"]["text_features"] == {**SVM["text_features"], "scale": "none"}
    assert cs["C0.01-none"]["static_preprocessing"] == ["none"]
    merged = svm_sweeps.variant_config(SVM, "c_sweep", "C100-unit")
    assert merged["C"] == 100.0 and merged["n_train_triplets"] == SVM["n_train_triplets"]
    assert merged["mds"]["notion"] is None and SVM["mds"]["notion"] == "webkb_topic"  # no copy bug
    assert svm_sweeps.cells(SVM, "c_sweep") == [(v, "reuters_topic", 3) for v in cs]
    assert len(svm_sweeps.cells(SVM, "readings")) == 8 * 2 * 2
    assert svm_sweeps.variants({**SVM, "readings": None}, "readings") == {}
    with pytest.raises(KeyError, match="no variant 'C2-none'"):
        svm_sweeps.variant_config(SVM, "c_sweep", "C2-none")
    with pytest.raises(ValueError, match="unknown svm sweep"):
        svm_sweeps.variants(SVM, "kernels")


def _runs():
    """Two reading variants x two notions x two seeds of hand-made cell rows."""
    rows = []
    acc = {  # (variant, notion, method, preprocessing) -> accuracy on seeds 0 and 1
        ("a", "webkb_topic", "SVM-relative", "A = I"): (0.74, 0.76),
        ("a", "webkb_topic", "Binary", "none"): (0.60, 0.62),
        ("a", "webkb_topic", "Binary", "stop"): (0.70, 0.50),  # mean 0.60 < 0.61: none is best
        ("a", "webkb_topic", "TFIDF", "none"): (0.55, 0.55),
        ("a", "webkb_university", "SVM-relative", "A = I"): (0.98, 0.98),
        ("a", "webkb_university", "Binary", "none"): (0.66, 0.68),
        ("b", "webkb_topic", "SVM-relative", "A = I"): (0.70, 0.70),
        ("b", "webkb_topic", "Binary", "none"): (0.50, 0.50),
        ("b", "webkb_university", "SVM-relative", "A = I"): (0.90, 0.92),
        ("b", "webkb_university", "Binary", "stop"): (0.60, 0.60),
    }
    for (v, notion, method, pre), values in acc.items():
        for seed, a in enumerate(values):
            rows.append({
                "sweep_variant": v, "reading": {"a": "whole_page", "b": "visible_text"}[v],
                "lowercase": True, "scale": {"a": "unit", "b": "none"}[v],
                "n_features": {"a": 900, "b": 500}[v], "seed": seed, "notion": notion,
                "method": method, "variant": pre, "triplet_accuracy": a,
                "n_train_triplets": 1000 if method == "SVM-relative" else 0,
                "solve_s": 2.0 if method == "SVM-relative" else np.nan,
            })  # fmt: skip
    return pd.DataFrame(rows)


def test_the_reading_rule_is_the_mean_distance_over_the_learned_and_binary_cells():
    table = svm_sweeps.summarise_readings(_runs(), PAPER)
    a = table.set_index("variant").loc["a"]
    # |75.0 - 75.40|, |61.0 - 61.82|, |98.0 - 98.43|, |67.0 - 67.88|: TFIDF is not in the rule
    assert a.paper_distance == pytest.approx((0.40 + 0.82 + 0.43 + 0.88) / 4)
    assert a["webkb_topic:Binary:variant"] == "none" and a["webkb_topic:Binary"] == pytest.approx(0.61)
    assert a.n_features == 900 and a.n_train_triplets == 1000 and a.n_seeds == 2
    b = table.set_index("variant").loc["b"]
    assert b.paper_distance == pytest.approx((5.40 + 11.82 + 7.43 + 7.88) / 4)
    assert list(table["variant"]) == ["a", "b"] and list(table["rank"]) == [1, 2]
    assert np.isnan(svm_sweeps.paper_distance({}, PAPER))


def test_the_readings_table_says_which_reading_the_rule_picks_and_where_the_default_ranks():
    table = svm_sweeps.summarise_readings(_runs(), PAPER)
    table["default"] = table.variant == "b"  # a configuration that did not follow the rule
    full = "\n".join(readings_markdown(table, PAPER, SVM, full=True))
    assert "The rule picks: whole_page, lower-cased, scale unit." in full
    assert "The configuration's default is rank 2, not the rule's pick." in full
    assert "| 1 | whole_page | lower | unit | 900 | 1,000 | 2 | 98.00 | 75.00 | – |" in full
    assert "| paper |" in full and "98.43" in full and "C = 1 (as the paper)" in full
    assert "61.00 [none]" in full  # the static baseline's best variant, named
    compact = "\n".join(readings_markdown(table, PAPER, SVM, full=False))
    assert "TFIDF" not in compact.split("\n| rank")[1]  # the compact version: learned and Binary
    empty = readings_markdown(table.iloc[:0], PAPER, SVM, full=True)
    assert any(line.startswith("Not run: the sweep needs the WebKB pages") for line in empty)


def test_robust_limits_keep_one_outlier_from_squashing_the_rest():
    rng = np.random.default_rng(0)
    x = np.append(rng.normal(size=999), -76.0)
    (lo, hi), out = robust_limits(x)
    assert out.sum() == 1 and out[-1] and -5 < lo < -2 and 2 < hi < 5
    (lo, hi), out = robust_limits(rng.normal(size=1000))  # no outlier: every point inside
    assert not out.any()
    (lo, hi), out = robust_limits(np.zeros(5))  # a constant coordinate still gets a range
    assert lo < 0 < hi and not out.any()
