# Image retrieval (issue 6): Caltech-256 / stand-in bag of visual words, table_sdca_3, figure_oasis_2, table_oasis_2.
# Experiment "images" (config block `images:`): per image set and seed, rule images_features picks
# the images (per class n_train + n_test) and computes the features (pixels, or a bag of visual
# words from that seed's training images); the generic rules sample_triplets and fit_evaluate
# (data.smk, fit.smk; `cell_data` points them at these feature files) fit and score every method.
# The three targets read the same cells: mAP (SDCA Table 3), precision@k (OASIS Fig. 2) and the
# benchmark files' CPU time (OASIS runtime table).

IMAGES_ON = bool(config["images"].get("methods"))  # a config without the block builds nothing here
IMAGE_SETS = r"fashion_mnist_pixels|fashion_mnist_bovw|caltech256_\d+"
CALTECH_LIST = f"{CACHE}/download/caltech256/images.csv"


ruleorder: images_features > split


localrules:
    images_caltech256_extract,
    images_caltech256,
    table_sdca_3,
    figure_oasis_2,
    table_oasis_2,


rule images_caltech256_extract:
    output:
        # tripletbench.datasets.caltech256.fetch_images downloads (md5-pinned) and extracts the archive here
        directory(f"{CACHE}/download/caltech256/extracted"),
    log:
        f"{LOGS}/images/caltech256_extract.log",
    resources:
        mem_mb=MEM_MB["images_caltech256"],
        runtime=RUNTIME_MIN["images_caltech256"],
    params:
        # the data cache: output = {cache}/download/caltech256/extracted
        cache=lambda wildcards, output: str(Path(output[0]).parents[2]),
    run:
        from tripletbench.datasets.caltech256 import fetch_images

        fetch_images(params.cache, progressbar=False, mirror=config["data"].get("mirror"))


rule images_caltech256:
    input:
        f"{CACHE}/download/caltech256/extracted",
    output:
        CALTECH_LIST,
    log:
        f"{LOGS}/images/caltech256.log",
    benchmark:
        f"{RESULTS}/images/benchmarks/caltech256.tsv"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["images_caltech256"],
        runtime=RUNTIME_MIN["images_caltech256"],
    params:
        # the data cache: output = {cache}/download/caltech256/images.csv
        cache=lambda wildcards, output: str(Path(output[0]).parents[2]),
    script:
        "../scripts/images_caltech256.py"


rule images_features:
    input:
        images_source,
    output:
        features=f"{RESULTS}/images/features/{{dataset}}/seed{{seed}}.npz",
        split=f"{RESULTS}/images/splits/{{dataset}}/seed{{seed}}.npz",
    log:
        f"{LOGS}/images/features/{{dataset}}_seed{{seed}}.log",
    benchmark:
        f"{RESULTS}/images/benchmarks/features_{{dataset}}_seed{{seed}}.tsv"
    wildcard_constraints:
        dataset=IMAGE_SETS,
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["images_features"],
        runtime=RUNTIME_MIN["images_features"],
    params:
        # tripletbench.harness.settings: the selection sizes and this set's feature settings, and the code
        settings=lambda wc: images_features_settings(config, wc.dataset),
    script:
        "../scripts/images_features.py"


rule table_sdca_3:
    input:
        runs=image_cells(),
        features=image_features_files(),
    output:
        runs=f"{RESULTS}/images/all_runs.csv",
        csv=f"{RESULTS}/tables/sdca_table3.csv",
        md=f"{RESULTS}/tables/sdca_table3.md",
        tex=f"{RESULTS}/tables/sdca_table3.tex",
        cd=report_figure(f"{FIGURES}/sdca_table3_cd.png", "sdca_table3_cd"),
        cd_md=f"{FIGURES}/sdca_table3_cd.md",
        cd_csv=f"{RESULTS}/tables/sdca_table3_ranks.csv",
        features=f"{RESULTS}/tables/images_features.csv",
    log:
        f"{LOGS}/tables/sdca_table3.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["table"],
        runtime=RUNTIME_MIN["table"],
    params:
        paper_rows=paper_numbers("sdca_relative_similarity", "table3"),
        block=config["images"],  # rows, notes and captions follow the config
        code=script_code("workflow/scripts/images_table_sdca_3.py"),
    script:
        "../scripts/images_table_sdca_3.py"


rule figure_oasis_2:
    input:
        runs=f"{RESULTS}/images/all_runs.csv",
    output:
        png=report_figure(f"{FIGURES}/figure_oasis_2.png", "figure_oasis_2"),
        pdf=f"{FIGURES}/figure_oasis_2.pdf",
        md=f"{FIGURES}/figure_oasis_2.md",
        csv=f"{RESULTS}/tables/oasis_figure2.csv",
    log:
        f"{LOGS}/figures/figure_oasis_2.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["figure"],
        runtime=RUNTIME_MIN["figure"],
    params:
        # the images block (captions and columns follow it), the route, the script's code
        settings=block_settings(config, "images", None, "workflow/scripts/images_figure_oasis_2.py"),
        order=key_order(config["images"]),  # the panels and legend follow the config's order
    script:
        "../scripts/images_figure_oasis_2.py"


rule table_oasis_2:
    input:
        runs=f"{RESULTS}/images/all_runs.csv",  # fit_cpu_s and each job's own job_cpu_s
        features=f"{RESULTS}/tables/images_features.csv",
    output:
        csv=f"{RESULTS}/tables/oasis_table2.csv",
        md=f"{RESULTS}/tables/oasis_table2.md",
        tex=f"{RESULTS}/tables/oasis_table2.tex",
    log:
        f"{LOGS}/tables/oasis_table2.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["table"],
        runtime=RUNTIME_MIN["table"],
    params:
        # the images block (captions and columns follow it), the route, the script's code
        settings=block_settings(config, "images", None, "workflow/scripts/images_table_oasis_2.py"),
        order=key_order(config["images"]),  # rows follow the config's order (settings sort keys)
    script:
        "../scripts/images_table_oasis_2.py"


if IMAGES_ON:
    REPRODUCE_ALL.extend(rules.table_sdca_3.output)
    REPRODUCE_ALL.extend(rules.figure_oasis_2.output)
    REPRODUCE_ALL.extend(rules.table_oasis_2.output)
    REPORT_TABLES["sdca_table3"] = rules.table_sdca_3.output
    REPORT_TABLES["oasis_table2"] = rules.table_oasis_2.output
    REPORT_FIGURES["figure_oasis_2"] = rules.figure_oasis_2.output.md
    REPORT_FIGURES["sdca_table3_cd"] = rules.table_sdca_3.output.cd_md
