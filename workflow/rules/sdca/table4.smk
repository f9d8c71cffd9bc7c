# SDCA paper Table 4: mAP on "ImageCLEF+Flickr", our route MIRFLICKR-25000 (ground
# truth) + MIRFLICKR-1M (background), tripletbench.datasets.imageclef_flickr. Download route only: offline the
# table shows "needs download". Rules: fetch the archives (local rules, on the submitting
# machine), the 297-d descriptors of the ground truth and of each background archive (one job
# per archive of 100,000 images; group "table4_background" on a cluster), one collection file,
# the per-seed protocol split, then the generic sample_triplets and fit_evaluate (data.smk,
# fit.smk; cell_data points them at the collection) and the table. The performance study's
# table4_scaling (performance/table4_scaling.smk) measures the same code path on synthetic
# features at the paper's sizes.

T4 = config["sdca_table4"]
T4_ON = bool(T4.get("methods"))  # a config without the block's methods builds no Table 4 cells
T4_DIR = f"{RESULTS}/sdca_table4"
T4_CACHE = f"{CACHE}/download/imageclef_flickr"


FIT_DATA["sdca_table4"] = lambda wc: f"{T4_DIR}/collection/{wc.dataset}.npz"  # one for all seeds
FIT_SPLIT["sdca_table4"] = table4_split_settings  # the cells' splits: rule table4_split
CELL_RESOURCE_KEYS["sdca_table4"] = "table4_cell"  # a million-item database (resources.yaml)


ruleorder: table4_split > split


localrules:
    table4_fetch,
    table4_fetch_background,
    table_sdca_4,


rule table4_fetch:
    output:
        # tripletbench.datasets.base.fetch_download puts the files here (unpinned: opt-in or a mirror's sums)
        images=f"{T4_CACHE}/mirflickr25k.zip",
        annotations=f"{T4_CACHE}/mirflickr25k_annotations_v080.zip",
    log:
        f"{LOGS}/sdca_table4/fetch.log",
    params:
        # the data cache: output = {cache}/download/imageclef_flickr/<file>
        cache=lambda wildcards, output: str(Path(output[0]).parents[2]),
        mirror=MIRROR,
        allow_unpinned=UNPINNED_FROM,
    run:
        from tripletbench.datasets.base import fetch_download
        from tripletbench.datasets.imageclef_flickr import SPEC

        fetch_download(SPEC, Path(params.cache), params.allow_unpinned, mirror=params.mirror)


rule table4_fetch_background:
    output:
        f"{T4_CACHE}/images{{shard}}.zip",
    log:
        f"{LOGS}/sdca_table4/fetch_background{{shard}}.log",
    wildcard_constraints:
        shard=r"\d",
    params:
        # the data cache: output = {cache}/download/imageclef_flickr/<file>
        cache=lambda wildcards, output: str(Path(output[0]).parents[2]),
        mirror=MIRROR,
        allow_unpinned=UNPINNED_FROM,
    run:
        from tripletbench.datasets.base import fetch_download
        from tripletbench.datasets.imageclef_flickr import background_spec

        spec = background_spec(int(wildcards.shard))
        fetch_download(spec, Path(params.cache), params.allow_unpinned, mirror=params.mirror)


rule table4_ground_truth:
    input:
        **rules.table4_fetch.output,
        settings_check=settings_check("table4_ground_truth"),  # harness/keep.py
    output:
        f"{T4_DIR}/features/ground_truth.npz",
    log:
        f"{LOGS}/sdca_table4/ground_truth.log",
    benchmark:
        f"{T4_DIR}/benchmarks/ground_truth.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=MEM_MB["table4_features"],
        runtime=RUNTIME_MIN["table4_features"],
    params:
        settings=block_settings(
            config,
            "sdca_table4",
            ["concepts", "max_side"],
            "workflow/scripts/sdca/table4_features.py",
        ),
    script:
        "../../scripts/sdca/table4_features.py"


rule table4_background:
    input:
        images=f"{T4_CACHE}/images{{shard}}.zip",
        settings_check=settings_check("table4_background"),  # harness/keep.py
    output:
        f"{T4_DIR}/features/background{{shard}}.npz",
    log:
        f"{LOGS}/sdca_table4/background{{shard}}.log",
    benchmark:
        f"{T4_DIR}/benchmarks/background{{shard}}.tsv"
    wildcard_constraints:
        shard=r"\d",
    group:
        "table4_background"  # profiles: one sbatch job per archive (--group-components)
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=MEM_MB["table4_features"],
        runtime=RUNTIME_MIN["table4_features"],
    params:
        settings=block_settings(
            config, "sdca_table4", ["max_side"], "workflow/scripts/sdca/table4_features.py"
        ),
    script:
        "../../scripts/sdca/table4_features.py"


rule table4_collection:
    input:
        ground_truth=f"{T4_DIR}/features/ground_truth.npz",
        background=expand(f"{T4_DIR}/features/background{{s}}.npz", s=T4["background_shards"]),
    output:
        f"{T4_DIR}/collection/imageclef_flickr.npz",
    log:
        f"{LOGS}/sdca_table4/collection.log",
    benchmark:
        f"{T4_DIR}/benchmarks/collection.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=MEM_MB["table4_cell"],
        runtime=RUNTIME_MIN["table4_cell"],
    params:
        code=script_code("workflow/scripts/sdca/table4_collection.py"),
    script:
        "../../scripts/sdca/table4_collection.py"


rule table4_split:
    input:
        f"{T4_DIR}/collection/{{dataset}}.npz",
        settings_check=settings_check("table4_split"),  # harness/keep.py
    output:
        f"{RESULTS}/sdca_table4/splits/{{dataset}}/seed{{seed}}.npz",
    log:
        f"{LOGS}/sdca_table4/split_{{dataset}}_seed{{seed}}.log",
    wildcard_constraints:
        dataset="imageclef_flickr",
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=MEM_MB["table4_cell"],
        runtime=RUNTIME_MIN["split"],
    params:
        settings=table4_split_settings,  # functions.smk
    script:
        "../../scripts/sdca/table4_split.py"


rule table_sdca_4:
    """SDCA paper, Table 4: mAP on "ImageCLEF+Flickr" (download route only).

    Rows Eucl, RCA, ITML, LEGO, OASIS, SDCA. Our route: MIRFLICKR-25000 images with exactly one
    concept as ground truth, MIRFLICKR-1M as background (download route, unpinned: `--config
    allow_unpinned_downloads=true` on the command line, from LIACS or a data mirror), the 297-d
    global descriptor, 500K triplets, 60/40 split, 10% of the test set as queries over the rest plus
    the background; offline "needs download" beside the paper's numbers.
    """
    input:
        runs=table4_cells(),
    output:
        runs=f"{RESULTS}/sdca_table4/all_runs.csv",
        csv=f"{RESULTS}/tables/sdca_table4.csv",
        md=f"{RESULTS}/tables/sdca_table4.md",
        tex=f"{RESULTS}/tables/sdca_table4.tex",
    log:
        f"{LOGS}/tables/sdca_table4.log",
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=MEM_MB["table"],
        runtime=RUNTIME_MIN["table"],
    params:
        paper_rows=paper_numbers("sdca_relative_similarity", "table4"),
        block=T4,  # rows, notes and caption follow the config
        route=ROUTE,
        code=script_code("workflow/scripts/sdca/table_sdca_4.py"),
    script:
        "../../scripts/sdca/table_sdca_4.py"


if T4_ON and "sdca_table4" in BLOCKS_ON:
    REPRODUCE_ALL.extend(rules.table_sdca_4.output)
    REPORT_TABLES["sdca_table4"] = rules.table_sdca_4.output
