"""Issue 38, the pipeline's first slice: target ``table_human`` on a tiny config with the data
mirror beside the checkout (``../shared/mirror``): every set through the download route's mirror
layout, one feature set, 2 folds, 1 seed, a few hundred training answers per fold.

Checks the table's rows: the Euclidean distance and each learner on every set, chance at 0.5,
the material ceiling equal to :func:`tripletbench.evaluation.human_protocols.human_ceiling` of the same test
answers, and the offline default's "needs download" (no cell planned)."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import ROOT

MIRROR = ROOT.parent / "shared" / "mirror"
needs_mirror = pytest.mark.skipif(
    not (MIRROR / "SHA256SUMS").is_file(), reason="no data mirror beside the checkout"
)
SETS = ["material", "cars60", "food100"]


def _config(tmp_path, route="download"):
    cfg = {
        "data": {"route": route, "cache_dir": str(tmp_path / "cache")},
        "results_dir": str(tmp_path / "results"),
        "figures_dir": str(tmp_path / "results/figures"),
        "human": {
            "sets": SETS,
            "features": ["hog"],
            "protocols": ["triplets", "publisher"],
            "n_splits": 2,
            "seeds": [0],
            "max_train_triplets": 300,
            "methods": {
                "OASIS": {"fixed": {"C": 0.1, "n_epochs": 1}},
                "SDCA": {"fixed": {"lam": 0.005, "n_epochs": 1}},
            },
        },
    }
    if route == "download":
        cfg["data"]["mirror"] = str(MIRROR)
    path = tmp_path / "human.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _snakemake(configfile, *extra, timeout=600):
    cmd = [sys.executable, "-m", "snakemake", "table_human", "--configfile", str(configfile),
           "--cores", "1", "--nolock", *extra]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, f"snakemake failed:\n{(res.stdout + res.stderr)[-6000:]}"
    return res.stdout + res.stderr


@needs_mirror
def test_table_human_on_the_mirror_has_every_row(tmp_path):
    from tripletbench.datasets import material_similarity as material
    from tripletbench.evaluation.human_protocols import human_ceiling, publisher_split, question_ids, triplet_folds

    _snakemake(_config(tmp_path))
    out = tmp_path / "results/tables"
    table = pd.read_csv(out / "human_table.csv")
    md = (out / "human_table.md").read_text()
    a = table[table.protocol == "triplets"].set_index(["dataset", "algorithm"])
    for s in SETS:
        col = f"{s} (a)"
        for row in ("Eucl · hog", "OASIS · hog", "SDCA · hog"):
            r = a.loc[(col, row)]
            assert r.status == "ok" and r.n_seeds == 2, (col, row)
            assert 0.5 < r["mean"] < 1.0, (col, row, r["mean"])  # people's answers are learnable
        assert a.loc[(col, "chance")]["mean"] == 0.5
        if s != "material":
            assert a.loc[(col, "ceiling")].status.startswith("n/a")
    # the ceiling of material's (a) folds: human_ceiling of each test fold's answers
    j = material.load_judgments(tmp_path / "cache", mirror=str(MIRROR))
    prot = triplet_folds(len(j.triplets), 2, 0, groups=question_ids(j.triplets))
    want = [human_ceiling(j.triplets[s.test], j.counts[s.test])["ceiling"] for s in prot]
    assert a.loc[("material (a)", "ceiling")]["mean"] == pytest.approx(np.mean(want), abs=1e-12)
    # (d): the publisher's split, its ceiling the test answers' (0.838 on the real answers)
    d = table[table.protocol == "publisher"].set_index(["dataset", "algorithm"])
    ceiling = publisher_split(j)["ceiling"]["ceiling"]
    assert d.loc[("material (d) answers", "ceiling")]["mean"] == pytest.approx(ceiling, abs=1e-12)
    assert round(ceiling, 3) == 0.838
    for col in ("material (d) answers", "material (d) majority"):
        assert d.loc[(col, "chance")]["mean"] == 0.5
        for row in ("Eucl · hog", "OASIS · hog", "SDCA · hog"):
            assert d.loc[(col, row)].status == "ok"
    assert "ties" in md and "ceiling" in md and "No paper number" in md
    assert "Protocol (d), material" in md
    runs = pd.read_csv(tmp_path / "results/human/all_runs.csv", dtype={"settings_hash": str})
    assert {"set", "protocol", "fold", "method", "features", "metric", "value", "seed", "fit_s",
            "settings_hash"} <= set(runs.columns)
    assert set(runs.metric) == {"triplet_accuracy"}
    print(md)


def test_table_human_offline_says_needs_download(tmp_path):
    """The embedded route plans no human cell: every set "needs download", and the run passes."""
    _snakemake(_config(tmp_path, route="embedded"))
    table = pd.read_csv(tmp_path / "results/tables/human_table.csv")
    assert len(table) and set(table.status) == {"needs download"}
    assert not (tmp_path / "results/human/cells").exists()


def test_the_pair_table_scores_as_the_learners_pair_score_and_answers_repeat_by_count():
    """tripletbench.harness.human scores a learner from one item-pair table (its ranking score): the same
    accuracy as tripletbench.evaluation.human_protocols.learner_accuracy; the Euclidean table gives
    embedding_accuracy's; a training row with answer count c is c training triplets."""
    from tripletbench.evaluation.human_protocols import embedding_accuracy, learner_accuracy
    from tripletbench.harness import human
    from tripletbench.harness.experiment import fit_learner

    rng = np.random.default_rng(0)
    X = human.normalize(rng.normal(size=(30, 6)), "l2")
    t = np.array([rng.choice(30, 3, replace=False) for _ in range(400)], dtype=np.int64)
    w = rng.integers(1, 4, size=len(t))
    for name, params in (("OASIS", {"C": 0.1, "n_epochs": 1}), ("SDCA", {"n_epochs": 1})):
        model, _ = fit_learner(name, params, t[:200], X, np.zeros(30, int), 0, verbose=False)
        got = human._accuracy(human.item_scores(model, X), t[200:], w[200:])
        assert got == learner_accuracy(model, X, t[200:], w[200:]), name
    assert human._accuracy(human.item_scores(X, X), t, w) == embedding_accuracy(X, t, w)
    rows = np.array([0, 2])
    got = human.training_triplets(t, w, rows, None, 0)
    assert len(got) == w[0] + w[2] and (got == np.repeat(t[rows], w[rows], axis=0)).all()
    sub = human.training_triplets(t, None, np.arange(400), 50, 0)
    assert len(sub) == 50 and (human.training_triplets(t, None, np.arange(400), 80, 0)[:50] == sub).all()
