"""The Schultz & Joachims targets on the CI config, through the same Snakemake rules as the
default run: table_svm_1 (with a WebKB column that needs download), figure_svm_2,
figure_svm_mds and svm_scaling."""

import shutil

import pandas as pd
import pytest

from tests.pipeline import run_targets


@pytest.mark.skipif(shutil.which("apt-get") is None, reason="the embedded route needs Debian's apt")
def test_svm_targets_on_the_ci_config(tmp_path):
    run_targets(["table_svm_1", "figure_svm_2", "figure_svm_mds", "svm_scaling"], tmp_path)
    table = pd.read_csv(tmp_path / "tables/svm_table1.csv")
    webkb = table[table.dataset == "webkb_topic"]
    assert (webkb.status == "needs download").all()
    assert set(webkb.dropna(subset=["paper"]).algorithm) == {"SVM-relative", "Binary", "TFIDF"}
    ok = table[table.status == "ok"].set_index(["dataset", "algorithm"])
    for key in [
        ("reuters_topic", "SVM-relative"),
        ("reuters_topic", "Binary"),
        ("reuters_topic", "TFIDF"),
        ("vehicle", "SVM-relative"),
        ("vehicle", "Eucl"),
    ]:
        assert 0.0 <= ok.loc[key, "mean"] <= 1.0 and ok.loc[key, "n_seeds"] == 2
    runs = pd.read_csv(tmp_path / "svm/all_runs.csv")
    svm = runs[runs.method == "SVM-relative"]
    assert (svm.solver_status == "optimal").all()
    assert sorted(svm.n_train_triplets.unique()) == [30, 100]
    md = (tmp_path / "tables/svm_table1.md").read_text()
    assert "needs download" in md and "Stand-in" in md
    scaling = pd.read_csv(tmp_path / "tables/svm_scaling.csv")
    assert list(scaling.n_triplets) == [50, 50, 100, 100] and (scaling.status == "optimal").all()
    assert list(scaling.solver) == ["CLARABEL", "dcd"] * 2
    assert (scaling.peak_rss_mb > 0).all() and (scaling.solve_s > 0).all()
    for fig in ("svm_2", "svm_mds"):
        for ext in ("png", "pdf", "md"):
            assert (tmp_path / f"figures/figure_{fig}.{ext}").stat().st_size > 0
