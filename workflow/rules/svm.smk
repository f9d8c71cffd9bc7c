# Schultz & Joachims SVM for relative comparisons (issue 5): table_svm_1, figure_svm_2,
# figure_svm_mds, svm_scaling. One job per (notion, seed): the learning curve of SVM-relative and
# the static baselines' test triplet accuracy (harness/svm_experiment.py).

SVM = config["svm"]
SVM_TEXT = ("webkb_university", "webkb_topic", "webkb_topic_facultystudent", "reuters_topic")


def svm_available(notion):
    """A notion runs unless it needs WebKB (download route) and the route is embedded."""
    return not (notion.startswith("webkb_") and ROUTE != "download")


def svm_notions():
    return list(SVM["text_notions"]) + list(SVM["datasets"])


def svm_run_input(wc):
    if wc.notion in SVM_TEXT:
        return []
    return [f"{CACHE}/prepared/{wc.notion}_{ROUTE}.npz"]


def svm_runs(wc=None):
    return [
        f"{RESULTS}/svm/runs/{n}/seed{s}.csv"
        for n in svm_notions()
        if svm_available(n)
        for s in SVM["seeds"]
    ]


rule svm_run:
    input:
        svm_run_input,
    output:
        rows=f"{RESULTS}/svm/runs/{{notion}}/seed{{seed}}.csv",
        model=f"{RESULTS}/svm/runs/{{notion}}/seed{{seed}}.npz",
    log:
        f"{LOGS}/svm/run/{{notion}}_seed{{seed}}.log",
    benchmark:
        f"{RESULTS}/svm/benchmarks/{{notion}}_seed{{seed}}.tsv"
    wildcard_constraints:
        notion=r"[a-z0-9_]+",
    params:
        cache_dir=CACHE,
        route=ROUTE,
        allow_unpinned=config["data"]["allow_unpinned_downloads"],
    conda:
        "../../environment.yml"
    script:
        "../scripts/svm_run.py"


rule table_svm_1:
    input:
        runs=svm_runs(),
    output:
        runs=f"{RESULTS}/svm/all_runs.csv",
        csv=f"{RESULTS}/tables/svm_table1.csv",
        md=f"{RESULTS}/tables/svm_table1.md",
        tex=f"{RESULTS}/tables/svm_table1.tex",
    log:
        f"{LOGS}/tables/svm_table1.log",
    params:
        paper_results=str(ROOT / "config/paper_results.csv"),
        route=ROUTE,
    conda:
        "../../environment.yml"
    script:
        "../scripts/svm_table_1.py"


rule figure_svm_2:
    input:
        runs=svm_runs(),
    output:
        png=f"{FIGURES}/figure_svm_2.png",
        pdf=f"{FIGURES}/figure_svm_2.pdf",
        md=f"{FIGURES}/figure_svm_2.md",
    log:
        f"{LOGS}/figures/figure_svm_2.log",
    params:
        route=ROUTE,
    conda:
        "../../environment.yml"
    script:
        "../scripts/svm_figure_2.py"


rule figure_svm_mds:
    input:
        f"{RESULTS}/svm/runs/{SVM['mds']['notion']}/seed{SVM['mds']['seed']}.npz",
    output:
        png=f"{FIGURES}/figure_svm_mds.png",
        pdf=f"{FIGURES}/figure_svm_mds.pdf",
        md=f"{FIGURES}/figure_svm_mds.md",
    log:
        f"{LOGS}/figures/figure_svm_mds.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/svm_figure_mds.py"


rule svm_scaling:
    input:
        [],
    output:
        csv=f"{RESULTS}/tables/svm_scaling.csv",
        md=f"{RESULTS}/tables/svm_scaling.md",
    log:
        f"{LOGS}/tables/svm_scaling.log",
    benchmark:
        f"{RESULTS}/svm/benchmarks/svm_scaling.tsv"
    params:
        cache_dir=CACHE,
    conda:
        "../../environment.yml"
    script:
        "../scripts/svm_scaling.py"


REPRODUCE_ALL.extend(rules.table_svm_1.output)
REPRODUCE_ALL.extend(rules.figure_svm_2.output)
REPRODUCE_ALL.extend(rules.figure_svm_mds.output)
# svm_scaling (solve time against problem size, ~2 min, serial) is its own target, not in
# reproduce_all: it measures the solver, not a paper result.
