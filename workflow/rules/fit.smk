# fit + evaluate: every grid point on the validation split, then the selected point refitted on
# the full training set and evaluated on the test split. One tidy CSV per run.


def validation_runs(wc):
    from harness.experiment import grid_labels

    labels = grid_labels(config[wc.experiment]["methods"][wc.method])
    if len(labels) == 1:  # nothing to choose
        return []
    return [f"{RESULTS}/{wc.experiment}/runs/{wc.dataset}/seed{wc.seed}/{wc.method}/val/{p}.csv"
            for p in labels]


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
    script:
        "../scripts/fit_evaluate.py"
