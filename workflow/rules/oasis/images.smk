# Image retrieval (the OASIS study's images block): Caltech-256 or a stand-in, the image features
# and the OASIS paper's Figure 2 and runtime table; the SDCA study's Table 3 (sdca/table3.smk)
# reads the same cells.
# Experiment "images" (config block `images:`): per image set and seed, rule images_features picks
# the images (per class n_train + n_test) and computes the features (pixels, or a bag of visual
# words from that seed's training images); the generic rules sample_triplets and fit_evaluate
# (data.smk, fit.smk; `cell_data` points them at these feature files) fit and score every method.
# The three targets read the same cells: mAP (SDCA Table 3), precision@k (OASIS Fig. 2) and the
# benchmark files' CPU time (OASIS runtime table).

from tripletbench.studies.oasis.images import images_features_settings, images_on  # noqa: E402

IMAGES_ON = images_on(config)  # a config without the block builds nothing here
IMAGE_SETS = r"fashion_mnist_pixels|fashion_mnist_bovw|caltech256_\d+"
CALTECH_LIST = f"{CACHE}/download/caltech256/images.csv"


FIT_DATA["images"] = lambda wc: f"{RESULTS}/images/features/{wc.dataset}/seed{wc.seed}.npz"
# the per-seed image features (rule images_features) are the cells' data (fit.smk), and their
# splits are that rule's too
FIT_SPLIT["images"] = lambda wc: images_features_settings(config, wc.dataset)
FIT_DATA_SETTINGS["images"] = FIT_SPLIT["images"]  # and so is their feature file


ruleorder: images_features > split


localrules:
    images_caltech256_extract,
    images_caltech256,
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
        "../../../environment.yml"
    resources:
        mem_mb=MEM_MB["images_caltech256"],
        runtime=RUNTIME_MIN["images_caltech256"],
    params:
        # the data cache: output = {cache}/download/caltech256/images.csv
        cache=lambda wildcards, output: str(Path(output[0]).parents[2]),
    script:
        "../../scripts/oasis/images_caltech256.py"


rule images_features:
    input:
        images_source,
        settings_check=settings_check("images_features"),  # harness/keep.py
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
        "../../../environment.yml"
    resources:
        mem_mb=MEM_MB["images_features"],
        runtime=RUNTIME_MIN["images_features"],
    params:
        # tripletbench.harness.settings: the selection sizes and this set's feature settings, and the code
        settings=lambda wc: images_features_settings(config, wc.dataset),
    script:
        "../../scripts/oasis/images_features.py"


rule figure_oasis_2:
    """OASIS paper, Fig. 2: precision at top k (k = 1..50) per method and class subset.

    Class subsets of 10, 20 and 50 Caltech-256 classes (download route; the stand-in offline:
    Fashion-MNIST as raw pixels and as a bag of visual words), standard errors over seeds, chance
    line; the plotted values in `tables/oasis_figure2.csv`.
    """
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
        "../../../environment.yml"
    resources:
        mem_mb=MEM_MB["figure"],
        runtime=RUNTIME_MIN["figure"],
    params:
        # the images block (captions and columns follow it), the route, the script's code
        settings=block_settings(
            config, "images", None, "workflow/scripts/oasis/images_figure_oasis_2.py"
        ),
        order=key_order(config["images"]),  # the panels and legend follow the config's order
    script:
        "../../scripts/oasis/images_figure_oasis_2.py"


rule table_oasis_2:
    """OASIS paper's runtime table: CPU time to train each method on each image set.

    CPU time per method and image set (the runs' own timer and Snakemake `benchmark:` files),
    feature extraction time per image; on the image sets of the `images` block (offline the
    Fashion-MNIST stand-ins).
    """
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
        "../../../environment.yml"
    resources:
        mem_mb=MEM_MB["table"],
        runtime=RUNTIME_MIN["table"],
    params:
        # the images block (captions and columns follow it), the route, the script's code
        settings=block_settings(
            config, "images", None, "workflow/scripts/oasis/images_table_oasis_2.py"
        ),
        order=key_order(config["images"]),  # rows follow the config's order (settings sort keys)
    script:
        "../../scripts/oasis/images_table_oasis_2.py"


if IMAGES_ON:
    REPRODUCE_ALL.extend(rules.figure_oasis_2.output)
    REPRODUCE_ALL.extend(rules.table_oasis_2.output)
    REPORT_TABLES["oasis_table2"] = rules.table_oasis_2.output
    REPORT_FIGURES["figure_oasis_2"] = rules.figure_oasis_2.output.md
