"""Rule svm_features: one text corpus's features under one setting of ``svm.text_features``
(page reading, case, vector scale), for every preprocessing variant, with the corpus' labels and
provenance (tripletbench.studies.svm.experiment.corpus_features): computed once and read by every
(notion, seed) cell and sweep cell that uses them."""

from pathlib import Path

from tripletbench.harness.io import save_npz, settings_record, start_log
from tripletbench.studies.svm.experiment import corpus_features, load_text_corpus

start_log(snakemake.log[0])
tf = snakemake.params.text_features
corpus = load_text_corpus(
    snakemake.wildcards.corpus,
    Path(snakemake.params.cache_dir),
    tf,
    allow_unpinned=snakemake.params.allow_unpinned,
    mirror=snakemake.config["data"].get("mirror"),
)
print(f"{corpus.note}; {len(corpus.texts)} documents; files {corpus.files}; text features {tf}")
arrays = corpus_features(corpus, snakemake.params.token_pattern, tf)
for key in sorted(k for k in arrays if k.endswith("__n_vocab")):
    print(f"  vocabulary [{key.split('__')[0]}]: {int(arrays[key]):,} terms")
save_npz(snakemake.output[0], **arrays, **settings_record(snakemake.params.settings, snakemake.rule))
