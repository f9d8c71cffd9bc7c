# Config loading and validation, paths, and the run wall-time log.
import os
import sys
import time
from pathlib import Path

import yaml
from snakemake.utils import validate

# The checkout: two levels above this file (the top-level Snakefile and workflow/Snakefile both
# include it, so the workflow runs with either as its main Snakefile).
ROOT = Path(workflow.current_basedir.get_path_or_uri(secret_free=True)).resolve().parents[1]
# The harness runs from its checkout: make its packages importable by every rule script, and keep
# each job to one BLAS thread so that --cores N runs N independent cells in parallel.
os.environ["PYTHONPATH"] = str(ROOT)
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"
sys.path.insert(0, str(ROOT))

if not workflow.overwrite_configfiles:

    configfile: ROOT / "config/default.yaml"


validate(config, ROOT / "workflow/schemas/config.schema.yaml")

from datasets.base import quarantine_corrupt_prepared  # noqa: E402
from harness.config import check_config, experiment_cells, unpinned_downloads_opt_in  # noqa: E402
from harness.settings import block_settings, cell_settings, code_hash, data_settings  # noqa: E402

check_config(config)
# Unpinned downloads only when asked for on this run's command line, never from a config file.
config["data"]["allow_unpinned_downloads"] = unpinned_downloads_opt_in(
    config, workflow.config_settings.config
)

CACHE = config["data"]["cache_dir"]
ROUTE = config["data"]["route"]
RESULTS = config["results_dir"]
FIGURES = config["figures_dir"]
LOGS = f"{RESULTS}/logs"
# A corrupt or truncated prepared file is moved aside (kept as <file>.corrupt) so that it is
# rebuilt by prepare_dataset, instead of failing every job that reads it.
if workflow.is_main_process:
    for _msg in quarantine_corrupt_prepared(f"{CACHE}/prepared"):
        print(_msg, file=sys.stderr)
# Outputs that `reproduce_all` asks for besides Table 2, the figures and the performance table:
# each experiment's rule file appends its tables and figures here.
REPRODUCE_ALL = []

# Cluster execution (profiles/, config/README.md). A timing rule asks for every core of the
# machine it runs on so that no other job runs beside it: Snakemake lowers `threads` to --cores
# on a local run; the cluster profiles give these rules one thread and a whole node
# (resources.whole_node = 1; SLURM: --exclusive). Nothing here reads workflow.cores, which is
# unset at parse time under --report, --lint or an executor plugin.
WHOLE_NODE_THREADS = 1024
# Per-rule memory (MB) and run time (minutes): measured, with the run they come from, in
# workflow/resources.yaml.
_RESOURCES = yaml.safe_load((ROOT / "workflow/resources.yaml").read_text())["rules"]
MEM_MB = {rule: v["mem_mb"] for rule, v in _RESOURCES.items()}
RUNTIME_MIN = {rule: v["runtime"] for rule, v in _RESOURCES.items()}

# The report (report.smk, harness/report.py): captions and table pages are written under
# {results}/report by rule report_pages; a report() flag needs their absolute path.
REPORT_DIR = os.path.abspath(f"{RESULTS}/report")


def report_figure(path, name, variant=None):
    """``path`` (a figure's PNG) as a report item of figure ``name`` (harness.report.ITEMS)."""
    from harness.report import ITEMS, report_labels

    return report(
        path,
        caption=f"{REPORT_DIR}/captions/{name}.rst",
        category=ITEMS[name].category,
        subcategory="Figures",
        labels=report_labels(name, variant),
    )


def report_table(path, name):
    """``path`` (a table's report page) as a report item of table ``name``."""
    from harness.report import ITEMS, report_labels

    return report(
        path,
        caption=f"{REPORT_DIR}/captions/{name}.rst",
        category=ITEMS[name].category,
        subcategory="Tables",
        labels=report_labels(name),
    )


wildcard_constraints:
    dataset=r"[a-z0-9_]+",
    seed=r"\d+",
    method=r"[A-Za-z][A-Za-z0-9_-]*",
    experiment=r"[a-z0-9_]+",


def curve_files(name):
    """The per-seed training-curve CSVs of convergence figure ``name``."""
    key = "scaling_seeds" if name == "scaling" else "seeds"
    return expand(f"{RESULTS}/curves/{name}/seed{{seed}}.csv", seed=config["figures"][key])


def record_run_start():
    Path(LOGS).mkdir(parents=True, exist_ok=True)
    workflow._tb_started = time.time()


def record_run_end(status):
    """Add this invocation's wall time to {results}/logs/run_walltime.csv (rewritten atomically
    with its header, so a full disk leaves the previous file intact; a failure to record is
    reported, never raised over the run's own outcome)."""
    from harness.io import append_csv_row

    started = getattr(workflow, "_tb_started", None)
    if started is None:
        return
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started))
    targets = " ".join(
        workflow.dag.targetrules and sorted(r.name for r in workflow.dag.targetrules) or []
    )
    row = f"{stamp},{time.time() - started:.1f},{status},{targets},{workflow.cores}"
    try:
        append_csv_row(
            Path(LOGS) / "run_walltime.csv", "started_utc,wall_s,status,targets,cores", row
        )
    except OSError as err:
        print(
            f"could not record the run's wall time in {LOGS}/run_walltime.csv: {err}",
            file=sys.stderr,
        )
