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

if not workflow.overwrite_configfiles:

    configfile: ROOT / "config/default.yaml"


from tripletbench.harness.config import (  # noqa: E402
    check_config_size,
    check_duplicate_keys,
    check_no_templating,
)

# Before anything walks the config: its size (a YAML alias expansion), no YTE templating and no
# key given twice in one mapping of a config file (YAML keeps the last one silently).
check_config_size(config)
check_no_templating(workflow.configfiles)
check_duplicate_keys(workflow.configfiles)
from tripletbench.harness.config import experiment_blocks, schema_file  # noqa: E402

# The experiment blocks the config gives, read before the schema fills in defaults: main.smk
# includes the rule file of these only, so a config with one block plans that block alone.
BLOCKS_ON = experiment_blocks(config)
# The schema with the names of the datasets and learners found, written to a private file.
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
from tripletbench.harness.performance import other_methods, performance_learners  # noqa: E402
from tripletbench.harness.freshness import check_report_fresh, is_report_run  # noqa: E402
from tripletbench.harness.regression import stored_tables  # noqa: E402
from tripletbench.harness.settings import (  # noqa: E402
    block_settings,
    canonical,
    cell_settings,
    code_hash,
    data_settings,
    images_features_settings,
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
    command_line_config(sys.argv) if workflow.is_main_process else workflow.config_settings.config,
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
    targets = " ".join(
        workflow.dag.targetrules and sorted(r.name for r in workflow.dag.targetrules) or []
    )
    # --cores of a local run; empty under a cluster executor given no --cores
    cores = workflow.global_resources["_cores"].value
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


def fig_data(wildcards):
    """The feature file of a convergence-curve seed: the prepared dataset, or for an image set
    (``caltech256_<k>``, ``fashion_mnist_pixels|bovw``: the SDCA paper's Figures 1-2 used
    Caltech-256 with 50 classes) that seed's image features (rule images_features)."""
    from tripletbench.datasets.caltech256 import is_image_set_name

    name = config["figures"]["dataset"]
    if is_image_set_name(name):
        return f"{RESULTS}/images/features/{name}/seed{wildcards.seed}.npz"
    return f"{CACHE}/prepared/{name}_{ROUTE}.npz"


def cell_data(wildcards):
    """The feature file of a cell: the prepared dataset, or for the image experiment the per-seed
    features (bag of words from that seed's training images; rule images_features)."""
    if wildcards.experiment == "images":
        return f"{RESULTS}/images/features/{wildcards.dataset}/seed{wildcards.seed}.npz"
    if wildcards.experiment == "sdca_table4":  # one collection for every seed (table4.smk)
        return f"{RESULTS}/sdca_table4/collection/{wildcards.dataset}.npz"
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


FIT_EXPERIMENTS = ("sdca_table2", "images", "sdca_table4")
"""The experiments whose cells rule fit_evaluate fits (tables.smk, images.smk, table4.smk)."""


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


def table2_compare_with(wildcards):
    """sdca_table2.compare_with, another route's Table 2 CSV, once it exists (made by another
    run; the table says so while it is missing, and is remade when it appears or changes)."""
    path = config["sdca_table2"].get("compare_with")
    return [path] if path and Path(path).is_file() else []


# --- functions of svm.smk (Schultz & Joachims); they read that file's settings when called ---


def svm_available(notion):
    """A notion runs unless it needs WebKB (download route) and the route is embedded, or the
    data mirror lacks a file of its route (tripletbench.harness.svm_experiment.notion_available)."""
    from tripletbench.harness.svm_experiment import notion_available

    return notion_available(notion, ROUTE, MIRROR)


def svm_notions():
    return list(SVM["text_notions"]) + list(SVM["datasets"])


def svm_features_file(corpus, text_features):
    """The features of text corpus ``corpus`` under ``text_features`` (rule svm_features)."""
    from tripletbench.harness.svm_experiment import features_name

    return f"{RESULTS}/svm/features/{corpus}/{features_name(corpus, text_features)}.npz"


def svm_run_input(wc):
    """A cell's input: its text corpus' features under the cell's svm.text_features (the
    config's, or its sweep variant's), or a class-labelled set's prepared file."""
    from tripletbench.harness import svm_sweeps

    if wc.notion in SVM_TEXT:
        cfg = (
            svm_sweeps.variant_config(SVM, wc.sweep, wc.variant) if "variant" in wc.keys() else SVM
        )
        return {"features": svm_features_file(SVM_TEXT[wc.notion].corpus, cfg["text_features"])}
    return {"prepared": f"{CACHE}/prepared/{wc.notion}_{ROUTE}.npz"}


def svm_cell_block(cfg):
    """The keys of an ``svm`` block (the config's or a sweep variant's) that a cell reads
    (SVM_RUN_KEYS), as its rule's params: a change to any other key (figures, notes, the sweeps'
    own lists) reruns no cell."""
    return canonical({k: cfg.get(k) for k in SVM_RUN_KEYS})


def svm_sweep_settings(sweep, variant):
    """What a sweep cell is made under: the run keys of its variant's svm block
    (tripletbench.harness.svm_sweeps.variant_config), the route and the cell script's code."""
    from tripletbench.harness import svm_sweeps

    cfg = svm_sweeps.variant_config(SVM, sweep, variant)
    return block_settings(
        {**config, "svm": cfg}, "svm", SVM_RUN_KEYS, "workflow/scripts/svm_run.py"
    )


def svm_sweep_cells(sweep):
    """The rows of every cell of ``sweep`` that the route can serve."""
    from tripletbench.harness import svm_sweeps

    return [
        f"{RESULTS}/svm/{sweep}/{v}/{n}/seed{s}.csv"
        for v, n, s in svm_sweeps.cells(SVM, sweep)
        if svm_available(n)
    ]


def svm_sweep_hashes(sweep):
    """variant -> the settings hash its cells must carry (the sweep's table refuses others)."""
    from tripletbench.harness import svm_sweeps

    return {v: settings_hash(svm_sweep_settings(sweep, v)) for v in svm_sweeps.variants(SVM, sweep)}


def svm_runs(wc=None):
    return [
        f"{RESULTS}/svm/runs/{n}/seed{s}.csv"
        for n in svm_notions()
        if svm_available(n)
        for s in SVM["seeds"]
    ]


# --- functions of oahu.smk (OAHU); they read that file's settings when called ---


def oahu_available(names):
    """The datasets of ``names`` that the configured route can provide."""
    return [d for d in names if get_dataset(d).has_route(ROUTE, MIRROR)]


def oahu_cells(experiment, datasets=None):
    exp = OAHU[experiment]
    return expand(
        f"{RESULTS}/oahu/{experiment}/{{dataset}}/seed{{seed}}/{{method}}.csv",
        dataset=oahu_available(datasets if datasets is not None else exp["datasets"]),
        seed=exp["seeds"],
        method=list(exp["methods"]),
    )


def oahu_fig7_cells():
    """Recall@K cells: Table 3's cells where the dataset is one of its columns (same split and
    model), figure7's own cells otherwise."""
    t3 = set(oahu_available(OAHU["table3"]["datasets"]))
    own = [d for d in OAHU["figure7"]["datasets"] if d not in t3]
    return oahu_cells("table3", [d for d in OAHU["figure7"]["datasets"] if d in t3]) + (
        oahu_cells("figure7", own) if own else []
    )


# --- functions of images.smk (image retrieval); they read that file's settings when called ---


def prepared_rows(dataset):
    """The prepared file of ``dataset`` (a name, or "{dataset}"), its row file and the row file's
    check, written by prepare_rows; the inputs of a job that reads only the rows it uses
    (tripletbench.datasets.rows.load_prepared_rows finds the row file from the prepared file)."""
    prepared = f"{CACHE}/prepared/{dataset}_{ROUTE}.npz"
    return [prepared, *map(str, rows_paths(prepared))]


def images_source(wildcards):
    """Fashion-MNIST's prepared arrays (and their row file) or the Caltech-256 image list."""
    from tripletbench.datasets.caltech256 import image_set

    if image_set(wildcards.dataset).source == "fashion_mnist":
        return prepared_rows("fashion_mnist")
    return CALTECH_LIST


def image_cells():
    return experiment_cells(config, "images", RESULTS, ROUTE) if IMAGES_ON else []


def image_features_files():
    from tripletbench.harness.config import available_datasets

    if not IMAGES_ON:
        return []
    ok, _ = available_datasets(config, "images", ROUTE)
    return expand(
        f"{RESULTS}/images/features/{{d}}/seed{{s}}.npz", d=ok, s=config["images"]["seeds"]
    )


# --- functions of table4.smk (SDCA Table 4); they read that file's settings when called ---


def table4_cells():
    """The Table 4 cells that the route can run (none offline: "needs download")."""
    if not config["sdca_table4"].get("methods"):
        return []
    return experiment_cells(config, "sdca_table4", RESULTS, ROUTE)


def table4_block():
    """The sdca_table4 block that table4_scaling runs (its protocol and rows); raises
    ConfigError when it has no methods."""
    from tripletbench.harness.config import ConfigError

    block = config["sdca_table4"]
    if not block.get("methods"):
        raise ConfigError(
            "config table4_scaling: runs the rows of sdca_table4.methods, and the config gives "
            "none (add the sdca_table4 block, e.g. from config/default.yaml)"
        )
    return block


def table4_learners():
    """The learners table4_scaling builds (their code is in its settings)."""
    from tripletbench.harness.experiment import algorithm_of

    block = config["sdca_table4"]
    rows = config["table4_scaling"].get("methods") or list(block.get("methods") or {})
    return sorted({algorithm_of(m, block["methods"][m]) for m in rows if m in block["methods"]})


def measured_resource(kind, key_of, runs=lambda wc: 1):
    """A rule's resource ``kind`` ("mem_mb" or "runtime") as a function of its wildcards: the
    measured value (resources.yaml) of the entry ``key_of(wc)`` names; a runtime is per run,
    times ``runs(wc)`` runs (a job's memory is one run's: it runs them one after another)."""

    def of(wc):
        if kind == "mem_mb":
            return MEM_MB[key_of(wc)]
        return RUNTIME_MIN[key_of(wc)] * runs(wc)

    return of


def cell_resource(kind):
    """A fit_evaluate job's resource: the Table 4 cells (a million-item database) have their
    own measured values (resources.yaml: table4_cell), every other cell fit_evaluate's. Both are
    per seed: a job's memory is one seed's (it runs its seeds one after another), its runtime
    that of all its seeds."""
    return measured_resource(
        kind,
        lambda wc: "table4_cell" if wc.experiment == "sdca_table4" else "fit_evaluate",
        runs=lambda wc: len(cell_seeds(wc.experiment)),
    )


# --- functions of human.smk (human judgments); they read that file's settings when called ---


def human_cell_resource(kind):
    """A human_cell job's resource (resources.yaml): an SCML row's own measured values
    (human_cell_scml: metric-learn's default basis, 80 d directions each scored on every training
    answer, holds GBs), every other row's human_cell."""
    from tripletbench.harness.experiment import algorithm_of

    def key_of(wc):
        row = HUMAN["methods"].get(wc.method) or {}
        scml = algorithm_of(wc.method, row).split(".")[-1] == "SCML"
        return "human_cell_scml" if scml else "human_cell"

    return measured_resource(kind, key_of)


def human_block(own=None):
    """The human block less the figures' own keys (``own``: the one figure key kept), in the
    config's order: the table's rows and the curve's lines follow the order of human.methods."""
    return {k: v for k, v in HUMAN.items() if k not in HUMAN_FIGURE_KEYS or k == own}


def human_sets():
    """The configured sets that the human sets' route and mirror can give (HUMAN_ROUTE,
    HUMAN_MIRROR: human.mirror where the block names one, else data.route and data.mirror)."""
    return [s for s in HUMAN["sets"] if human_mod.available(s, HUMAN_ROUTE, HUMAN_MIRROR)]


def human_methods():
    """The cells' methods: the Euclidean distance (with the chance and ceiling rows) and each
    learner row that is fitted (a row with not_run is shown as n/a, no cell)."""
    return [human_mod.EUCLIDEAN, *human_mod.fitted_rows(HUMAN["methods"])]


def human_cell_block(method):
    """What a human cell of ``method`` reads of the human block: the keys of HUMAN_CELL_KEYS it
    has and, for a learner or embedding row, that row alone (``methods: {method: row}``; the
    Euclidean cell reads no row). Another row, a caption's text (published, notes,
    features_reason) or a figure's own keys are not in it, so a change of them reruns no
    cell."""
    out = {k: HUMAN[k] for k in HUMAN_CELL_KEYS if k in HUMAN}
    if method in HUMAN["methods"]:
        out["methods"] = {method: human_row(method)}
    return canonical(out)


def human_row(method):
    """Row ``method`` of human.methods less its descriptions (notes, features_reason)."""
    row = HUMAN["methods"][method]
    return {k: v for k, v in row.items() if k not in ("notes", "features_reason")}


def human_cell_settings(method):
    """What a human cell of ``method`` is made under: HUMAN_CELL_KEYS, the route, the cell
    script's code (harness/human.py with it: the ordinal embeddings' fit), its own row less its
    descriptions (notes, features_reason), and that row's learner code (a feature-based row) or
    cblearn's version (an ordinal-embedding row). A change of one row reruns that row's cells
    alone; a change of a shared key or of the cell's code reruns every cell."""
    row = HUMAN["methods"].get(method)
    learners = [row.get("algorithm", method)] if row and not human_mod.is_feature_free(row) else []
    out = block_settings(
        config, "human", HUMAN_CELL_KEYS, "workflow/scripts/human_cell.py", learners=learners
    )
    if row:
        out["row"] = human_row(method)
        versions = human_mod.embedding_versions({method: row})
        if versions:
            out["embeddings"] = versions
    return canonical({**out, "method": method})


def human_cell_hashes():
    """method -> settings hash of its human cells (table_human and figure_human_curve refuse a
    cell that records another)."""
    return {m: settings_hash(human_cell_settings(m)) for m in human_methods()}


def human_cells():
    return [
        f"{RESULTS}/human/cells/{s}/{m}/seed{seed}.csv"
        for s in human_sets()
        for m in human_methods()
        for seed in HUMAN["seeds"]
    ]


def human_feature_files(wc):
    return [
        f"{RESULTS}/human/features/{wc.hset}/{f}.npz"
        for f in human_mod.feature_sets(wc.hset, HUMAN["features"])
    ]


def human_embedding_inputs(what):
    """figure_human_embedding's data (``what``: "fetched" or "features"): the fetched set that
    human.embedding_figure.set names (null: the first of human.sets) or its feature files,
    where the set can run (else none: the figure says why)."""
    hset = HUMAN["embedding_figure"]["set"] or HUMAN["sets"][0]
    if hset not in human_sets():
        return []
    if what == "fetched":
        return [f"{CACHE}/fetched/human_{hset}.txt"]
    return [
        f"{RESULTS}/human/features/{hset}/{f}.npz"
        for f in human_mod.feature_sets(hset, HUMAN["features"])
    ]


# --- the report (report.smk) ---
# Each experiment's rule file adds its tables (name -> rule output with csv and md) and figures
# (name -> the figure's Markdown caption file); names are tripletbench.harness.report.ITEMS names.
REPORT_TABLES = {}
REPORT_FIGURES = {}


# --- results that hold without Snakemake's memory (harness/keep.py) ---


def settings_check(rule_name):
    """An input function of a cell's job that adds no file. When the cell's existing CSV records
    a settings hash other than its params give (issue 37, its first point; e.g. .snakemake
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
        force_if_outdated(workflow, path, settings_hash(settings), seeds)
        return []

    return check


# --- the regression check (tables.smk) ---


def regression_skip():
    """Stored tables this run cannot build, with the reason (the check says so beside each of
    their numbers): the human table where human.mirror names a folder that is absent (a clone
    without ../shared/mirror), or where the config has no human block."""
    tables = ["tables/human_table.csv", "human/all_runs.csv"]  # table_human's outputs
    if "human" not in BLOCKS_ON:
        return {t: "the config has no human block" for t in tables}
    from tripletbench.harness.human import missing_reason

    why = missing_reason(config)
    return {t: why for t in tables} if why.startswith("not run") else {}
