"""Extending the benchmark: a config with any subset of the experiment blocks plans exactly those
tables; a dataset or learner module dropped in its folder is found; an external learner is one
config row; adding one plans only the new cells."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
MINIMAL = ROOT / "config/examples/minimal.yaml"


def planned_jobs(targets, configfile, *extra, cwd=ROOT) -> dict[str, int]:
    """rule -> job count of a Snakemake dry run (``-n``), from its "Job stats" table."""
    cmd = [sys.executable, "-m", "snakemake", "-n", *targets, "--configfile", str(configfile)]
    out = subprocess.run(
        cmd + ["--cores", "1", "--nolock", *extra],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    if "Nothing to be done" in out.stdout + out.stderr:
        return {}
    stats = out.stdout.split("Job stats:")[1]
    return {
        m.group(1): int(m.group(2))
        for m in re.finditer(r"^(\w+)\s+(\d+)$", stats, re.M)
        if m.group(1) != "total"
    }


def write_config(tmp_path, cfg, name="config.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def test_the_minimal_example_plans_exactly_its_table(tmp_path):
    cfg = yaml.safe_load(MINIMAL.read_text())
    cfg["results_dir"] = str(tmp_path / "results")
    cfg["figures_dir"] = str(tmp_path / "figures")
    jobs = planned_jobs(["reproduce_all"], write_config(tmp_path, cfg))
    n_cells = len(cfg["sdca_table2"]["methods"])
    assert jobs.pop("fit_evaluate") == n_cells
    jobs.pop("prepare_dataset", None)  # planned only where the shared cache lacks vehicle
    assert jobs == {
        "split": 1,
        "sample_triplets": 1,
        "table_sdca_2": 1,
        "report_pages": 1,
        "reproduce_all": 1,
    }


def test_a_config_with_only_an_oahu_block_plans_only_oahu(tmp_path):
    ci = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
    cfg = {
        "results_dir": str(tmp_path / "results"),
        "figures_dir": str(tmp_path / "figures"),
        "oahu": ci["oahu"],
    }
    jobs = planned_jobs(["reproduce_all"], write_config(tmp_path, cfg))
    assert {"table_oahu_3", "figure_oahu_4", "figure_oahu_5", "figure_oahu_7"} <= set(jobs)
    others = {"table_sdca_2", "fit_evaluate", "svm_run", "performance", "curves", "scaling_times"}
    assert not others & set(jobs)


def test_a_config_without_an_experiment_block_is_refused_by_name(tmp_path):
    cfg = {"results_dir": str(tmp_path / "results")}
    cmd = [sys.executable, "-m", "snakemake", "-n", "--configfile"]
    out = subprocess.run(
        cmd + [str(write_config(tmp_path, cfg)), "--cores", "1", "--nolock"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode != 0
    assert "no experiment block" in out.stdout + out.stderr
    assert "config/examples/minimal.yaml" in out.stdout + out.stderr


@pytest.mark.parametrize("missing", ["sdca_table2", "svm", "oahu", "images", "figures"])
def test_leaving_out_one_block_leaves_out_its_rules_only(tmp_path, missing):
    """The CI config less one block plans every other block's final rules and none of its own."""
    owned = {
        "sdca_table2": {"table_sdca_2"},
        "svm": {"table_svm_1", "figure_svm_2", "figure_svm_mds"},
        "oahu": {"table_oahu_3", "figure_oahu_4", "figure_oahu_5", "figure_oahu_7"},
        "images": {"table_sdca_3", "figure_oasis_2", "table_oasis_2"},
        "figures": {"figure_sdca_1", "figure_sdca_2", "figure_oasis_3", "figure_scaling"},
    }
    cfg = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
    cfg["results_dir"] = str(tmp_path / "results")
    cfg["figures_dir"] = str(tmp_path / "figures")
    del cfg[missing]
    jobs = set(planned_jobs(["reproduce_all"], write_config(tmp_path, cfg)))
    assert not owned[missing] & jobs
    for block, rules in owned.items():
        if block != missing:
            assert rules <= jobs, (block, rules - jobs)
