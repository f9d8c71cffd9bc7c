"""OAHU's deployment (Gao et al., WWW 2019, section 3.6; described in the docstring of
:mod:`tripletbench.algorithms.oahu`): the methods of :class:`OAHUDeployment`, which
:class:`~tripletbench.algorithms.oahu.OAHU` inherits, for classification (eqs. 23-25:
``knn_class_scores``, ``knn_classify``), retrieval (eq. 27: ``retrieve``) and similarity
comparison (eq. 26: ``similarity_probability``, ``similar``, and ``verification_distance`` by
:func:`weighted_lower_median`), each also under ``deployment="combined"`` (one distance
sum_l alpha(l) D(l): a variant, not the paper's). Re-exported by
:mod:`tripletbench.algorithms.oahu`.
"""

from __future__ import annotations

import numpy as np


def weighted_lower_median(values, weights):
    """Per column of ``values`` (n_layers, n), the smallest value v with sum of ``weights``
    (n_layers,) over values <= v at least 0.5: the eq. 26 threshold score. Returns (n,)."""
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(values, axis=0, kind="stable")
    cum = np.cumsum(np.asarray(weights, dtype=np.float64)[order], axis=0)
    first = np.argmax(cum >= 0.5 - 1e-12, axis=0)
    return np.take_along_axis(values, order, axis=0)[first, np.arange(values.shape[1])]


class OAHUDeployment:
    """The deployment methods of :class:`~tripletbench.algorithms.oahu.OAHU` (section 3.6). They
    read the fitted learner's ``alpha_``, ``deployment``, ``transform`` (its L+1 unit-norm
    embeddings), ``_unit_distances`` and ``_points``; not a learner by itself (no ``name``)."""

    def _layer_neighbours(self, EQ, ED, k, exclude_offset=None):
        """Per layer, the k nearest rows of ED (L+1, n_db, m) for each row of EQ (L+1, b, m):
        (indices int64 (L+1, b, k), distances (L+1, b, k)), nearest first, equal distances by
        index. ``exclude_offset``: query i is database row exclude_offset + i (left out)."""
        idx, dist = [], []
        rows = np.arange(EQ.shape[1])
        for q, db in zip(EQ, ED):
            D = self._unit_distances(q, db)
            if exclude_offset is not None:
                D[rows, exclude_offset + rows] = np.inf
            part = (
                np.argpartition(D, k - 1, axis=1)[:, :k]
                if k < D.shape[1]
                else np.tile(np.arange(D.shape[1]), (len(D), 1))
            )
            pd = np.take_along_axis(D, part, axis=1)
            order = np.lexsort((part, pd), axis=1)
            idx.append(np.take_along_axis(part, order, axis=1))
            dist.append(np.take_along_axis(pd, order, axis=1))
        return np.stack(idx), np.stack(dist)

    def _candidate_scores(self, dist):
        """Eq. 23 / 27: exp(-(D - d_min) / (d_max - d_min)) * alpha(l) over each layer's k
        neighbours (L+1, b, k); d_max = d_min gives normalised distance 0 (our choice)."""
        dmin, dmax = dist[..., :1], dist[..., -1:]
        span = dmax - dmin
        norm = np.divide(dist - dmin, span, out=np.zeros_like(dist), where=span > 0)
        return np.exp(-norm) * self.alpha_[:, None, None]

    def _check_k(self, k, n_db):
        if not 1 <= int(k) <= n_db:
            raise ValueError(f"k must lie in [1, {n_db}], got {k}")

    def knn_class_scores(self, X, X_ref, y_ref, k: int, per_layer: bool = False, batch_size=256):
        """Class association scores of eqs. 23-24 for the rows of ``X`` (n, d).

        In every E_l the k nearest rows of ``X_ref`` (n_ref, d); each scores exp(-(D - d_min) /
        (d_max - d_min)) * alpha(l); a class sums the scores of its candidates over all layers.
        ``y_ref``: (n_ref,) labels. Returns ``(classes, scores)``: the sorted distinct labels
        (C,) and float64 (n, C), or with ``per_layer`` the contribution of each layer, (L+1, n, C)
        (summing over axis 0 gives eq. 24). Raises ``ValueError`` for k outside [1, n_ref] or a
        label count that does not match ``X_ref``."""
        y_ref = np.asarray(y_ref)
        if len(y_ref) != len(X_ref):
            raise ValueError("X_ref and y_ref need one label per reference row")
        self._check_k(k, len(y_ref))
        classes, codes = np.unique(y_ref, return_inverse=True)
        ER = self.transform(X_ref)
        n_layers = len(ER)
        scores = np.zeros((n_layers, len(X), len(classes)))
        for lo in range(0, len(X), batch_size):
            EQ = self.transform(X[lo : lo + batch_size])
            b = EQ.shape[1]
            idx, dist = self._layer_neighbours(EQ, ER, k)
            S = self._candidate_scores(dist)  # (L+1, b, k), eq. 23
            layer = np.broadcast_to(np.arange(n_layers)[:, None, None], idx.shape)
            rows = np.broadcast_to(np.arange(lo, lo + b)[None, :, None], idx.shape)
            np.add.at(scores, (layer.ravel(), rows.ravel(), codes[idx].ravel()), S.ravel())
        return classes, (scores if per_layer else scores.sum(axis=0))  # eq. 24

    def knn_classify(self, X, X_ref, y_ref, k: int) -> np.ndarray:
        """kNN labels of ``X`` (n, d) from ``X_ref`` (n_ref, d), ``y_ref`` (n_ref,): (n,) labels.

        ``deployment="layers"``: eq. 25, the arg max of :meth:`knn_class_scores` (equal scores:
        the first class in sorted label order). ``deployment="combined"``: majority vote of the
        k nearest under sum_l alpha(l) D(l) (:func:`tripletbench.evaluation.classification.knn_predict`).
        """
        if self.deployment == "combined":
            from tripletbench.evaluation.classification import knn_predict

            return knn_predict(self.similarity_matrix, X, X_ref, y_ref, k=k)
        classes, scores = self.knn_class_scores(X, X_ref, y_ref, k)
        return classes[np.argmax(scores, axis=1)]

    def retrieve(self, X, X_db, ks, exclude_self: bool = False, batch_size: int = 256) -> dict:
        """Analogue retrieval: for each k in ``ks``, the k items of ``X_db`` most similar to each
        row of ``X``: {k: int64 (n, k) database indices, best first}.

        ``deployment="layers"``: eq. 27 with k(L+1) candidates (k nearest per layer, scored as
        eq. 23), sorted by decreasing score (equal scores: layer, then rank), top k distinct.
        ``deployment="combined"``: the k nearest under sum_l alpha(l) D(l) (ties by index).
        ``exclude_self``: ``X`` is ``X_db`` and query i never retrieves item i. Raises
        ``ValueError`` for a k outside [1, n_db] (n_db - 1 with ``exclude_self``)."""
        ks = sorted({int(k) for k in ks})
        n_db = len(X_db) - (1 if exclude_self else 0)
        for k in ks:
            self._check_k(k, n_db)
        if exclude_self and len(X) != len(X_db):
            raise ValueError("exclude_self needs the query set to be the database")
        ED = self.transform(X_db)
        out = {k: np.empty((len(X), k), dtype=np.int64) for k in ks}
        for lo in range(0, len(X), batch_size):
            EQ = self.transform(X[lo : lo + batch_size])
            b = EQ.shape[1]
            off = lo if exclude_self else None
            if self.deployment == "combined":
                D = sum(a * self._unit_distances(q, r) for a, q, r in zip(self.alpha_, EQ, ED))
                if off is not None:
                    D[np.arange(b), off + np.arange(b)] = np.inf
                nn = np.argsort(D, axis=1, kind="stable")
                for k in ks:
                    out[k][lo : lo + b] = nn[:, :k]
                continue
            idx_all, dist_all = self._layer_neighbours(EQ, ED, ks[-1], off)
            for k in ks:
                idx, S = idx_all[..., :k], self._candidate_scores(dist_all[..., :k])
                cand = idx.transpose(1, 0, 2).reshape(b, -1)  # layer-major order per query
                score = S.transpose(1, 0, 2).reshape(b, -1)
                order = np.argsort(-score, axis=1, kind="stable")
                ranked = np.take_along_axis(cand, order, axis=1)
                for r in range(b):
                    _, first = np.unique(ranked[r], return_index=True)
                    out[k][lo + r] = ranked[r, np.sort(first)[:k]]
        return out

    def _pair_layer_distances(self, pairs):
        X, idx = self._points(pairs, 2, "pairs")
        E = self.transform(X)
        return np.linalg.norm(E[:, idx[:, 0]] - E[:, idx[:, 1]], axis=2)  # (L+1, n)

    def similarity_probability(self, pairs, T: float) -> np.ndarray:
        """P of eq. 26: sum_l alpha(l) [D(l)/2 < T] per pair, shape (n,), in [0, 1]."""
        return self.alpha_ @ (self._pair_layer_distances(pairs) / 2.0 < T)

    def verification_distance(self, pairs) -> np.ndarray:
        """Per pair, in [0, 1], the score whose threshold T is the deployment's similarity rule.

        ``deployment="layers"``: the alpha-weighted lower median q of the D(l)/2 (a pair is
        similar under eq. 26, P >= 0.5, exactly when q < T). ``"combined"``: sum_l alpha(l) D(l)/2.
        ``pairs``: (n, 2, d) points or (n, 2) indices into ``preprocessor``. Returns (n,)."""
        half = self._pair_layer_distances(pairs) / 2.0
        if self.deployment == "combined":
            return self.alpha_ @ half
        return weighted_lower_median(half, self.alpha_)

    def similar(self, pairs, T: float) -> np.ndarray:
        """Similarity comparison (section 3.6.2) with threshold ``T`` in (0, 1): bool (n,).
        ``deployment="layers"``: eq. 26, P >= 0.5; ``"combined"``: sum_l alpha(l) D(l)/2 < T."""
        if self.deployment == "combined":
            return self.verification_distance(pairs) < T
        return self.similarity_probability(pairs, T) >= 0.5 - 1e-12
