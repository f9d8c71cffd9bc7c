"""Rule svm_run: one (notion, seed) cell of the Schultz & Joachims protocol
(harness.svm_experiment.run_notion): tidy rows, the learned weights and, for the MDS figure,
the squared-distance matrices of a random subset of test items (unweighted and learned)."""

from pathlib import Path

import numpy as np

from harness.io import (
    config_hash,
    now,
    package_versions,
    peak_rss_mb,
    save_csv,
    save_npz,
    start_log,
)
from harness.svm_experiment import (
    TEXT_NOTIONS,
    document_split,
    notion_groups,
    run_notion,
    squared_distances,
    stream,
    text_features,
)

start_log(snakemake.log[0])
cfg = snakemake.config["svm"]
notion, seed = snakemake.wildcards.notion, int(snakemake.wildcards.seed)
started = now()
print(f"[{started}] SVM-relative protocol: {notion}, seed {seed}")
cache = Path(snakemake.params.cache_dir)
if notion in TEXT_NOTIONS:
    corpus_name, column = TEXT_NOTIONS[notion]
    if corpus_name == "reuters":
        from datasets.reuters import load_corpus

        corpus = load_corpus(cache)
    else:
        from datasets.webkb import load_corpus

        corpus = load_corpus(cache, allow_unpinned=snakemake.params.allow_unpinned)
    print(f"  {corpus.note}; {len(corpus.texts)} documents; files {corpus.files}")
    labels = corpus.label(column)
    train, test = document_split(len(labels), seed, cfg["train_fraction"])
    binary, tfidf, vocab = text_features(corpus.texts, train, cfg["token_pattern"])
    print(f"  vocabulary of the training documents: {len(vocab)} words")
    features = {"learn": binary, "Binary": binary, "TFIDF": tfidf}
    split = (train, test)
else:
    d = np.load(snakemake.input[0])
    labels = d["classes"][d["y"]]
    features = {"learn": d["X"], "Eucl": d["X"]}
    split = None
groups = notion_groups(labels, notion)
rows, model, split = run_notion(
    notion,
    features,
    groups,
    seed,
    cfg["n_train_triplets"],
    cfg["n_test_triplets"],
    C=cfg["C"],
    solver=cfg["solver"],
    train_fraction=cfg["train_fraction"],
    split=split,
)
rows["dataset"] = notion
rows["route"] = snakemake.params.route if notion.startswith("webkb") else "embedded"
rows["config_hash"] = config_hash(cfg)
rows["versions"] = package_versions()
rows["started_utc"] = started
rows["peak_rss_mb"] = peak_rss_mb()
save_csv(snakemake.output.rows, rows)

# MDS material: a random subset of test items, as balanced over the classes as they allow
# (the stand-in is 93% "neither"), distances before and after learning
test = split["test"]
gen = stream(seed, "mds")
classes = np.unique(labels[test])
per_class = max(cfg["mds"]["n_items"] // len(classes), 1)
sub = np.sort(
    np.concatenate(
        [
            gen.choice(m, size=min(per_class, len(m)), replace=False)
            for m in (test[labels[test] == c] for c in classes)
        ]
    )
)
F = features["learn"][sub]
save_npz(
    snakemake.output.model,
    w=model.w_,
    items=sub,
    labels=labels[sub],
    d2_unweighted=squared_distances(F),
    d2_learned=squared_distances(F, model.w_),
    n_train_triplets=max(cfg["n_train_triplets"]),
    C=cfg["C"],
    notion=notion,
    seed=seed,
)
print(rows.drop(columns=["versions"]).to_string())
