# Config loading and validation, paths, and the run wall-time log.
import os
import sys
import time
from pathlib import Path

import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

# The checkout: two levels above this file (the top-level Snakefile and workflow/Snakefile both
# include it, so the workflow runs with either as its main Snakefile).
ROOT = Path(workflow.current_basedir.get_path_or_uri(secret_free=True)).resolve().parents[1]
# Keep each job to one BLAS thread so that --cores N runs N independent cells in parallel.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"
# The rules and their scripts import the project as tripletbench.algorithms, ... : this checkout,
# installed editable in the environment that runs Snakemake (setup.sh: pip install -e .).
try:
    import tripletbench.harness as _harness
except ModuleNotFoundError:
    raise WorkflowError(
        "tripletbench is not installed in this environment: run `bash setup.sh` (it installs "
        "this checkout editable, pip install -e . --no-deps) and use .venv/bin/snakemake"
    ) from None
if Path(_harness.__file__).resolve().parents[1] != ROOT:
    raise WorkflowError(
        f"this environment's tripletbench is the checkout {Path(_harness.__file__).parents[1]}, "
        f"not {ROOT}: install this one (pip install -e {ROOT} --no-deps, in an environment of "
        "its own) or run the workflow from that checkout"
    )

# The few Snakemake internals the workflow uses, behind one adapter, checked before anything else
# (harness/snakemake_internals.py: a missing one stops the run naming it and the versions tested).
from tripletbench.harness import snakemake_internals  # noqa: E402

try:
    snakemake_internals.check_workflow(workflow)
except snakemake_internals.SnakemakeInternalsError as _err:
    raise WorkflowError(str(_err)) from None

# The studies (one package each, tripletbench.studies) register with the core first: the config
# checks, settings and report read their declarations.
from tripletbench.studies import STUDIES  # noqa: E402

if not workflow.overwrite_configfiles:

    configfile: ROOT / "config/default.yaml"


from tripletbench.harness.config import (  # noqa: E402
    check_config_size,
    check_duplicate_keys,
    check_no_templating,
    check_profiles,
)

# Before anything walks the config: its size (a YAML alias expansion), no YTE templating and no
# key given twice in one mapping of a config file (YAML keeps the last one silently), nor in a
# profile the run uses, its config: list, or the typed --config.
check_config_size(config)
check_no_templating(workflow.configfiles)
check_duplicate_keys(workflow.configfiles)
if workflow.is_main_process:
    check_profiles(sys.argv, os.environ, Path(workflow.main_snakefile).parent)
    from tripletbench.harness.run_lock import RunLocked, check_hooks

    try:  # --no-hooks would skip onstart: no lock, no kept outputs (main.smk)
        check_hooks(sys.argv[1:])
    except RunLocked as _err:
        raise WorkflowError(str(_err)) from None
from tripletbench.harness.config import check_schema, experiment_blocks, schema_file  # noqa: E402

# The experiment blocks the config gives, read before the schema fills in defaults: main.smk
# includes the rule file of these only, so a config with one block plans that block alone.
BLOCKS_ON = experiment_blocks(config)
# The schema first as one line naming the key (check_schema), then Snakemake's validate, which
# fills in the defaults; the schema holds the names of the datasets and learners found.
if workflow.is_main_process:  # a job's process gets the config the main process checked
    check_schema(config)
validate(config, schema_file())

from tripletbench.datasets import MODULES as DATASET_MODULES  # noqa: E402
from tripletbench.datasets import get_dataset  # noqa: E402
from tripletbench.datasets.base import quarantine_corrupt_prepared  # noqa: E402
from tripletbench.datasets.rows import rows_paths  # noqa: E402
from tripletbench.harness.config import (  # noqa: E402
    check_config,
    command_line_config,
    experiment_cells,
    unpinned_downloads_opt_in,
)
from tripletbench.harness.freshness import (  # noqa: E402
    check_report_fresh,
    check_report_pages,
    is_report_run,
)
from tripletbench.harness.regression import stored_tables  # noqa: E402
from tripletbench.harness.settings import (  # noqa: E402
    block_settings,
    canonical,
    cell_settings,
    code_hash,
    data_settings,
    key_order,
    settings_hash,
)

# the checks that import a library (cblearn's ordinal embeddings) in the main process only: it
# has checked them before any job (harness/config.py: check_config)
check_config(config, libraries=workflow.is_main_process)
# Unpinned downloads only when asked for on the typed command line of this run, never from a
# config file or a profile (which also fills workflow.config_settings.config). A job process
# that Snakemake spawns (cluster, group jobs) gets its command line from the main process,
# which has already decided.
config["data"]["allow_unpinned_downloads"] = unpinned_downloads_opt_in(
    config,
    (
        command_line_config(sys.argv)
        if workflow.is_main_process
        else snakemake_internals.recorded_config(workflow)
    ),
)

CACHE = config["data"]["cache_dir"]
ROUTE = config["data"]["route"]
MIRROR = config["data"].get("mirror")  # a data mirror for the download route, or None
# The fetching rules' `allow_unpinned` param: False without the opt-in (every file then has a pin
# of ours, whichever host served it); under it, where unpinned files come from (the mirror, or
# the publishers), so that naming another mirror reruns what an unpinned file went into.
UNPINNED_FROM = (MIRROR or "publishers") if config["data"]["allow_unpinned_downloads"] else False
RESULTS = config["results_dir"]
FIGURES = config["figures_dir"]
LOGS = f"{RESULTS}/logs"
# A corrupt or truncated prepared file is moved aside (kept as <file>.corrupt) so that it is
# rebuilt by prepare_dataset, instead of failing every job that reads it.
if workflow.is_main_process:
    for _msg in quarantine_corrupt_prepared(f"{CACHE}/prepared"):
        print(_msg, file=sys.stderr)
# Outputs that `reproduce_all` asks for: each experiment's rule file appends its tables and
# figures here.
REPRODUCE_ALL = []

# Cluster execution (profiles/, config/README.md). A timing rule asks for every core of the
# machine it runs on so that no other job runs beside it: Snakemake lowers `threads` to --cores
# on a local run; the cluster profiles give these rules one thread and a whole node
# (resources.whole_node = 1; SLURM: --exclusive). Nothing here reads workflow.cores, which is
# unset at parse time under --report, --lint or an executor plugin.
WHOLE_NODE_THREADS = 1024
# Memory (MB) and run time (minutes) of each job, per rule, measured (with the run) in
# workflow/resources.yaml.
_RESOURCES = yaml.safe_load((ROOT / "workflow/resources.yaml").read_text())["rules"]
MEM_MB = {rule: v["mem_mb"] for rule, v in _RESOURCES.items()}
RUNTIME_MIN = {rule: v["runtime"] for rule, v in _RESOURCES.items()}

# The report (report.smk, harness/report.py): captions and table pages are written under
# {results}/report by rule report_pages; a report() flag needs their absolute path.
REPORT_DIR = os.path.abspath(f"{RESULTS}/report")
# The papers' numbers as printed (config/paper_results.csv: paper, artifact, dataset, method, value).
PAPER_RESULTS = ROOT / "config/paper_results.csv"


def paper_numbers(paper, artifact):
    """The numbers of one paper's table as a table rule's params (tripletbench.harness.tables.paper_rows):
    editing one of them reruns the tables that show it, and no other."""
    from tripletbench.harness.tables import paper_rows

    return paper_rows(PAPER_RESULTS, paper, artifact)


def script_code(script):
    """The code hash of a table, figure or report script and of every project module it imports
    (tripletbench.harness.settings.code_hash), as its rule's params: an edit in a shared module such as
    tripletbench.harness.tables or tripletbench.harness.plots reruns the rules whose scripts use it.
    """
    return code_hash(script=script)


def report_figure(path, name, variant=None):
    """``path`` (a figure's PNG) as a report item of figure ``name`` (tripletbench.harness.report.ITEMS)."""
    from tripletbench.harness.report import ITEMS, report_labels

    return report(
        path,
        caption=f"{REPORT_DIR}/captions/{name}.rst",
        category=ITEMS[name].category,
        subcategory="Figures",
        labels=report_labels(name, variant),
    )


def report_table(path, name):
    """``path`` (a table's report page) as a report item of table ``name``."""
    from tripletbench.harness.report import ITEMS, report_labels

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
    from tripletbench.harness.io import append_csv_row

    started = getattr(workflow, "_tb_started", None)
    if started is None:
        return
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started))
    targets = " ".join(snakemake_internals.target_rules(workflow))
    # --cores of a local run; empty under a cluster executor given no --cores
    cores = snakemake_internals.cores(workflow)
    row = f"{stamp},{time.time() - started:.1f},{status},{targets},{'' if cores is None else cores}"
    try:
        append_csv_row(
            Path(LOGS) / "run_walltime.csv", "started_utc,wall_s,status,targets,cores", row
        )
    except OSError as err:
        print(
            f"could not record the run's wall time in {LOGS}/run_walltime.csv: {err}",
            file=sys.stderr,
        )


# --- functions of data.smk (split, triplets, fit cells); they read that file's settings when called ---


FIT_DATA = {}
"""Experiment -> function(wildcards) giving a cell's feature file, where it is not the prepared
dataset: each study's rule file that feeds fit_evaluate other features adds its own (the image
sets' per-seed features, Table 4's collection)."""


def cell_data(wildcards):
    """The feature file of a cell: the prepared dataset, or what its experiment's study gives
    (FIT_DATA)."""
    if wildcards.experiment in FIT_DATA:
        return FIT_DATA[wildcards.experiment](wildcards)
    return f"{CACHE}/prepared/{wildcards.dataset}_{ROUTE}.npz"


def job_data(wildcards):
    """The feature files of a fit_evaluate job, one per seed of its experiment (in the order of
    :func:`cell_seeds`; :func:`cell_data` of each seed's cell, the same file where the seeds
    share it)."""
    from types import SimpleNamespace

    return [
        cell_data(
            SimpleNamespace(experiment=wildcards.experiment, dataset=wildcards.dataset, seed=s)
        )
        for s in cell_seeds(wildcards.experiment)
    ]


FIT_DATA_SETTINGS = {}
"""Experiment -> function(wildcards) giving the settings of the job that writes a cell's feature
file (FIT_DATA), where that job records them (the image sets' images_features): the cell checks
its feature file as it checks its split and triplets (:func:`fit_inputs`)."""


FIT_SPLIT = {}
"""Experiment -> function(wildcards) giving the settings of the job that writes its cells' split
files, where the split job's are not (:func:`split_settings`): each study whose splits another
job writes adds its own (the image sets' images_features, Table 4's table4_split)."""


def split_settings(wildcards):
    """Rule split's settings (data.smk): the split's sizes, the route and the script's code."""
    return data_settings(
        config,
        wildcards.experiment,
        ["train_fraction", "fit_fraction"],
        "workflow/scripts/split.py",
    )


def triplet_settings(wildcards):
    """Rule sample_triplets' settings (data.smk): the triplet count, the route and the code."""
    return data_settings(
        config, wildcards.experiment, ["n_triplets"], "workflow/scripts/sample_triplets.py"
    )


def fit_inputs(wildcards):
    """The settings hash each input file of a fit_evaluate job must record: that of the job that
    writes it, under this config (the job refuses a file made under others, naming it: a results
    folder copied without Snakemake's metadata once fitted 3,000-triplet cells on 2,000-triplet
    files)."""
    split = FIT_SPLIT.get(wildcards.experiment, split_settings)(wildcards)
    triplets = settings_hash(triplet_settings(wildcards))
    out = {"split": settings_hash(split), "triplets_fit": triplets, "triplets_train": triplets}
    if wildcards.experiment in FIT_DATA_SETTINGS:
        out["data"] = settings_hash(FIT_DATA_SETTINGS[wildcards.experiment](wildcards))
    return out


FIT_EXPERIMENTS = tuple(b for s in STUDIES.values() for b in s.fit_blocks)
"""The experiments whose cells rule fit_evaluate fits (each study's ``fit_blocks``)."""


def cell_seeds(experiment):
    """The seeds one fit_evaluate job runs: its experiment's (config ``<experiment>.seeds``)."""
    return [int(s) for s in config[experiment]["seeds"]]


def cell_seed_files(kind):
    """A fit_evaluate job's per-seed input files of ``kind`` (split, triplets_fit,
    triplets_train), in the order of :func:`cell_seeds`."""
    pattern = {
        "split": "{r}/{e}/splits/{d}/seed{s}.npz",
        "triplets_fit": "{r}/{e}/constraints/{d}/seed{s}/triplets_fit.npz",
        "triplets_train": "{r}/{e}/constraints/{d}/seed{s}/triplets_train.npz",
    }[kind]
    return lambda wc: [
        pattern.format(r=RESULTS, e=wc.experiment, d=wc.dataset, s=s)
        for s in cell_seeds(wc.experiment)
    ]


# --- functions of images.smk (image retrieval); they read that file's settings when called ---


def prepared_rows(dataset):
    """The prepared file of ``dataset`` (a name, or "{dataset}"), its row file and the row file's
    check, written by prepare_rows; the inputs of a job that reads only the rows it uses
    (tripletbench.datasets.rows.load_prepared_rows finds the row file from the prepared file)."""
    prepared = f"{CACHE}/prepared/{dataset}_{ROUTE}.npz"
    return [prepared, *map(str, rows_paths(prepared))]


def measured_resource(kind, key_of, runs=lambda wc: 1):
    """A rule's resource ``kind`` ("mem_mb" or "runtime") as a function of its wildcards: the
    measured value (resources.yaml) of the entry ``key_of(wc)`` names; a runtime is per run,
    times ``runs(wc)`` runs (a job's memory is one run's: it runs them one after another)."""

    def of(wc):
        if kind == "mem_mb":
            return MEM_MB[key_of(wc)]
        return RUNTIME_MIN[key_of(wc)] * runs(wc)

    return of


CELL_RESOURCE_KEYS = {}
"""Experiment -> the entry of resources.yaml its fit_evaluate cells use, where it is not
fit_evaluate's own (added by a study's rule file; Table 4's cells search a million items)."""


def cell_resource(kind):
    """A fit_evaluate job's resource: its experiment's measured values (CELL_RESOURCE_KEYS, else
    fit_evaluate's, resources.yaml). Both are per seed: a job's memory is one seed's (it runs its
    seeds one after another), its runtime that of all its seeds."""
    return measured_resource(
        kind,
        lambda wc: CELL_RESOURCE_KEYS.get(wc.experiment, "fit_evaluate"),
        runs=lambda wc: len(cell_seeds(wc.experiment)),
    )


# --- the report (report.smk) ---
# Each experiment's rule file adds its tables (name -> rule output with csv and md) and figures
# (name -> the figure's Markdown caption file); names are tripletbench.harness.report.ITEMS names.
REPORT_TABLES = {}
REPORT_FIGURES = {}


# --- results that hold without Snakemake's memory (harness/keep.py) ---


def settings_check(rule_name):
    """An input function of a cell's job that adds no file. When the cell's existing CSV records
    a settings hash other than its params give (e.g. .snakemake
    metadata lost, so that Snakemake's params trigger cannot see the change), it forces the job
    in the DAG being built (harness/keep.py); likewise a fit_evaluate CSV that does not hold
    exactly the seeds its params give."""
    from snakemake.io import apply_wildcards

    from tripletbench.harness.keep import force_if_outdated

    def check(wc):
        cell_rule = workflow.get_rule(rule_name)
        settings = cell_rule.params.settings
        settings = settings(wc) if callable(settings) else settings
        seeds = getattr(cell_rule.params, "seeds", None)
        seeds = seeds(wc) if callable(seeds) else seeds
        path = apply_wildcards(str(cell_rule.output[0]), dict(wc.items()))
        force_if_outdated(workflow, path, settings_hash(settings), seeds, RESULTS, rule_name)
        return []

    return check
