"""The protocol of Schultz & Joachims (2003), section 5, for text corpora and class-labelled sets.

What the paper states (section 5) and how it is done here, per (notion, seed):

1. **Split**: all documents X are split at random into X_train (70%) and X_test (30%), the same
   split for every notion of one corpus and seed (:func:`document_split`).
2. **Features** of the learned distance: a *binary* bag of words "without stemming or stop word
   removal" (the paper's 63,949 features on WebKB). Ours: the tokens of :data:`TOKEN_PATTERN`
   (every run of letters, digits or underscore); the paper does not say how it tokenised. Three
   settings the paper does not state, ``svm.text_features`` (:func:`static_features`): what of a
   WebKB page file becomes words (``reading``, :data:`tripletbench.datasets.webkb.PAGE_READINGS`: the visible
   text, plus the MIME header, plus the tags' attributes, or the whole file as served), whether
   tokens are lower-cased (``lowercase``), and each document vector's scale (``scale``,
   :data:`VECTOR_SCALES`: binary as is, or unit Euclidean length; the Binary baseline gets the
   same scale). The default was chosen by a measured rule, not by the paper's text: the
   combination whose learned and Binary cells are closest to the paper's Table 1
   (:mod:`tripletbench.studies.svm.sweeps`). The vocabulary (and TFIDF's idf) is built on **all** documents of
   the corpus, as the paper's feature count is a count over the collection (label-free; our
   reading).
3. **Triplets** (i, j, k) = (anchor, positive, negative): "we first randomly selected three
   documents from X_train" and kept the triple when the notion's rule holds; P_test likewise from
   X_test. Here (:func:`sample_rule_triplets`): three *distinct* documents uniformly at random,
   kept when the rule holds, a triple drawn twice kept once (P is a set of comparisons); so P is a
   uniform random subset of the rule's triples. Distinctness and no repeats are our reading. The
   training sets of the learning curve are nested (the first n of one draw), our choice.
4. **Rules** (the notions of section 5; :data:`NOTIONS`):

   * University: i and j of the same university, k of another. The paper used "webpages from
     seven universities" without naming them: we keep the pages of the ``n_universities`` (7)
     universities with the most pages (our choice of which seven; :func:`eligible_items`).
   * Topic: i and j of the same topic (student, faculty, course, project), k of another.
   * Topic+FacultyStudent: the Topic rule, **or** i a faculty page, j a student page and k a
     course or project page (:attr:`Notion.extra`).
   * Offline stand-ins on Reuters-21578 corn/grain (no WebKB copy here): ``reuters_topic``
     mimics Topic (topics corn, grain-not-corn, neither); ``reuters_topic_corngrain`` mimics
     Topic+FacultyStudent with corn -> grain-not-corn -> neither in the roles of
     faculty -> student -> course/project. No stand-in mimics University (the corpus has no
     source labels).
   * A class-labelled set (vehicle, ...; not in the paper): same class closer.

5. **Learner**: eq. 8 with A = I and C = 1 (the paper's setting) by ``solver`` (the paper names
   none); the kernel case A = Phi (section 4, eq. 3) as its own row with an RBF kernel: the paper
   says only that "using a kernel instead of A = I did not yield improved results", so the
   kernel, its width (median heuristic, :func:`median_gamma`) and the number of triplets are ours.
6. **Static baselines**: the Euclidean distance on binary ("Binary") and TFIDF vectors. The paper
   reports, of "several variations of term weighting, stemming and stopword removal", the one that
   performed best on the test set, and says that it used stemming and stop-word removal. We compute
   the variants :data:`PREPROCESSING` (none, stop, stem, stem+stop) for both weightings
   (:func:`static_features`); the table shows the best on the test set, named. Stemmer: Porter's
   (``snowballstemmer``, algorithm "porter"); stop list: scikit-learn's English list (318 words);
   TFIDF: raw term counts times the smoothed idf, rows L2-normalised (scikit-learn's
   ``TfidfTransformer`` defaults). These three are ours: the paper names none.
7. **Score**: the fraction of P_test satisfied, d(i, j) < d(i, k) strictly (ties fail), Table 1.

Random streams: ``np.random.default_rng([seed, STREAMS[purpose]])``, separate from
:data:`tripletbench.datasets.preprocess.PURPOSES` (which this protocol does not share).
"""

from __future__ import annotations

import dataclasses
import re
import time

import numpy as np
import pandas as pd
import scipy.sparse as sp

from tripletbench.algorithms.svm_relative import SVMRelative
from tripletbench.datasets.base import DataError
from tripletbench.datasets.constraints import sample_class_triplets
from tripletbench.evaluation.triplets import static_triplet_accuracy

TOKEN_PATTERN = r"(?u)\b\w+\b"  # every run of letters/digits/underscore, single characters kept
STREAMS = {"split": 100, "train_triplets": 101, "test_triplets": 102, "mds": 103, "gamma": 104}
PREPROCESSING = ("none", "stop", "stem", "stem+stop")
VECTOR_SCALES = ("none", "unit")
"""The scales of a document's binary vector (:func:`scale_rows`; in words:
:data:`tripletbench.harness.captions.VECTOR_SCALE_WORDS`)."""


@dataclasses.dataclass(frozen=True)
class Notion:
    """A notion of distance of section 5.

    ``corpus``: "webkb", "reuters" or a prepared dataset's name; ``column``: the label column
    whose equal values make "the same" (university, topic, class); ``extra``: an additional rule
    ``(anchor label, positive label, negative labels)`` on the same column, OR-ed with the same-
    group rule (Topic+FacultyStudent); ``largest_groups``: only items of the ``n_groups`` largest
    groups take part (University: seven universities); ``mimics``: for a stand-in, the paper's
    notion whose rule it copies."""

    name: str
    corpus: str
    column: str
    extra: tuple | None = None
    largest_groups: bool = False
    mimics: str = ""


NOTIONS = {
    n.name: n
    for n in (
        Notion("webkb_university", "webkb", "university", largest_groups=True),
        Notion("webkb_topic", "webkb", "topic"),
        Notion(
            "webkb_topic_facultystudent",
            "webkb",
            "topic",
            extra=("faculty", "student", ("course", "project")),
        ),
        Notion("reuters_topic", "reuters", "topic", mimics="webkb_topic"),
        Notion(
            "reuters_topic_corngrain",
            "reuters",
            "topic",
            extra=("corn", "grain-not-corn", ("neither",)),
            mimics="webkb_topic_facultystudent",
        ),
    )
}
TEXT_NOTIONS = (
    NOTIONS  # the text notions by name (tripletbench.harness.config checks names against it)
)


def class_notion(dataset: str) -> Notion:
    """The same-class notion of a class-labelled prepared set (not in the paper)."""
    return Notion(dataset, dataset, "class")


TEXT_METHODS = ("SVM-relative", "SVM-relative-RBF", "Binary", "TFIDF")
CLASS_METHODS = ("SVM-relative", "SVM-relative-RBF", "Eucl")
"""The rows of Table 1 that a text notion and a class-labelled set each have (the static
baselines of text are Binary and TFIDF; of a prepared set, its Euclidean distance)."""


def method_applies(notion: str, method: str) -> bool:
    """Whether Table 1's row ``method`` exists for ``notion`` (a text notion or a dataset)."""
    return method in (TEXT_METHODS if notion in NOTIONS else CLASS_METHODS)


def notion_available(notion: str, route: str, mirror: str | None = None) -> bool:
    """Whether ``notion`` can run on ``route``: a WebKB notion needs the download route (and,
    with a folder ``mirror``, the archive in it); the Reuters stand-ins ship embedded; a
    class-labelled set as :meth:`tripletbench.datasets.base.DatasetSpec.has_route`."""
    from tripletbench.datasets import get_dataset

    if notion in NOTIONS:
        if NOTIONS[notion].corpus != "webkb":
            return True
        from tripletbench.datasets.webkb import SPEC as WEBKB

        return route == "download" and WEBKB.has_route(route, mirror)
    return get_dataset(notion).has_route(route, mirror)


def get_notion(name: str) -> Notion:
    """The text notion ``name`` or, for any other name, the same-class notion of that dataset."""
    return NOTIONS.get(name) or class_notion(name)


def stream(seed: int, purpose: str) -> np.random.Generator:
    return np.random.default_rng([int(seed), STREAMS[purpose]])


def document_split(n: int, seed: int, train_fraction: float = 0.7):
    """Random split of n items: (train, test) sorted int64 index arrays, round(f n) in train."""
    if not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction must be in (0, 1), got {train_fraction}")
    perm = stream(seed, "split").permutation(n)
    k = round(train_fraction * n)
    if k < 3 or n - k < 3:
        raise DataError(f"{n} items cannot be split into a train and a test part of 3 or more")
    return np.sort(perm[:k]), np.sort(perm[k:])


# -- the rules ---------------------------------------------------------------------------------


def rule_holds(notion: Notion, g: np.ndarray, i, j, k) -> np.ndarray:
    """Whether the triple (i, j, k) of items is one of ``notion``'s comparisons "i is closer to j
    than to k": g_i = g_j and g_k != g_i (the same-group rule), or, with ``notion.extra`` =
    (a, p, negatives), g_i = a, g_j = p and g_k in negatives. ``g``: (n,) labels of the notion's
    column; ``i``, ``j``, ``k``: int index arrays of one shape. Returns a bool array of it."""
    g = np.asarray(g)
    gi, gj, gk = g[i], g[j], g[k]
    ok = (gi == gj) & (gk != gi)
    if notion.extra is not None:
        a, p, negatives = notion.extra
        ok |= (gi == a) & (gj == p) & np.isin(gk, list(negatives))
    return ok


def eligible_items(
    notion: Notion, g: np.ndarray, n_groups: int | None = None, tie_counts: dict | None = None
) -> np.ndarray:
    """(n,) bool: the items that take part in ``notion``'s triplets. All of them, except for a
    notion with ``largest_groups`` and ``n_groups`` set: the items of the ``n_groups`` groups with
    the most items. Ties are broken by ``tie_counts`` (group -> its size in the whole collection,
    e.g. a university's WebKB pages of every class: the larger first), then by name where that
    ties too. Our rule: the paper names neither the seven universities nor a tie-break; on the
    real WebKB pages nyu.edu and ualberta.ca tie for the seventh place with 105 pages of the four
    topics, and nyu.edu has 145 pages in the collection against 110. Raises :class:`DataError` if
    there are fewer groups."""
    g = np.asarray(g).astype(str)
    if not notion.largest_groups or n_groups is None:
        return np.ones(len(g), dtype=bool)
    names, counts = np.unique(g, return_counts=True)
    if len(names) < n_groups:
        raise DataError(f"{notion.name}: {len(names)} groups, fewer than the {n_groups} asked for")
    tie = tie_counts or {}
    order = sorted(range(len(names)), key=lambda q: (-counts[q], -tie.get(names[q], 0), names[q]))
    keep = names[order[:n_groups]]
    return np.isin(g, keep)


def count_rule_triplets(notion: Notion, g: np.ndarray) -> int:
    """The number of ordered triples of distinct items (i, j, k) for which the rule holds
    (exact: the rule depends on the labels only, so it sums over label triples (a, b, c) the
    count n_a (n_b - [a = b]) (n_c - [c = a] - [c = b]))."""
    names, counts = np.unique(np.asarray(g).astype(str), return_counts=True)
    q = len(names)
    grid = np.meshgrid(np.arange(q), np.arange(q), np.arange(q), indexing="ij")
    a, b, c = (x.ravel() for x in grid)
    ok = rule_holds(notion, names, a, b, c)
    na = counts[a].astype(object)
    nb = counts[b] - (a == b)
    nc = counts[c] - (c == a) - (c == b)
    return int(sum(x * y * z for x, y, z in zip(na[ok], nb[ok], nc[ok]) if y > 0 and z > 0))


def _distinct_triples(m: int, size: int, rng: np.random.Generator):
    """``size`` uniform ordered triples of distinct integers in [0, m) (three int64 arrays)."""
    i = rng.integers(m, size=size)
    j = rng.integers(m - 1, size=size)
    j += j >= i
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    k = rng.integers(m - 2, size=size)
    k += k >= lo
    k += k >= hi
    return i, j, k


_BATCH_KEPT = 32_768  # rule triplets expected per batch of candidates (sample_rule_triplets)


def sample_rule_triplets(notion: Notion, g: np.ndarray, n: int, rng: np.random.Generator):
    """The paper's draw (section 5): three distinct items uniformly at random, kept when
    ``notion``'s rule holds (:func:`rule_holds`), until ``n`` distinct triples are kept, in the
    order drawn (a triple drawn again is dropped: P is a set). Candidates come in batches whose
    size depends on the rule's fraction only, not on ``n``, so the first n' triples are the same
    for every n >= n' (one ``rng`` state): a size's training set does not depend on the largest
    size of the configuration.

    ``g``: (m,) labels of the items. Returns (int64 (n, 3) indices into ``g``, the fraction of
    ordered distinct triples that satisfy the rule). Raises :class:`DataError` when fewer than
    ``n`` triples satisfy the rule, ``ValueError`` for n < 1."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    g = np.asarray(g).astype(str)
    m = len(g)
    n_valid = count_rule_triplets(notion, g) if m >= 3 else 0
    if n_valid < n:
        raise DataError(
            f"{notion.name}: only {n_valid} distinct triples of these {m} items satisfy the rule, "
            f"{n} asked for"
        )
    rate = n_valid / (m * (m - 1) * (m - 2))
    kept = np.empty(0, dtype=np.int64)  # codes (i m + j) m + k, in draw order
    while len(kept) < n:
        size = int(min(max(min(_BATCH_KEPT, n_valid) / rate, 1024), 4_000_000))  # not of n
        i, j, k = _distinct_triples(m, size, rng)
        ok = rule_holds(notion, g, i, j, k)
        codes = np.concatenate([kept, (i[ok] * m + j[ok]) * m + k[ok]])
        _, first = np.unique(codes, return_index=True)
        kept = codes[np.sort(first)]
    kept = kept[:n]
    t = np.column_stack([kept // (m * m), (kept // m) % m, kept % m]).astype(np.int64)
    return t, rate


def draw_triplets(notion, g, part, n, seed, purpose, eligible=None):
    """``n`` rule triplets among the items ``part`` (those of ``eligible``, a bool mask over all
    items, if given), as indices into ``part`` (int64 (n, 3)), and the rule's fraction."""
    part = np.asarray(part)
    inside = np.arange(len(part)) if eligible is None else np.flatnonzero(eligible[part])
    t, rate = sample_rule_triplets(notion, np.asarray(g)[part[inside]], n, stream(seed, purpose))
    return inside[t], rate


# -- features ----------------------------------------------------------------------------------


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
        import snowballstemmer

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


def median_gamma(X, items, seed: int, n_pairs: int = 2000) -> float:
    """The RBF width 1 / median ||x_a - x_b||^2 over ``n_pairs`` random pairs of distinct rows of
    ``items`` (the median heuristic; our choice for the kernel row). Raises :class:`DataError`
    when the median is 0."""
    rng = stream(seed, "gamma")
    items = np.asarray(items)
    a = items[rng.integers(len(items), size=n_pairs)]
    b = items[rng.integers(len(items), size=n_pairs)]
    a, b = a[a != b], b[a != b]
    D = X[a] - X[b]
    d2 = np.asarray(D.multiply(D).sum(axis=1)).ravel() if sp.issparse(D) else (D * D).sum(axis=1)
    med = float(np.median(d2))
    if not med > 0:
        raise DataError("the median squared distance between items is 0: no RBF width")
    return 1.0 / med


# -- one (notion, seed) cell -------------------------------------------------------------------


def _fit_row(model, t_train, X_tr, X_te, t_test, base, method, variant):
    t0 = time.perf_counter()
    model.fit(t_train)
    wall = time.perf_counter() - t0
    # the learned distance is the Euclidean distance after transform(): one transform of the
    # documents, then the triplets (no per-triplet kernel evaluations)
    r = static_triplet_accuracy(model.transform(X_te), t_test)
    train_acc = static_triplet_accuracy(model.transform(X_tr), t_train)["triplet_accuracy"]
    cert = getattr(model, "certificate_", {}) or {}
    return {
        **base,
        "method": method,
        "variant": variant,
        "n_train_triplets": len(t_train),
        **r,
        "train_triplet_accuracy": train_acc,
        "fit_wall_s": wall,
        "solve_s": model.solve_seconds_,
        "solver": model.solver,
        "solver_status": model.solver_status_,
        "objective": model.objective_,
        "rel_gap": cert.get("rel_gap", np.nan),
        "n_nonzero_weights": int(np.sum(model.w_ > 1e-8)),
        "n_weights": len(model.w_),
        "C": model.C,
    }


def run_notion(
    notion: Notion,
    X,
    labels: np.ndarray,
    seed: int,
    n_train_triplets: list[int],
    n_test_triplets: int,
    static: dict,
    split,
    C: float = 1.0,
    solver: str = "CLARABEL",
    eligible: np.ndarray | None = None,
    kernel: dict | None = None,
    solver_options: dict | None = None,
    log=print,
):
    """One (notion, seed) cell of the protocol: tidy rows and the linear model fitted on the most
    training triplets.

    ``X``: (n, d) array or CSR, the features SVM-relative learns on (all items); ``labels``: (n,)
    str, the notion's column; ``static``: {(method, variant): (n, V) features} of the static
    Euclidean baselines; ``split``: (train, test) index arrays; ``eligible``: (n,) bool or None
    (:func:`eligible_items`); ``kernel``: None or {"n_train_triplets": int, "gamma": float or
    None (median heuristic), "solver": str} for the kernel row (A = Phi, RBF). ``C``, ``solver``
    and ``solver_options`` (e.g. {"tol": 1e-6} for "dcd") go to every linear fit (eq. 8, A = I).

    Returns (rows DataFrame, linear model, {"train", "test"} index arrays). Raises
    :class:`DataError` when a part has too few rule triplets,
    :class:`tripletbench.algorithms.svm_relative.SolverError` when a solve fails."""
    train, test = (np.asarray(p) for p in split)
    sizes = sorted({int(n) for n in n_train_triplets})
    n_kernel = int(kernel["n_train_triplets"]) if kernel else 0
    n_draw = max(sizes + [n_kernel])
    t_train_all, rate_train = draw_triplets(
        notion, labels, train, n_draw, seed, "train_triplets", eligible
    )
    t_test, rate_test = draw_triplets(
        notion, labels, test, n_test_triplets, seed, "test_triplets", eligible
    )
    X_tr, X_te = X[train], X[test]
    base = {
        "notion": notion.name,
        "seed": seed,
        "n_test_triplets": len(t_test),
        "rule_fraction_train": rate_train,
        "rule_fraction_test": rate_test,
        "n_train_items": len(train),
        "n_test_items": len(test),
        "n_features": X.shape[1],
    }
    rows = []
    for (method, variant), F in static.items():
        r = static_triplet_accuracy(F[test], t_test)
        rows.append({**base, "method": method, "variant": variant, "n_train_triplets": 0, **r})
        log(f"  {notion.name} seed {seed}: {method} [{variant}] {r['triplet_accuracy']:.4f}")
    model = None
    for n in sizes:
        model = SVMRelative(
            C=C,
            solver=solver,
            solver_options=solver_options or None,
            preprocessor=X_tr,
            random_state=seed,
        )
        row = _fit_row(model, t_train_all[:n], X_tr, X_te, t_test, base, "SVM-relative", "A = I")
        rows.append(row)
        log(
            f"  {notion.name} seed {seed}: SVM-relative n={n}: test {row['triplet_accuracy']:.4f} "
            f"(train {row['train_triplet_accuracy']:.4f}), solve {row['solve_s']:.2f} s, "
            f"{row['solver_status']}"
        )
    if kernel:
        tk = t_train_all[:n_kernel]
        gamma = kernel.get("gamma") or median_gamma(X_tr, np.unique(tk), seed)
        km = SVMRelative(
            C=C,
            kernel="rbf",
            gamma=gamma,
            solver=kernel.get("solver", "CLARABEL"),
            preprocessor=X_tr,
        )
        variant = f"A = Phi, RBF gamma = {gamma:.4g}"
        row = _fit_row(km, tk, X_tr, X_te, t_test, base, "SVM-relative-RBF", variant)
        row["gamma"] = gamma
        rows.append(row)
        log(
            f"  {notion.name} seed {seed}: SVM-relative-RBF n={n_kernel} ({variant}): test "
            f"{row['triplet_accuracy']:.4f}, solve {row['solve_s']:.2f} s"
        )
    return pd.DataFrame(rows), model, {"train": train, "test": test}


def squared_distances(F, w=None) -> np.ndarray:
    """Dense (n, n) matrix of sum_j w_j (f_aj - f_bj)^2 (w = None: all ones)."""
    from sklearn.metrics.pairwise import euclidean_distances

    if w is not None:
        s = np.sqrt(np.asarray(w))
        F = sp.csr_matrix(F).multiply(s[None, :]).tocsr() if sp.issparse(F) else F * s
    D = euclidean_distances(F, F, squared=True)
    np.fill_diagonal(D, 0.0)
    return np.clip(D, 0.0, None)


def classical_mds(D2: np.ndarray, k: int = 2):
    """Classical (Torgerson) MDS of a squared-distance matrix: B = -1/2 J D2 J with
    J = I - 11^T/n, coordinates = top-k eigenvectors times sqrt(eigenvalues) (the paper's
    "classical, metric MDS", section 5).

    Returns ((n, k) coordinates, (k,) eigenvalues, fraction of the positive eigenvalue mass the k
    dimensions carry). Not scikit-learn's ``MDS``, which is metric SMACOF."""
    D2 = np.asarray(D2, dtype=np.float64)
    n = len(D2)
    J = np.eye(n) - 1.0 / n
    B = -0.5 * J @ D2 @ J
    ev, V = np.linalg.eigh((B + B.T) / 2)
    order = np.argsort(ev)[::-1]
    ev, V = ev[order], V[:, order]
    top = np.clip(ev[:k], 0, None)
    explained = float(top.sum() / np.clip(ev, 0, None).sum()) if np.any(ev > 0) else 0.0
    return V[:, :k] * np.sqrt(top), ev[:k], explained


def measure_solve(X, groups, n_triplets: int, seed: int, C: float, solver: str) -> dict:
    """One solve of eq. 8 on ``n_triplets`` class triplets of ``groups`` over the rows of X, by
    ``solver`` ("CLARABEL", "SCS" or "dcd"); run this in a fresh process
    (:func:`measure_in_subprocess`) so that its peak RSS is its own. Imports and "dcd"'s one-off
    numba compilation happen before the timing; the fit runs with every BLAS/OpenMP pool at one
    thread (threadpoolctl). For "dcd" the row also has the certificate (rel_gap,
    kkt_margin_residual, epochs)."""
    import resource
    import tracemalloc

    from threadpoolctl import threadpool_limits

    if solver == "dcd":  # compile (or load numba's cache) on a one-triplet problem first
        SVMRelative(solver="dcd").fit(np.array([[[0.0], [1.0], [2.0]]]))
    else:
        import cvxpy  # noqa: F401  (imported before timing: its first import takes seconds)

    t = sample_class_triplets(groups, n_triplets, stream(seed, "train_triplets"))
    tracemalloc.start()
    m = SVMRelative(C=C, solver=solver, preprocessor=X)
    t0 = time.perf_counter()
    with threadpool_limits(limits=1):  # one core, whatever OMP_NUM_THREADS the job was given
        m.fit(t)
    wall = time.perf_counter() - t0
    _, py_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    cert = getattr(m, "certificate_", {})
    return {
        "n_triplets": n_triplets,
        "solver": solver,
        "n_features": X.shape[1],
        "n_active_features": m.n_active_features_,
        "fit_wall_s": wall,
        "setup_s": m.setup_seconds_,
        "solve_s": m.solve_seconds_,
        "status": m.solver_status_,
        "objective": m.objective_,
        "rel_gap": cert.get("rel_gap", np.nan),
        "kkt_margin_residual": cert.get("kkt_margin_residual", np.nan),
        "epochs": cert.get("epochs", np.nan),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "python_peak_mb": py_peak / 2**20,
    }


def predicted_seconds(done: list[dict], n: int) -> float:
    """A solver's fit time at ``n`` triplets extrapolated from its last two solved sizes
    (rows of ``done``, in increasing size) by the power law through them, the exponent clipped
    to [1, 3]; 0 when fewer than two sizes were solved (nothing to go on: the size is run)."""
    ok = [r for r in done if r.get("status") == "optimal"]
    if len(ok) < 2:
        return 0.0
    (n1, t1), (n2, t2) = ((r["n_triplets"], r["fit_wall_s"]) for r in ok[-2:])
    p = float(np.clip(np.log(t2 / t1) / np.log(n2 / n1), 1.0, 3.0))
    return t2 * (n / n2) ** p


def measure_in_subprocess(X, groups, n_triplets, seed, C, solver, timeout_s):
    """:func:`measure_solve` in a fresh process (peak RSS of that process only, including the
    solver's native memory; tracemalloc sees Python allocations only). Returns its dict, or one
    with status "timeout" after ``timeout_s`` seconds (the process is terminated), or "error: ..."
    if the solve raised."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    with ctx.Pool(1) as pool:
        res = pool.apply_async(measure_solve, (X, groups, n_triplets, seed, C, solver))
        base = {"n_triplets": n_triplets, "solver": solver, "n_features": X.shape[1]}
        try:
            return res.get(timeout=timeout_s)
        except mp.TimeoutError:
            pool.terminate()
            return {**base, "status": f"timeout (> {timeout_s} s)"}
        except Exception as err:  # SolverError and the like, raised in the worker
            return {**base, "status": f"error: {type(err).__name__}: {err}"}
