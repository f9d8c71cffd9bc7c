# Config loading and validation, paths, and the run wall-time log.
import os
import sys
import time
from pathlib import Path

import yaml
from snakemake.utils import validate

ROOT = Path(workflow.basedir).resolve()
# The harness runs from its checkout: make its packages importable by every rule script, and keep
# each job to one BLAS thread so that --cores N runs N independent cells in parallel.
os.environ["PYTHONPATH"] = str(ROOT)
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"
sys.path.insert(0, str(ROOT))

if not workflow.overwrite_configfiles:
    configfile: ROOT / "config/default.yaml"


validate(config, ROOT / "workflow/schemas/config.schema.yaml")

from harness.config import check_config, experiment_cells  # noqa: E402

check_config(config)

CACHE = config["data"]["cache_dir"]
ROUTE = config["data"]["route"]
RESULTS = config["results_dir"]
FIGURES = config["figures_dir"]
LOGS = f"{RESULTS}/logs"
# Outputs that `reproduce_all` asks for besides Table 2, the figures and the performance table:
# each experiment's rule file appends its tables and figures here.
REPRODUCE_ALL = []


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
    """Append this invocation's wall time to {results}/logs/run_walltime.csv."""
    started = getattr(workflow, "_tb_started", None)
    if started is None:
        return
    path = Path(LOGS) / "run_walltime.csv"
    new = not path.exists()
    with open(path, "a") as fh:
        if new:
            fh.write("started_utc,wall_s,status,targets,cores\n")
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started))
        targets = " ".join(workflow.dag.targetrules and sorted(r.name for r in workflow.dag.targetrules) or [])
        fh.write(f"{stamp},{time.time() - started:.1f},{status},{targets},{workflow.cores}\n")
