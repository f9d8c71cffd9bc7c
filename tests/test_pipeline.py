"""The CI regression: the small config runs through the same Snakemake rules as the default run and
its table is compared with config/ci_expected.csv (stored from a real run, see harness.regression)."""

import shutil

import pandas as pd
import pytest

from harness.regression import compare
from tests.pipeline import run_targets


@pytest.mark.skipif(shutil.which("apt-get") is None, reason="the embedded route needs Debian's apt")
def test_ci_config_reproduces_the_stored_numbers(tmp_path):
    run_targets(
        [
            "regression_check",
            "figure_sdca_1",
            "figure_sdca_2",
            "figure_oasis_3",
            "figure_scaling",
            "performance",
        ],
        tmp_path,
        timeout=1200,
    )
    assert "all within tolerance" in (tmp_path / "regression_report.txt").read_text()
    table = pd.read_csv(tmp_path / "tables/sdca_table2.csv")
    assert set(table.algorithm) == {
        "Eucl",
        "RCA",
        "LMNN",
        "ITML",
        "ITML-online",
        "LEGO",
        "OASIS",
        "OASIS-authors-C",
        "SDCA",
        "SDCA-random",
    }
    # settings provenance columns, and the paper's value beside the rows that implement its method
    assert {"protocol", "paper_settings", "our_settings"} <= set(table.columns)
    vehicle = table[table.dataset == "vehicle"].set_index("algorithm")
    assert vehicle.loc["ITML-online", "protocol"] == "paper"
    assert vehicle.loc["ITML-online", "paper"] == vehicle.loc["ITML", "paper"] == 0.4142
    assert vehicle.loc["OASIS-authors-C", "paper"] == 0.5318
    assert (table[table.dataset == "svmguide4"].status == "needs download").all()
    runs = pd.read_csv(tmp_path / "sdca_table2/all_runs.csv")
    runs = runs[runs.stage == "test"]
    sdca = runs[
        (runs.algorithm == "SDCA") & (runs.metric == "duality_gap") & (runs.checkpoint == "final")
    ]
    assert len(sdca) == 1 and sdca.value.iloc[0] >= 0
    for ext in ("md", "tex"):
        assert (tmp_path / f"tables/sdca_table2.{ext}").stat().st_size > 0
    for fig in ("sdca_1", "sdca_2", "oasis_3", "scaling"):
        for ext in ("png", "pdf", "md"):
            assert (tmp_path / f"figures/figure_{fig}.{ext}").stat().st_size > 0
    for ext in ("png", "pdf"):
        assert (tmp_path / f"figures/figure_sdca_1_hinge.{ext}").stat().st_size > 0
    curves = pd.read_csv(tmp_path / "curves/sdca_1/seed0.csv")
    assert set(curves.method) == {"OASIS", "SDCA"}
    assert {"avg_cumulative_hinge", "avg_cumulative_squared_hinge"} <= set(curves.metric)
    perf = pd.read_csv(tmp_path / "tables/performance.csv")
    assert len(perf) == 6 and (perf.max_rel_diff < 1e-9).all()


def test_a_moved_number_is_named_with_stored_and_new_values():
    table = pd.DataFrame(
        {
            "dataset": ["vehicle", "x"],
            "algorithm": ["SDCA", "SDCA"],
            "mean": [0.5012, float("nan")],
            "status": ["ok", "needs download"],
        }
    )
    expected = pd.DataFrame(
        {
            "dataset": ["vehicle", "x", "vehicle"],
            "algorithm": ["SDCA", "SDCA", "LEGO"],
            "column": ["mean", "status", "mean"],
            "value": [0.5, "needs download", 0.4],
            "abs_tol": [5e-4, 0, 5e-4],
        }
    )
    problems = compare(table, expected)
    assert problems == [
        "vehicle/SDCA/mean: stored 0.500000, new 0.501200 (tolerance ±0.0005)",
        "vehicle/LEGO/mean: stored 0.4, now missing from the table",
    ]
