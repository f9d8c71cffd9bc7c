# figures: training curves per seed, then one plot rule per figure (PNG, PDF, caption + values).

FIG_DATA = f"{CACHE}/prepared/{config['figures']['dataset']}_{ROUTE}.npz"


rule curves:
    input:
        FIG_DATA,
    output:
        f"{RESULTS}/curves/{{curves}}/seed{{seed}}.csv",
    log:
        f"{LOGS}/figures/{{curves}}_seed{{seed}}.log",
    wildcard_constraints:
        curves="sdca_1|oasis_3",
    params:
        settings=block_settings(
            config,
            "figures",
            ["dataset", "n_triplets", "oasis_C", "sdca_lam", "normalize", "oasis_variants",
             "n_queries", "n_database"],
            "workflow/scripts/curves.py",
        ),
    conda:
        "../../environment.yml"
    script:
        "../scripts/curves.py"


rule figure_sdca_1:  # squared hinge (eq. 3) and hinge, both in the Markdown
    input:
        curve_files("sdca_1"),
    output:
        png=f"{FIGURES}/figure_sdca_1.png",
        pdf=f"{FIGURES}/figure_sdca_1.pdf",
        md=f"{FIGURES}/figure_sdca_1.md",
        png_hinge=f"{FIGURES}/figure_sdca_1_hinge.png",
        pdf_hinge=f"{FIGURES}/figure_sdca_1_hinge.pdf",
    log:
        f"{LOGS}/figures/figure_sdca_1.log",
    params:
        metric="avg_cumulative_loss",
        block=config["figures"],  # captions follow the config
    conda:
        "../../environment.yml"
    script:
        "../scripts/plot_figure.py"


use rule figure_sdca_1 as figure_sdca_2 with:
    output:
        png=f"{FIGURES}/figure_sdca_2.png",
        pdf=f"{FIGURES}/figure_sdca_2.pdf",
        md=f"{FIGURES}/figure_sdca_2.md",
    log:
        f"{LOGS}/figures/figure_sdca_2.log",
    params:
        metric="mistake_rate",
        block=config["figures"],


use rule figure_sdca_1 as figure_oasis_3 with:
    input:
        curve_files("oasis_3"),
    output:
        png=f"{FIGURES}/figure_oasis_3.png",
        pdf=f"{FIGURES}/figure_oasis_3.pdf",
        md=f"{FIGURES}/figure_oasis_3.md",
    log:
        f"{LOGS}/figures/figure_oasis_3.log",
    params:
        metric="mAP",
        block=config["figures"],


rule scaling_times:
    input:
        f"{CACHE}/prepared/{config['figures']['scaling_dataset']}_{ROUTE}.npz",
    output:
        f"{RESULTS}/curves/scaling/seed{{seed}}.csv",
    log:
        f"{LOGS}/figures/scaling_seed{{seed}}.log",
    threads: workflow.cores  # timings: no other job beside it
    params:
        settings=block_settings(
            config,
            "figures",
            ["scaling_dataset", "scaling_n_triplets", "scaling_n_samples",
             "scaling_triplets_per_sample", "scaling_lmnn", "oasis_C", "sdca_lam"],
            "workflow/scripts/scaling.py",
        ),
    conda:
        "../../environment.yml"
    script:
        "../scripts/scaling.py"


use rule figure_sdca_1 as figure_scaling with:
    input:
        curve_files("scaling"),
    output:
        png=f"{FIGURES}/figure_scaling.png",
        pdf=f"{FIGURES}/figure_scaling.pdf",
        md=f"{FIGURES}/figure_scaling.md",
    log:
        f"{LOGS}/figures/figure_scaling.log",
    params:
        metric="fit_wall_s",
        block=config["figures"],
