"""Pipeline tests of the image-retrieval targets (table_sdca_3, figure_oasis_2, table_oasis_2):
the CI config's Fashion-MNIST stand-in through the same rules as the default run, and the
Caltech-256 route end to end on a tiny image folder made here (download route, extracted folder
in a temporary cache)."""

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from tests.pipeline import issue_mentions, latex_failures, run_targets
from tests.test_caltech256 import make_folder

pytestmark = pytest.mark.slow  # runs the workflow: not in the fast subset (-m "not slow")

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ["table_sdca_3", "figure_oasis_2", "table_oasis_2"]


def _run(configfile, out):
    run_targets(TARGETS, out, configfile)


def _check_outputs(out, datasets, methods):
    for f in ("sdca_table3.csv", "sdca_table3.md", "sdca_table3.tex", "oasis_table2.md"):
        assert (out / "tables" / f).stat().st_size > 0
    for ext in ("png", "pdf", "md"):
        assert (out / f"figures/figure_oasis_2.{ext}").stat().st_size > 0
    runs = pd.read_csv(out / "images/all_runs.csv")
    test = runs[(runs.stage == "test") & (runs.checkpoint == "final")]
    prec = test[test.metric.str.startswith("precision@")]
    assert set(prec.dataset) == set(datasets)
    assert prec.value.between(0, 1).all()
    fig = pd.read_csv(out / "tables/oasis_figure2.csv")
    assert {"mean", "se", "chance"} <= set(fig.columns)
    times = pd.read_csv(out / "tables/oasis_table2.csv")
    job = times[times.metric == "job_cpu_s"]  # the builder's long form: one row per metric
    assert set(methods) <= set(job.algorithm) and (job["mean"] > 0).all()
    # the job's own CPU timer contains its fit (Snakemake's psutil sample, read before,
    # fell below the cell's fit_cpu_s in 4 of 63 cells)
    fit = times[times.metric == "fit_cpu_s"].set_index(["dataset", "algorithm"])["mean"].dropna()
    both = job.set_index(["dataset", "algorithm"])["mean"].reindex(fit.index).dropna()  # no
    # fit time where a learner failed (a "failed" row): its job time stands alone
    assert len(both) and (both >= fit[both.index]).all()
    return runs


@pytest.mark.skipif(shutil.which("apt-get") is None, reason="the embedded route needs Debian's apt")
def test_stand_in_targets_on_the_ci_config(ci_run):
    tmp_path = ci_run  # the CI run (conftest.py) builds TARGETS (tests/pipeline.py CI_TARGETS)
    cfg = yaml.safe_load((ROOT / "config/ci.yaml").read_text())["images"]
    runs = _check_outputs(tmp_path, ["fashion_mnist_pixels", "fashion_mnist_bovw"], cfg["methods"])
    table = pd.read_csv(tmp_path / "tables/sdca_table3.csv")
    assert (table[table.dataset == "caltech256_50"].status == "needs download").all()
    assert table[table.dataset == "caltech256_50"].paper.notna().any()  # the paper's values
    ok = table[table.status == "ok"]
    assert ok["mean"].between(0, 1).all() and len(ok) >= 8
    # fewer training images than features: RCA projects by PCA first (tripletbench.algorithms.rca) and runs
    rca = table[(table.algorithm == "RCA") & (table.dataset == "fashion_mnist_pixels")]
    assert (rca.status == "ok").all()
    # the LEGO grid went through validation
    assert set(runs[runs.algorithm == "LEGO"].stage) == {"val", "test"}
    feats = pd.read_csv(tmp_path / "tables/images_features.csv")
    bovw = feats[feats.dataset == "fashion_mnist_bovw"]
    assert (bovw.n_features == 50).all() and (bovw.mean_nnz.between(1, 36)).all()
    md = (tmp_path / "tables/sdca_table3.md").read_text()
    assert "Stand-in" in md and "non-zeros" in md
    assert issue_mentions(tmp_path) == []  # captions speak to readers, not to our tracker
    assert latex_failures(tmp_path) == []  # every .tex compiles and fits the page


def test_caltech_route_on_a_tiny_image_folder(tmp_path):
    cache = tmp_path / "cache"
    make_folder(cache / "download/caltech256/extracted", n=6, small=1)
    cfg = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
    cfg["data"] = {"cache_dir": str(cache), "route": "download"}
    cfg["images"] = {
        "datasets": ["caltech256_3"],
        "sdca_table3_datasets": ["caltech256_3"],
        "seeds": [0],
        "n_train_per_class": 4,
        "n_test_per_class": 2,
        "n_triplets": 200,
        "precision_at_k": 5,
        "caltech256": {"min_side": 32, "max_side": 64},
        "bovw": {"caltech256": {"n_words": 8, "block_size": 16, "stride": 8, "color_levels": 2}},
        "methods": {
            "Eucl": {},
            "OASIS": {"fixed": {"C": 0.1, "n_epochs": 1}},
            "SDCA": {"fixed": {"lam": 0.005, "n_epochs": 1, "trace_gap": False}},
            # n_neighbors = 10 passes the config check but needs 11 images per class: with
            # record_failures the fit's DataError becomes a "failed" row, not a stopped run
            "LMNN": {"fixed": {"n_neighbors": 10, "max_iter": 5}},
        },
        "record_failures": True,
    }
    # the SDCA paper's Figure 1 on the Caltech image features (config/paper.yaml: caltech256_50)
    # (3 classes x 6 images: 12 training and 6 test images, the most Fig. 3 may rank and query)
    cfg["figures"].update(
        {"dataset": "caltech256_3", "seeds": [0], "n_triplets": 200, "n_queries": 6,
         "n_database": 12}
    )
    configfile = tmp_path / "caltech.yaml"
    configfile.write_text(yaml.safe_dump(cfg))
    out = tmp_path / "res"
    _run(configfile, out)
    run_targets(["figure_sdca_1"], out, configfile)
    curve_log = (out / "logs/figures/sdca_1_seed0.log").read_text()
    assert "caltech256_3 (18 samples" in curve_log  # the seed's features, not a prepared set
    caption = (out / "figures/figure_sdca_1.md").read_text()
    assert "Caltech-256, 3 classes" in caption and "stands in" not in caption
    assert "| n/a   |" in caption  # one seed: no spread shown, not a zero
    ok_methods = {m: c for m, c in cfg["images"]["methods"].items() if m != "LMNN"}
    _check_outputs(out, ["caltech256_3"], ok_methods)
    listing = pd.read_csv(cache / "download/caltech256/images.csv")
    assert len(listing) == 21 and "257.clutter" not in set(listing["class"])  # 3 x (6 + 1)
    feats = np.load(out / "images/features/caltech256_3/seed0.npz")
    assert tuple(feats["X_shape"]) == (18, 8)  # the 12 x 12 images were skipped
    table = pd.read_csv(out / "tables/sdca_table3.csv")
    lmnn = table.algorithm == "LMNN"
    assert (table[lmnn].status == "failed").all() and table[lmnn]["mean"].isna().all()
    assert (table[~lmnn].status == "ok").all() and table[~lmnn]["mean"].between(0, 1).all()
    failed = pd.read_csv(out / "images/runs/caltech256_3/LMNN.csv")
    assert failed.metric.tolist() == ["failed"] and "at least 11 per class" in failed.error[0]
    assert "failed = the learner raised an error on every seed: LMNN" in (
        out / "tables/sdca_table3.md"
    ).read_text()
    times = (out / "tables/oasis_table2.md").read_text()
    assert "## final fit CPU (s)" in times and "## whole cell CPU (s)" in times
    assert "| failed " in times and "± n/a" in times  # LMNN raised; one seed: no spread
    log = (out / "logs/images/features/caltech256_3_seed0.log").read_text()
    assert "skipped as too small" in log


def test_images_config_blocks_are_strict():
    import jsonschema

    from tripletbench.datasets.base import DataError
    from tripletbench.harness.config import check_config
    from tripletbench.harness.config import schema as config_schema

    schema = config_schema()
    for name in ("default", "ci", "paper"):
        cfg = yaml.safe_load((ROOT / f"config/{name}.yaml").read_text())
        jsonschema.validate(cfg, schema)
    bad = {**cfg, "images": {**cfg["images"], "n_tripletz": 10}}
    with pytest.raises(jsonschema.ValidationError, match="n_tripletz"):
        jsonschema.validate(bad, schema)
    bad = {**cfg, "images": {**cfg["images"], "datasets": ["caltech256_999"]}}
    with pytest.raises(DataError, match="unknown image set"):
        check_config(bad)
