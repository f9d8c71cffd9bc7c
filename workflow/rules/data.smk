# get + prepare: fetch the raw files (download or embedded route), parse, check, scale; then the
# per-seed split and the triplets. prepare_dataset downloads (or runs `apt-get download`), and so
# does fetch_raw for the corpora that svm_run and oahu_fig5_cell parse themselves (Reuters, WebKB,
# LFW): local rules, run on the submitting machine under a cluster executor, so that compute jobs
# only read the cache; prepare_rows writes a prepared X as a row file (read row by row by the
# jobs that use a few rows of a large set: the OAHU cells, images_features); split and
# sample_triplets join their cell's fits in group "cells".


localrules:
    prepare_dataset,
    fetch_raw,


rule prepare_dataset:
    output:
        data=f"{CACHE}/prepared/{{dataset}}_{ROUTE}.npz",
        sha256=f"{CACHE}/prepared/{{dataset}}_{ROUTE}.npz.sha256",
    log:
        f"{LOGS}/prepare_dataset/{{dataset}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/prepare_dataset/{{dataset}}.tsv"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["prepare_dataset"],
        runtime=RUNTIME_MIN["prepare_dataset"],
    params:
        route=ROUTE,
        allow_unpinned=UNPINNED_FROM,
        # the dataset's parser and the shared scaling (fetching and checksums cannot change it)
        code=lambda wc: code_hash([DATASET_MODULES[wc.dataset], "tripletbench.datasets.preprocess"]),
    script:
        "../scripts/prepare_dataset.py"


rule prepare_rows:
    input:
        f"{CACHE}/prepared/{{dataset}}_{ROUTE}.npz",
    output:
        rows=str(rows_paths(f"{CACHE}/prepared/{{dataset}}_{ROUTE}.npz")[0]),
        check=str(rows_paths(f"{CACHE}/prepared/{{dataset}}_{ROUTE}.npz")[1]),
    log:
        f"{LOGS}/prepare_rows/{{dataset}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/prepare_rows/{{dataset}}.tsv"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["prepare_rows"],
        runtime=RUNTIME_MIN["prepare_rows"],
    params:
        # the row writer (tripletbench.datasets.rows) and what it imports
        code=script_code("workflow/scripts/prepare_rows.py"),
    script:
        "../scripts/prepare_rows.py"


rule fetch_raw:
    output:
        f"{CACHE}/fetched/{{source}}.sha256",
    log:
        f"{LOGS}/fetch_raw/{{source}}.log",
    wildcard_constraints:
        source="reuters|webkb|lfw",
    conda:
        "../../environment.yml"
    params:
        cache_dir=lambda wildcards, output: str(Path(output[0]).parents[1]),
        allow_unpinned=UNPINNED_FROM,
    script:
        "../scripts/fetch_raw.py"


rule split:
    input:
        f"{CACHE}/prepared/{{dataset}}_{ROUTE}.npz",
        settings_check=settings_check("split"),  # harness/keep.py
    output:
        f"{RESULTS}/{{experiment}}/splits/{{dataset}}/seed{{seed}}.npz",
    log:
        f"{LOGS}/{{experiment}}/split/{{dataset}}_seed{{seed}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/split/{{experiment}}_{{dataset}}_seed{{seed}}.tsv"
    group:
        "cells"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["split"],
        runtime=RUNTIME_MIN["split"],
    params:
        settings=split_settings,  # common.smk
    script:
        "../scripts/split.py"


rule sample_triplets:
    input:
        data=cell_data,
        split=f"{RESULTS}/{{experiment}}/splits/{{dataset}}/seed{{seed}}.npz",
        settings_check=settings_check("sample_triplets"),  # harness/keep.py
    output:
        train=f"{RESULTS}/{{experiment}}/constraints/{{dataset}}/seed{{seed}}/triplets_train.npz",
        fit=f"{RESULTS}/{{experiment}}/constraints/{{dataset}}/seed{{seed}}/triplets_fit.npz",
    log:
        f"{LOGS}/{{experiment}}/constraints/{{dataset}}_seed{{seed}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/sample_triplets/{{experiment}}_{{dataset}}_seed{{seed}}.tsv"
    group:
        "cells"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["sample_triplets"],
        runtime=RUNTIME_MIN["sample_triplets"],
    params:
        settings=triplet_settings,  # common.smk
    script:
        "../scripts/sample_triplets.py"
