# The svm study's functions for its rule files (input functions, cell lists, settings);
# included first by workflow/rules/svm.smk. They read that file's settings when called.


def svm_available(notion):
    """A notion runs unless it needs WebKB (download route) and the route is embedded, or the
    data mirror lacks a file of its route (tripletbench.studies.svm.experiment.notion_available)."""
    from tripletbench.studies.svm.experiment import notion_available

    return notion_available(notion, ROUTE, MIRROR)


def svm_notions():
    return list(SVM["text_notions"]) + list(SVM["datasets"])


def svm_features_file(corpus, text_features):
    """The features of text corpus ``corpus`` under ``text_features`` (rule svm_features)."""
    from tripletbench.studies.svm.experiment import features_name

    return f"{RESULTS}/svm/features/{corpus}/{features_name(corpus, text_features)}.npz"


def svm_run_input(wc):
    """A cell's input: its text corpus' features under the cell's svm.text_features (the
    config's, or its sweep variant's), or a class-labelled set's prepared file."""
    from tripletbench.studies.svm import sweeps as svm_sweeps

    if wc.notion in SVM_TEXT:
        cfg = (
            svm_sweeps.variant_config(SVM, wc.sweep, wc.variant) if "variant" in wc.keys() else SVM
        )
        return {"features": svm_features_file(SVM_TEXT[wc.notion].corpus, cfg["text_features"])}
    return {"prepared": f"{CACHE}/prepared/{wc.notion}_{ROUTE}.npz"}


def svm_cell_block(cfg):
    """The keys of an ``svm`` block (the config's or a sweep variant's) that a cell reads
    (SVM_RUN_KEYS), as its rule's params: a change to any other key (figures, notes, the sweeps'
    own lists) reruns no cell."""
    return canonical({k: cfg.get(k) for k in SVM_RUN_KEYS})


def svm_sweep_settings(sweep, variant):
    """What a sweep cell is made under: the run keys of its variant's svm block
    (tripletbench.studies.svm.sweeps.variant_config), the route and the cell script's code."""
    from tripletbench.studies.svm import sweeps as svm_sweeps

    cfg = svm_sweeps.variant_config(SVM, sweep, variant)
    return block_settings(
        {**config, "svm": cfg}, "svm", SVM_RUN_KEYS, "workflow/scripts/svm/svm_run.py"
    )


def svm_sweep_cells(sweep):
    """The rows of every cell of ``sweep`` that the route can serve."""
    from tripletbench.studies.svm import sweeps as svm_sweeps

    return [
        f"{RESULTS}/svm/{sweep}/{v}/{n}/seed{s}.csv"
        for v, n, s in svm_sweeps.cells(SVM, sweep)
        if svm_available(n)
    ]


def svm_sweep_hashes(sweep):
    """variant -> the settings hash its cells must carry (the sweep's table refuses others)."""
    from tripletbench.studies.svm import sweeps as svm_sweeps

    return {v: settings_hash(svm_sweep_settings(sweep, v)) for v in svm_sweeps.variants(SVM, sweep)}


def svm_runs(wc=None):
    return [
        f"{RESULTS}/svm/runs/{n}/seed{s}.csv"
        for n in svm_notions()
        if svm_available(n)
        for s in SVM["seeds"]
    ]
