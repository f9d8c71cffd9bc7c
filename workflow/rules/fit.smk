# fit + evaluate, one job per cell (experiment, dataset, seed, method): every grid point fitted on
# the fit part and scored on the validation part, the best refitted on the full training set and
# scored on the test set. One tidy CSV per cell (validation and test rows), and the final model.


rule fit_evaluate:
    input:
        data=cell_data,  # data.smk
        split=f"{RESULTS}/{{experiment}}/splits/{{dataset}}/seed{{seed}}.npz",
        triplets_fit=f"{RESULTS}/{{experiment}}/constraints/{{dataset}}/seed{{seed}}/triplets_fit.npz",
        triplets_train=f"{RESULTS}/{{experiment}}/constraints/{{dataset}}/seed{{seed}}/triplets_train.npz",
        settings_check=settings_check("fit_evaluate"),  # harness/keep.py
    output:
        rows=f"{RESULTS}/{{experiment}}/runs/{{dataset}}/seed{{seed}}/{{method}}.csv",
        model=f"{RESULTS}/{{experiment}}/runs/{{dataset}}/seed{{seed}}/{{method}}.npz",
    log:
        f"{LOGS}/{{experiment}}/fit_evaluate/{{dataset}}_seed{{seed}}_{{method}}.log",
    benchmark:
        f"{RESULTS}/{{experiment}}/benchmarks/{{dataset}}_seed{{seed}}_{{method}}.tsv"
    group:
        "cells"  # a few seconds each: a cluster job runs many (profiles: --group-components)
    conda:
        "../../environment.yml"
    resources:
        mem_mb=cell_resource("mem_mb"),
        runtime=cell_resource("runtime"),
    params:
        # the method's settings, the experiment's and the code it runs (tripletbench.harness.settings): a
        # changed value or learner reruns exactly its cells
        settings=lambda wc: cell_settings(
            config, wc.experiment, wc.method, "workflow/scripts/fit_evaluate.py"
        ),
    script:
        "../scripts/fit_evaluate.py"
