"""figure_human_embedding (tripletbench.studies.human.maps): 2-D maps of one human-judgment set's
items under the Euclidean distance, the table's best learner row and an ordinal embedding.

Checks: the rows follow the table (best Euclidean and best learner row of protocol (a), the
first cblearn row as the ordinal one); the Procrustes alignment is a rotation or reflection
(distances within a map unchanged) that recovers a turned copy; a similarity's squared
distance; the ordinal fit's triplet convention on a hand-made 1-D case; the three maps on the
real material files at a tiny size; the "not run" figure offline."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import ROOT

from tests.pipeline import issue_mentions

MIRROR = ROOT.parent / "shared" / "mirror"
needs_mirror = pytest.mark.skipif(
    not (MIRROR / "SHA256SUMS").is_file(), reason="no data mirror beside the checkout"
)


def _pairwise(Y):
    return np.linalg.norm(Y[:, None] - Y[None], axis=-1)


def test_procrustes_alignment_is_a_rotation_that_recovers_a_turned_copy():
    from tripletbench.studies.human.maps import procrustes_align

    rng = np.random.default_rng(0)
    ref = rng.normal(size=(40, 2))
    a = 1.1
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) @ np.diag([1.0, -1.0])
    Y = ref @ R + np.array([5.0, -3.0])  # turned, reflected and moved
    got = procrustes_align(Y, ref)
    assert np.allclose(got, ref - ref.mean(axis=0))
    noisy = Y + rng.normal(scale=0.3, size=Y.shape)
    got = procrustes_align(noisy, ref)
    assert np.allclose(_pairwise(got), _pairwise(noisy))  # distances within the map unchanged
    assert np.allclose(got.mean(axis=0), 0.0)


def test_a_similarity_becomes_the_squared_distance_of_its_symmetric_part():
    from tripletbench.studies.human.maps import similarity_to_sq_distance

    rng = np.random.default_rng(1)
    X = rng.normal(size=(12, 4))
    L = rng.normal(size=(4, 4))
    W = L @ L.T  # positive semi-definite: exact
    D2 = similarity_to_sq_distance(X @ W @ X.T)
    diff = X[:, None] - X[None]
    assert np.allclose(D2, np.einsum("ijd,de,ije->ij", diff, W, diff))
    A = rng.normal(size=(4, 4))  # neither symmetric nor definite: its symmetric part, clipped
    D2 = similarity_to_sq_distance(X @ A @ X.T)
    assert (D2 >= 0).all() and np.allclose(D2, D2.T) and (np.diag(D2) == 0).all()
    Ws = (A + A.T) / 2
    want = np.maximum(np.einsum("ijd,de,ije->ij", diff, Ws, diff), 0)
    assert np.allclose(D2, want)


def test_the_ordinal_fit_reads_anchor_positive_negative_on_a_line():
    """Items at 0, 1, ..., 7 on a line; every answer "a is closer to b than to c" true there: a
    1-D embedding puts them in their order (up to a flip); the same answers read the other way
    round (a closer to c) do not."""
    from scipy.stats import spearmanr

    from tripletbench.studies.human.experiment import fit_ordinal_embedding

    x = np.arange(8.0)
    rng = np.random.default_rng(0)
    t = []
    for _ in range(300):
        a, b, c = rng.choice(8, 3, replace=False)
        if abs(x[a] - x[b]) != abs(x[a] - x[c]):
            t.append((a, b, c) if abs(x[a] - x[b]) < abs(x[a] - x[c]) else (a, c, b))
    t = np.array(t, dtype=np.int64)
    params = {"n_components": 1, "n_init": 2}
    Z, timing = fit_ordinal_embedding("cblearn.embedding.SOE", params, t, 8, 0)
    assert Z.shape == (8, 1) and Z.dtype == np.float64 and timing["fit_wall_s"] >= 0
    assert abs(spearmanr(Z[:, 0], x).statistic) > 0.95
    Z, _ = fit_ordinal_embedding("cblearn.embedding.SOE", params, t[:, [0, 2, 1]], 8, 0)
    assert abs(spearmanr(Z[:, 0], x).statistic) < 0.9
    with pytest.raises(KeyError, match="cblearn"):
        fit_ordinal_embedding("sklearn.manifold.MDS", {}, t, 8, 0)


def _table(hset="material"):
    """A table_human CSV's protocol (a) rows: hog beats global for Eucl, SDCA · global is the
    best learner row, SOE has its own row, a row of another set and a not-run row."""
    rows = [
        ("Eucl · global", 0.70, "ok"), ("Eucl · hog", 0.74, "ok"),
        ("OASIS · global", 0.60, "ok"), ("OASIS · hog", 0.58, "ok"),
        ("SDCA · global", 0.66, "ok"), ("SDCA · hog", np.nan, "needs download"),
        ("SOE", 0.71, "ok"), ("chance", 0.5, "ok"), ("ceiling", 0.84, "ok"),
    ]
    out = [{"protocol": "triplets", "dataset": f"{hset} (a)", "algorithm": a, "mean": m,
            "status": s} for a, m, s in rows]
    out.append({"protocol": "triplets", "dataset": "cars60 (a)", "algorithm": "OASIS · hog",
                "mean": 0.99, "status": "ok"})
    out.append({"protocol": "items", "dataset": f"{hset} (b)", "algorithm": "OASIS · hog",
                "mean": 0.98, "status": "ok"})
    return pd.DataFrame(out)


def _cfg(**extra):
    return {
        "features": ["global", "hog"], "normalize": "l2", "max_train_triplets": 200,
        "methods": {
            "OASIS": {"fixed": {"C": 0.1, "n_epochs": 1}},
            "SDCA": {"fixed": {"lam": 0.005, "n_epochs": 1}},
            "SOE": {"algorithm": "cblearn.embedding.SOE", "fixed": {"n_init": 1}},
        },
        **extra,
    }


def test_the_panels_follow_the_tables_protocol_a_rows():
    from tripletbench.studies.human.maps import DEFAULT_ORDINAL, choose

    eu, le, od = choose(_table(), "material", _cfg())
    assert (eu.method, eu.features, eu.accuracy) == ("Eucl", "hog", 0.74)
    assert (le.method, le.features, le.accuracy, le.algorithm) == ("SDCA", "global", 0.66, "SDCA")
    assert le.params == {"lam": 0.005, "n_epochs": 1}
    assert (od.method, od.algorithm, od.accuracy) == ("SOE", "cblearn.embedding.SOE", 0.71)
    assert od.params == {"n_init": 1, "n_components": 2}  # always fitted in 2-D
    cfg = _cfg()
    del cfg["methods"]["SOE"]
    _, _, od = choose(_table(), "material", cfg)
    assert (od.method, od.algorithm, od.accuracy) == (DEFAULT_ORDINAL[0], DEFAULT_ORDINAL[1], None)
    # no (a) number (protocol not run, or the set did not run): the config's first rows
    eu, le, _ = choose(_table().iloc[:0], "material", cfg)
    assert (eu.features, eu.accuracy, le.method, le.features) == ("global", None, "OASIS", "global")
    cfg["methods"] = {}
    assert choose(_table(), "material", cfg)[1] is None


def test_the_figures_set_must_be_one_of_the_sets():
    from tripletbench.harness.config import ConfigError
    from tripletbench.studies.human.config import _check_human

    with pytest.raises(ConfigError, match="human.embedding_figure.set"):
        _check_human({"sets": ["cars60"], "embedding_figure": {"set": "material"}, "methods": {}})
    _check_human({"sets": ["cars60"], "embedding_figure": {"set": None}, "methods": {}})


@pytest.mark.slow
@needs_mirror
def test_three_aligned_maps_of_the_material_items_from_the_mirror(tmp_path):
    """The real material answers and images at a tiny size (200 training answers, hog, one
    SOE start): three maps of the 100 items, each aligned to the first; the shares of answers
    kept are measured on all 104,692 answers; every item's thumbnail is drawn."""
    import matplotlib.pyplot as plt
    from matplotlib.offsetbox import AnnotationBbox

    from tripletbench.datasets import human_features as hf
    from tripletbench.datasets import material_similarity as material
    from tripletbench.evaluation.human_protocols import embedding_accuracy
    from tripletbench.studies.human.maps import (
        build_panels,
        choose,
        draw_maps,
        procrustes_align,
        thumbnails,
    )

    j = material.load_judgments(tmp_path / "cache", mirror=str(MIRROR))
    cfg = _cfg(features=["hog"])
    table = _table()
    table = table[~table.algorithm.str.endswith("global")]  # OASIS · hog is the best learner
    choices = choose(table, "material", cfg)
    assert [c.label for c in choices] == ["Eucl · hog", "OASIS · hog", "SOE"]
    panels = build_panels(j, {"hog": hf.item_features(j, "hog")}, choices, cfg, seed=0)
    assert len(panels) == 3
    for p in panels:
        assert p.Y.shape == (100, 2) and np.isfinite(p.Y).all()
        assert np.allclose(p.Y.mean(axis=0), 0.0, atol=1e-9)
        assert 0.5 < p.kept_map <= 1 and 0.4 < p.kept_distance <= 1
        # aligned: no other turn of the map brings it closer to the first
        assert np.allclose(procrustes_align(p.Y, panels[0].Y), p.Y, atol=1e-8)
        kept = embedding_accuracy(p.Y, j.triplets, j.counts)["triplet_accuracy"]
        assert p.kept_map == pytest.approx(kept, abs=1e-12)  # on all answers, by their counts
    assert panels[0].n_train == 0 and panels[1].n_train == panels[2].n_train == 200
    assert panels[1].kept_model is not None and panels[0].kept_model is None
    assert panels[0].kept_distance == pytest.approx(
        embedding_accuracy(hf.item_features(j, "hog") / np.linalg.norm(
            hf.item_features(j, "hog"), axis=1, keepdims=True), j.triplets, j.counts
        )["triplet_accuracy"], abs=1e-12)
    images = thumbnails(j, side=32)
    assert len(images) == 100 and max(images[0].shape[:2]) == 32
    fig, axes = plt.subplots(1, 3, figsize=(9, 3))
    draw_maps(axes, panels, images, 0.2)
    for ax in axes:
        assert sum(isinstance(a, AnnotationBbox) for a in ax.artists) == 100
    plt.close(fig)


@pytest.mark.slow
def test_offline_the_figure_says_not_run(tmp_path):
    """The embedded route plans no human job: the figure's three panels say why, its caption
    too, and no caption names an issue."""
    cfg = {
        "data": {"route": "embedded", "cache_dir": str(tmp_path / "cache")},
        "results_dir": str(tmp_path / "results"),
        "figures_dir": str(tmp_path / "results/figures"),
        "human": {"sets": ["material", "cars60"], "features": ["hog"], "seeds": [0],
                  "protocols": ["triplets"], "n_splits": 2,
                  "methods": {"OASIS": {"fixed": {"C": 0.1, "n_epochs": 1}}},
                  "embedding_figure": {"set": "cars60"}},
    }
    path = tmp_path / "offline.yaml"
    path.write_text(yaml.safe_dump(cfg))
    cmd = [sys.executable, "-m", "snakemake", "figure_human_embedding", "--configfile",
           str(path), "--cores", "1", "--nolock"]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, (res.stdout + res.stderr)[-6000:]
    out = tmp_path / "results/figures"
    md = (out / "figure_human_embedding.md").read_text()
    assert "Not run: cars60 (needs download)" in md
    assert "60 cars (Kleindessner & von Luxburg 2017)" in md
    for ext in ("png", "pdf"):
        assert (out / f"figure_human_embedding.{ext}").stat().st_size > 0
    assert not (tmp_path / "results/human/cells").exists()
    assert issue_mentions(tmp_path / "results") == []
