# The oahu study's functions for its rule files (input functions, cell lists, settings);
# included first by workflow/rules/oahu.smk. They read that file's settings when called.


def oahu_available(names):
    """The datasets of ``names`` that the configured route can provide."""
    return [d for d in names if get_dataset(d).has_route(ROUTE, MIRROR)]


def oahu_cells(experiment, datasets=None):
    exp = OAHU[experiment]
    return expand(
        f"{RESULTS}/oahu/{experiment}/{{dataset}}/seed{{seed}}/{{method}}.csv",
        dataset=oahu_available(datasets if datasets is not None else exp["datasets"]),
        seed=exp["seeds"],
        method=list(exp["methods"]),
    )


def oahu_fig7_cells():
    """Recall@K cells: Table 3's cells where the dataset is one of its columns (same split and
    model), figure7's own cells otherwise."""
    t3 = set(oahu_available(OAHU["table3"]["datasets"]))
    own = [d for d in OAHU["figure7"]["datasets"] if d not in t3]
    return oahu_cells("table3", [d for d in OAHU["figure7"]["datasets"] if d in t3]) + (
        oahu_cells("figure7", own) if own else []
    )
