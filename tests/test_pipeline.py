"""The CI regression: the small config runs through the same Snakemake rules as the default run and
its table is compared with config/ci_expected.csv (stored from a real run, see tripletbench.harness.regression)."""

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tripletbench.harness.regression import compare
from tests.pipeline import ROOT, issue_mentions, latex_failures, planned_jobs, run_targets


NEEDS_APT = pytest.mark.skipif(
    shutil.which("apt-get") is None, reason="the embedded route needs Debian's apt"
)


from tests.pipeline import OAHU_SVM_CELLS  # noqa: E402  (the ci_run fixture: conftest.py)

pytestmark = pytest.mark.slow  # runs the workflow: not in the fast subset (-m "not slow")


@NEEDS_APT
def test_ci_config_reproduces_the_stored_numbers(ci_run):
    tmp_path = ci_run
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
        "COMET",
        "RDML",
        "OPML",
    }
    # settings provenance columns, and the paper's value beside the rows that implement its method
    assert {"protocol", "paper_settings", "our_settings"} <= set(table.columns)
    vehicle = table[table.dataset == "vehicle"].set_index("algorithm")
    # a row is [paper] only when a paper at hand states what decides it
    assert vehicle.loc["ITML-online", "protocol"] == "reconstructed"
    assert vehicle.loc["OASIS", "protocol"] == "paper"  # tuned by validation: the paper's protocol
    assert vehicle.loc["OASIS-authors-C", "protocol"] == "ours"  # the authors' C, not tuned
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
    assert (perf.protocol == "not-in-paper").all() and perf.our_settings.str.contains("C 0.1").any()
    others = pd.read_csv(tmp_path / "tables/performance_other_learners.csv").set_index("learner")
    assert others.loc["ITML-online", "protocol"] == table.set_index("algorithm").loc[
        "ITML-online", "protocol"
    ].iloc[0]  # the SDCA Table 2 row's notes
    # OAHU's step (harness.oahu_speed): the CI's tiny network, the three timings and their ratios
    oahu = pd.read_csv(tmp_path / "tables/performance_oahu.csv")
    assert oahu[["d", "L", "n_hidden", "embedding_dim", "n_steps"]].values.tolist() == [
        [16, 2, 8, 4, 50]
    ]
    steps = oahu[["torch_step_us", "numpy_step_us", "floor_step_us"]].iloc[0]
    assert (steps > 0).all() and oahu.max_rel_param_diff.iloc[0] < 1e-2
    assert oahu.torch_over_numpy.iloc[0] == pytest.approx(steps.torch_step_us / steps.numpy_step_us)
    md = (tmp_path / "tables/performance.md").read_text()
    assert "OAHU's online step (our measurement" in md and "floor_step_us: the bare NumPy" in md
    # the block-size sweep: the CI's K = 16 beside the automatic K at each dense d
    blocks = pd.read_csv(tmp_path / "tables/performance_block_sizes.csv")
    assert blocks[["d", "block_size"]].values.tolist() == [[16, 16], [16, 64], [64, 16], [64, 64]]
    assert blocks.auto.tolist() == [False, True] * 2 and (blocks.stream_us_per_step > 0).all()
    assert "The dense engine's block size K" in md


# each figure of the CI run: the result file of its numbers, which must hold a stored number
FIGURE_NUMBERS = {
    "figure_human_curve": "human/all_runs.csv",
    "figure_oahu_4": "oahu/figure4/summary.csv",
    "figure_oahu_5": "oahu/figure5/summary.csv",
    "figure_oahu_7": "oahu/figure7/summary.csv",
    "figure_oasis_2": "tables/oasis_figure2.csv",
    "figure_oasis_3": "curves/oasis_3/seed0.csv",
    "figure_sdca_1": "curves/sdca_1/seed0.csv",
    "figure_sdca_1_hinge": "curves/sdca_1/seed0.csv",
    "figure_sdca_2": "curves/sdca_1/seed0.csv",  # the same curves, another metric
    "figure_svm_2": "svm/all_runs.csv",
    "figure_svm_c_sweep": "tables/svm_c_sweep.csv",
    "figure_svm_mds": "tables/svm_mds.csv",
    "sdca_table3_cd": "tables/sdca_table3_ranks.csv",
}
# the tables and figures of the CI run with no stored number, and why none can be stored
UNGUARDED = {
    "oasis_table2.csv": "fit times only",
    "performance.csv": "rates and times; its one other number (max_rel_diff, float rounding) is "
    "checked below 1e-9 by test_ci_config_reproduces_the_stored_numbers",
    "performance_oahu.csv": "step times and their ratios only",
    "performance_block_sizes.csv": "step times and their ratios only",
    "performance_other_learners.csv": "fit times only",
    "svm_readings.csv": "empty offline: the sweep needs the WebKB pages",
    "sdca_table2_ranks.csv": "one dataset at CI size: sdca_table2.csv's ranks, no test runs",
    "figure_scaling": "fit times only",
    "sdca_table2_cd": "one dataset at CI size: no test runs (its caption says so)",
}


@NEEDS_APT
def test_every_table_and_figure_of_the_ci_run_has_a_stored_number_or_a_reason(ci_run):
    """The regression guards every table and figure the CI config builds: each table (a CSV
    under tables/) has a row in config/ci_expected.csv, each figure's numbers file has one, or it
    is listed in UNGUARDED with the reason no number of it can be stored; a new table or figure
    fails here until one of the two is done."""
    stored = set(pd.read_csv(ROOT / "config/ci_expected.csv", comment="#").table)
    tables = {p.name for p in (ci_run / "tables").glob("*.csv")}
    figures = {p.stem for p in (ci_run / "figures").glob("*.png")}
    assert tables and figures
    unguarded = sorted(
        [t for t in tables if f"tables/{t}" not in stored and t not in UNGUARDED]
        + [f for f in figures if FIGURE_NUMBERS.get(f) not in stored and f not in UNGUARDED]
    )
    assert unguarded == [], f"no stored number and no reason: {unguarded}"
    assert not set(UNGUARDED) & ({f"{t}" for t in tables if f"tables/{t}" in stored} | set(
        FIGURE_NUMBERS)), "listed as unguarded but guarded"  # fmt: skip
    # the reasons hold on this run
    assert "not computed" in (ci_run / "figures/sdca_table2_cd.md").read_text()
    assert pd.read_csv(ci_run / "tables/svm_readings.csv").empty
    assert pd.read_csv(ci_run / "tables/sdca_table2_ranks.csv").friedman_chi2.isna().all()


@NEEDS_APT
def test_no_caption_or_table_of_the_ci_run_mentions_an_issue(ci_run):
    assert issue_mentions(ci_run) == []


def test_every_latex_table_of_the_ci_run_compiles(ci_run):
    """Each .tex compiles with pdflatex and the preamble it names, fits the page."""
    assert latex_failures(ci_run) == []
    assert list(ci_run.rglob("*.md")) and list(ci_run.rglob("*.tex"))  # something was checked


@NEEDS_APT
def test_a_changed_setting_reruns_exactly_the_cells_it_changes(ci_run, tmp_path):
    """Results follow their inputs (tripletbench.harness.settings): after the CI run, a changed grid value
    reruns that method's cell and the table; a changed description (notes) only the table;
    a changed n_triplets the constraints and every cell; nothing changed, nothing to do."""
    import copy

    import yaml

    from tests.pipeline import ROOT

    base = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
    table = ("table_sdca_2", "sdca_table2/all_runs.csv")

    def plan(mutate):
        cfg = copy.deepcopy(base)
        mutate(cfg["sdca_table2"])
        path = tmp_path / "cfg.yaml"
        path.write_text(yaml.safe_dump(cfg, sort_keys=False))
        return planned_jobs(ci_run, path)

    assert plan(lambda c: None) == set()
    assert plan(lambda c: c["methods"]["LEGO"]["grid"].update(eta=[0.01, 0.5])) == {
        ("fit_evaluate", "sdca_table2/runs/vehicle/LEGO.csv"),
        table,
    }
    assert plan(lambda c: c["methods"]["LEGO"]["notes"].update(ours="x")) == {table}
    sdca = base["sdca_table2"]["methods"]["SDCA"]["fixed"]  # the same settings, other key order
    reordered = dict(reversed(list(sdca.items())))
    assert plan(lambda c: c["methods"]["SDCA"].update(fixed=reordered)) <= {table}
    jobs = plan(lambda c: c.update(n_triplets=1500))
    assert ("sample_triplets", "sdca_table2/constraints/vehicle/seed0/triplets_train.npz") in jobs
    cells = {o for r, o in jobs if r == "fit_evaluate"}
    assert cells == {f"sdca_table2/runs/vehicle/{m}.csv" for m in base["sdca_table2"]["methods"]}
    assert not any(r == "split" for r, _ in jobs)


@NEEDS_APT
def test_a_rerun_fit_job_recomputes_exactly_the_seeds_its_change_affects(ci_run, tmp_path):
    """One fit_evaluate job runs every seed of a (dataset, method); rerun after a change, it
    recomputes only the seeds whose settings or inputs changed (harness/cells.py): a seed added to
    the config computes that seed alone and keeps the other's rows as they were (timings
    included); a changed setting of the method recomputes every seed."""
    import subprocess
    import sys

    import yaml

    out = tmp_path / "copy"
    shutil.copytree(ci_run, out)
    target = out / "sdca_table2/runs/vehicle/LEGO.csv"
    before = pd.read_csv(target, dtype={"settings_hash": str})
    cfg = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
    assert cfg["sdca_table2"]["seeds"] == [0]

    def run(mutate):
        mutate(cfg["sdca_table2"])
        path = tmp_path / "cfg.yaml"
        path.write_text(yaml.safe_dump(cfg, sort_keys=False))
        res = subprocess.run(
            [sys.executable, "-m", "snakemake", str(target), "--configfile", str(path),
             "--config", f"results_dir={out}", f"figures_dir={out}/figures", "--cores", "2",
             "--nolock"],
            cwd=ROOT, capture_output=True, text=True, check=False, timeout=600,
        )
        assert res.returncode == 0, (res.stdout + res.stderr)[-3000:]
        log = (out / "logs/sdca_table2/fit_evaluate/vehicle_LEGO.log").read_text()
        return pd.read_csv(target, dtype={"settings_hash": str}), log

    after, log = run(lambda c: c.update(seeds=[0, 1]))
    assert "1 of 2 seed(s) computed, 1 from the cell store" in log, log[-2000:]
    pd.testing.assert_frame_equal(after[after.seed == 0].reset_index(drop=True), before)
    assert set(after.seed) == {0, 1} and after.settings_hash.nunique() == 1
    with np.load(out / "sdca_table2/runs/vehicle/LEGO.npz") as z:
        assert {"seed0_M", "seed1_M", "seed0_params", "seed1_params"} <= set(z.files)
    changed, log = run(lambda c: c["methods"]["LEGO"]["grid"].update(eta=[0.01, 0.5]))
    assert "2 of 2 seed(s) computed, 0 from the cell store" in log, log[-2000:]
    assert changed.settings_hash.iloc[0] != after.settings_hash.iloc[0]
    store = sorted(p.name for p in (out / "sdca_table2/cell_store/vehicle/LEGO").iterdir())
    assert len(store) == 6  # the two seeds' current cells (csv, digest, npz); the old ones gone


@NEEDS_APT
def test_the_performance_table_follows_the_table2_rows_it_times(ci_run, tmp_path):
    """Performance times every SDCA Table 2 row but OASIS and SDCA with their fixed
    settings; a changed ITML max_iter reran the ITML cell and left performance's old value.
    Now it reruns performance (and the cells and table); a changed OASIS grid does not."""
    import copy

    import yaml

    from tests.pipeline import ROOT

    base = yaml.safe_load((ROOT / "config/ci.yaml").read_text())

    def plan(mutate):
        cfg = copy.deepcopy(base)
        mutate(cfg["sdca_table2"]["methods"])
        path = tmp_path / "cfg.yaml"
        path.write_text(yaml.safe_dump(cfg, sort_keys=False))
        return {r for r, _ in planned_jobs(ci_run, path, ["performance"])}

    assert plan(lambda m: None) == set()
    assert plan(lambda m: m["ITML"]["fixed"].update(max_iter=21)) == {"performance"}
    assert plan(lambda m: m["OASIS"]["grid"].update(C=[0.02, 0.1])) == set()


@NEEDS_APT
def test_a_table_or_figure_reruns_when_what_it_shows_changes_and_only_then(ci_run, tmp_path):
    """Every config value a table or figure shows is in its job's params: a reordered mapping
    whose order its rows or legend follow (canonical settings sort keys away: key_order keeps
    it) reruns the table and not the cells; the data mirror, which Table 2's caption names on
    the download route only, reruns nothing on the embedded route."""
    import copy

    import yaml

    from tests.pipeline import ROOT

    base = yaml.safe_load((ROOT / "config/ci.yaml").read_text())

    def plan(mutate, targets):
        cfg = copy.deepcopy(base)
        mutate(cfg)
        path = tmp_path / "cfg.yaml"
        path.write_text(yaml.safe_dump(cfg, sort_keys=False))
        return {r for r, _ in planned_jobs(ci_run, path, targets)}

    def reverse(block):
        block["methods"] = dict(reversed(list(block["methods"].items())))

    t3 = ["table_oahu_3"]
    assert plan(lambda c: None, t3) == set()
    assert plan(lambda c: reverse(c["oahu"]["table3"]), t3) == {"table_oahu_3"}
    assert plan(lambda c: reverse(c["sdca_table2"]), ["performance"]) == {"performance"}
    mirror = lambda c: c["data"].update(mirror=str(tmp_path))  # noqa: E731
    assert plan(mirror, ["table_sdca_2"]) == set()


@NEEDS_APT
def test_a_changed_oahu_or_svm_setting_reruns_exactly_the_cells_it_changes(ci_run, tmp_path):
    """The same for the OAHU and Schultz & Joachims cells: an OAHU grid value reruns OAHU's
    Table 3 cell and not OASIS's; a Table 3 block value both; a figure-only value (figure7.ks,
    svm.figure2) none; the SVM C reruns the SVM cell."""
    import copy

    import yaml

    from tests.pipeline import ROOT

    base = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
    targets = [str(ci_run / p) for p in OAHU_SVM_CELLS]
    oahu, oasis, svm = (("oahu_cell", OAHU_SVM_CELLS[0]), ("oahu_cell", OAHU_SVM_CELLS[1]),
                        ("svm_run", OAHU_SVM_CELLS[2]))

    def plan(mutate):
        cfg = copy.deepcopy(base)
        mutate(cfg)
        path = tmp_path / "cfg.yaml"
        path.write_text(yaml.safe_dump(cfg, sort_keys=False))
        return planned_jobs(ci_run, path, targets)

    assert plan(lambda c: None) == set()
    t3 = lambda c: c["oahu"]["table3"]  # noqa: E731
    assert plan(lambda c: t3(c)["methods"]["OAHU"]["grid"].update(tau=[0.3])) == {oahu}
    assert plan(lambda c: t3(c)["methods"]["OAHU"]["notes"].update(ours="x")) == set()
    assert plan(lambda c: t3(c).update(k=5)) == {oahu, oasis}
    assert plan(lambda c: t3(c).update(seeds=[0, 1, 2])) == set()  # existing cells stay
    assert plan(lambda c: c["oahu"]["figure7"].update(ks=[1, 2])) == set()
    assert plan(lambda c: c["svm"].update(C=2.0)) == {svm}
    assert plan(lambda c: c["svm"].update(figure2={"notions": ["vehicle"]})) == set()


@NEEDS_APT
def test_a_convergence_figure_follows_its_curves_and_refuses_stale_ones(ci_run, tmp_path):
    """The curve and timing rows carry their settings_hash: a changed figures.n_triplets plans
    the curve jobs and the figures only (the plots read the whole figures block for their
    captions; not the timing jobs, not Table 2); a figure
    given curve rows made under other settings (its curve jobs not allowed to rerun) refuses
    them, naming the rule that remakes them."""
    import copy
    import subprocess
    import sys

    import yaml

    from tests.pipeline import ROOT

    base = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
    assert pd.read_csv(ci_run / "curves/scaling/seed0.csv").settings_hash.str.startswith("s").all()
    cfg = copy.deepcopy(base)
    cfg["figures"]["n_triplets"] = base["figures"]["n_triplets"] + 500
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    targets = ("figure_sdca_1", "figure_sdca_2", "figure_oasis_3", "figure_scaling", "table_sdca_2")
    jobs = planned_jobs(ci_run, path, targets)
    seeds = base["figures"]["seeds"]
    assert jobs == {("curves", f"curves/{c}/seed{s}.csv") for c in ("sdca_1", "oasis_3")
                    for s in seeds} | {(f, f"figures/{f}.png")
                                       for f in ("figure_sdca_1", "figure_sdca_2", "figure_oasis_3",
                                                 "figure_scaling")}
    out = tmp_path / "res"  # a copy of the curves, so that the shared run stays intact
    shutil.copytree(ci_run / "curves", out / "curves")
    res = subprocess.run(
        [sys.executable, "-m", "snakemake", "figure_sdca_2", "--configfile", str(path),
         "--config", f"results_dir={out}", f"figures_dir={out}/figures", "--cores", "1",
         "--nolock", "--allowed-rules", "figure_sdca_2"],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=300,
    )
    log = res.stdout + res.stderr + "".join(p.read_text() for p in out.glob("logs/**/*.log"))
    assert res.returncode != 0 and "computed under other settings" in log, log[-3000:]
    assert "Rerun rule curves" in log


def test_oahu_and_svm_tables_refuse_rows_made_under_other_settings():
    import yaml

    from tripletbench.harness.settings import block_settings, check_block_fresh, check_fresh, settings_hash
    from tripletbench.harness.settings import expected_hashes
    from tests.pipeline import ROOT

    cfg = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
    script = "workflow/scripts/oahu/oahu_cell.py"
    good = expected_hashes(cfg, "oahu.table3", script)
    runs = pd.DataFrame({"dataset": "vehicle", "seed": 0, "algorithm": ["OAHU", "OASIS"],
                         "settings_hash": [good["OAHU"], good["OASIS"]]})
    check_fresh(runs, cfg, "oahu.table3", script, "oahu_cell")
    cfg["oahu"]["table3"]["methods"]["OAHU"]["grid"]["tau"] = [0.9]
    with pytest.raises(ValueError, match=r"(?s)1 cell\(s\).*OAHU on vehicle, seed 0"):
        check_fresh(runs, cfg, "oahu.table3", script, "oahu_cell")
    with pytest.raises(ValueError, match="--forcerun oahu_cell"):
        check_fresh(runs.drop(columns="settings_hash"), cfg, "oahu.table3", script, "oahu_cell")

    keys = ["C", "n_train_triplets"]
    settings = block_settings(cfg, "svm", keys, "workflow/scripts/svm/svm_run.py")
    rows = pd.DataFrame({"method": ["SVM-relative", "Binary"],
                         "settings_hash": settings_hash(settings)})
    check_block_fresh(rows, settings, "svm runs", "svm_run")
    cfg["svm"]["C"] = 7.0
    other = block_settings(cfg, "svm", keys, "workflow/scripts/svm/svm_run.py")
    with pytest.raises(ValueError, match="2 row\\(s\\) were computed under other settings"):
        check_block_fresh(rows, other, "svm runs", "svm_run")


def test_a_table_refuses_rows_made_under_other_settings():
    import yaml

    from tripletbench.harness.settings import check_fresh, expected_hashes
    from tests.pipeline import ROOT

    cfg = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
    script = "workflow/scripts/fit_evaluate.py"
    good = expected_hashes(cfg, "sdca_table2", script)
    runs = pd.DataFrame(
        {"dataset": "vehicle", "seed": 0, "algorithm": ["LEGO", "SDCA"],
         "settings_hash": [good["LEGO"], good["SDCA"]]}
    )
    check_fresh(runs, cfg, "sdca_table2", script)  # current rows pass
    cfg["sdca_table2"]["methods"]["LEGO"]["grid"]["eta"] = [0.5]
    with pytest.raises(ValueError, match=r"LEGO on vehicle, seed 0: settings"):
        check_fresh(runs, cfg, "sdca_table2", script)
    with pytest.raises(ValueError, match="no settings_hash"):
        check_fresh(runs.drop(columns="settings_hash"), cfg, "sdca_table2", script)


def test_key_order_keeps_what_canonical_sorts_away():
    from tripletbench.harness.settings import canonical, key_order

    a = {"methods": {"SDCA": {"lam": 1, "n": 2}, "OASIS": {}}, "seeds": [0, 1]}
    b = {"seeds": [0, 1], "methods": {"OASIS": {}, "SDCA": {"n": 2, "lam": 1}}}
    assert repr(canonical(a)) == repr(canonical(b))  # the same settings
    assert key_order(a) == [
        ["methods", [["SDCA", [["lam", None], ["n", None]]], ["OASIS", []]]],
        ["seeds", [None, None]],
    ]
    assert key_order(a) != key_order(b) and key_order([{"x": 1}]) == [[["x", None]]]


def test_a_settings_hash_survives_a_csv_round_trip(tmp_path):
    """A hash of bare hex digits such as 2420338e9583 is read back by pandas as a float (inf) and a
    fresh cell looked stale (CI failure of 2026-11-23); the hash is text whatever its digits."""
    from tripletbench.harness.io import save_csv
    from tripletbench.harness.settings import settings_hash
    from tripletbench.harness.tables import collect

    hashes = [settings_hash({"k": i}) for i in range(2000)]
    assert all(not h.replace(".", "").isdigit() for h in hashes)
    for h in hashes[:50]:
        with pytest.raises(ValueError):
            float(h)
    save_csv(tmp_path / "r.csv", pd.DataFrame({"settings_hash": hashes}))  # as a job writes it
    assert list(pd.read_csv(tmp_path / "r.csv").settings_hash) == hashes
    assert list(collect([tmp_path / "r.csv"]).settings_hash) == hashes


def test_a_learners_code_hash_covers_its_own_modules_only():
    from tripletbench.harness.settings import code_closure

    lego = code_closure(["tripletbench.algorithms.lego"])
    assert "tripletbench.algorithms.lego" in lego and "tripletbench.algorithms.base" in lego
    assert "tripletbench.algorithms.oasis" not in lego and "tripletbench.algorithms" not in lego
    assert "tripletbench.algorithms.lego" in code_closure(["tripletbench.algorithms.itml_online"])  # shares its LogDet step
    cell = code_closure(script="workflow/scripts/fit_evaluate.py", exclude={"tripletbench.algorithms"})
    assert "tripletbench.harness.experiment" in cell and "tripletbench.evaluation.retrieval" in cell
    # the base classes, their checks and the engine's loops
    shared = {"tripletbench.algorithms.base", "tripletbench.algorithms._checks", "tripletbench.algorithms.kernels",
              "tripletbench.algorithms._params", "tripletbench.algorithms._scores",
              "tripletbench.algorithms._stream", "tripletbench.algorithms._tuples",
              "tripletbench.algorithms._constraints", "tripletbench.algorithms._pairs"}
    assert not any(m.startswith("tripletbench.algorithms.") and m not in shared for m in cell)


def test_a_data_jobs_code_hash_leaves_out_code_it_does_not_run():
    """The split draws no triplet: the sampler's module is outside its closure (a changed
    sampler once changed every split's settings, so the cells refused their splits), and inside
    the closure of the triplets' job and of the cells'."""
    from tripletbench.harness.settings import code_closure

    sampler = "tripletbench.algorithms._constraints"
    assert sampler not in code_closure(script="workflow/scripts/split.py")
    assert sampler in code_closure(script="workflow/scripts/sample_triplets.py")
    assert sampler in code_closure(script="workflow/scripts/fit_evaluate.py")


def test_a_moved_number_is_named_with_stored_and_new_values():
    table = pd.DataFrame(
        {
            "dataset": ["vehicle", "x"],
            "algorithm": ["SDCA", "SDCA"],
            "mean": ["0.5012", ""],
            "status": ["ok", "needs download"],
        }
    )
    expected = pd.DataFrame(
        {
            "table": "tables/t.csv",
            "cell": ["dataset=vehicle;algorithm=SDCA", "dataset=x;algorithm=SDCA",
                     "dataset=vehicle;algorithm=LEGO", "dataset=x;algorithm=SDCA"],
            "column": ["mean", "status", "mean", "status"],
            "value": ["0.5", "needs download", "0.4", "ok"],
            "abs_tol": ["5e-4", "0", "5e-4", "0"],
        }
    )  # fmt: skip
    problems = compare(None, expected, tables={"tables/t.csv": table})
    assert problems == [
        "tables/t.csv[dataset=vehicle;algorithm=SDCA].mean: stored 0.500000, new 0.501200 "
        "(tolerance ±0.0005)",
        "tables/t.csv[dataset=vehicle;algorithm=LEGO].mean: stored 0.400000, now missing from "
        "the table (no such row)",
        "tables/t.csv[dataset=x;algorithm=SDCA].status: stored 'ok', new 'needs download'",
    ]
    # a table the run could not build (the human table without ../shared/mirror) is named as
    # skipped with the reason, never read, neither ok nor moved
    from tripletbench.harness.regression import report, report_lines

    rows = report(None, expected, skip={"tables/t.csv": "not run: no data mirror"}, tables={})
    assert rows.ok.all() and report_lines(rows)[0] == (
        "skip  tables/t.csv[dataset=vehicle;algorithm=SDCA].mean: stored 0.500000, not checked: "
        "not run: no data mirror"
    )


def test_table2_sets_each_cell_beside_another_routes_table(ci_run, tmp_path):
    """sdca_table2.compare_with: the table gains the other table's mean, the difference and a
    Markdown section, and says so; a compare file that does not exist yet is named instead."""
    import subprocess
    import sys

    import pandas as pd
    import yaml

    from tests.pipeline import ROOT

    out = tmp_path / "out"
    shutil.copytree(ci_run, out)
    other = tmp_path / "other_route.csv"
    shutil.copy(out / "tables" / "sdca_table2.csv", other)

    def table(compare):
        cfg = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
        cfg["sdca_table2"]["compare_with"] = str(compare)
        (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
        cmd = [sys.executable, "-m", "snakemake", "table_sdca_2", "--configfile",
               str(tmp_path / "cfg.yaml"), "--config", f"results_dir={out}",
               f"figures_dir={out}/figures", "--cores", "2", "--nolock"]  # fmt: skip
        res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, (res.stdout + res.stderr)[-4000:]
        assert "fit_evaluate" not in res.stdout + res.stderr  # only the table is remade
        return pd.read_csv(out / "tables" / "sdca_table2.csv"), (
            out / "tables" / "sdca_table2.md"
        ).read_text()

    csv, md = table(other)
    ok = csv[csv.status == "ok"]
    assert len(ok) and (ok.route_diff == 0).all() and (ok.other_route == "embedded").all()
    assert "Difference, embedded route - embedded route (mAP):" in md
    assert f"the same cell of the embedded route's table ({other}" in md
    csv, md = table(tmp_path / "absent.csv")
    assert "route_diff" not in csv and "does not exist yet" in md
