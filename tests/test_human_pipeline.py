"""The human-judgment pipeline: targets ``table_human`` and ``figure_human_curve`` on a tiny config with
the data mirror beside the checkout (``../shared/mirror``): every set through the download
route's mirror layout, one feature set, 2 folds, 1 seed, a few hundred training answers per fold,
protocols (a) held-out answers, (b) held-out items, (c) the learning curve, (d) material's split.

Checks the table's rows: the Euclidean distance and each learner on every set, chance at 0.5,
the material ceiling equal to :func:`tripletbench.evaluation.human_protocols.human_ceiling` of the same test
answers; (b) as its own block, scored on the answers that involve a held-out item of
:func:`tripletbench.evaluation.human_protocols.item_folds`; (c)'s nested sizes and the figure's plotted
values; the same folds (digest) for every method; the offline default's "needs download" (no
cell planned), and a ``human.mirror`` that is absent (the CI config without ../shared)."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import ROOT

from tests.pipeline import issue_mentions, latex_failures, planned_jobs

pytestmark = pytest.mark.slow  # runs the workflow: not in the fast subset (-m "not slow")

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
            "protocols": ["triplets", "items", "curve", "publisher"],
            "n_splits": 2,
            "seeds": [0],
            "max_train_triplets": 300,
            "curve_sizes": [30, 100, 300, 5000],  # 300, 5000: (a)'s point, left out
            "methods": {  # not in alphabetical order: the table keeps the config's
                "SDCA": {"fixed": {"lam": 0.005, "n_epochs": 1}},
                "OASIS": {"fixed": {"C": 0.1, "n_epochs": 1}},
            },
        },
    }
    if route == "download":
        cfg["data"]["mirror"] = str(MIRROR)
    path = tmp_path / "human.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def _snakemake(configfile, *extra, timeout=600):
    cmd = [sys.executable, "-m", "snakemake", "table_human", "figure_human_curve",
           "--configfile", str(configfile),
           "--cores", "1", "--nolock", *extra]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, f"snakemake failed:\n{(res.stdout + res.stderr)[-6000:]}"
    return res.stdout + res.stderr


@needs_mirror
def test_table_human_on_the_mirror_has_every_row(tmp_path):
    from tripletbench.datasets import human_features as hf
    from tripletbench.datasets import material_similarity as material
    from tripletbench.evaluation.human_protocols import (
        embedding_accuracy,
        human_ceiling,
        item_folds,
        publisher_split,
        question_ids,
        triplet_folds,
    )
    from tripletbench.studies.human.experiment import normalize

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
    features = {"material": normalize(hf.item_features(j, "hog"), "l2")}
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
    assert "ties" in md and "ceiling" in md and "No published number is shown" in md
    assert "Protocol (d), material" in md
    runs = pd.read_csv(tmp_path / "results/human/all_runs.csv", dtype={"settings_hash": str})
    assert {"set", "protocol", "fold", "method", "features", "metric", "value", "seed", "fit_s",
            "settings_hash", "folds_digest"} <= set(runs.columns)
    assert set(runs.metric) == {"triplet_accuracy"}
    assert set(runs.protocol) == {"triplets", "items", "curve", "publisher"}
    # the same splits for every method: one digest per (set, seed, protocol), seeds recorded
    assert (runs.groupby(["set", "seed", "protocol"]).folds_digest.nunique() == 1).all()
    assert set(runs.seed) == {0}
    # (b): its own block; every row of a set on the answers that involve a held-out item
    b = table[table.protocol == "items"].set_index(["dataset", "algorithm"])
    assert "Protocol (b), held-out items" in md
    for s in SETS:
        for row in ("Eucl · hog", "OASIS · hog", "SDCA · hog", "chance"):
            assert b.loc[(f"{s} (b)", row)].status == "ok", (s, row)
        assert b.loc[(f"{s} (b)", "chance")]["mean"] == 0.5
    prot_b = item_folds(j.triplets, len(j.items), 2, 0)
    rb = runs[(runs.set == "material") & (runs.protocol == "items") & (runs.method == "Eucl")]
    assert sorted(rb.n_test) == sorted(len(s.test) for s in prot_b)
    assert (rb.folds_digest == prot_b.digest()).all()
    # training answers among training items only (material: one triplet per answer, bounded)
    assert (runs[runs.protocol == "items"].n_train <= 300).all()
    want_b = [
        embedding_accuracy(features["material"], j.triplets[s.test], j.counts[s.test])
        for s in prot_b
    ]
    got_b = rb.sort_values("fold").value.to_numpy()
    assert got_b == pytest.approx([w["triplet_accuracy"] for w in want_b], abs=1e-12)
    # (c): the learners only, nested sizes below (a)'s 300 training answers; same test folds
    c = runs[runs.protocol == "curve"]
    assert set(c.method) == {"OASIS", "SDCA"} and set(c.n_train) == {30, 100}
    assert len(c) == len(SETS) * 2 * 2 * 2  # sets x folds x sizes x learners
    fig_md = (tmp_path / "results/figures/figure_human_curve.md").read_text()
    for name in ("png", "pdf"):
        assert (tmp_path / f"results/figures/figure_human_curve.{name}").stat().st_size > 0
    assert "nested" in fig_md and "Wilber et al. 2014" in fig_md and "Lagunas et al. 2019" in fig_md
    for s in SETS:  # a curve per set: 30, 100, then (a)'s point at 300
        assert f"| {s} " in fig_md
    assert latex_failures(out) == []  # the (b) and (d) sections compile and fit the page
    assert issue_mentions(tmp_path / "results") == []  # captions speak to readers
    # the rows in the config's order (SDCA before OASIS), not sorted
    assert md.index("| SDCA · hog") < md.index("| OASIS · hog")
    print(md)
    _changes_rerun_exactly_what_they_affect(tmp_path)


def _changes_rerun_exactly_what_they_affect(tmp_path):
    """Results follow their inputs, on the run above: a changed row reruns that row's cells
    alone (each set's) with the table and the curve; a new published number, a row's notes or
    a reordering of the rows only the table and the curve; the curve's own key the curve alone;
    nothing changed, nothing to do."""
    table = ("table_human", "results/human/all_runs.csv")
    curve = ("figure_human_curve", "results/figures/figure_human_curve.png")

    def plan(mutate):
        cfg = yaml.safe_load((tmp_path / "human.yaml").read_text())
        mutate(cfg["human"])
        path = tmp_path / "changed.yaml"
        path.write_text(yaml.safe_dump(cfg, sort_keys=False))
        return {(r, str(Path(tmp_path / "results" / o).relative_to(tmp_path)))
                for r, o in planned_jobs(tmp_path / "results", path,
                                         ["table_human", "figure_human_curve"])}

    assert plan(lambda h: None) == set()
    assert plan(lambda h: h["methods"]["OASIS"]["fixed"].update(C=0.5)) == {
        *(("human_cell", f"results/human/cells/{s}/OASIS/seed0.csv") for s in SETS),
        table,
        curve,
    }
    notes = {"protocol": "ours", "ours": "x"}
    assert plan(lambda h: h["methods"]["SDCA"].update(notes=notes)) == {table, curve}
    assert plan(lambda h: h.update(methods=dict(reversed(h["methods"].items())))) == {
        table, curve
    }
    published = {"Their net": {"column": "material (d) majority", "value": 0.8, "source": "x"}}
    assert plan(lambda h: h.update(published=published)) == {table, curve}
    assert plan(lambda h: h.update(curve_figure={"lines": 1})) == {curve}


def test_table_human_offline_says_needs_download(tmp_path):
    """The embedded route plans no human cell: every set "needs download" (every block: (a),
    (b), (d)), the figure's panels say so, and the run passes. With ``human.mirror`` naming a
    folder that is absent (the CI config in a clone without ../shared), the same: not run."""
    _snakemake(_config(tmp_path, route="embedded"))
    table = pd.read_csv(tmp_path / "results/tables/human_table.csv")
    assert len(table) and set(table.status) == {"needs download"}
    assert set(table.protocol) == {"triplets", "items", "publisher"}
    assert not (tmp_path / "results/human/cells").exists()
    assert "Not run: material, cars60, food100 (needs download)" in (
        tmp_path / "results/figures/figure_human_curve.md"
    ).read_text()
    cfg = yaml.safe_load(_config(tmp_path, route="embedded").read_text())
    cfg["human"]["mirror"] = str(tmp_path / "no_such_mirror")
    cfg["results_dir"] = str(tmp_path / "results2")
    cfg["figures_dir"] = str(tmp_path / "results2/figures")
    (tmp_path / "absent.yaml").write_text(yaml.safe_dump(cfg))
    _snakemake(tmp_path / "absent.yaml")
    table = pd.read_csv(tmp_path / "results2/tables/human_table.csv")
    why = f"not run: no data mirror at {tmp_path}/no_such_mirror (human.mirror)"
    assert set(table.status) == {why}
    assert not (tmp_path / "results2/human/cells").exists()


def test_a_row_without_a_feature_map_is_na_on_held_out_items_only():
    """tripletbench.studies.human.experiment.table_status: a feature-free row (an ordinal embedding,
    harness.human.feature_free_rows of the config) is "n/a" in every (b) column and scored in (a)
    and (d); a set that did not run is its reason in every column; the ceiling is n/a where a
    question has one answer."""
    from tripletbench.studies.human.experiment import table_status

    cols = ["material (a)", "cars60 (a)", "material (b)", "cars60 (b)", "food100 (b)",
            "material (d) majority"]
    rows = ["Eucl · hog", "OASIS · ingredients", "SOE", "chance", "ceiling"]
    st = table_status(cols, rows, {"food100": "needs download"}, feature_free=("SOE",))
    for col in ("material (b)", "cars60 (b)"):
        assert st[(col, "SOE")] == "n/a (no feature map: cannot place a held-out item)"
    assert ("material (a)", "SOE") not in st and ("material (d) majority", "SOE") not in st
    assert ("material (b)", "Eucl · hog") not in st
    assert st["food100 (b)"] == "needs download"
    assert st[("cars60 (b)", "ceiling")] == "n/a (answers not counted per question)"
    assert ("material (b)", "ceiling") not in st
    assert st[("material (d) majority", "ceiling")] == "n/a (1 by definition)"
    assert st[("material (a)", "OASIS · ingredients")] == "n/a (Food-100 only)"


def test_the_pair_table_scores_as_the_learners_pair_score_and_answers_repeat_by_count():
    """tripletbench.studies.human.experiment scores a learner from one item-pair table (its ranking score): the same
    accuracy as tripletbench.evaluation.human_protocols.learner_accuracy; the Euclidean table gives
    embedding_accuracy's; a training row with answer count c is c training triplets."""
    from tripletbench.evaluation.human_protocols import embedding_accuracy, learner_accuracy
    from tripletbench.studies.human import experiment as human
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


@needs_mirror
def test_the_ci_config_builds_a_tiny_human_table_and_curve_from_the_mirror(ci_run):
    """config/ci.yaml's human block (human.mirror = ../shared/mirror, material only, one learner):
    every protocol has its rows, the publisher-split ceiling is the real answers' 0.838, and the
    curve's figure has OASIS at the configured sizes and (a)'s point. (The same block with the
    mirror absent: test_table_human_offline_says_needs_download.)"""
    ci = yaml.safe_load((ROOT / "config/ci.yaml").read_text())["human"]
    out = ci_run  # the CI run (conftest.py) builds table_human and figure_human_curve
    table = pd.read_csv(out / "tables/human_table.csv").set_index(["dataset", "algorithm"])
    assert ci["sets"] == ["material"] and list(ci["methods"]) == ["OASIS"]
    for col in ("material (a)", "material (b)", "material (d) answers", "material (d) majority"):
        for row in ("Eucl · hog", "OASIS · hog", "chance"):
            assert table.loc[(col, row)].status == "ok", (col, row)
    assert round(table.loc[("material (d) answers", "ceiling")]["mean"], 3) == 0.838
    # the published number (human.published): its own row in (d) majority, the number in the
    # paper column, never ranked; no such row in the columns it has no number for
    pub = table.loc[("material (d) majority", "Lagunas et al. 2019 network")]
    assert pub.paper == ci["published"]["Lagunas et al. 2019 network"]["value"] == 0.8199
    assert pub.status == "n/a (published number only)" and pd.isna(pub["rank"])
    assert ("material (a)", "Lagunas et al. 2019 network") not in table.index
    md = (out / "tables/human_table.md").read_text()
    assert "material (d) majority (published)" in md and "81.99%" in md
    runs = pd.read_csv(out / "human/all_runs.csv")
    curve = runs[runs.protocol == "curve"]
    assert set(curve.n_train) == set(ci["curve_sizes"]) and set(curve.method) == {"OASIS"}
    assert (out / "figures/figure_human_curve.png").stat().st_size > 0


def test_a_human_mirror_with_a_scheme_we_cannot_read_is_refused_an_absent_folder_is_not(tmp_path):
    """human.mirror: an ftp:// or s3:// mirror is refused before any job (ConfigError naming the
    key); a folder that does not exist is accepted (the sets are then not run: the CI config
    in a clone without ../shared)."""
    from tripletbench.harness.config import ConfigError
    from tripletbench.studies.human.config import _check_human

    for bad in ("ftp://example.org/mirror", "s3://bucket/mirror"):
        with pytest.raises(ConfigError, match="human.mirror"):
            _check_human({"mirror": bad, "methods": {}})
    _check_human({"mirror": str(tmp_path / "absent"), "methods": {}})
    _check_human({"mirror": str(tmp_path), "methods": {}})


def test_a_published_number_must_name_a_column_of_the_table_and_a_row_of_its_own():
    """human.published: a row whose column no human table has ("material (e)") or that takes the
    name of one of our rows (a learner, Eucl, chance, ceiling) is refused when the workflow
    starts (ConfigError naming the row); the CI config's entry is accepted and lands in the
    column it names only."""
    from tripletbench.harness.config import ConfigError
    from tripletbench.studies.human.config import _check_human
    from tripletbench.studies.human.experiment import all_columns, published

    ok = {"column": "material (d) majority", "value": 0.8, "source": "somewhere"}
    methods = {"OASIS": {"fixed": {"C": 0.1}}}
    _check_human({"methods": methods, "published": {"Their net": ok}})
    for name, row in (
        ("Their net", {**ok, "column": "material (e)"}),
        ("Their net", {**ok, "column": "cars60 (d) majority"}),  # (d) is material's only
        ("OASIS", ok),
        ("ceiling", ok),
    ):
        with pytest.raises(ConfigError, match=f"human.published.{name}"):
            _check_human({"methods": methods, "published": {name: row}})
    ci = yaml.safe_load((ROOT / "config/ci.yaml").read_text())["human"]
    cols = all_columns(ci["sets"], ci["protocols"])
    assert cols == ["material (a)", "material (b)", "material (d) answers", "material (d) majority"]
    rows, paper = published(ci, ["material (a)"])
    assert rows == [] and paper.empty
    rows, paper = published(ci, cols)
    assert rows == ["Lagunas et al. 2019 network"]
    assert paper.set_index("algorithm").loc[rows[0], "dataset"] == "material (d) majority"


@needs_mirror
def test_a_human_cell_asks_for_its_own_rows_memory(tmp_path):
    """A cell asks the scheduler for what its row needs (workflow/resources.yaml): an SCML row
    (metric-learn's default basis holds GBs) human_cell_scml's memory and runtime, any other row
    (and the Euclidean baseline) human_cell's, so that two light cells are not kept from running
    side by side by the heaviest one's request."""
    resources = yaml.safe_load((ROOT / "workflow/resources.yaml").read_text())["rules"]
    cfg = yaml.safe_load(_config(tmp_path).read_text())
    cfg["human"]["methods"]["SCML"] = {"algorithm": "metric_learn.SCML"}
    path = tmp_path / "scml.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    res = subprocess.run(
        [sys.executable, "-m", "snakemake", "table_human", "-n", "--configfile", str(path),
         "--nolock"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert res.returncode == 0, (res.stdout + res.stderr)[-3000:]
    asked = re.findall(
        r"rule human_cell:\n(?:.*\n)*?[ ]+output: \S+/cells/\w+/([\w-]+)/seed\d+\.csv\n"
        r"(?:.*\n)*?[ ]+resources: .*?runtime=(\d+), mem_mb=(\d+)",
        res.stdout,
    )
    by_row = {(m, int(t), int(mb)) for m, t, mb in asked}
    assert {m for m, _, _ in by_row} == {"Eucl", "SDCA", "OASIS", "SCML"}, res.stdout[-3000:]
    for m, runtime, mem_mb in by_row:
        own = resources["human_cell_scml" if m == "SCML" else "human_cell"]
        assert (runtime, mem_mb) == (own["runtime"], own["mem_mb"]), m
