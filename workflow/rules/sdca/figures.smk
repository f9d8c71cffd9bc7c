# figures: training curves per seed, then one plot rule per figure (PNG, PDF, caption + values).
# The plots are local rules (seconds each); each PNG is a report item (report.smk).


localrules:
    figure_sdca_1,
    figure_sdca_2,


# The settings each curve row is made under (tripletbench.harness.settings): the producing job's
# params (so a change reruns it) and the plot's (which refuses rows made under other settings).
CURVES_SETTINGS = block_settings(
    config,
    "figures",
    [
        "dataset",
        "n_triplets",
        "oasis_C",
        "sdca_lam",
        "normalize",
        "oasis_variants",
        "n_queries",
        "n_database",
    ],
    "workflow/scripts/sdca/curves.py",
)


rule curves:
    input:
        fig_data,
        settings_check=settings_check("curves"),  # harness/keep.py
    output:
        f"{RESULTS}/curves/{{curves}}/seed{{seed}}.csv",
    log:
        f"{LOGS}/figures/{{curves}}_seed{{seed}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/curves/{{curves}}_seed{{seed}}.tsv"
    wildcard_constraints:
        curves="sdca_1|oasis_3",
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=MEM_MB["curves"],
        runtime=RUNTIME_MIN["curves"],
    params:
        settings=CURVES_SETTINGS,
        inputs=fig_inputs,  # the settings hash an image set's feature file must record
    script:
        "../../scripts/sdca/curves.py"


rule figure_sdca_1:  # squared hinge (eq. 3) and hinge, both in the Markdown
    """SDCA paper, Figure 1: average cumulative squared hinge loss (eq. 3), OASIS vs SDCA.

    The average cumulative squared hinge (eq. 3) and, in `figure_sdca_1_hinge`, the hinge loss, both
    in the Markdown; OASIS vs SDCA, 100K iterations on unit-length feature vectors. The curves (rule
    `curves`) are trained on `figures.dataset`: offline a dataset (default Fashion-MNIST) stands in
    for the paper's Caltech-256 (`config/paper.yaml`: `caltech256_50`, download route).
    """
    input:
        curve_files("sdca_1"),
    output:
        png=report_figure(f"{FIGURES}/figure_sdca_1.png", "figure_sdca_1"),
        pdf=f"{FIGURES}/figure_sdca_1.pdf",
        md=f"{FIGURES}/figure_sdca_1.md",
        png_hinge=report_figure(f"{FIGURES}/figure_sdca_1_hinge.png", "figure_sdca_1", "hinge"),
        pdf_hinge=f"{FIGURES}/figure_sdca_1_hinge.pdf",
    log:
        f"{LOGS}/figures/figure_sdca_1.log",
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=MEM_MB["figure"],
        runtime=RUNTIME_MIN["figure"],
    params:
        metric="avg_cumulative_loss",
        block=config["figures"],  # captions follow the config
        settings=CURVES_SETTINGS,
        producer="curves",
        code=script_code("workflow/scripts/sdca/plot_figure.py"),
    script:
        "../../scripts/sdca/plot_figure.py"


use rule figure_sdca_1 as figure_sdca_2 with:
    """SDCA paper, Figure 2: online mistake rate, OASIS vs SDCA.

    The same training curves as Figure 1 (rule `curves`): OASIS vs SDCA, 100K iterations on
    unit-length feature vectors of `figures.dataset` (offline a dataset, default Fashion-MNIST,
    stands in for the paper's Caltech-256).
    """
    output:
        png=report_figure(f"{FIGURES}/figure_sdca_2.png", "figure_sdca_2"),
        pdf=f"{FIGURES}/figure_sdca_2.pdf",
        md=f"{FIGURES}/figure_sdca_2.md",
    log:
        f"{LOGS}/figures/figure_sdca_2.log",
    params:
        metric="mistake_rate",
        block=config["figures"],
        settings=CURVES_SETTINGS,
        producer="curves",
        code=script_code("workflow/scripts/sdca/plot_figure.py"),


for _name in ("figure_sdca_1", "figure_sdca_2"):
    REPRODUCE_ALL.extend(getattr(rules, _name).output)
    REPORT_FIGURES[_name] = getattr(rules, _name).output.md
