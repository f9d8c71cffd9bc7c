"""2-D maps of one human-judgment set's items (rule ``figure_human_embedding``,
``workflow/rules/human.smk``): where three distances put the items, each item drawn as its own
thumbnail image. Illustrative: every distance here is fitted on **all** of the set's answers (at
most ``human.max_train_triplets`` of them), so nothing in this module is a held-out score; the
held-out numbers are the table's (:mod:`tripletbench.studies.human.experiment`, protocol (a)), which picks
the rows:

* **Euclidean**: the Euclidean distance on the feature set of the best ``Eucl · <features>`` row
  of the table's protocol (a) column of the set (no training);
* **learned**: the learner row of ``human.methods`` (not an ordinal embedding) with the best
  protocol (a) accuracy on the set, any feature set, refitted on the set's answers with that
  row's settings (:func:`tripletbench.harness.experiment.fit_learner`), its pair scores
  :func:`tripletbench.studies.human.experiment.item_scores`. A similarity ``S`` (a bilinear ``x^T W y``, or
  ``-d_M^2`` of a Mahalanobis learner) becomes a squared distance ``d^2(i, j) = S_ii + S_jj - 2
  S_ij`` of its symmetric part ``(S + S^T) / 2``, clipped at 0 (:func:`similarity_to_sq_distance`:
  the squared distance of the features under a positive semi-definite ``W``; for another ``W``
  only an approximation of the learner's order);
* **ordinal**: an ordinal embedding (cblearn) fitted in 2-D directly on the same answers: the
  first row of ``human.methods`` whose algorithm is a ``cblearn.`` path (its settings, with
  ``n_components = 2``), else SOE with cblearn's defaults (:data:`DEFAULT_ORDINAL`).

The Euclidean and learned distances are mapped to 2-D by scikit-learn's metric MDS (SMACOF,
``MDS(dissimilarity="precomputed", random_state=seed, n_init=4)``, on the distances, not their
squares; :func:`mds_2d`). Each map is centred and turned onto the Euclidean panel's by an
orthogonal Procrustes rotation (a rotation or a reflection; no scaling:
:func:`procrustes_align`), so the same item sits in a comparable place and the distances within
a map are unchanged. How much of a distance's order a map keeps is measured, not assumed: the
share of the set's answers (every answer once, ties half) that the distance itself satisfies and
that the 2-D map satisfies (:func:`answers_kept`), and the Spearman correlation between the
distance and the map's distance over all item pairs.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from tripletbench.optional import require

from tripletbench.studies.human import experiment as human

#: The ordinal embedding of the figure where ``human.methods`` has no cblearn row: (row name,
#: algorithm, settings).
DEFAULT_ORDINAL = ("SOE", "cblearn.embedding.SOE", {"n_components": 2})
PANELS = ("euclidean", "learned", "ordinal")


def is_ordinal(method_cfg: dict) -> bool:
    """Whether a row of ``human.methods`` is an ordinal embedding (a ``cblearn.`` algorithm)."""
    return str(method_cfg.get("algorithm", "")).startswith("cblearn.")


def table_accuracies(table: pd.DataFrame, hset: str) -> pd.DataFrame:
    """The protocol (a) rows of set ``hset`` in ``table_human``'s CSV that have a number: columns
    method, features (``""`` for a row without one), mean (the mean over folds and seeds)."""
    need = {"dataset", "algorithm", "mean", "status"}
    if not need <= set(table.columns):
        raise ValueError(f"the human table lacks columns {sorted(need - set(table.columns))}")
    d = table[(table["dataset"] == f"{hset} (a)") & (table["status"] == "ok")]
    d = d[pd.to_numeric(d["mean"], errors="coerce").notna()]
    parts = [(str(a).split(" · ", 1) + [""])[:2] for a in d["algorithm"]]
    return pd.DataFrame(
        {
            "method": [p[0] for p in parts],
            "features": [p[1] for p in parts],
            "mean": d["mean"].astype(float).to_numpy(),
        }
    )


def _best(acc: pd.DataFrame, methods, features):
    """The row of ``acc`` with the highest mean among ``methods`` x ``features`` (the first in
    the config's order on a tie), or None."""
    rank = {(m, f): k for k, (m, f) in enumerate((m, f) for m in methods for f in features)}
    rows = [
        (r.mean, -rank[(r.method, r.features)], r.method, r.features)
        for r in acc.itertuples()
        if (r.method, r.features) in rank
    ]
    if not rows:
        return None
    mean, _, method, feats = max(rows)
    return method, feats, float(mean)


@dataclasses.dataclass
class Choice:
    """What one panel shows: ``kind`` (:data:`PANELS`), the table row ``method`` and its
    ``features`` (``""`` for an ordinal embedding), the learner's ``algorithm`` and ``params``,
    the table's protocol (a) accuracy (None: not in the table) and ``why``: how it was chosen."""

    kind: str
    method: str
    features: str
    algorithm: str | None
    params: dict
    accuracy: float | None
    why: str

    @property
    def label(self) -> str:
        return human.row_name(self.method, self.features)


def choose(table: pd.DataFrame, hset: str, cfg: dict) -> list[Choice]:
    """The three panels' rows (:data:`PANELS`) for set ``hset`` from ``table_human``'s CSV and
    the human block ``cfg``. The learned panel is None where ``human.methods`` has no learner
    row; with no protocol (a) number (the protocol not run) the first feature set and learner
    row of the config are shown, their accuracy None."""
    acc = table_accuracies(table, hset)
    feats = human.feature_sets(hset, cfg["features"])
    methods = cfg.get("methods") or {}
    return [
        _euclidean_choice(acc, feats),
        _learned_choice(acc, feats, methods),
        _ordinal_choice(acc, methods),
    ]


def _euclidean_choice(acc: pd.DataFrame, feats) -> Choice:
    """The Euclidean panel: the best ``Eucl`` row of ``acc``, else the first feature set."""
    best = _best(acc, [human.EUCLIDEAN], feats)
    if best:
        return Choice(
            "euclidean",
            human.EUCLIDEAN,
            best[1],
            None,
            {},
            best[2],
            "the best Euclidean row of the table",
        )
    return Choice(
        "euclidean",
        human.EUCLIDEAN,
        feats[0],
        None,
        {},
        None,
        "no protocol (a) number: the first feature set",
    )


def _learned_choice(acc: pd.DataFrame, feats, methods: dict) -> Choice | None:
    """The learned panel: the best learner row of ``acc`` on any feature set, else the first
    learner row of ``methods`` on the first feature set; None without a learner row."""
    from tripletbench.harness.experiment import algorithm_of, row_params

    learners = [m for m, mc in methods.items() if not is_ordinal(mc)]
    best = _best(acc, learners, feats)
    if best:
        m = best[0]
        return Choice(
            "learned",
            m,
            best[1],
            algorithm_of(m, methods[m]),
            row_params(methods[m]),
            best[2],
            "the best learner row of the table",
        )
    if learners:
        m = learners[0]
        return Choice(
            "learned",
            m,
            feats[0],
            algorithm_of(m, methods[m]),
            row_params(methods[m]),
            None,
            "no protocol (a) number: the first learner row",
        )
    return None


def _ordinal_choice(acc: pd.DataFrame, methods: dict) -> Choice:
    """The ordinal panel: the first cblearn row of ``methods`` in 2-D (its table accuracy where
    it has one), else :data:`DEFAULT_ORDINAL`."""
    ordinals = [m for m, mc in methods.items() if is_ordinal(mc)]
    if ordinals:
        m = ordinals[0]
        params = {**dict(methods[m].get("fixed") or {}), "n_components": 2}
        mine = acc[acc.method == m]
        return Choice(
            "ordinal",
            m,
            "",
            methods[m]["algorithm"],
            params,
            float(mine["mean"].max()) if len(mine) else None,
            "the first cblearn row of human.methods, fitted in 2-D",
        )
    name, algorithm, params = DEFAULT_ORDINAL
    return Choice(
        "ordinal",
        name,
        "",
        algorithm,
        dict(params),
        None,
        "human.methods has no cblearn row: SOE, cblearn's defaults, 2-D",
    )


def similarity_to_sq_distance(S: np.ndarray) -> np.ndarray:
    """The squared distance ``d^2(i, j) = S_ii + S_jj - 2 S_ij`` of a pair-score table ``S``
    (higher = more similar), from its symmetric part ``(S + S^T) / 2``, clipped at 0, the
    diagonal exactly 0. For ``S = X W X^T`` with ``W`` positive semi-definite it is the squared
    distance ``(x_i - x_j)^T W (x_i - x_j)``."""
    S = np.asarray(S, dtype=np.float64)
    S = (S + S.T) / 2
    d = np.diag(S)
    D2 = np.maximum(d[:, None] + d[None, :] - 2 * S, 0.0)
    np.fill_diagonal(D2, 0.0)
    return D2


def mds_2d(D: np.ndarray, seed: int) -> np.ndarray:
    """A 2-D map of the distance matrix ``D`` (symmetric, zero diagonal; distances, not their
    squares) by scikit-learn's metric MDS (SMACOF, 4 starts, the lowest stress kept)."""
    from sklearn.manifold import MDS

    D = np.asarray(D, dtype=np.float64)
    D = (D + D.T) / 2
    np.fill_diagonal(D, 0.0)
    mds = MDS(
        n_components=2,
        dissimilarity="precomputed",
        random_state=int(seed),
        n_init=4,
        normalized_stress="auto",
    )
    return np.asarray(mds.fit_transform(D), dtype=np.float64)


def procrustes_align(Y: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """``Y`` centred and turned by the orthogonal matrix ``R`` that brings it closest to the
    centred ``ref`` in the least-squares sense (``scipy.linalg.orthogonal_procrustes``: a
    rotation or a reflection, no scaling): the distances within ``Y`` are unchanged."""
    from scipy.linalg import orthogonal_procrustes

    Y = np.asarray(Y, dtype=np.float64) - np.mean(Y, axis=0)
    ref = np.asarray(ref, dtype=np.float64) - np.mean(ref, axis=0)
    R, _ = orthogonal_procrustes(Y, ref)
    return Y @ R


def answers_kept(D2: np.ndarray, triplets: np.ndarray, counts) -> float:
    """The share of the answers ``triplets`` (weighted by ``counts``; ties half) that the
    squared-distance table ``D2`` satisfies."""
    from tripletbench.evaluation.human_protocols import distance_accuracy

    return float(distance_accuracy(lambda i, j: D2[i, j], triplets, counts)["triplet_accuracy"])


def sq_distances(Y: np.ndarray) -> np.ndarray:
    """The squared Euclidean distances between the rows of ``Y``."""
    G = Y @ Y.T
    d = np.diag(G)
    return np.maximum(d[:, None] + d[None, :] - 2 * G, 0.0)


@dataclasses.dataclass
class Panel:
    """One map: its :class:`Choice`, the aligned 2-D coordinates ``Y`` (n_items, 2), the share
    of all answers the mapped distance satisfies (``kept_distance``), the 2-D map
    (``kept_map``) and, for a learner, its own scores (``kept_model``: higher-is-closer scores,
    per anchor), the Spearman correlation of the mapped distance with the map's over all item
    pairs, how many answers it was fitted on and the fit's wall time."""

    choice: Choice
    Y: np.ndarray
    kept_distance: float
    kept_map: float
    kept_model: float | None
    spearman: float
    n_train: int
    fit_s: float


def build_panels(judgments, features: dict, choices: list, cfg: dict, seed: int) -> list:
    """The :class:`Panel` of each of ``choices`` (:func:`choose`; a None stays None) for the set
    of ``judgments``: ``features`` maps a feature set to its (n_items, d) array (as computed;
    normalised here as ``cfg["normalize"]`` says). Learned and ordinal fits use the same answers:
    all of the set's (one triplet per answer), at most ``cfg["max_train_triplets"]``, the first
    of one seeded permutation (:func:`tripletbench.studies.human.experiment.training_triplets`). Every map
    after the first is aligned to the first (:func:`procrustes_align`)."""
    import time

    from scipy.stats import spearmanr

    from tripletbench.harness.experiment import fit_learner

    t, c = judgments.triplets, judgments.counts
    n = judgments.n_items
    train = human.training_triplets(t, c, np.arange(len(t)), cfg.get("max_train_triplets"), seed)
    iu = np.triu_indices(n, 1)
    panels, ref = [], None
    for ch in choices:
        if ch is None:
            panels.append(None)
            continue
        kept_model, fit_s, n_train = None, 0.0, len(train)
        if ch.kind == "ordinal":
            Z, timing = human.fit_ordinal_embedding(ch.algorithm, ch.params, train, n, seed)
            fit_s = timing["fit_wall_s"]
            Y, D2 = Z, sq_distances(Z)
        else:
            X = human.normalize(features[ch.features], cfg["normalize"])
            if ch.kind == "euclidean":
                D2, n_train = human.item_scores(X, X)[0], 0
            else:
                t0 = time.perf_counter()
                model, timing = fit_learner(
                    ch.algorithm,
                    dict(ch.params),
                    train,
                    X,
                    np.zeros(n, dtype=np.int64),
                    seed,
                    verbose=False,
                )
                fit_s = timing["fit_wall_s"]
                print(
                    f"  {ch.label}: fitted on {len(train):,} answers in {fit_s:.2f} s "
                    f"({time.perf_counter() - t0:.2f} s with conversion)"
                )
                scores = human.item_scores(model, X)
                kept_model = float(human._accuracy(scores, t, c)["triplet_accuracy"])
                D2 = similarity_to_sq_distance(scores[0])
            Y = mds_2d(np.sqrt(D2), seed)
        Y = procrustes_align(Y, Y if ref is None else ref)
        if ref is None:
            ref = Y
        rho = spearmanr(D2[iu], sq_distances(Y)[iu]).statistic
        panels.append(
            Panel(
                ch,
                Y,
                answers_kept(D2, t, c),
                answers_kept(sq_distances(Y), t, c),
                kept_model,
                float(rho),
                n_train,
                float(fit_s),
            )
        )
    return panels


def thumbnails(judgments, side: int = 96) -> list[np.ndarray]:
    """Each item's image as an RGB uint8 array whose longer side is ``side`` pixels (Pillow
    ``thumbnail``, aspect kept, Lanczos)."""
    Image = require("PIL.Image", "the items' thumbnails")

    out = []
    for i in range(judgments.n_items):
        im = judgments.images.load(i, "RGB")
        im.thumbnail((side, side), Image.Resampling.LANCZOS)
        out.append(np.asarray(im))
    return out


def thumbnail_size(images, per_panel_in: float = 2.2) -> float:
    """The longer side (inches) of each thumbnail where the config leaves it to the figure:
    ``per_panel_in / sqrt(n_items)`` (0.22 in for 100 items on a panel about 5 in wide, read on
    the material renderings: legible, and only the densest clusters overlap), times the square
    root of the images' median aspect (longer / shorter side), so a wide image covers the
    area a square one would (the cars' 280 x 180 photographs: 1.25 times longer)."""
    aspect = float(np.median([max(im.shape[:2]) / min(im.shape[:2]) for im in images]))
    return per_panel_in / np.sqrt(len(images)) * np.sqrt(aspect)


def draw_maps(axes, panels, images, thumb_in: float, why_not: dict | None = None) -> None:
    """Draw each panel of ``panels`` on its axis of ``axes``: every item as its thumbnail of
    ``images`` (longer side ``thumb_in`` inches) centred at its 2-D position, equal aspect, no
    tick labels (MDS units are arbitrary). A panel that is None gets the text of ``why_not``
    (panel index -> text) instead."""
    from matplotlib.offsetbox import AnnotationBbox, OffsetImage

    why_not = why_not or {}
    for k, (ax, p) in enumerate(zip(axes, panels)):
        ax.set_xticks([])
        ax.set_yticks([])
        if p is None:
            ax.text(
                0.5,
                0.5,
                why_not.get(k, "not run"),
                ha="center",
                va="center",
                wrap=True,
                fontsize=8,
                transform=ax.transAxes,
            )
            continue
        Y = p.Y
        lo, hi = Y.min(axis=0), Y.max(axis=0)
        mid, half = (lo + hi) / 2, (np.max(hi - lo) or 1.0) / 2
        # room for half a thumbnail beyond the outermost items: the axis is side_in inches wide
        pos = ax.get_position()
        fig_w, fig_h = ax.figure.get_size_inches()
        side_in = min(pos.width * fig_w, pos.height * fig_h)
        pad = 1.4 * thumb_in  # between the outermost centres and the frame: a thumbnail and more
        half += half * pad / max(side_in - pad, 1e-6)
        ax.set_xlim(mid[0] - half, mid[0] + half)
        ax.set_ylim(mid[1] - half, mid[1] + half)
        ax.set_aspect("equal")
        for (x, y), im in zip(Y, images):
            zoom = thumb_in * 72.0 / max(im.shape[:2])  # points per image pixel
            box = AnnotationBbox(
                OffsetImage(im, zoom=zoom, resample=True),
                (x, y),
                frameon=True,
                pad=0.0,
                bboxprops={"edgecolor": "white", "linewidth": 0.8},
            )
            ax.add_artist(box)
