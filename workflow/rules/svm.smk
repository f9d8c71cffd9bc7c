# Schultz & Joachims SVM for relative comparisons (tripletbench.studies.svm): table_svm_1, figure_svm_2,
# figure_svm_mds, svm_scaling. One job per (notion, seed): the learning curve of SVM-relative and
# the static baselines' test triplet accuracy (studies/svm/experiment.py).


include: "svm/functions.smk"


SVM = config["svm"]
from tripletbench.studies.svm.experiment import NOTIONS as SVM_TEXT  # noqa: E402
from tripletbench.studies.svm import sweeps as svm_sweeps  # noqa: E402
from tripletbench.datasets.webkb import PAGE_READINGS  # noqa: E402

# every svm_run reads these svm settings (a change reruns every cell; the tables and figures
# rerun on their own keys)
SVM_RUN_KEYS = [
    "train_fraction",
    "C",
    "solver",
    "solver_options",
    "n_train_triplets",
    "n_test_triplets",
    "token_pattern",
    "text_features",
    "static_preprocessing",
    "n_universities",
    "kernel",
    "mds",
]
# what every svm_run cell is made under; the table and figures refuse rows or files made under
# other settings (tripletbench.harness.settings.check_block_fresh)
SVM_RUN_SETTINGS = block_settings(config, "svm", SVM_RUN_KEYS, "workflow/scripts/svm/svm_run.py")
# what every text corpus' feature file is made under (rule svm_features; the text features
# themselves are in its path); a text cell checks its file records it
SVM_FEATURES_SETTINGS = canonical(
    {
        "token_pattern": SVM["token_pattern"],
        "route": ROUTE,
        "code": code_hash(script="workflow/scripts/svm/svm_features.py"),
    }
)


localrules:
    table_svm_1,
    figure_svm_2,
    figure_svm_mds,
    table_svm_readings,
    figure_svm_c_sweep,


rule svm_run:
    input:
        unpack(svm_run_input),
        settings_check=settings_check("svm_run"),  # harness/keep.py
    output:
        rows=f"{RESULTS}/svm/runs/{{notion}}/seed{{seed}}.csv",
        model=f"{RESULTS}/svm/runs/{{notion}}/seed{{seed}}.npz",
    log:
        f"{LOGS}/svm/run/{{notion}}_seed{{seed}}.log",
    benchmark:
        f"{RESULTS}/svm/benchmarks/{{notion}}_seed{{seed}}.tsv"
    wildcard_constraints:
        notion=r"[a-z0-9_]+",
    group:
        "cells"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["svm_run"],
        runtime=RUNTIME_MIN["svm_run"],
    params:
        route=ROUTE,
        svm=svm_cell_block(SVM),
        settings=SVM_RUN_SETTINGS,
        inputs=settings_hash(SVM_FEATURES_SETTINGS),  # what a text cell's features must record
    script:
        "../scripts/svm/svm_run.py"


# a text corpus' features (every preprocessing variant) under one setting of svm.text_features,
# read by every cell that uses that setting
rule svm_features:
    input:
        lambda wc: f"{CACHE}/fetched/{wc.corpus}.sha256",  # fetch_raw: the corpus in the cache
        settings_check=settings_check("svm_features"),  # harness/keep.py
    output:
        f"{RESULTS}/svm/features/{{corpus}}/{{reading}}-{{case}}-{{scale}}.npz",
    log:
        f"{LOGS}/svm/features/{{corpus}}_{{reading}}-{{case}}-{{scale}}.log",
    wildcard_constraints:
        corpus="webkb|reuters",
        reading="|".join([*PAGE_READINGS, "plain_text"]),
        case="lower|case",
        scale="none|unit",
    group:
        "cells"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["svm_run"],
        runtime=RUNTIME_MIN["svm_run"],
    params:
        cache_dir=CACHE,
        allow_unpinned=UNPINNED_FROM,
        text_features=lambda wc: {
            "reading": wc.reading if wc.corpus == "webkb" else "plain_text",
            "lowercase": wc.case == "lower",
            "scale": wc.scale,
        },
        token_pattern=SVM["token_pattern"],
        settings=SVM_FEATURES_SETTINGS,
    script:
        "../scripts/svm/svm_features.py"


# one cell of a sweep around Table 1 (tripletbench.studies.svm.sweeps): the same script under a variant's
# svm settings, rows only
rule svm_sweep_run:
    input:
        unpack(svm_run_input),
        settings_check=settings_check("svm_sweep_run"),  # harness/keep.py
    output:
        rows=f"{RESULTS}/svm/{{sweep}}/{{variant}}/{{notion}}/seed{{seed}}.csv",
    log:
        f"{LOGS}/svm/{{sweep}}/{{variant}}_{{notion}}_seed{{seed}}.log",
    benchmark:
        f"{RESULTS}/svm/benchmarks/{{sweep}}/{{variant}}_{{notion}}_seed{{seed}}.tsv"
    wildcard_constraints:
        sweep="|".join(svm_sweeps.SWEEPS),
        variant=r"[A-Za-z0-9_.+-]+",
        notion=r"[a-z0-9_]+",
    group:
        "cells"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["svm_run"],
        runtime=RUNTIME_MIN["svm_run"],
    params:
        route=ROUTE,
        svm=lambda wc: svm_cell_block(svm_sweeps.variant_config(SVM, wc.sweep, wc.variant)),
        settings=lambda wc: svm_sweep_settings(wc.sweep, wc.variant),
        inputs=settings_hash(SVM_FEATURES_SETTINGS),  # what a text cell's features must record
    script:
        "../scripts/svm/svm_run.py"


rule table_svm_1:
    """Schultz & Joachims (NIPS 2003), Table 1: test triplets satisfied.

    SVM-relative (eq. 8, A = I), the kernel case (A = Phi, RBF) as its own row, and the static
    Binary / TFIDF Euclidean distances (the preprocessing variant best on the test set, named);
    triplets drawn as section 5 says (random triples kept when the notion's rule holds: University
    on seven universities, Topic, Topic+FacultyStudent = Topic rule plus faculty -> student ->
    course/project), 85,907 test triplets, SVM-relative learned from 150,000 training triplets
    (default) or the paper's 200,000 (`config/svm_full.yaml` offline, `config/paper.yaml`) on the
    words of the whole page as served, lower-cased, each vector at unit length (`svm.text_features`,
    chosen by `table_svm_readings`), solved by dual coordinate descent (`solver: dcd`, CLARABEL as
    the reference in `svm_scaling`); settings provenance columns from `svm.notes`.

    Stand-ins: WebKB needs the download route; offline the Reuters-21578 corn/grain documents
    (Debian weka) stand in (`reuters_topic` mimics Topic, `reuters_topic_corngrain`
    Topic+FacultyStudent), plus class triplets on the LIBSVM sets.
    """
    input:
        runs=svm_runs(),
        # the page-reading sweep behind svm.text_features, shown in the notes when configured
        readings=[f"{RESULTS}/tables/svm_readings.csv"] if SVM.get("readings") else [],
    output:
        runs=f"{RESULTS}/svm/all_runs.csv",
        csv=f"{RESULTS}/tables/svm_table1.csv",
        md=f"{RESULTS}/tables/svm_table1.md",
        tex=f"{RESULTS}/tables/svm_table1.tex",
    log:
        f"{LOGS}/tables/svm_table1.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["table"],
        runtime=RUNTIME_MIN["table"],
    params:
        paper_rows=paper_numbers("schultz_joachims_2003", "table1"),
        route=ROUTE,
        cache_dir=CACHE,  # the WebKB archive's MIME headers (tripletbench.harness.table_rows.server_headers)
        settings=block_settings(
            config,
            "svm",
            [*SVM_RUN_KEYS, "seeds", "text_notions", "datasets", "notes", "readings"],
            "workflow/scripts/svm/svm_table_1.py",
        ),
        run_settings=SVM_RUN_SETTINGS,
    script:
        "../scripts/svm/svm_table_1.py"


rule table_svm_readings:
    """Table 1's cells on WebKB under every page reading (the sweep behind `svm.text_features`).

    Table 1's learned, Binary and TFIDF cells on WebKB under every page reading (the visible text,
    plus the MIME header, plus the tags' attributes, or the whole page as served) x lower-casing x
    vector scale (binary as is, or unit length) of `svm.readings`, ranked by the mean distance to
    the paper's six learned and Binary cells: the measurement that chose the default
    `svm.text_features` (our rule; the paper states none of the three). In `reproduce_all` where the
    config has `svm.readings` (`config/mirror.yaml`, `config/paper.yaml`); offline "not run".
    """
    input:
        runs=svm_sweep_cells("readings"),
    output:
        csv=f"{RESULTS}/tables/svm_readings.csv",
        md=f"{RESULTS}/tables/svm_readings.md",
    log:
        f"{LOGS}/tables/svm_readings.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["table"],
        runtime=RUNTIME_MIN["table"],
    params:
        paper_rows=paper_numbers("schultz_joachims_2003", "table1"),
        route=ROUTE,
        settings=block_settings(
            config,
            "svm",
            ["readings", "text_features", "C", "n_test_triplets"],
            "workflow/scripts/svm/svm_table_readings.py",
        ),
        run_hashes=svm_sweep_hashes("readings"),
    script:
        "../scripts/svm/svm_table_readings.py"


rule figure_svm_c_sweep:
    """Figure 2's learning curve for several C per vector scale (`svm.c_sweep`).

    A panel per scale: where the fall of the curve at C = 1 on unscaled vectors comes from (eq. 8's
    slack term grows with the number of triplets at a fixed C); its numbers in
    `results/tables/svm_c_sweep.csv`. In `reproduce_all` where the config has `svm.c_sweep`.
    """
    input:
        runs=svm_sweep_cells("c_sweep"),
    output:
        png=report_figure(f"{FIGURES}/figure_svm_c_sweep.png", "figure_svm_c_sweep"),
        pdf=f"{FIGURES}/figure_svm_c_sweep.pdf",
        md=f"{FIGURES}/figure_svm_c_sweep.md",
        csv=f"{RESULTS}/tables/svm_c_sweep.csv",
    log:
        f"{LOGS}/figures/figure_svm_c_sweep.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["figure"],
        runtime=RUNTIME_MIN["figure"],
    params:
        paper_rows=paper_numbers("schultz_joachims_2003", "table1"),
        route=ROUTE,
        settings=block_settings(
            config,
            "svm",
            ["c_sweep", "text_features", "C", "n_train_triplets", "n_test_triplets"],
            "workflow/scripts/svm/svm_figure_c_sweep.py",
        ),
        run_hashes=svm_sweep_hashes("c_sweep"),
    script:
        "../scripts/svm/svm_figure_c_sweep.py"


rule figure_svm_2:
    """Schultz & Joachims, Figure 2: test triplets satisfied against the size of the training set.

    Linear axis, nested sets, error bars over seeds, for Topic+FacultyStudent (offline: its
    stand-in, `reuters_topic_corngrain`).
    """
    input:
        runs=svm_runs(),
    output:
        png=report_figure(f"{FIGURES}/figure_svm_2.png", "figure_svm_2"),
        pdf=f"{FIGURES}/figure_svm_2.pdf",
        md=f"{FIGURES}/figure_svm_2.md",
    log:
        f"{LOGS}/figures/figure_svm_2.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["figure"],
        runtime=RUNTIME_MIN["figure"],
    params:
        route=ROUTE,
        settings=block_settings(
            config,
            "svm",
            [*SVM_RUN_KEYS, "seeds", "figure2"],
            "workflow/scripts/svm/svm_figure_2.py",
        ),
        run_settings=SVM_RUN_SETTINGS,
    script:
        "../scripts/svm/svm_figure_2.py"


rule figure_svm_mds:
    """Schultz & Joachims' MDS panels: classical (Torgerson) MDS of all test documents.

    Panels: a) the unweighted binary distance, b) the learned Topic distance, c) the learned
    Topic+FacultyStudent distance (offline: the stand-ins); the numbers of each panel (eigenvalues,
    2-D share, class centroids) in `tables/svm_mds.csv`.
    """
    input:
        topic=f"{RESULTS}/svm/runs/{SVM['mds']['notion']}/seed{SVM['mds']['seed']}.npz",
        topic_c=f"{RESULTS}/svm/runs/{SVM['mds']['notion_c']}/seed{SVM['mds']['seed']}.npz",
    output:
        png=report_figure(f"{FIGURES}/figure_svm_mds.png", "figure_svm_mds"),
        pdf=f"{FIGURES}/figure_svm_mds.pdf",
        md=f"{FIGURES}/figure_svm_mds.md",
        csv=f"{RESULTS}/tables/svm_mds.csv",
    log:
        f"{LOGS}/figures/figure_svm_mds.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["figure"],
        runtime=RUNTIME_MIN["figure"],
    params:
        route=ROUTE,
        settings=block_settings(
            config, "svm", SVM_RUN_KEYS, "workflow/scripts/svm/svm_figure_mds.py"
        ),
        run_settings=SVM_RUN_SETTINGS,
    script:
        "../scripts/svm/svm_figure_mds.py"


rule svm_scaling:
    """Solve time and peak memory of eq. 8: CLARABEL and our dual solver side by side.

    CLARABEL and our dual solver (`solver="dcd"`) against the number of triplets at the text
    dimension (`svm.scaling`). Not in `reproduce_all` (about 2 min, serial): it measures the solver,
    not a paper result.
    """
    input:
        [],
    output:
        csv=f"{RESULTS}/tables/svm_scaling.csv",
        md=f"{RESULTS}/tables/svm_scaling.md",
    log:
        f"{LOGS}/tables/svm_scaling.log",
    benchmark:
        f"{RESULTS}/svm/benchmarks/svm_scaling.tsv"
    conda:
        "../../environment.yml"
    threads: WHOLE_NODE_THREADS  # timings: no other job beside it (common.smk)
    resources:
        mem_mb=MEM_MB["svm_scaling"],
        runtime=RUNTIME_MIN["svm_scaling"],
        whole_node=1,
    params:
        cache_dir=CACHE,
        settings=block_settings(
            config,
            "svm",
            ["scaling", "C", "train_fraction", "token_pattern", "solver_options"],
            "workflow/scripts/svm/svm_scaling.py",
        ),
    script:
        "../scripts/svm/svm_scaling.py"


if SVM.get("readings"):
    REPRODUCE_ALL.extend(rules.table_svm_readings.output)
    REPORT_TABLES["svm_readings"] = rules.table_svm_readings.output
if SVM.get("c_sweep"):
    REPRODUCE_ALL.extend(rules.figure_svm_c_sweep.output)
    REPORT_FIGURES["figure_svm_c_sweep"] = rules.figure_svm_c_sweep.output.md
REPRODUCE_ALL.extend(rules.table_svm_1.output)
REPRODUCE_ALL.extend(rules.figure_svm_2.output)
REPRODUCE_ALL.extend(rules.figure_svm_mds.output)
REPORT_TABLES["svm_table1"] = rules.table_svm_1.output
REPORT_FIGURES["figure_svm_2"] = rules.figure_svm_2.output.md
REPORT_FIGURES["figure_svm_mds"] = rules.figure_svm_mds.output.md
# svm_scaling (solve time against problem size, ~2 min, serial) is its own target, not in
# reproduce_all: it measures the solver, not a paper result.
