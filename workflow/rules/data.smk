# get + prepare: fetch the raw files (download or embedded route), parse, check, scale; then the
# per-seed split and the triplets.


rule prepare_dataset:
    output:
        f"{CACHE}/prepared/{{dataset}}_{ROUTE}.npz",
    log:
        f"{LOGS}/prepare_dataset/{{dataset}}.log",
    params:
        route=ROUTE,
        allow_unpinned=config["data"]["allow_unpinned_downloads"],
    conda:
        "../../environment.yml"
    script:
        "../scripts/prepare_dataset.py"


rule split:
    input:
        f"{CACHE}/prepared/{{dataset}}_{ROUTE}.npz",
    output:
        f"{RESULTS}/{{experiment}}/splits/{{dataset}}/seed{{seed}}.npz",
    log:
        f"{LOGS}/{{experiment}}/split/{{dataset}}_seed{{seed}}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/split.py"


rule sample_triplets:
    input:
        data=f"{CACHE}/prepared/{{dataset}}_{ROUTE}.npz",
        split=f"{RESULTS}/{{experiment}}/splits/{{dataset}}/seed{{seed}}.npz",
    output:
        train=f"{RESULTS}/{{experiment}}/constraints/{{dataset}}/seed{{seed}}/triplets_train.npz",
        fit=f"{RESULTS}/{{experiment}}/constraints/{{dataset}}/seed{{seed}}/triplets_fit.npz",
    log:
        f"{LOGS}/{{experiment}}/constraints/{{dataset}}_seed{{seed}}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/sample_triplets.py"
