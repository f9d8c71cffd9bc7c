# The human study's functions for its rule files (input functions, cell lists, settings);
# included first by workflow/rules/human.smk. They read that file's settings when called.


def human_cell_resource(kind):
    """A human_cell job's resource (resources.yaml): an SCML row's own measured values
    (human_cell_scml: metric-learn's default basis, 80 d directions each scored on every training
    answer, holds GBs), every other row's human_cell."""
    from tripletbench.harness.experiment import algorithm_of

    def key_of(wc):
        row = HUMAN["methods"].get(wc.method) or {}
        scml = algorithm_of(wc.method, row).split(".")[-1] == "SCML"
        return "human_cell_scml" if scml else "human_cell"

    return measured_resource(kind, key_of)


def human_block(own=None):
    """The human block less the figures' own keys (``own``: the one figure key kept), in the
    config's order: the table's rows and the curve's lines follow the order of human.methods."""
    return {k: v for k, v in HUMAN.items() if k not in HUMAN_FIGURE_KEYS or k == own}


def human_sets():
    """The configured sets that the human sets' route and mirror can give (HUMAN_ROUTE,
    HUMAN_MIRROR: human.mirror where the block names one, else data.route and data.mirror)."""
    return [s for s in HUMAN["sets"] if human_mod.available(s, HUMAN_ROUTE, HUMAN_MIRROR)]


def human_methods():
    """The cells' methods: the Euclidean distance (with the chance and ceiling rows) and each
    learner row that is fitted (a row with not_run is shown as n/a, no cell)."""
    return [human_mod.EUCLIDEAN, *human_mod.fitted_rows(HUMAN["methods"])]


def human_cell_block(method):
    """What a human cell of ``method`` reads of the human block: the keys of HUMAN_CELL_KEYS it
    has and, for a learner or embedding row, that row alone (``methods: {method: row}``; the
    Euclidean cell reads no row). Another row, a caption's text (published, notes,
    features_reason) or a figure's own keys are not in it, so a change of them reruns no
    cell."""
    out = {k: HUMAN[k] for k in HUMAN_CELL_KEYS if k in HUMAN}
    if method in HUMAN["methods"]:
        out["methods"] = {method: human_row(method)}
    return canonical(out)


def human_row(method):
    """Row ``method`` of human.methods less its descriptions (notes, features_reason)."""
    row = HUMAN["methods"][method]
    return {k: v for k, v in row.items() if k not in ("notes", "features_reason")}


def human_cell_settings(method):
    """What a human cell of ``method`` is made under: HUMAN_CELL_KEYS, the route, the cell
    script's code (studies/human/experiment.py with it: the ordinal embeddings' fit), its own row less its
    descriptions (notes, features_reason), and that row's learner code (a feature-based row) or
    cblearn's version (an ordinal-embedding row). A change of one row reruns that row's cells
    alone; a change of a shared key or of the cell's code reruns every cell."""
    row = HUMAN["methods"].get(method)
    learners = [row.get("algorithm", method)] if row and not human_mod.is_feature_free(row) else []
    out = block_settings(
        config, "human", HUMAN_CELL_KEYS, "workflow/scripts/human/human_cell.py", learners=learners
    )
    if row:
        out["row"] = human_row(method)
        versions = human_mod.embedding_versions({method: row})
        if versions:
            out["embeddings"] = versions
    return canonical({**out, "method": method})


def human_cell_hashes():
    """method -> settings hash of its human cells (table_human and figure_human_curve refuse a
    cell that records another)."""
    return {m: settings_hash(human_cell_settings(m)) for m in human_methods()}


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


def human_embedding_inputs(what):
    """figure_human_embedding's data (``what``: "fetched" or "features"): the fetched set that
    human.embedding_figure.set names (null: the first of human.sets) or its feature files,
    where the set can run (else none: the figure says why)."""
    hset = HUMAN["embedding_figure"]["set"] or HUMAN["sets"][0]
    if hset not in human_sets():
        return []
    if what == "fetched":
        return [f"{CACHE}/fetched/human_{hset}.txt"]
    return [
        f"{RESULTS}/human/features/{hset}/{f}.npz"
        for f in human_mod.feature_sets(hset, HUMAN["features"])
    ]
