# fit + evaluate: every grid point on the validation split, then the selected point refitted on
# the full training set and evaluated on the test split. One tidy CSV per run.


rule validate:
    input:
        data=f"{CACHE}/prepared/{{dataset}}_{ROUTE}.npz",
        split=f"{RESULTS}/{{experiment}}/splits/{{dataset}}/seed{{seed}}.npz",
        triplets=f"{RESULTS}/{{experiment}}/constraints/{{dataset}}/seed{{seed}}/triplets_fit.npz",
    output:
        f"{RESULTS}/{{experiment}}/runs/{{dataset}}/seed{{seed}}/{{method}}/val/{{params}}.csv",
    log:
        f"{LOGS}/{{experiment}}/validate/{{dataset}}_seed{{seed}}_{{method}}_{{params}}.log",
    benchmark:
        f"{RESULTS}/{{experiment}}/benchmarks/validate/{{dataset}}_seed{{seed}}_{{method}}_{{params}}.tsv"
    params:
        stage="val",
    conda:
        "../../environment.yml"
    script:
        "../scripts/fit_evaluate.py"


rule test:
    input:
        data=f"{CACHE}/prepared/{{dataset}}_{ROUTE}.npz",
        split=f"{RESULTS}/{{experiment}}/splits/{{dataset}}/seed{{seed}}.npz",
        triplets=f"{RESULTS}/{{experiment}}/constraints/{{dataset}}/seed{{seed}}/triplets_train.npz",
        validation=validation_runs,
    output:
        rows=f"{RESULTS}/{{experiment}}/runs/{{dataset}}/seed{{seed}}/{{method}}/test.csv",
        model=f"{RESULTS}/{{experiment}}/runs/{{dataset}}/seed{{seed}}/{{method}}/model.npz",
    log:
        f"{LOGS}/{{experiment}}/test/{{dataset}}_seed{{seed}}_{{method}}.log",
    benchmark:
        f"{RESULTS}/{{experiment}}/benchmarks/test/{{dataset}}_seed{{seed}}_{{method}}.tsv"
    params:
        stage="test",
    conda:
        "../../environment.yml"
    script:
        "../scripts/fit_evaluate.py"
