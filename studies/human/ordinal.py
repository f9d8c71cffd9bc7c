"""The human-judgment study's ordinal embeddings (cblearn classes by dotted path): which rows of
``human.methods`` are feature-free, their cblearn version, the class behind a row and one seeded
fit of a position per item from the training answers alone."""

from __future__ import annotations

import time

import numpy as np

from tripletbench.optional import require

#: The prefix of an ordinal-embedding row's ``algorithm`` (a cblearn class by its dotted path,
#: ``cblearn.embedding.SOE``): such a row uses no item features (:func:`is_feature_free`).
ORDINAL_PREFIX = "cblearn."
#: The paper of each cblearn ordinal embedding a caption names (by class name).
EMBEDDING_PAPERS = {
    "SOE": "soft ordinal embedding, Terada & von Luxburg 2014",
    "STE": "stochastic triplet embedding, van der Maaten & Weinberger 2012",
    "TSTE": "t-distributed STE, van der Maaten & Weinberger 2012",
    "CKL": "crowd kernel learning, Tamuz et al. 2011",
    "GNMDS": "generalized non-metric MDS, Agarwal et al. 2007",
    "FORTE": "fast ordinal triplet embedding, Jain et al. 2016",
}


def is_feature_free(mcfg: dict | None) -> bool:
    """Whether a ``human.methods`` row is an ordinal embedding (its ``algorithm`` a dotted path
    starting with :data:`ORDINAL_PREFIX`): a position per item fitted from the training answers
    alone, no item features, so no feature map to place an item it never saw."""
    return str((mcfg or {}).get("algorithm", "")).startswith(ORDINAL_PREFIX)


def feature_free_rows(methods: dict) -> list[str]:
    """The rows of ``methods`` (``human.methods``) that use no features (:func:`is_feature_free`),
    in the config's order: one table row each (no feature set), "n/a" on protocol (b)."""
    return [m for m, mcfg in (methods or {}).items() if is_feature_free(mcfg)]


def embedding_versions(methods: dict) -> dict:
    """``{algorithm: "cblearn <version>"}`` of the ordinal-embedding rows of ``methods`` (part of
    the human cells' settings: upgrading cblearn reruns them); read from the installed
    distribution's metadata, nothing imported."""
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for mcfg in (methods or {}).values():
        if is_feature_free(mcfg):
            top = mcfg["algorithm"].split(".")[0]
            try:
                out[mcfg["algorithm"]] = f"{top} {version(top)}"
            except PackageNotFoundError:
                out[mcfg["algorithm"]] = f"{top} not installed"
    return out


def ordinal_class(algorithm: str) -> type:
    """The cblearn ordinal-embedding class at dotted path ``algorithm``
    (``cblearn.embedding.SOE``). ``KeyError`` when it cannot be imported (naming the classes
    that :mod:`cblearn.embedding` offers), ``TypeError`` when it is not a triplet embedding that
    can place every item (cblearn's ``TripletEmbeddingMixin`` with a ``fit(X, n_objects=...)``:
    MLDS, a one-dimensional scale with no ``n_objects``, is refused)."""
    import importlib
    import inspect

    if not algorithm.startswith(ORDINAL_PREFIX):
        raise KeyError(f"{algorithm!r} is not a cblearn class (a dotted path {ORDINAL_PREFIX}...)")
    module, _, attr = algorithm.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as err:
        emb = require("cblearn.embedding", f"the ordinal embedding {algorithm}")

        offers = sorted(n for n in dir(emb) if isinstance(getattr(emb, n), type))
        raise KeyError(
            f"cannot import {algorithm!r} ({err}); cblearn.embedding offers {', '.join(offers)}"
        ) from None
    TripletEmbeddingMixin = require("cblearn.embedding._base", algorithm).TripletEmbeddingMixin

    if not (isinstance(cls, type) and issubclass(cls, TripletEmbeddingMixin)):
        raise TypeError(f"{algorithm} is not a cblearn triplet embedding (TripletEmbeddingMixin)")
    if "n_objects" not in inspect.signature(cls.fit).parameters:
        raise TypeError(
            f"{algorithm}.fit takes no n_objects: it cannot give a position to an item that no "
            "training answer holds"
        )
    return cls


def fit_ordinal_embedding(
    algorithm: str, params: dict, triplets: np.ndarray, n_items: int, seed: int
) -> tuple[np.ndarray, dict]:
    """Fit the cblearn ordinal embedding ``algorithm`` (a dotted path, :func:`ordinal_class`)
    with hyperparameters ``params`` on index ``triplets`` (rows (anchor, positive, negative):
    "anchor is closer to positive than to negative", cblearn's ``list-order`` format, the same
    order) over ``n_items`` items (``n_objects``: an item in no training answer still gets a
    position, wherever the optimiser leaves it). ``random_state`` is the learners' seed of
    ``seed`` (:func:`tripletbench.harness.experiment.learner_seed`), so one seed gives one
    embedding.

    Returns ``(embedding, timing)``: the (n_items, k) float64 positions and
    ``{"fit_wall_s", "fit_cpu_s"}`` (the keys of
    :func:`tripletbench.harness.experiment.fit_learner`; the fit alone)."""
    from tripletbench.harness.experiment import learner_seed

    cls = ordinal_class(algorithm)
    if "random_state" in params:
        raise ValueError(f"{algorithm}: random_state is set from the cell's seed, not by a row")
    t = np.asarray(triplets)
    if t.ndim != 2 or t.shape[1] != 3 or not np.issubdtype(t.dtype, np.integer):
        raise ValueError(f"{algorithm}: triplets must be an (n, 3) integer index array")
    if len(t) and (t.min() < 0 or t.max() >= n_items):
        raise ValueError(f"{algorithm}: a triplet names an item outside 0..{n_items - 1}")
    model = cls(**params, random_state=learner_seed(seed))
    t0, c0 = time.perf_counter(), time.process_time()
    model.fit(t.astype(np.int64), n_objects=int(n_items))
    timing = {"fit_wall_s": time.perf_counter() - t0, "fit_cpu_s": time.process_time() - c0}
    E = np.asarray(model.embedding_, dtype=np.float64)
    if E.ndim != 2 or E.shape[0] != n_items or not np.isfinite(E).all():
        raise ValueError(
            f"{algorithm}: the fit gave an embedding of shape {E.shape}"
            + ("" if np.isfinite(E).all() else " with non-finite values")
            + f", not (n_items = {n_items}, k) finite positions"
        )
    return E, timing
