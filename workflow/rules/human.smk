# Human judgments (issue 38): metric learners on people's relative comparisons (Food-100, the 60
# cars, the material appearance answers; harness/human.py). Download route only: on the embedded
# route every set shows "needs download". One fetch per set (local rule), one features job per
# (set, feature set), one cell per (set, method, seed) holding every fold and feature set, and
# table_human.

HUMAN = config["human"]
from tripletbench.harness import human as human_mod  # noqa: E402

# what every human_cell reads (a change reruns every cell; the rows' notes do not)
HUMAN_CELL_KEYS = [
    "features",
    "normalize",
    "protocols",
    "n_splits",
    "grouped",
    "max_train_triplets",
]
HUMAN_LEARNERS = sorted({m.get("algorithm", name) for name, m in HUMAN["methods"].items()})
# what every human cell is made under (common.smk: human_cell_settings)


HUMAN_CELL_SETTINGS = human_cell_settings()


localrules:
    human_fetch,
    table_human,


rule human_fetch:
    output:
        f"{CACHE}/fetched/human_{{hset}}.txt",
    log:
        f"{LOGS}/human/fetch_{{hset}}.log",
    wildcard_constraints:
        hset="|".join(human_mod.SETS),
    params:
        # the data cache: output = {cache}/fetched/human_<set>.txt
        cache=lambda wildcards, output: str(Path(output[0]).parents[1]),
        mirror=MIRROR,
        allow_unpinned=UNPINNED_FROM,
    run:
        from tripletbench.harness.io import save_text

        j = human_mod.load(wildcards.hset, params.cache, params.mirror, params.allow_unpinned)
        save_text(output[0], "".join(f"{line}\n" for line in j.provenance))


rule human_features:
    input:
        f"{CACHE}/fetched/human_{{hset}}.txt",
    output:
        f"{RESULTS}/human/features/{{hset}}/{{features}}.npz",
    log:
        f"{LOGS}/human/features_{{hset}}_{{features}}.log",
    wildcard_constraints:
        hset="|".join(human_mod.SETS),
        features="global|hog|ingredients",
    group:
        "cells"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["human_features"],
        runtime=RUNTIME_MIN["human_features"],
    params:
        # the data cache: input = {cache}/fetched/human_<set>.txt
        cache=lambda wildcards, input: str(Path(input[0]).parents[1]),
        mirror=MIRROR,
        allow_unpinned=UNPINNED_FROM,
        settings=block_settings(config, "human", [], "workflow/scripts/human_features.py"),
    script:
        "../scripts/human_features.py"


rule human_cell:
    input:
        fetched=f"{CACHE}/fetched/human_{{hset}}.txt",
        features=human_feature_files,
        settings_check=settings_check("human_cell"),  # harness/keep.py
    output:
        rows=f"{RESULTS}/human/cells/{{hset}}/{{method}}/seed{{seed}}.csv",
    log:
        f"{LOGS}/human/cell_{{hset}}_{{method}}_seed{{seed}}.log",
    benchmark:
        f"{RESULTS}/human/benchmarks/{{hset}}_{{method}}_seed{{seed}}.tsv"
    wildcard_constraints:
        hset="|".join(human_mod.SETS),
    group:
        "cells"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["human_cell"],
        runtime=RUNTIME_MIN["human_cell"],
    params:
        # the data cache: input = {cache}/fetched/human_<set>.txt
        cache=lambda wildcards, input: str(Path(input[0]).parents[1]),
        mirror=MIRROR,
        allow_unpinned=UNPINNED_FROM,
        human=canonical(HUMAN),
        settings=human_cell_settings(),
    script:
        "../scripts/human_cell.py"


rule table_human:
    input:
        runs=human_cells(),
    output:
        runs=f"{RESULTS}/human/all_runs.csv",
        csv=f"{RESULTS}/tables/human_table.csv",
        md=f"{RESULTS}/tables/human_table.md",
        tex=f"{RESULTS}/tables/human_table.tex",
    log:
        f"{LOGS}/tables/human_table.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["table"],
        runtime=RUNTIME_MIN["table"],
    params:
        block=canonical(HUMAN),  # rows, notes and caption follow the config
        route=ROUTE,
        available=human_sets(),
        run_settings=HUMAN_CELL_SETTINGS,
        code=script_code("workflow/scripts/table_human.py"),
    script:
        "../scripts/table_human.py"


# in reproduce_all only where the route can fetch the sets (download route, with or without a
# data mirror): offline the table would only say "needs download" for every set
if ROUTE == "download":
    REPRODUCE_ALL.extend(rules.table_human.output)
