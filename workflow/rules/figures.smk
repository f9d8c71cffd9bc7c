# figures: training curves per seed, then one plot rule per figure (PNG, PDF, caption + values).
# The plots are local rules (seconds each); each PNG is a report item (report.smk).


localrules:
    figure_sdca_1,
    figure_sdca_2,
    figure_oasis_3,
    figure_scaling,


from tripletbench.harness.curves import SCALING_LEARNERS  # noqa: E402

# The settings each curve / timing row is made under (tripletbench.harness.settings): the producing job's
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
    "workflow/scripts/curves.py",
)
SCALING_SETTINGS = block_settings(
    config,
    "figures",
    [
        "scaling_dataset",
        "scaling_n_triplets",
        "scaling_n_samples",
        "scaling_triplets_per_sample",
        "scaling_lmnn",
        "oasis_C",
        "sdca_lam",
    ],
    "workflow/scripts/scaling.py",
    learners=SCALING_LEARNERS,
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
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["curves"],
        runtime=RUNTIME_MIN["curves"],
    params:
        settings=CURVES_SETTINGS,
    script:
        "../scripts/curves.py"


rule figure_sdca_1:  # squared hinge (eq. 3) and hinge, both in the Markdown
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
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["figure"],
        runtime=RUNTIME_MIN["figure"],
    params:
        metric="avg_cumulative_loss",
        block=config["figures"],  # captions follow the config
        settings=CURVES_SETTINGS,
        producer="curves",
        code=script_code("workflow/scripts/plot_figure.py"),
    script:
        "../scripts/plot_figure.py"


use rule figure_sdca_1 as figure_sdca_2 with:
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
        code=script_code("workflow/scripts/plot_figure.py"),


use rule figure_sdca_1 as figure_oasis_3 with:
    input:
        curve_files("oasis_3"),
    output:
        png=report_figure(f"{FIGURES}/figure_oasis_3.png", "figure_oasis_3"),
        pdf=f"{FIGURES}/figure_oasis_3.pdf",
        md=f"{FIGURES}/figure_oasis_3.md",
    log:
        f"{LOGS}/figures/figure_oasis_3.log",
    params:
        metric="mAP",
        block=config["figures"],
        settings=CURVES_SETTINGS,
        producer="curves",
        code=script_code("workflow/scripts/plot_figure.py"),


rule scaling_times:
    input:
        f"{CACHE}/prepared/{config['figures']['scaling_dataset']}_{ROUTE}.npz",
        settings_check=settings_check("scaling_times"),  # harness/keep.py
    output:
        f"{RESULTS}/curves/scaling/seed{{seed}}.csv",
    log:
        f"{LOGS}/figures/scaling_seed{{seed}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/scaling_times/seed{{seed}}.tsv"
    conda:
        "../../environment.yml"
    threads: WHOLE_NODE_THREADS  # timings: no other job beside it (common.smk)
    resources:
        mem_mb=MEM_MB["scaling_times"],
        runtime=RUNTIME_MIN["scaling_times"],
        whole_node=1,
    params:
        settings=SCALING_SETTINGS,
    script:
        "../scripts/scaling.py"


use rule figure_sdca_1 as figure_scaling with:
    input:
        curve_files("scaling"),
    output:
        png=report_figure(f"{FIGURES}/figure_scaling.png", "figure_scaling"),
        pdf=f"{FIGURES}/figure_scaling.pdf",
        md=f"{FIGURES}/figure_scaling.md",
    log:
        f"{LOGS}/figures/figure_scaling.log",
    params:
        metric="fit_wall_s",
        block=config["figures"],
        settings=SCALING_SETTINGS,
        producer="scaling_times",
        code=script_code("workflow/scripts/plot_figure.py"),


for _name in ("figure_sdca_1", "figure_sdca_2", "figure_oasis_3", "figure_scaling"):
    REPRODUCE_ALL.extend(getattr(rules, _name).output)
    REPORT_FIGURES[_name] = getattr(rules, _name).output.md
