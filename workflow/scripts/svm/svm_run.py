"""Rules svm_run and svm_sweep_run: one (notion, seed) cell of the Schultz & Joachims protocol
(tripletbench.studies.svm.experiment.run_notion) under the ``svm`` settings the rule gives (``params.svm``:
the config's block, or a sweep variant's: tripletbench.studies.svm.sweeps): tidy rows and, for svm_run, the
learned weights and, for the MDS figure's notions and seed, the squared-distance matrices of the
test items (unweighted and learned)."""

import numpy as np

from tripletbench.datasets.base import load_prepared
from tripletbench.harness.io import (
    check_input_settings,
    now,
    save_csv,
    save_npz,
    stamp_cell,
    start_log,
)
from tripletbench.studies.svm.experiment import (
    NOTIONS,
    document_split,
    eligible_items,
    features_name,
    get_notion,
    read_corpus_features,
    run_notion,
    squared_distances,
    stream,
)

start_log(snakemake.log[0])
cfg = snakemake.params.svm
tf = cfg["text_features"]
name, seed = snakemake.wildcards.notion, int(snakemake.wildcards.seed)
notion = get_notion(name)
started = now()
print(f"[{started}] SVM-relative protocol: {name}, seed {seed}")
input_settings = "-"  # a labelled set's prepared file records none (its pin vouches for it)
if name in NOTIONS:  # the corpus' features under this cell's text features (rule svm_features)
    input_settings = check_input_settings(
        {"features": snakemake.input.features}, {"features": snakemake.params.inputs}
    )
    feats = read_corpus_features(snakemake.input.features)
    if features_name(notion.corpus, feats["text_features"]) != features_name(notion.corpus, tf):
        raise ValueError(
            f"{snakemake.input.features} holds text features {feats['text_features']}, not {tf}"
        )
    print(f"  {feats['note']}; files {feats['files']}")
    print(f"  text features: {tf}")
    labels = feats["labels"][notion.column]
    X = feats["binary"]["none"]  # the learner's features: no stemming, no stop-word removal
    static = {}
    for variant in cfg["static_preprocessing"]:
        print(f"  vocabulary [{variant}]: {feats['n_vocab'][variant]} terms")
        static[("Binary", variant)] = feats["binary"][variant]
        static[("TFIDF", variant)] = feats["tfidf"][variant]
else:
    d = load_prepared(snakemake.input.prepared, ["X", "y", "classes"])
    X, labels = d["X"], d["classes"][d["y"]].astype(str)
    static = {("Eucl", "[-1, 1]-scaled features"): X}
ties = feats["collection_counts"].get(notion.column) if name in NOTIONS else None
eligible = eligible_items(notion, labels, cfg["n_universities"], tie_counts=ties)
groups = sorted(set(labels[eligible]))
print(f"  {notion.column} groups taking part ({len(groups)}): {', '.join(groups)}")
split = document_split(len(labels), seed, cfg["train_fraction"])
kernel = cfg["kernel"] if cfg["kernel"].get("n_train_triplets") else None
rows, model, split = run_notion(
    notion,
    X,
    labels,
    seed,
    cfg["n_train_triplets"],
    cfg["n_test_triplets"],
    static,
    split,
    C=cfg["C"],
    solver=cfg["solver"],
    solver_options=cfg["solver_options"],
    eligible=eligible,
    kernel=kernel,
)
rows["dataset"] = name
rows["corpus"] = notion.corpus
if name in NOTIONS:  # how a document became its vector (the reading applies to WebKB pages)
    rows["reading"] = tf["reading"] if notion.corpus == "webkb" else "plain text"
    rows["lowercase"] = tf["lowercase"]
    rows["scale"] = tf["scale"]
if snakemake.wildcards.get("variant"):
    rows["sweep"], rows["sweep_variant"] = snakemake.wildcards.sweep, snakemake.wildcards.variant
rows["groups"] = ";".join(groups)
rows["input_settings"] = input_settings  # what the features file recorded
rows["route"] = snakemake.params.route if notion.corpus == "webkb" else "embedded"
# where the data came from and how each file was verified (pin, a mirror's list, or opt-in)
rows["data_source"] = (
    " | ".join(v if k in v else f"{v}  {k}" for k, v in feats["files"].items())
    if name in NOTIONS
    else "prepared"
)
stamp_cell(rows, cfg, snakemake.params.settings, started)  # provenance columns (tripletbench.harness.io)
save_csv(snakemake.output.rows, rows)
print(rows.drop(columns=["versions"]).to_string())
if "model" in snakemake.output.keys():  # svm_run; a sweep cell (svm_sweep_run) keeps rows only
    # MDS material (section 5's plots): the test items' squared distances, unweighted and learned,
    # for the MDS figure's notions and seed only (all test items, or a random subset of n_items)
    mds = cfg["mds"]
    extra = {}
    if name in (mds["notion"], mds["notion_c"]) and seed == mds["seed"]:
        test = split["test"]
        if mds.get("n_items") and mds["n_items"] < len(test):
            test = np.sort(stream(seed, "mds").choice(test, size=mds["n_items"], replace=False))
        F = X[test]
        extra = dict(
            mds_items=test,
            mds_labels=labels[test],
            d2_unweighted=squared_distances(F),
            d2_learned=squared_distances(F, model.w_),
        )
    save_npz(
        snakemake.output.model,
        w=model.w_,
        train=split["train"],
        test=split["test"],
        n_train_triplets=max(cfg["n_train_triplets"]),
        C=cfg["C"],
        notion=name,
        seed=seed,
        settings_hash=rows["settings_hash"].iloc[0],
        **extra,
    )
