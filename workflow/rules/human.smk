# Human judgments (issue 38): metric learners on people's relative comparisons (Food-100, the 60
# cars, the material appearance answers; harness/human.py). Download route only: on the embedded
# route every set shows "needs download". One fetch per set (local rule), one features job per
# (set, feature set), one cell per (set, method, seed) holding every fold and feature set, and
# table_human.

HUMAN = config["human"]
from harness import human as human_mod  # noqa: E402

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


def human_sets():
    """The configured sets that the route (and data mirror) can give."""
    return [s for s in HUMAN["sets"] if human_mod.available(s, ROUTE, MIRROR)]


def human_methods():
    """The cells' methods: the Euclidean distance (with the chance and ceiling rows) and each
    learner row."""
    return [human_mod.EUCLIDEAN, *HUMAN["methods"]]


def human_cell_settings():
    """What every human cell is made under: HUMAN_CELL_KEYS, the learner rows less their notes,
    the route, the cell script's code and the learners' code."""
    out = block_settings(
        config,
        "human",
        HUMAN_CELL_KEYS,
        "workflow/scripts/human_cell.py",
        learners=HUMAN_LEARNERS,
    )
    rows = {
        name: {k: v for k, v in m.items() if k != "notes"} for name, m in HUMAN["methods"].items()
    }
    return canonical({**out, "methods": rows})


HUMAN_CELL_SETTINGS = human_cell_settings()


def human_cells():
    return [
        f"{RESULTS}/human/cells/{s}/{m}/seed{seed}.csv"
        for s in human_sets()
        for m in human_methods()
        for seed in HUMAN["seeds"]
    ]


def human_feature_files(wc):
    return [
        f"{RESULTS}/human/features/{wc.hset}/{f}.npz"
        for f in human_mod.feature_sets(wc.hset, HUMAN["features"])
    ]


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
        cache=CACHE,
        mirror=MIRROR,
        allow_unpinned=config["data"]["allow_unpinned_downloads"],
    run:
        from harness.io import save_text

        j = human_mod.load(wildcards.hset, params.cache, params.mirror, params.allow_unpinned)
        save_text(output[0], "".join(line + "\n" for line in j.provenance))


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
        cache=CACHE,
        mirror=MIRROR,
        allow_unpinned=config["data"]["allow_unpinned_downloads"],
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
        cache=CACHE,
        mirror=MIRROR,
        allow_unpinned=config["data"]["allow_unpinned_downloads"],
        human=canonical(HUMAN),
        settings=HUMAN_CELL_SETTINGS,
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
