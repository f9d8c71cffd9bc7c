# fit + evaluate, one job per (experiment, dataset, method) covering the experiment's seeds (a
# process per cell spent more CPU on imports and start-up than the small cells spend learning):
# for each seed, every grid point fitted on the fit part and scored on the validation part, the
# best refitted on the full training set and scored on the test set. One tidy CSV per job (each
# seed's validation and test rows) and the seeds' final models. A seed whose own inputs and
# settings are unchanged since it was computed is taken from the cell store (harness/cells.py),
# so that a rerun job recomputes exactly the seeds its change affects. Measured (CI-size Table 2
# with 5 seeds, one run each, loaded 2-core machine): 65 jobs -> 13, CPU of the whole run
# (Snakemake and its jobs) 343 s -> 123 s, the same table.


rule fit_evaluate:
    input:
        data=job_data,  # common.smk: one per seed
        split=cell_seed_files("split"),
        triplets_fit=cell_seed_files("triplets_fit"),
        triplets_train=cell_seed_files("triplets_train"),
        settings_check=settings_check("fit_evaluate"),  # harness/keep.py
    output:
        rows=f"{RESULTS}/{{experiment}}/runs/{{dataset}}/{{method}}.csv",
        model=f"{RESULTS}/{{experiment}}/runs/{{dataset}}/{{method}}.npz",
    log:
        f"{LOGS}/{{experiment}}/fit_evaluate/{{dataset}}_{{method}}.log",
    benchmark:
        f"{RESULTS}/{{experiment}}/benchmarks/{{dataset}}_{{method}}.tsv"
    wildcard_constraints:
        # only the experiments whose cells this rule fits: the pattern would also match another
        # rule's files (svm/runs/<notion>/seed<k>.csv), and Snakemake would try it on them
        experiment="|".join(FIT_EXPERIMENTS),
    group:
        "cells"  # a cluster job runs many (profiles: --group-components)
    conda:
        "../../environment.yml"
    resources:
        mem_mb=cell_resource("mem_mb"),
        runtime=cell_resource("runtime"),
    params:
        # the seeds the job runs (they also name its inputs); the method's settings, the
        # experiment's and the code it runs (tripletbench.harness.settings): a changed value or
        # learner reruns exactly its jobs
        seeds=lambda wc: cell_seeds(wc.experiment),
        settings=lambda wc: cell_settings(
            config, wc.experiment, wc.method, "workflow/scripts/fit_evaluate.py"
        ),
        store=lambda wc: f"{RESULTS}/{wc.experiment}/cell_store/{wc.dataset}/{wc.method}",
        # the settings hash each input file must record (common.smk: fit_inputs)
        inputs=fit_inputs,
    script:
        "../scripts/fit_evaluate.py"
