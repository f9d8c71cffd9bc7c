# OAHU (tripletbench.studies.oahu): table_oahu_3, figure_oahu_4, figure_oahu_5, figure_oahu_7.
# Gao et al., "Towards Self-Adaptive Metric Learning On the Fly", WWW 2019. Library code:
# algorithms/oahu.py, studies/oahu/experiment.py, evaluation/{classification,verification}.py.


include: "oahu/functions.smk"


from tripletbench.datasets import get_dataset

OAHU = config["oahu"]


localrules:
    table_oahu_3,
    figure_oahu_4,
    figure_oahu_5,
    figure_oahu_7,


from tripletbench.datasets.lfw import SPEC as LFW_SPEC  # noqa: E402

FIG5_DATASET = (
    "lfw"
    if OAHU["figure5"]["use_lfw"] and ROUTE == "download" and LFW_SPEC.has_route(ROUTE, MIRROR)
    else OAHU["figure5"]["stand_in"]
)


rule oahu_cell:
    input:
        prepared_rows("{dataset}"),  # read only the rows the cell uses
        settings_check=settings_check("oahu_cell"),  # harness/keep.py
    output:
        runs=f"{RESULTS}/oahu/{{experiment}}/{{dataset}}/seed{{seed}}/{{method}}.csv",
        alpha=f"{RESULTS}/oahu/{{experiment}}/{{dataset}}/seed{{seed}}/{{method}}.alpha.csv",
    log:
        f"{LOGS}/oahu/{{experiment}}/{{dataset}}_seed{{seed}}_{{method}}.log",
    benchmark:
        f"{RESULTS}/oahu/benchmarks/{{experiment}}/{{dataset}}_seed{{seed}}_{{method}}.tsv"
    wildcard_constraints:
        experiment="table3|figure7",
    group:
        "cells"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["oahu_cell"],
        runtime=RUNTIME_MIN["oahu_cell"],
    params:
        # tripletbench.harness.settings: the method's and the block's settings and the code it runs; a change
        # reruns exactly the cells it touches (and the table refuses rows made under others)
        settings=lambda wc: cell_settings(
            config, f"oahu.{wc.experiment}", wc.method, "workflow/scripts/oahu/oahu_cell.py"
        ),
    script:
        "../scripts/oahu/oahu_cell.py"


rule oahu_fig4_cell:
    input:
        prepared_rows("{dataset}"),  # read only the rows the cell uses
        settings_check=settings_check("oahu_fig4_cell"),  # harness/keep.py
    output:
        f"{RESULTS}/oahu/figure4/{{dataset}}/seed{{seed}}/{{method}}_n{{n}}.csv",
    log:
        f"{LOGS}/oahu/figure4/{{dataset}}_seed{{seed}}_{{method}}_n{{n}}.log",
    benchmark:
        f"{RESULTS}/oahu/benchmarks/figure4/{{dataset}}_seed{{seed}}_{{method}}_n{{n}}.tsv"
    wildcard_constraints:
        n=r"\d+",
    group:
        "cells"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["oahu_fig4_cell"],
        runtime=RUNTIME_MIN["oahu_fig4_cell"],
    params:
        settings=lambda wc: cell_settings(
            config, "oahu.figure4", wc.method, "workflow/scripts/oahu/oahu_fig4_cell.py"
        ),
    script:
        "../scripts/oahu/oahu_fig4_cell.py"


rule oahu_fig5_cell:
    input:
        # LFW: fetched by the local rule fetch_raw, read from the cache
        (
            f"{CACHE}/fetched/lfw.sha256"
            if FIG5_DATASET == "lfw"
            else f"{CACHE}/prepared/{FIG5_DATASET}_{ROUTE}.npz"
        ),
        settings_check=settings_check("oahu_fig5_cell"),  # harness/keep.py
    output:
        auc=f"{RESULTS}/oahu/figure5/{{dataset}}/seed{{seed}}/{{method}}.auc.csv",
        roc=f"{RESULTS}/oahu/figure5/{{dataset}}/seed{{seed}}/{{method}}.roc.csv",
    log:
        f"{LOGS}/oahu/figure5/{{dataset}}_seed{{seed}}_{{method}}.log",
    benchmark:
        f"{RESULTS}/oahu/benchmarks/figure5/{{dataset}}_seed{{seed}}_{{method}}.tsv"
    group:
        "cells"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["oahu_fig5_cell"],
        runtime=RUNTIME_MIN["oahu_fig5_cell"],
    params:
        # the download cache (LFW on the download route), as an absolute path
        cache_dir=os.path.abspath(CACHE),
        allow_unpinned=UNPINNED_FROM,
        settings=lambda wc: cell_settings(
            config, "oahu.figure5", wc.method, "workflow/scripts/oahu/oahu_fig5_cell.py"
        ),
    script:
        "../scripts/oahu/oahu_fig5_cell.py"


rule table_oahu_3:
    """OAHU paper (Gao et al., WWW 2019), Table 3: kNN error rate, macro F1, constraint use.

    kNN error rate, macro F1 and constraint utilization of LEGO, RDML, OASIS, OPML, OAHU (kNN by the
    paper's eqs. 23-25) with paired t-tests against OAHU, beside rows not in the paper (Euclidean,
    SDCA, COMET, OAHU-combined: kNN under one combined distance, OAHU-init: the untrained network)
    and a diagnosis of OAHU against its untrained network. Fashion-MNIST (embedded); EMNIST balanced
    and CIFAR-10 gray need the download route; `--configfile config/default.yaml
    config/oahu_full.yaml` runs the Fashion-MNIST column at the paper's full size (70,000 images,
    10-fold CV of tau).
    """
    input:
        runs=oahu_cells("table3"),
    output:
        runs=f"{RESULTS}/oahu/table3/all_runs.csv",
        csv=f"{RESULTS}/tables/oahu_table3.csv",
        md=f"{RESULTS}/tables/oahu_table3.md",
        tex=f"{RESULTS}/tables/oahu_table3.tex",
    log:
        f"{LOGS}/tables/oahu_table3.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["table"],
        runtime=RUNTIME_MIN["table"],
    params:
        paper_rows=paper_numbers("oahu", "table3"),
        missing=[
            d
            for d in OAHU["table3"]["datasets"]
            if d not in oahu_available(OAHU["table3"]["datasets"])
        ],
        settings=block_settings(config, "oahu.table3", None, "workflow/scripts/oahu/oahu_table3.py"),
        order=key_order(OAHU["table3"]),  # rows follow the config's order (settings sort keys)
    script:
        "../scripts/oahu/oahu_table3.py"


rule figure_oahu_4:
    """OAHU paper, Figure 4: kNN error rate against the number of constraints.

    Error bars over seeds, and OAHU's metric weights alpha along training (from Table 3's OAHU
    cells).
    """
    input:
        cells=expand(
            f"{RESULTS}/oahu/figure4/{OAHU['figure4']['dataset']}/seed{{seed}}/{{method}}_n{{n}}.csv",
            seed=OAHU["figure4"]["seeds"],
            method=list(OAHU["figure4"]["methods"]),
            n=OAHU["figure4"]["n_constraints"],
        ),
        alpha=[
            p.replace(".csv", ".alpha.csv")
            for p in oahu_cells("table3", [OAHU["figure4"]["dataset"]])
            if Path(p).name == "OAHU.csv"
        ],
    output:
        png=report_figure(f"{FIGURES}/figure_oahu_4.png", "figure_oahu_4"),
        pdf=f"{FIGURES}/figure_oahu_4.pdf",
        md=f"{FIGURES}/figure_oahu_4.md",
        csv=f"{RESULTS}/oahu/figure4/summary.csv",
    log:
        f"{LOGS}/figures/figure_oahu_4.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["figure"],
        runtime=RUNTIME_MIN["figure"],
    params:
        settings=block_settings(
            config, "oahu", ["figure4", "table3"], "workflow/scripts/oahu/oahu_figures.py"
        ),
        # the legend and the caption's settings follow the config's order (settings sort keys)
        order=key_order({k: OAHU[k] for k in ("figure4", "table3")}),
    script:
        "../scripts/oahu/oahu_figures.py"


rule figure_oahu_5:
    """OAHU paper, Figure 5: pair verification ROC with AUC per method.

    10 folds of 300 + 300 pairs; LFW attributes on the download route, a class-labelled stand-in
    (letter) offline.
    """
    input:
        auc=expand(
            f"{RESULTS}/oahu/figure5/{FIG5_DATASET}/seed{{seed}}/{{method}}.auc.csv",
            seed=OAHU["figure5"]["seeds"],
            method=list(OAHU["figure5"]["methods"]),
        ),
        roc=expand(
            f"{RESULTS}/oahu/figure5/{FIG5_DATASET}/seed{{seed}}/{{method}}.roc.csv",
            seed=OAHU["figure5"]["seeds"],
            method=list(OAHU["figure5"]["methods"]),
        ),
    output:
        png=report_figure(f"{FIGURES}/figure_oahu_5.png", "figure_oahu_5"),
        pdf=f"{FIGURES}/figure_oahu_5.pdf",
        md=f"{FIGURES}/figure_oahu_5.md",
        csv=f"{RESULTS}/oahu/figure5/summary.csv",
    log:
        f"{LOGS}/figures/figure_oahu_5.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["figure"],
        runtime=RUNTIME_MIN["figure"],
    params:
        dataset=FIG5_DATASET,
        settings=block_settings(
            config, "oahu.figure5", None, "workflow/scripts/oahu/oahu_figures.py"
        ),
        order=key_order(OAHU["figure5"]),  # the legend follows the config's order
    script:
        "../scripts/oahu/oahu_figures.py"


rule figure_oahu_7:
    """OAHU paper, Figure 7: Recall@K (K = 1..32) on Fashion-MNIST and letter.

    The paper's CARS-196 / CIFAR-100 VGG-19 features need download.
    """
    input:
        runs=oahu_fig7_cells(),
    output:
        png=report_figure(f"{FIGURES}/figure_oahu_7.png", "figure_oahu_7"),
        pdf=f"{FIGURES}/figure_oahu_7.pdf",
        md=f"{FIGURES}/figure_oahu_7.md",
        csv=f"{RESULTS}/oahu/figure7/summary.csv",
    log:
        f"{LOGS}/figures/figure_oahu_7.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["figure"],
        runtime=RUNTIME_MIN["figure"],
    params:
        cache_dir=CACHE,
        settings=block_settings(
            config, "oahu", ["figure7", "table3"], "workflow/scripts/oahu/oahu_figures.py"
        ),
        order=key_order({k: OAHU[k] for k in ("figure7", "table3")}),  # the legend's order
    script:
        "../scripts/oahu/oahu_figures.py"


rule oahu_sensitivity:
    """Why OAHU's Table 3 kNN error is above its untrained network's (OAHU-init).

    Not in `reproduce_all` (~5 min on one core). On Table 3's split, stream, sizes and seeds, one
    factor at a time away from the paper's setting (eta 0.3, one pass, plain OGD of eqs. 21-22, kNN
    reference = the development half): eta, passes, stream size (the paper's 5,000 + 5,000),
    heavy-ball momentum (ours, `OAHU(momentum=...)`), and the kNN reference set (every non-test
    sample); one row per (setting, seed) with OAHU's and the untrained network's error, the finding
    computed into the caption (`oahu.sensitivity` in the config).
    """
    input:
        prepared_rows(OAHU["sensitivity"]["dataset"]),
    output:
        csv=f"{RESULTS}/tables/oahu_sensitivity.csv",
        md=f"{RESULTS}/tables/oahu_sensitivity.md",
    log:
        f"{LOGS}/tables/oahu_sensitivity.log",
    benchmark:
        f"{RESULTS}/oahu/benchmarks/oahu_sensitivity.tsv"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["oahu_sensitivity"],
        runtime=RUNTIME_MIN["oahu_sensitivity"],
    params:
        settings=block_settings(
            config,
            "oahu",
            ["sensitivity", "table3"],
            "workflow/scripts/oahu/oahu_sensitivity.py",
            learners=["OAHU"],
        ),
    script:
        "../scripts/oahu/oahu_sensitivity.py"


REPRODUCE_ALL.extend(rules.table_oahu_3.output)
REPRODUCE_ALL.extend(rules.figure_oahu_4.output)
REPRODUCE_ALL.extend(rules.figure_oahu_5.output)
REPRODUCE_ALL.extend(rules.figure_oahu_7.output)
REPORT_TABLES["oahu_table3"] = rules.table_oahu_3.output
for _name in ("figure_oahu_4", "figure_oahu_5", "figure_oahu_7"):
    REPORT_FIGURES[_name] = getattr(rules, _name).output.md
# oahu_sensitivity (why OAHU loses to its untrained network, ~5 min on one core) is
# its own target, not in reproduce_all: a diagnosis of Table 3, not a paper result.
