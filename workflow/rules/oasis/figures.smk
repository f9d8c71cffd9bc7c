# The OASIS paper's Fig. 3 (OASIS variants, mAP along training: the curves of the SDCA study's
# figures block, sdca/figures.smk) and Fig. 1(b) (fit time against problem size: rule
# scaling_times). Included after sdca/figures.smk, whose rule figure_sdca_1 these plots reuse.


localrules:
    figure_oasis_3,
    figure_scaling,


from tripletbench.studies.oasis.scaling import SCALING_LEARNERS  # noqa: E402

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
    "workflow/scripts/oasis/scaling.py",
    learners=SCALING_LEARNERS,
)


use rule figure_sdca_1 as figure_oasis_3 with:
    """OASIS paper, Fig. 3: test mAP along training, OASIS vs its symmetric and PSD variants.

    The variants are `figures.oasis_variants`; the curves are those of the `figures` block (rule
    `curves`, `figures.dataset`: offline a dataset stands in for the paper's Caltech-256), test
    queries (`figures.n_queries`) ranked against training samples (`figures.n_database`).
    """
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
        code=script_code("workflow/scripts/sdca/plot_figure.py"),


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
        "../../../environment.yml"
    threads: WHOLE_NODE_THREADS  # timings: no other job beside it (common.smk)
    resources:
        mem_mb=MEM_MB["scaling_times"],
        runtime=RUNTIME_MIN["scaling_times"],
        whole_node=1,
    params:
        settings=SCALING_SETTINGS,
    script:
        "../../scripts/oasis/scaling.py"


use rule figure_sdca_1 as figure_scaling with:
    """OASIS paper, Fig. 1(b): fit time against the number of triplets and of training samples.

    OASIS and SDCA against LMNN, as the OASIS paper's Fig. 1(b) (default: letter, 2 seeds, 250 to
    1,000 samples; Snakemake starts no other job beside it; the one-minute load average is recorded
    with every timing and stated in the caption; median and min-max band over seeds). Timings: rule
    `scaling_times`.
    """
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
        code=script_code("workflow/scripts/sdca/plot_figure.py"),


for _name in ("figure_oasis_3", "figure_scaling"):
    REPRODUCE_ALL.extend(getattr(rules, _name).output)
    REPORT_FIGURES[_name] = getattr(rules, _name).output.md
