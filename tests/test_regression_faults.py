"""The regression's power: small deliberate faults, one at a time, in a copy of the checkout that
holds the CI run (the ``ci_run`` fixture) and Snakemake's records of it
(:func:`tests.pipeline.clone_run`). Each fault changes the code hash of the jobs that run it, so
``snakemake regression_check`` reruns those jobs only (what a commit with that bug would rerun
in CI) and must fail, naming a stored number that moved (config/ci_expected.csv).

One fault per learner family (the bilinear SDCA, SVM-relative, the LogDet pair learner LEGO,
the metric-learn wrapper of ITML, OAHU), one in the ranking (mAP's rank, Recall@K's tie group),
one in the triplet sampler and one in a table's aggregation over seeds. A fault in a module that
every cell imports (the ranking, the sampler) would rerun nearly the whole CI run; there the
rerun is confined to the rules of one table (``--allowed-rules``), which is enough to show that
a stored number catches it (the other tables' cells keep their old rows)."""

import re
import shutil
import subprocess
import sys

import pytest

from tests.pipeline import checkout_env, clone_run

pytestmark = pytest.mark.slow  # runs the workflow: not in the fast subset (-m "not slow")

NEEDS_APT = pytest.mark.skipif(
    shutil.which("apt-get") is None, reason="the embedded route needs Debian's apt"
)

# the rules of one experiment's jobs, for a fault confined to it (--allowed-rules)
TABLE2 = {"fit_evaluate", "table_sdca_2"}

# name: (file, text, faulty text, the table a moved number must be of, rules allowed to rerun
# (None: any, as a real run), {rule: pattern}: the jobs that compute cells (not a table_ or
# figure_ rule, which only aggregate: their code hashes cover the modules they import, so an
# edit anywhere in the code behind them reruns them, in seconds) that may run, each with a regex
# that its output must match ("" any))
FAULTS = {
    "SDCA: the dual step's alpha_i / 2 term doubled": (
        "algorithms/sdca.py",
        "delta = (1.0 - m - 0.5 * ai) / state[i, 1]",
        "delta = (1.0 - m - ai) / state[i, 1]",
        "tables/sdca_table2.csv",
        None,
        {"fit_evaluate": r"/SDCA(-random)?\.csv$", "curves": r"/sdca_1/|/oasis_3/"},
    ),
    "SVM-relative: eq. 8's constraint rows reversed": (
        "algorithms/svm_relative.py",
        "out = _sq_diff(Fa, Fn) - _sq_diff(Fa, Fp)",
        "out = _sq_diff(Fa, Fp) - _sq_diff(Fa, Fn)",
        "tables/svm_table1.csv",
        {"svm_features", "svm_run", "table_svm_1"},  # not the C sweep's 8 cells (~2 min)
        {"svm_features": "", "svm_run": ""},
    ),
    "LEGO (LogDet pair stream): the targets of similar and dissimilar pairs swapped": (
        "algorithms/lego.py",
        "target = np.where(y == 1, lo, hi)",
        "target = np.where(y == 1, hi, lo)",
        "tables/sdca_table2.csv",
        None,
        {"fit_evaluate": r"/(LEGO|ITML-online)\.csv$"},  # ITML-online shares the LogDet stream
    ),
    "ITML (metric-learn wrapper): the pair labels flipped": (
        "algorithms/itml.py",
        "axis=1), y)",
        "axis=1), -y)",
        "tables/sdca_table2.csv",
        None,
        {"fit_evaluate": r"sdca_table2/runs/.*/ITML\.csv$"},
    ),
    "OAHU: eq. 11's similar-pair threshold with its exponent's sign flipped": (
        "algorithms/_oahu_loss.py",
        "d_sim = tau / (_E2 - 1.0) * (_exp(d_pos) - 1.0)",
        "d_sim = tau / (_E2 - 1.0) * (_exp(-d_pos) - 1.0)",
        "tables/oahu_table3.csv",
        None,
        {r: r"/OAHU[^/]*\.csv$" for r in ("oahu_cell", "oahu_fig4_cell", "oahu_fig5_cell")}
        | {"oahu_sensitivity": ""},
    ),
    "COMET: the logdet barrier's gradient with its sign flipped": (
        "algorithms/comet.py",
        "u = -(0.5 * (g_row + g_col) + self.frob * W[:, k] - self.mu * Winv[:, k])",
        "u = -(0.5 * (g_row + g_col) + self.frob * W[:, k] + self.mu * Winv[:, k])",
        "tables/sdca_table2.csv",
        None,
        {"fit_evaluate": r"/COMET\.csv$"},
    ),
    "RDML: a dissimilar pair's update pulls its points together": (
        "algorithms/rdml.py",
        "A[:] += lam * np.outer(dvec, dvec)",
        "A[:] -= lam * np.outer(dvec, dvec)",
        "tables/sdca_table2.csv",
        None,
        {"fit_evaluate": r"/RDML\.csv$"},
    ),
    "OPML: the step's gradient with its sign flipped": (
        "algorithms/opml.py",
        "U = gamma * np.column_stack([a, -b])",
        "U = gamma * np.column_stack([-a, b])",
        "tables/sdca_table2.csv",
        None,
        {"fit_evaluate": r"/OPML\.csv$"},
    ),
    "mAP: every rank one too far (off by one)": (
        "evaluation/retrieval.py",
        'return len(row) - np.searchsorted(np.sort(row), r, side="left")',
        'return len(row) - np.searchsorted(np.sort(row), r, side="left") + 1',
        "tables/sdca_table2.csv",
        TABLE2,
        {"fit_evaluate": r"sdca_table2/runs/"},
    ),
    "Recall@K: the relevant item's tie group counted from its start": (
        "evaluation/retrieval.py",
        "reach = np.count_nonzero(S >= best[:, None], axis=1)",
        "reach = np.count_nonzero(S > best[:, None], axis=1)",
        "oahu/figure7/summary.csv",
        {"oahu_cell", "table_oahu_3", "figure_oahu_7"},  # not Figures 4, 5, the sensitivity
        {"oahu_cell": ""},
    ),
    "triplet sampler: the positive may be the anchor itself (off by one)": (
        "algorithms/_constraints.py",
        "q = q + (q >= rank[anchor])",
        "q = q + (q > rank[anchor])",
        "tables/sdca_table2.csv",
        TABLE2 | {"sample_triplets"},
        {"sample_triplets": r"sdca_table2/", "fit_evaluate": r"sdca_table2/runs/"},
    ),
    "aggregation: the median over seeds taken for their mean": (
        "harness/paper_table.py",
        '"mean": v.mean() if len(v) else np.nan',
        '"mean": v.median() if len(v) else np.nan',
        "tables/svm_table1.csv",  # the CI table with three seeds (of two, the median is the mean)
        None,
        {},
    ),
    "classical MDS: the squared distances not double-centred": (
        "studies/svm/experiment.py",
        "J = np.eye(n) - 1.0 / n",
        "J = np.eye(n)",
        "tables/svm_mds.csv",
        # the SVM cells import the same module, so their settings hash moves and the figure
        # refuses the old runs: they rerun too (~1.5 min), not the C sweep's 8 cells
        {"svm_features", "svm_run", "figure_svm_mds"},
        {"svm_features": "", "svm_run": ""},
    ),
    "aggregation: the std over seeds with ddof 0": (
        "harness/paper_table.py",
        '"std": v.std(ddof=1) if len(v) > 1 else np.nan',
        '"std": v.std(ddof=0) if len(v) > 1 else np.nan',
        "tables/oahu_table3.csv",
        None,
        {},
    ),
}


def _jobs(log: str) -> set[tuple[str, str]]:
    """(rule, first output) of each job a Snakemake run started (its log), but the check's own."""
    jobs = re.findall(r"^[ ]*(?:local)?rule (\w+):\n(?:.*\n)*?[ ]+output: ([^,\n]+)", log, re.M)
    return {(r, o) for r, o in jobs if r != "regression_check"}


def _unexpected(jobs, may_run: dict) -> list[str]:
    """The cell jobs among ``jobs`` that ``may_run`` does not allow."""
    aggregates = ("table_", "figure_")
    return sorted(
        f"{r}: {o}" for r, o in jobs
        if not r.startswith(aggregates) and not (r in may_run and re.search(may_run[r], o))
    )  # fmt: skip


@NEEDS_APT
@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_deliberate_fault_is_caught_by_a_stored_number(ci_run, tmp_path, fault):
    path, text, faulty, table, allowed, may_run = FAULTS[fault]
    ck, results = clone_run(ci_run, tmp_path)
    src = ck / path
    code = src.read_text()
    assert code.count(text) == 1, f"{path}: the faulty line's original is not there once"
    src.write_text(code.replace(text, faulty))
    cmd = [sys.executable, "-m", "snakemake", "regression_check", "--configfile",
           "config/ci.yaml", "--config", f"results_dir={results}", f"figures_dir={results}/figures",
           "--cores", "2", "--nolock"]  # fmt: skip
    if allowed:
        cmd += ["--allowed-rules", *sorted(allowed | {"regression_check"})]
    res = subprocess.run(cmd, cwd=ck, env=checkout_env(ck), capture_output=True, text=True,
                         timeout=900, check=False)  # fmt: skip
    log = res.stdout + res.stderr
    report = (results / "logs/regression_check.log").read_text()
    moved = [line for line in report.splitlines() if line.startswith("MOVED")]
    assert res.returncode != 0 and "regression check failed" in log, log[-4000:]
    caught = [line for line in moved if line.startswith(f"MOVED {table}[")]
    assert caught, "\n".join(moved) or log[-4000:]
    ran = _jobs(log)
    assert ran and not _unexpected(ran, may_run), f"{fault}: reran {_unexpected(ran, may_run)} too"
    cells = sorted(o for r, o in ran if not r.startswith(("table_", "figure_")))
    print(f"{fault}: reran {len(cells)} cell jobs and the tables; {len(moved)} stored numbers "
          f"moved, first: {moved[0]}")


@NEEDS_APT
def test_the_copy_of_the_ci_run_plans_nothing_without_a_fault(ci_run, tmp_path):
    """The clone's records hold: without a fault nothing but the regression check itself (its
    input, the stored values, is a file of the copied checkout) is planned."""
    ck, results = clone_run(ci_run, tmp_path)
    res = subprocess.run(
        [sys.executable, "-m", "snakemake", "regression_check", "-n", "--configfile",
         "config/ci.yaml", "--config", f"results_dir={results}", f"figures_dir={results}/figures",
         "--nolock"],
        cwd=ck, env=checkout_env(ck), capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert res.returncode == 0, (res.stdout + res.stderr)[-3000:]
    assert _jobs(res.stdout) == set(), res.stdout[-3000:]
