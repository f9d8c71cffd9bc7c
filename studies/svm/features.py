"""The text features of the Schultz & Joachims protocol (step 2 and the static baselines of
step 6 of :mod:`tripletbench.studies.svm.experiment`): tokens, stop words and stemming, the
binary and TFIDF document vectors and their scale, one corpus' features as a ``.npz`` (rule
svm_features) and the corpus loaders."""

from __future__ import annotations

import re

import numpy as np
import scipy.sparse as sp

from tripletbench.datasets.base import DataError
from tripletbench.optional import require

TOKEN_PATTERN = r"(?u)\b\w+\b"  # every run of letters/digits/underscore, single characters kept
PREPROCESSING = ("none", "stop", "stem", "stem+stop")
VECTOR_SCALES = ("none", "unit")
"""The scales of a document's binary vector (:func:`scale_rows`; in words:
:data:`tripletbench.studies.svm.captions.VECTOR_SCALE_WORDS`)."""


def make_analyzer(
    token_pattern: str = TOKEN_PATTERN, preprocessing: str = "none", lowercase: bool = True
):
    """A document -> list of terms function: the tokens of ``token_pattern`` (lower-cased first
    unless ``lowercase`` is False); "stop" drops scikit-learn's English stop words (compared in
    lower case), "stem" applies Porter's stemmer (``snowballstemmer``, algorithm "porter", which
    lower-cases), "stem+stop" both (stop words removed before stemming). Raises ``ValueError``
    for another ``preprocessing``."""
    if preprocessing not in PREPROCESSING:
        raise ValueError(f"preprocessing must be one of {PREPROCESSING}, got {preprocessing!r}")
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    tok = re.compile(token_pattern)
    stop = ENGLISH_STOP_WORDS if "stop" in preprocessing else frozenset()
    stem = None
    if "stem" in preprocessing:
        snowballstemmer = require("snowballstemmer", "the Porter stemmer of preprocessing 'stem'")

        stem, cache = snowballstemmer.stemmer("porter").stemWord, {}

    def analyse(doc: str) -> list[str]:
        tokens = tok.findall(doc.lower() if lowercase else doc)
        words = [w for w in tokens if w.lower() not in stop] if stop else tokens
        if stem is None:
            return words
        out = []
        for w in words:
            s = cache.get(w)
            if s is None:
                s = cache[w] = stem(w)
            out.append(s)
        return out

    return analyse


def scale_rows(X, scale: str):
    """``X`` (CSR or dense (n, V) float64) with each row scaled as ``scale`` says
    (:data:`VECTOR_SCALES`): "none" returns X itself, "unit" each row divided by its Euclidean
    length (an all-zero row stays zero). Raises ``ValueError`` for another scale."""
    if scale not in VECTOR_SCALES:
        raise ValueError(f"unknown vector scale {scale!r}; expected one of {list(VECTOR_SCALES)}")
    if scale == "none":
        return X
    from sklearn.preprocessing import normalize

    return normalize(X, norm="l2", copy=True)


def static_features(
    texts,
    token_pattern: str = TOKEN_PATTERN,
    preprocessing: str = "none",
    lowercase: bool = True,
    scale: str = "none",
):
    """(binary, tfidf, vocabulary) of the documents ``texts`` (list of str): CSR float64 (n, V)
    matrices, binary = 1 where a term occurs, each row then scaled by ``scale``
    (:func:`scale_rows`); tfidf = raw counts times the smoothed idf with L2-normalised rows
    (scikit-learn's ``TfidfTransformer`` defaults; unit length whatever ``scale`` says);
    vocabulary and idf from all the documents given (step 2 of the module docstring), terms as
    :func:`make_analyzer` makes them."""
    from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

    cv = CountVectorizer(analyzer=make_analyzer(token_pattern, preprocessing, lowercase))
    counts = cv.fit_transform(texts).astype(np.float64).tocsr()
    binary = counts.copy()
    binary.data[:] = 1.0
    tfidf = TfidfTransformer().fit_transform(counts).tocsr()
    return scale_rows(binary, scale), tfidf, cv.get_feature_names_out()


def features_name(corpus: str, tf: dict) -> str:
    """The file stem of corpus ``corpus``'s features under text features ``tf``
    ("whole_page-lower-unit"; a corpus without pages, Reuters, reads "plain_text-...")."""
    reading = tf["reading"] if corpus == "webkb" else "plain_text"
    return f"{reading}-{'lower' if tf['lowercase'] else 'case'}-{tf['scale']}"


def corpus_features(corpus, token_pattern: str, tf: dict) -> dict:
    """Everything a cell needs of a text corpus (:class:`tripletbench.datasets.text.TextCorpus`), as arrays
    for one ``.npz`` (rule svm_features): per preprocessing variant p of :data:`PREPROCESSING`
    the CSR parts of the binary and TFIDF matrices of :func:`static_features` (keys
    ``{p}__{binary|tfidf}__{data|indices|indptr|shape}``) and the vocabulary size
    (``{p}__n_vocab``); each label column (``label__{column}``); ``collection_counts``,
    ``files`` (JSON text), ``note`` and ``text_features`` (JSON text). Read back by
    :func:`read_corpus_features`."""
    import json

    out = {}
    for p in PREPROCESSING:
        binary, tfidf, vocab = static_features(
            corpus.texts, token_pattern, p, tf["lowercase"], tf["scale"]
        )
        for kind, M in (("binary", binary), ("tfidf", tfidf)):
            M = sp.csr_matrix(M)
            for part in ("data", "indices", "indptr"):
                out[f"{p}__{kind}__{part}"] = getattr(M, part)
            out[f"{p}__{kind}__shape"] = np.array(M.shape)
        out[f"{p}__n_vocab"] = np.array(len(vocab))
    for col in corpus.labels:
        out[f"label__{col}"] = corpus.label(col)
    out["collection_counts"] = np.array(json.dumps(corpus.collection_counts, sort_keys=True))
    out["files"] = np.array(json.dumps(corpus.files, sort_keys=True))
    out["note"] = np.array(corpus.note)
    out["text_features"] = np.array(json.dumps(tf, sort_keys=True))
    return out


def read_corpus_features(path) -> dict:
    """The ``.npz`` of :func:`corpus_features` as {"binary": {p: CSR}, "tfidf": {p: CSR},
    "n_vocab": {p: int}, "labels": {column: (n,) str}, "collection_counts": dict, "files":
    dict, "note": str, "text_features": dict}. Raises :class:`DataError` naming the file when it
    cannot be read or lacks a part (rerun rule svm_features)."""
    import json

    try:
        with np.load(path, allow_pickle=False) as z:
            d = {k: z[k] for k in z.files}
        out = {"binary": {}, "tfidf": {}, "n_vocab": {}, "labels": {}}
        for p in PREPROCESSING:
            for kind in ("binary", "tfidf"):
                parts = [d[f"{p}__{kind}__{x}"] for x in ("data", "indices", "indptr")]
                out[kind][p] = sp.csr_matrix(tuple(parts), shape=tuple(d[f"{p}__{kind}__shape"]))
            out["n_vocab"][p] = int(d[f"{p}__n_vocab"])
        for k, v in d.items():
            if k.startswith("label__"):
                out["labels"][k[len("label__") :]] = v.astype(str)
        for k in ("collection_counts", "files", "text_features"):
            out[k] = json.loads(str(d[k]))
        out["note"] = str(d["note"])
    except (OSError, ValueError, KeyError) as err:
        raise DataError(
            f"{path}: not a readable text-features file ({type(err).__name__}: {err}); rerun "
            "rule svm_features"
        ) from None
    return out


def load_text_corpus(name: str, cache_dir, tf: dict, allow_unpinned=False, mirror=None):
    """The text corpus ``name`` ("webkb": downloaded, parsed under ``tf["reading"]``;
    "reuters": the embedded stand-in, plain text, which has no page reading). Raises what the
    corpus loaders raise (:class:`tripletbench.datasets.base.DataUnavailable` when WebKB cannot be had).
    """
    if name == "reuters":
        from tripletbench.datasets.reuters import load_corpus

        return load_corpus(cache_dir)
    from tripletbench.datasets.webkb import load_corpus

    return load_corpus(
        cache_dir, allow_unpinned=allow_unpinned, mirror=mirror, reading=tf["reading"]
    )


def text_features(texts, train, token_pattern: str = TOKEN_PATTERN):
    """(binary, tfidf, vocabulary) with the vocabulary and idf of the ``train`` documents only
    (CSR float64, all documents' rows). Kept for ``svm_scaling`` (workflow/scripts/svm/svm_scaling.py),
    which times eq. 8 on the training part; the protocol uses :func:`static_features`."""
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

    train_texts = [texts[i] for i in train]
    cv = CountVectorizer(binary=True, lowercase=True, token_pattern=token_pattern)
    cv.fit(train_texts)
    binary = cv.transform(texts).astype(np.float64).tocsr()
    tf = TfidfVectorizer(lowercase=True, token_pattern=token_pattern, vocabulary=cv.vocabulary_)
    tf.fit(train_texts)
    return binary, tf.transform(texts).astype(np.float64).tocsr(), cv.get_feature_names_out()


def notion_groups(labels: np.ndarray, notion: str) -> np.ndarray:
    """The labels as a str array: the group of each item under a same-group notion. Kept for
    ``svm_scaling``; the protocol's rules are :func:`rule_holds` and :func:`eligible_items`."""
    return np.asarray(labels).astype(str)
