"""Results follow their inputs without Snakemake's memory: a copy of the CI run's results (no
``.snakemake`` metadata for it) with a setting changed plans exactly the jobs the change affects,
through the whole chain (splits, triplets, cells, table); a cell refuses input files made under
other settings; a cell file left only under ``.previous`` by a kill is due at the next start; a
failed rerun puts the previous outputs back. Each test works on its own copy of the ``ci_run``
fixture (conftest.py)."""

import shutil
import subprocess
import sys

import pytest
import yaml

from tests.pipeline import OAHU_SVM_CELLS, ROOT, planned_jobs

pytestmark = pytest.mark.slow  # runs the workflow: not in the fast subset (-m "not slow")

NEEDS_APT = pytest.mark.skipif(
    shutil.which("apt-get") is None, reason="the embedded route needs Debian's apt"
)


def snakemake_on(out, configfile, *args, timeout=600):
    """Snakemake in this checkout on the results folder ``out`` (figures under it) with
    ``configfile`` and ``args`` (targets and options), without its lock; the finished process."""
    cmd = [sys.executable, "-m", "snakemake", *args, "--configfile", str(configfile),
           "--config", f"results_dir={out}", f"figures_dir={out}/figures", "--nolock"]  # fmt: skip
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False,
                          timeout=timeout)  # fmt: skip


def _ci_config_changed(tmp_path, name, changes):
    """The CI config with ``changes`` (block -> the values it updates, nested as the config)
    merged in, written to ``tmp_path/<name>.yaml``; its path."""

    def merge(into, values):
        for k, v in values.items():
            if isinstance(v, dict) and isinstance(into.get(k), dict):
                merge(into[k], v)
            else:
                into[k] = v

    cfg = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
    merge(cfg, changes)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def _oasis_c_changed(tmp_path):
    """The CI config with OASIS's C changed in SDCA Table 2 (OASIS-authors-C) and OAHU Table 3."""
    c = {"fixed": {"C": 0.001}}
    return _ci_config_changed(tmp_path, "oasis_c", {
        "sdca_table2": {"methods": {"OASIS-authors-C": c}},
        "oahu": {"table3": {"methods": {"OASIS": c}}},
    })  # fmt: skip


@NEEDS_APT
def test_a_changed_setting_reruns_its_cells_without_snakemakes_metadata(ci_run, tmp_path):
    """A copy of the results (no .snakemake metadata for it) with OASIS's C
    changed plans the OASIS cells and the table (harness/keep.py: the C recorded in a cell's CSV
    differs); with nothing changed, nothing; --report refuses, naming the cells."""
    out = tmp_path / "copy"
    shutil.copytree(ci_run, out)  # copy2: the files keep their times, Snakemake has no record
    targets = ["table_sdca_2", str(out / OAHU_SVM_CELLS[1])]
    assert planned_jobs(out, ROOT / "config/ci.yaml", targets) == set()
    changed = _oasis_c_changed(tmp_path)
    assert planned_jobs(out, changed, targets) == {
        ("fit_evaluate", "sdca_table2/runs/vehicle/OASIS-authors-C.csv"),
        ("oahu_cell", OAHU_SVM_CELLS[1]),
        ("table_sdca_2", "sdca_table2/all_runs.csv"),
    }
    res = snakemake_on(out, changed, "table_sdca_2", "--report", str(tmp_path / "r.html"))
    log = res.stdout + res.stderr
    assert res.returncode != 0 and "outdated results" in log and "fit_evaluate" in log, log[-3000:]
    assert not (tmp_path / "r.html").exists()
    # the dry runs changed nothing: the unchanged config still plans nothing
    assert planned_jobs(out, ROOT / "config/ci.yaml", targets) == set()


def _table2_changed(tmp_path, key, value):
    """The CI config with ``sdca_table2.<key>`` set to ``value``."""
    return _ci_config_changed(tmp_path, key, {"sdca_table2": {key: value}})


@NEEDS_APT
@pytest.mark.parametrize(
    "key, value, upstream",
    [
        ("n_triplets", 3000, {"sample_triplets"}),
        ("train_fraction", 0.6, {"split", "sample_triplets"}),
    ],
)
def test_a_changed_setting_reruns_the_whole_chain_without_snakemakes_metadata(
    ci_run, tmp_path, key, value, upstream
):
    """Rule: results follow their inputs without Snakemake's metadata through the whole chain. A
    copy of the results with n_triplets 2,000 -> 3,000 once forced the Table 2 cells but not
    sample_triplets, so they were refit on the 2,000-triplet files under the new settings hash;
    now the data jobs' files record their settings (harness/io.settings_record) and every job
    whose file records other settings is forced: the triplets (and, for train_fraction, the
    splits) of every (dataset, seed), every cell and the table, nothing else."""
    out = tmp_path / "copy"
    shutil.copytree(ci_run, out)  # copy2: the files keep their times, Snakemake has no record
    assert planned_jobs(out, ROOT / "config/ci.yaml") == set()
    jobs = planned_jobs(out, _table2_changed(tmp_path, key, value))
    rules = {r for r, _ in jobs}
    assert rules == upstream | {"fit_evaluate", "table_sdca_2"}, sorted(jobs)
    cells = {o for r, o in jobs if r == "fit_evaluate"}
    assert len(cells) == len(list((out / "sdca_table2/runs").glob("*/*.csv")))
    made = {o for r, o in jobs if r == "sample_triplets"}
    assert made == {
        str(p.relative_to(out))
        for p in (out / "sdca_table2/constraints").glob("*/seed*/triplets_train.npz")
    }


@NEEDS_APT
def test_a_cell_refuses_input_files_made_under_other_settings(ci_run, tmp_path):
    """The job-level guard behind the forcing: with sample_triplets not allowed to rerun, a cell
    given the 2,000-triplet files under n_triplets 3,000 stops, naming the files, both settings
    and the --forcerun that remakes them; it never fits the old files silently."""
    out = tmp_path / "copy"
    shutil.copytree(ci_run, out)
    res = snakemake_on(out, _table2_changed(tmp_path, "n_triplets", 3000),
                       str(out / "sdca_table2/runs/vehicle/Eucl.csv"), "--cores", "1",
                       "--allowed-rules", "fit_evaluate")  # fmt: skip
    log = (out / "logs/sdca_table2/fit_evaluate/vehicle_Eucl.log").read_text()
    assert res.returncode != 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert "input files were made under other settings" in log, log[-3000:]
    assert "triplets_train.npz: made under settings s" in log and "--forcerun" in log, log[-3000:]


FEATURE_READERS = {  # a cell whose feature file a job records settings in: (files, cell, rule, log)
    "images (fit_evaluate)": ("images/features/fashion_mnist_pixels/seed0.npz",
                              "images/runs/fashion_mnist_pixels/Eucl.csv", "fit_evaluate",
                              "logs/images/fit_evaluate/fashion_mnist_pixels_Eucl.log"),
    "svm (svm_run)": ("svm/features/*/*.npz", "svm/runs/reuters_topic/seed0.csv", "svm_run",
                      "logs/svm/run/reuters_topic_seed0.log"),
    "human (human_cell)": ("human/features/material/*.npz", "human/cells/material/OASIS/seed0.csv",
                           "human_cell", "logs/human/cell_material_OASIS_seed0.log"),
    "image curves (curves)": ("images/features/fashion_mnist_pixels/seed0.npz",
                              "curves/sdca_1/seed0.csv", "curves", "logs/figures/sdca_1_seed0.log"),
}  # fmt: skip
FEATURE_CONFIG = {  # block -> the values it changes
    "image curves (curves)": {"figures": {"dataset": "fashion_mnist_pixels", "n_queries": 20,
                                          "n_database": 60}},
}  # fmt: skip


@NEEDS_APT
@pytest.mark.parametrize("case", list(FEATURE_READERS))
def test_a_cell_refuses_a_feature_file_made_under_other_settings(ci_run, tmp_path, case):
    """The rule of the split and triplet files, for every cell whose feature file a job of the
    workflow writes and records its settings in (the image sets' features, the text corpora's,
    the human sets' item features, an image set's convergence curves): a feature file recording other settings than the config
    implies is refused, naming it, both settings and the --forcerun."""
    import numpy as np

    pattern, cell, rule, log = FEATURE_READERS[case]
    out = tmp_path / "copy"
    shutil.copytree(ci_run, out)
    files = sorted(out.glob(pattern))
    assert files, pattern
    for f in files:  # as if made under another config (the copy has no Snakemake metadata)
        with np.load(f, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        np.savez(f, **{**arrays, "settings_hash": np.array("s000000000000")})
    # the curves of an image set: a config of its own (the CI config's are vehicle's)
    configfile = _ci_config_changed(tmp_path, "changed", FEATURE_CONFIG.get(case, {}))
    res = snakemake_on(out, configfile, str(out / cell), "--cores", "1",
                       "--forcerun", rule, "--allowed-rules", rule)  # fmt: skip
    text = (out / log).read_text()
    assert res.returncode != 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert "input files were made under other settings" in text, (res.stderr + text)[-3000:]
    assert "made under settings s000000000000" in text and "--forcerun" in text, text[-3000:]


@NEEDS_APT
def test_a_train_fraction_too_small_to_split_names_its_key_and_the_remedy(ci_run, tmp_path):
    """train_fraction 0.001 failed inside the split job with "class 0 has 1 sample(s)", naming
    neither the key nor the remedy; the job's error now names both (the class sizes are known
    only once the data is read, so the config check cannot)."""
    out = tmp_path / "copy"
    shutil.copytree(ci_run, out)
    res = snakemake_on(out, _table2_changed(tmp_path, "train_fraction", 0.001),
                       str(out / "sdca_table2/splits/vehicle/seed0.npz"), "--cores", "1",
                       "--allowed-rules", "split")  # fmt: skip
    log = (out / "logs/sdca_table2/split/vehicle_seed0.log").read_text()
    assert res.returncode != 0
    assert "sdca_table2.train_fraction = 0.001" in log and "Raise train_fraction" in log, log[-2000:]


@NEEDS_APT
def test_a_cell_file_left_only_under_previous_by_a_kill_is_due_at_the_next_start(ci_run, tmp_path):
    """README promise: after a kill, a cell file that exists only under .previous (its job had
    started, Snakemake deleted it) under an up-to-date table used to stay missing (Snakemake
    plans nothing for a missing intermediate file below an up-to-date target). Now its job is
    forced at the next start, dry runs included, and the table follows; nothing else."""
    from types import SimpleNamespace

    from tripletbench.harness.keep import keep_previous

    out = tmp_path / "copy"
    shutil.copytree(ci_run, out)
    cell = out / "sdca_table2/runs/vehicle/Eucl.csv"
    keep_previous(out, [SimpleNamespace(output=[str(cell)], input=["x"])])  # the killed run's start
    cell.unlink()  # Snakemake deleted it when the job started; then the kill
    assert planned_jobs(out, ROOT / "config/ci.yaml") == {
        ("fit_evaluate", "sdca_table2/runs/vehicle/Eucl.csv"),
        ("table_sdca_2", "sdca_table2/all_runs.csv"),
    }
    assert not cell.exists()  # the dry run changed nothing


@NEEDS_APT
def test_a_failed_rerun_puts_the_previous_outputs_back(ci_run, tmp_path):
    """Snakemake deletes a job's outputs when it starts. A table rerun that fails
    (its stale cell not allowed to rerun: the table refuses it) leaves the previous table, byte
    for byte, dated 1970 so that the next run remakes it; nothing is left in .previous."""
    out = tmp_path / "copy"
    shutil.copytree(ci_run, out)
    names = ["tables/sdca_table2.csv", "tables/sdca_table2.md", "tables/sdca_table2.tex",
             "sdca_table2/all_runs.csv", "figures/sdca_table2_cd.png"]
    before = {n: (out / n).read_bytes() for n in names}
    res = snakemake_on(out, _oasis_c_changed(tmp_path), "table_sdca_2", "--cores", "1",
                       "--forcerun", "table_sdca_2", "--allowed-rules", "table_sdca_2")
    log = res.stdout + res.stderr
    assert res.returncode != 0 and "previous version of these outputs is back" in log, log[-3000:]
    for n in names:
        assert (out / n).read_bytes() == before[n], n
        assert (out / n).stat().st_mtime == 0, n
    assert not (out / ".previous").exists()
    # the restored table is remade by the next run (its inputs are newer), with the config it had
    assert ("table_sdca_2", "sdca_table2/all_runs.csv") in planned_jobs(
        out, ROOT / "config/ci.yaml"
    )
