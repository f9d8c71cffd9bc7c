"""Schultz & Joachims' SVM for relative comparisons (eq. 8): hand-computed cases, optimality
against an independent solution (the dual, by L-BFGS-B; the kernel case's primal by SLSQP),
KKT conditions and invariants, sparse = dense, the API, and triplet accuracy."""

import shutil
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, minimize

from tripletbench.algorithms import make_learner
from tripletbench.algorithms.svm_relative import (
    SVMRelative,
    constraint_matrix,
    primal_objective,
    rbf_kernel,
)
from tripletbench.datasets.base import DataError
from tripletbench.datasets.constraints import sample_class_triplets
from tripletbench.evaluation.triplets import (
    accuracy_from_distances,
    model_triplet_accuracy,
    static_triplet_accuracy,
)


def test_one_triplet_in_one_dimension_by_hand():
    # anchor 0, positive 1, negative 2: Delta_ik - Delta_ij = 4 - 1 = 3.
    # min 1/2 w^2 + C xi s.t. 3 w >= 1 - xi. C = 1: w = 1/3, xi = 0, value 1/18.
    # C = 0.1: the slack is cheaper: d/dw (w^2/2 + 0.1 (1 - 3w)) = 0 at w = 0.3, xi = 0.1.
    t = np.array([[[0.0], [1.0], [2.0]]])
    m = SVMRelative(C=1.0).fit(t)
    assert m.w_ == pytest.approx([1 / 3], abs=1e-7)
    assert m.objective_ == pytest.approx(1 / 18, rel=1e-6)
    m = SVMRelative(C=0.1).fit(t)
    assert m.w_ == pytest.approx([0.3], abs=1e-7)
    assert m.xi_ == pytest.approx([0.1], abs=1e-7)
    assert m.objective_ == pytest.approx(0.055, rel=1e-6)


def test_weight_that_would_help_only_if_negative_stays_at_zero():
    # anchor (0,0), positive (0,1), negative (1,0): row = (1, 0) - (0, 1) = (1, -1).
    # w >= 0 forces w2 = 0 (it can only hurt), then w1 = 1, xi = 0, value 1/2, multiplier
    # alpha = 1. (C = 10 keeps alpha < C: at C = 1 the solution is degenerate, alpha = C with
    # xi = 0, and an interior-point solver only reaches w to about sqrt(tolerance).)
    t = np.array([[[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]]])
    m = SVMRelative(C=10.0).fit(t)
    np.testing.assert_allclose(m.w_, [1.0, 0.0], atol=1e-7)
    assert m.objective_ == pytest.approx(0.5, rel=1e-6)
    np.testing.assert_allclose(m.get_mahalanobis_matrix(), np.diag(m.w_))
    assert m.predict(t)[0] == 1


def _dual_solution(D, C):
    """Independent solution of eq. 8 with L = I through its dual: for 0 <= alpha <= C,
    g(alpha) = sum alpha - 1/2 ||max(0, D^T alpha)||^2 (w = max(0, D^T alpha) minimises the
    Lagrangian over w >= 0); g is concave and C^1, maximised by L-BFGS-B with bounds."""

    def neg(alpha):
        v = np.maximum(0.0, D.T @ alpha)
        return -(alpha.sum() - 0.5 * v @ v), -(1.0 - D @ v)

    n = D.shape[0]
    # L-BFGS-B stops early at the kinks of max(0, .) (its line search gives up); restarted from
    # its own point it resumes, so restart until the value no longer improves
    alpha, best = np.full(n, C / 2), -np.inf
    for _ in range(50):
        res = minimize(
            neg,
            alpha,
            jac=True,
            method="L-BFGS-B",
            bounds=[(0, C)] * n,
            options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 20000, "maxcor": 50},
        )
        if -res.fun <= best * (1 + 1e-13):
            break
        alpha, best = res.x, -res.fun
    return best, np.maximum(0.0, D.T @ alpha), alpha


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_linear_case_matches_its_dual_solved_by_lbfgsb(C):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 6))
    y = rng.integers(0, 3, 40)
    t = sample_class_triplets(y, 60, rng)
    m = SVMRelative(
        C=C, solver="CLARABEL", preprocessor=X, solver_options={"tol_gap_rel": 1e-10}
    ).fit(t)
    D = constraint_matrix(X[t[:, 0]], X[t[:, 1]], X[t[:, 2]])
    dual_value, w_dual, _ = _dual_solution(D, C)
    assert m.solver_status_ == "optimal"
    # strong duality: the QP's optimum equals the dual's maximum
    assert m.objective_ == pytest.approx(dual_value, rel=1e-5)
    assert primal_objective(m.w_, D, C) == pytest.approx(dual_value, rel=1e-5)
    np.testing.assert_allclose(m.w_, w_dual, atol=1e-4 * max(1.0, np.abs(w_dual).max()))


def test_kkt_conditions_and_invariants_linear_case():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 5))
    y = rng.integers(0, 4, 50)
    t = sample_class_triplets(y, 80, rng)
    C = 1.0
    m = SVMRelative(
        C=C, solver="CLARABEL", preprocessor=X, solver_options={"tol_gap_rel": 1e-10}
    ).fit(t)
    D = constraint_matrix(X[t[:, 0]], X[t[:, 1]], X[t[:, 2]])
    w, xi = m.w_, m.xi_
    margin = D @ w
    assert np.all(w >= 0) and np.all(xi >= 0)
    assert np.all(margin >= 1 - xi - 1e-7)  # primal feasibility
    # optimal slacks are xi = max(0, 1 - margin)
    np.testing.assert_allclose(xi, np.maximum(0, 1 - margin), atol=1e-6)
    # the solver's multipliers are a certificate, checked here from the definitions: for L = I
    # the Lagrangian's minimiser over w >= 0 is w = max(0, D^T alpha); 0 <= alpha <= C;
    # alpha = C where the margin is violated, 0 where it exceeds 1; and no duality gap.
    alpha = m.alpha_
    assert np.all(alpha >= -1e-8) and np.all(alpha <= C + 1e-8)
    np.testing.assert_allclose(w, np.maximum(0, D.T @ alpha), atol=1e-6)
    assert np.all(alpha[margin < 1 - 1e-5] > C - 1e-5)
    assert np.all(alpha[margin > 1 + 1e-5] < 1e-5)
    dual = alpha.sum() - 0.5 * np.sum(np.maximum(0, D.T @ alpha) ** 2)
    assert dual == pytest.approx(m.objective_, rel=1e-6)


def test_kernel_case_matches_an_independent_primal_solution():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(12, 3))
    y = rng.integers(0, 2, 12)
    t = sample_class_triplets(y, 25, rng)
    C, gamma = 1.0, 0.5
    m = SVMRelative(C=C, kernel="rbf", gamma=gamma, preprocessor=X).fit(t)
    # the independent problem, built from the paper's definitions: A^T x = K(basis, x)
    basis = X[np.unique(t)]
    np.testing.assert_array_equal(m.basis_, basis)
    F = rbf_kernel(X, basis, gamma)
    K = rbf_kernel(basis, basis, gamma)
    L = K * K
    D = constraint_matrix(F[t[:, 0]], F[t[:, 1]], F[t[:, 2]])
    nb, n = len(basis), len(t)

    def f(z):
        w, xi = z[:nb], z[nb:]
        return 0.5 * w @ L @ w + C * xi.sum()

    def grad(z):
        return np.concatenate([L @ z[:nb], np.full(n, C)])

    # scipy's trust-constr (interior point for the linear inequalities; SLSQP ends here with
    # "Positive directional derivative" at the optimum and reports no success)
    A = np.hstack([D, np.eye(n)])
    H = np.zeros((nb + n, nb + n))
    H[:nb, :nb] = L
    res = minimize(
        f,
        np.concatenate([np.zeros(nb), np.ones(n)]),
        jac=grad,
        hess=lambda z: H,
        constraints=[LinearConstraint(A, 1.0, np.inf)],
        bounds=Bounds(0.0, np.inf),
        method="trust-constr",
        options={"gtol": 1e-12, "xtol": 1e-14, "maxiter": 20000},
    )
    assert res.success, res.message
    assert m.objective_ == pytest.approx(res.fun, rel=1e-5)
    assert primal_objective(m.w_, D, C, L) == pytest.approx(res.fun, rel=1e-5)
    assert np.all(m.w_ >= 0)
    # the learned distance is sum_l w_l (K(b_l, x) - K(b_l, y))^2
    pairs = np.array([[0, 1], [2, 3]])
    expect = ((F[pairs[:, 0]] - F[pairs[:, 1]]) ** 2) @ m.w_
    np.testing.assert_allclose(m.pair_distance(pairs) ** 2, expect, rtol=1e-10)
    with pytest.raises(ValueError, match="rbf"):
        m.get_mahalanobis_matrix()


def test_sparse_features_give_the_same_solution_as_dense_and_scs_agrees():
    rng = np.random.default_rng(3)
    Xd = (rng.random((60, 40)) < 0.1).astype(float)  # binary bag of words
    Xs = sp.csr_matrix(Xd)
    y = rng.integers(0, 3, 60)
    t = sample_class_triplets(y, 100, rng)
    a = SVMRelative(preprocessor=Xd).fit(t)
    b = SVMRelative(preprocessor=Xs).fit(t)
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-7)
    np.testing.assert_allclose(a.w_, b.w_, atol=1e-6)
    # words no triplet separates are removed before the solve and get w = 0 exactly
    D = constraint_matrix(Xs[t[:, 0]], Xs[t[:, 1]], Xs[t[:, 2]])
    unused = np.diff(sp.csc_matrix(D).indptr) == 0
    assert b.n_active_features_ == int((~unused).sum())
    assert np.all(b.w_[unused] == 0)
    c = SVMRelative(preprocessor=Xs, solver="SCS", solver_options={"eps": 1e-9}).fit(t)
    assert c.objective_ == pytest.approx(b.objective_, rel=1e-4)
    # transform: Euclidean distances there are the learned distances, sparse or dense
    np.testing.assert_allclose(
        b.similarity_matrix(Xs[:5], Xs[:7]), a.similarity_matrix(Xd[:5], Xd[:7]), atol=1e-6
    )
    np.testing.assert_allclose(
        -a.similarity_matrix(Xd[:1], Xd[1:2])[0, 0], a.pair_distance(np.array([[0, 1]]))[0] ** 2
    )


def test_api_errors_and_registry():
    with pytest.raises(DataError, match="zero usable"):
        SVMRelative(preprocessor=np.eye(3)).fit(np.zeros((0, 3), dtype=int))
    with pytest.raises(DataError, match="NaN"):
        SVMRelative().fit(np.array([[[np.nan], [1.0], [2.0]]]))
    with pytest.raises(ValueError, match="solver"):
        SVMRelative(solver="OSQP").fit(np.array([[[0.0], [1.0], [2.0]]]))
    with pytest.raises(ValueError, match="C must"):
        SVMRelative(C=0).fit(np.array([[[0.0], [1.0], [2.0]]]))
    m = make_learner("SVM-relative", C=0.5)
    assert isinstance(m, SVMRelative) and m.C == 0.5


@pytest.mark.filterwarnings("ignore:Solution may be inaccurate")
def test_solver_failure_raises_a_clear_error():
    from tripletbench.algorithms.svm_relative import SolverError

    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 4))
    t = sample_class_triplets(rng.integers(0, 3, 30), 40, rng)
    with pytest.raises(SolverError, match="optimal_inaccurate"):  # stopped after one iteration
        SVMRelative(preprocessor=X, solver="SCS", solver_options={"max_iters": 1}).fit(t)
    with pytest.raises(SolverError, match="CLARABEL"):
        SVMRelative(preprocessor=X, solver="CLARABEL", solver_options={"max_iter": 1}).fit(t)


def test_triplet_accuracy_counts_ties_as_failures():
    r = accuracy_from_distances(np.array([1.0, 2.0, 3.0, 1.0]), np.array([2.0, 2.0, 1.0, 5.0]))
    assert r == {"triplet_accuracy": 0.5, "n_ties": 1, "n": 4}
    X = np.array([[0.0], [1.0], [3.0], [1.0]])
    t = np.array([[0, 1, 2], [0, 2, 1], [0, 1, 3]])  # satisfied, violated, tie
    assert static_triplet_accuracy(X, t)["triplet_accuracy"] == pytest.approx(1 / 3)
    assert static_triplet_accuracy(sp.csr_matrix(X), t)["n_ties"] == 1
    with pytest.raises(ValueError, match="zero"):
        static_triplet_accuracy(X, np.zeros((0, 3), dtype=int))


def test_model_triplet_accuracy_equals_score():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 5))
    y = rng.integers(0, 3, 40)
    t = sample_class_triplets(y, 60, rng)
    m = SVMRelative(preprocessor=X).fit(t)
    test = sample_class_triplets(y, 200, rng)
    r = model_triplet_accuracy(m, X, test)
    assert r["triplet_accuracy"] == pytest.approx(m.score(test))
    w = np.ones(5)  # with w = 1 the model's distance is the Euclidean one
    m.w_ = w
    assert r is not None
    assert model_triplet_accuracy(m, X, test) == static_triplet_accuracy(X, test)


# -- the specialised solver ("dcd", solve_eq8_dual) ------------------------------------------------

_CACHE = Path(__file__).resolve().parents[1] / "data_cache"


def has_reuters_cache():
    from tripletbench.datasets import reuters

    return (_CACHE / "embedded" / "weka" / reuters.WEKA / "ReutersCorn-train.arff").exists()


def reuters_training_matrix():
    """The svm_scaling problem's data: binary bag of words of the stand-in's training documents
    (seed 0 split) and their topic groups."""
    from tripletbench.datasets.reuters import load_corpus
    from tripletbench.studies.svm.experiment import document_split, notion_groups, text_features

    corpus = load_corpus(_CACHE)
    labels = corpus.label("topic")
    train, _ = document_split(len(labels), 0, 0.7)
    binary, _, _ = text_features(corpus.texts, train)
    return binary[train], notion_groups(labels[train], "reuters_topic")


def _brute_coordinate_max(val, u, a_t, C):
    """max over delta in [-a_t, C - a_t] of delta - 1/2 sum_j [u_j + delta d_j]_+^2, by a dense
    grid refined around its best point (independent of the breakpoint walk)."""

    def g(x):
        return x - 0.5 * np.sum(np.maximum(u[:, None] + np.outer(val, x), 0.0) ** 2, axis=0)

    lo, hi = -a_t, C - a_t
    for _ in range(6):
        grid = np.linspace(lo, hi, 2001)
        i = int(np.argmax(g(grid)))
        step = grid[1] - grid[0]
        lo, hi = max(-a_t, grid[i] - step), min(C - a_t, grid[i] + step)
    return grid[i], float(g(np.array([grid[i]]))[0]), g


def _one_row_step(val, u, a_t, C):
    """delta = the change of alpha_t made by one coordinate step of the epoch (plain Python) on a
    one-row problem with D^T alpha = u; checks that u is updated by delta * d_t."""
    from tripletbench.algorithms.svm_relative import _cd_epoch

    k = len(val)
    alpha, u2, grad = np.array([a_t]), u.copy(), np.zeros(1)
    _cd_epoch(
        np.array([0, k]),
        np.arange(k),
        val,
        alpha,
        u2,
        np.array([0]),
        C,
        np.empty(k),
        np.empty(k),
        grad,
    )
    delta = alpha[0] - a_t
    np.testing.assert_allclose(u2, u + delta * val, atol=1e-12)
    # the recorded derivative at delta = 0 is dg/dalpha_t = 1 - d_t . [u]_+
    assert grad[0] == pytest.approx(1.0 - val @ np.maximum(u, 0.0), abs=1e-12)
    return delta


def test_coordinate_step_is_the_exact_maximiser_of_the_piecewise_quadratic_dual():
    rng = np.random.default_rng(6)
    crossed = 0
    for _ in range(300):
        k = int(rng.integers(1, 9))
        val = rng.choice([-2.0, -1.0, 1.0, 0.5, 3.0], size=k)
        u = rng.normal(size=k) * rng.choice([0.0, 1.0], size=k, p=[0.2, 0.8])  # some u_j = 0
        C = float(rng.choice([0.1, 1.0, 10.0]))
        a_t = float(rng.choice([0.0, C, rng.uniform(0, C)]))  # at a bound or free
        delta = _one_row_step(val, u, a_t, C)
        assert -a_t - 1e-12 <= delta <= C - a_t + 1e-12
        _, best, g = _brute_coordinate_max(val, u, a_t, C)
        assert g(np.array([delta]))[0] >= best - 1e-9
        crossed += np.any(u * (u + delta * val) < 0)  # the breakpoint walk was needed
    assert crossed > 20  # both paths (first piece's Newton step, breakpoint walk) are exercised
    # one by hand: d = (1, -1), u = (0.5, 0.2): dg/ddelta = 1 - [0.5 + delta]_+ + [0.2 - delta]_+,
    # zero on delta in (-0.5, 0.2) where it is 1 - 0.5 - delta + 0.2 - delta: delta = 0.35 > 0.2,
    # so on delta > 0.2 (second term off): 1 - 0.5 - delta = 0, delta = 0.5
    assert _one_row_step(np.array([1.0, -1.0]), np.array([0.5, 0.2]), 0.0, 1.0) == pytest.approx(
        0.5
    )
    # without a breakpoint: d = (2), u = (0.1): 1 - 2 (0.1 + 2 delta) = 0 at delta = 0.2
    assert _one_row_step(np.array([2.0]), np.array([0.1]), 0.0, 1.0) == pytest.approx(0.2)
    # capped at the bound: C = 0.1
    assert _one_row_step(np.array([2.0]), np.array([0.1]), 0.0, 0.1) == pytest.approx(0.1)


def test_compiled_epoch_equals_the_plain_python_epoch():
    from tripletbench.algorithms.svm_relative import _cd_epoch, _compiled

    X, t = _random_problem(9, n_triplets=80)
    D = sp.csr_matrix(constraint_matrix(X[t[:, 0]], X[t[:, 1]], X[t[:, 2]]))
    D.sort_indices()
    n, m = D.shape
    order = np.random.default_rng(0).permutation(n)
    runs = []
    for epoch in (_cd_epoch, _compiled()):
        alpha, u, grad = np.zeros(n), np.zeros(m), np.zeros(n)
        for _ in range(3):
            out = epoch(
                D.indptr, D.indices, D.data, alpha, u, order, 1.0, np.empty(m), np.empty(m), grad
            )
        np.testing.assert_allclose(u, D.T @ alpha, atol=1e-10)  # u tracks D^T alpha
        runs.append((alpha, grad, out))
    np.testing.assert_allclose(runs[0][0], runs[1][0], atol=1e-12)
    np.testing.assert_allclose(runs[0][1], runs[1][1], atol=1e-12)
    assert runs[0][2][0] == runs[1][2][0]


def test_box_qp_active_set_matches_an_independent_bounded_solver():
    from tripletbench.algorithms.svm_relative import _box_qp_active_set

    rng = np.random.default_rng(10)
    for _ in range(5):
        k = 12
        B = rng.normal(size=(k, 5)) + 2.0  # correlated rows, as in D_FP D_FP^T
        H = B @ B.T + 0.1 * np.eye(k)
        r = rng.normal(size=k) * 5
        lo, hi = -rng.uniform(0, 1, k), rng.uniform(0, 1, k)
        x = _box_qp_active_set(H, r, lo, hi, 200)  # finite (Murty's rule); here within 200
        res = minimize(
            lambda z: 0.5 * z @ H @ z - r @ z,
            np.zeros(k),
            jac=lambda z: H @ z - r,
            method="L-BFGS-B",
            bounds=list(zip(lo, hi)),
            options={"ftol": 1e-15, "gtol": 1e-12},
        )
        assert np.all(x >= lo - 1e-12) and np.all(x <= hi + 1e-12)
        assert 0.5 * x @ H @ x - r @ x <= res.fun + 1e-9
        np.testing.assert_allclose(x, res.x, atol=1e-5)
    # a diagonal H settles at once at the clipped unconstrained maximiser
    x = _box_qp_active_set(np.diag([1.0, 2.0]), np.array([3.0, -4.0]), -np.ones(2), np.ones(2), 5)
    np.testing.assert_allclose(x, [1.0, -1.0])


def test_dcd_by_hand_and_the_active_nonnegativity_bound():
    t = np.array([[[0.0], [1.0], [2.0]]])  # w = 1/3 (C = 1), w = 0.3, xi = 0.1 (C = 0.1)
    m = SVMRelative(C=1.0, solver="dcd").fit(t)
    assert m.w_ == pytest.approx([1 / 3], abs=1e-12)
    assert m.objective_ == pytest.approx(1 / 18, rel=1e-12)
    m = SVMRelative(C=0.1, solver="dcd").fit(t)
    assert m.w_ == pytest.approx([0.3], abs=1e-12) and m.xi_ == pytest.approx([0.1], abs=1e-12)
    # row (1, -1): w2 >= 0 is active (beta_2 = alpha = 1 > 0), w = (1, 0), alpha = 1 (C = 10)
    t = np.array([[[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]]])
    m = SVMRelative(C=10.0, solver="dcd").fit(t)
    np.testing.assert_allclose(m.w_, [1.0, 0.0], atol=1e-12)
    assert m.alpha_ == pytest.approx([1.0], abs=1e-12)
    assert m.certificate_["rel_gap"] <= 1e-9


def _random_problem(seed, n_points=60, d=30, n_triplets=150, sparse=True):
    rng = np.random.default_rng(seed)
    if sparse:
        Xd = (rng.random((n_points, d)) < 0.15).astype(float)
    else:
        Xd = rng.normal(size=(n_points, d))
    y = rng.integers(0, 3, n_points)
    return (sp.csr_matrix(Xd) if sparse else Xd), sample_class_triplets(y, n_triplets, rng)


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("sparse", [True, False])
def test_dcd_reaches_clarabels_optimum_with_a_kkt_certificate(C, sparse):
    from tripletbench.algorithms.svm_relative import dual_certificate

    X, t = _random_problem(7, sparse=sparse)
    ref = SVMRelative(
        C=C, solver="CLARABEL", preprocessor=X, solver_options={"tol_gap_rel": 1e-10}
    ).fit(t)
    m = SVMRelative(C=C, preprocessor=X, solver="dcd").fit(t)
    assert m.solver_status_ == "optimal"
    assert m.objective_ == pytest.approx(ref.objective_, rel=1e-6)
    D = constraint_matrix(X[t[:, 0]], X[t[:, 1]], X[t[:, 2]])
    assert primal_objective(m.w_, D, C) == pytest.approx(m.objective_, rel=1e-12)
    np.testing.assert_allclose(m.w_, ref.w_, atol=1e-4 * max(1.0, ref.w_.max()))
    # the certificate, recomputed here from the definitions on the full D
    alpha = m.alpha_
    assert np.all(alpha >= 0) and np.all(alpha <= C) and np.all(m.w_ >= 0)
    u = D.T @ alpha
    np.testing.assert_allclose(m.w_, np.maximum(u, 0), atol=1e-12)  # stationarity, beta = [-u]_+
    dual = alpha.sum() - 0.5 * m.w_ @ m.w_
    assert m.objective_ - dual <= 1e-9 * m.objective_  # duality gap
    margin = D @ m.w_
    assert np.all(margin[alpha == 0] >= 1 - 1e-7) and np.all(margin[alpha == C] <= 1 + 1e-7)
    free = (alpha > 0) & (alpha < C)
    np.testing.assert_allclose(margin[free], 1.0, atol=1e-7)
    cert = dual_certificate(D, alpha, C)
    assert cert["kkt_margin_residual"] <= 1e-7 and cert["rel_gap"] <= 1e-9
    # the non-negativity bound is active on some words (u_j < 0: w_j = 0 with beta_j > 0)
    assert np.sum(u < -1e-6) > 0


@pytest.mark.slow
@pytest.mark.skipif(
    not has_reuters_cache() and shutil.which("apt-get") is None,
    reason="the Reuters stand-in is not in data_cache and apt-get cannot fetch it",
)
def test_dcd_matches_clarabel_on_reuters_triplets():
    """On real text (the Reuters stand-in, fetched into data_cache by ``apt-get download weka``
    when missing, as the pipeline does)."""
    X, groups = reuters_training_matrix()
    t = sample_class_triplets(groups, 300, np.random.default_rng(0))
    ref = SVMRelative(solver="CLARABEL", preprocessor=X, solver_options={"tol_gap_rel": 1e-10}).fit(
        t
    )
    m = SVMRelative(preprocessor=X, solver="dcd").fit(t)
    assert m.objective_ == pytest.approx(ref.objective_, rel=1e-6)
    assert m.certificate_["kkt_margin_residual"] <= 1e-7
    D = constraint_matrix(X[t[:, 0]], X[t[:, 1]], X[t[:, 2]])
    assert np.sum((D.T @ m.alpha_) < -1e-6) > 0  # active w >= 0 bounds on real text


def test_dcd_errors():
    from tripletbench.algorithms.svm_relative import SolverError

    X, t = _random_problem(8)
    with pytest.raises(ValueError, match="linear"):
        SVMRelative(kernel="rbf", solver="dcd", preprocessor=X.toarray()).fit(t)
    with pytest.raises(ValueError, match="solver_options"):
        SVMRelative(solver="dcd", preprocessor=X, solver_options={"eps": 1}).fit(t)
    with pytest.raises(SolverError, match="epochs"):
        SVMRelative(
            solver="dcd", preprocessor=X, solver_options={"max_epochs": 1, "tol": 1e-15}
        ).fit(t)


def test_face_cg_step_increases_the_dual_and_lands_on_the_face_maximiser():
    from tripletbench.algorithms.svm_relative import _compiled, _face_cg_step, dual_certificate

    # on a random sparse problem after a few epochs: every step keeps alpha in the box,
    # keeps u = D^T alpha and does not decrease the dual
    X, t = _random_problem(11, n_triplets=200)
    D = sp.csr_matrix(constraint_matrix(X[t[:, 0]], X[t[:, 1]], X[t[:, 2]]))
    D.sort_indices()
    n, m = D.shape
    alpha, u, grad = np.zeros(n), np.zeros(m), np.zeros(n)
    order = np.random.default_rng(0).permutation(n)
    steps = 0
    for _ in range(20):
        _compiled()(
            D.indptr, D.indices, D.data, alpha, u, order, 1.0, np.empty(m), np.empty(m), grad
        )
        before = dual_certificate(D, alpha, 1.0)["dual"]
        s, its = _face_cg_step(D, alpha, u, order, 1.0, 50)
        assert np.all(alpha >= 0) and np.all(alpha <= 1.0)
        np.testing.assert_allclose(u, D.T @ alpha, atol=1e-10)
        assert dual_certificate(D, alpha, 1.0)["dual"] >= before - 1e-12
        steps += s > 0
    assert steps > 0
    # all u > 0 and no bound reached: g is the quadratic sum alpha - 1/2 alpha^T D D^T alpha on
    # the face, and without the ridge the CG step lands on its maximiser (D D^T)^{-1} 1
    rng = np.random.default_rng(12)
    k = 8
    Dd = np.hstack([2.0 * np.eye(k), 0.1 * rng.random((k, 4))])
    best = np.linalg.solve(Dd @ Dd.T, np.ones(k))
    assert np.all(best > 0)
    D = sp.csr_matrix(Dd)
    alpha = np.full(k, 0.01)
    u = D.T @ alpha
    s, its = _face_cg_step(D, alpha, u, np.arange(k), 10.0, 100, ridge=0.0)
    assert s == 1.0
    np.testing.assert_allclose(alpha, best, rtol=1e-9)
    np.testing.assert_allclose(u, D.T @ alpha, atol=1e-12)


def test_working_block_keeps_u_equal_to_d_transpose_alpha_on_every_column():
    """The working block (rows shrunk and compacted, columns with u_j <= -tau held out): after
    epochs on the restricted block, a sync brings u = D^T alpha back on all columns, the held
    ones included, and writes the block's multipliers back into alpha."""
    from tripletbench.algorithms.svm_relative import _Block, _compiled

    X, t = _random_problem(13, n_triplets=300)
    D = sp.csr_matrix(constraint_matrix(X[t[:, 0]], X[t[:, 1]], X[t[:, 2]]))
    D.sort_indices()
    n, m = D.shape
    alpha, grad = np.zeros(n), np.zeros(n)
    u = np.zeros(m)
    perm = np.random.default_rng(1).permutation(n)
    blk = _Block(D, alpha, grad, perm, u)
    epoch = _compiled()
    bp, act = np.empty(m), np.empty(m)
    for k in range(12):
        B = blk.B
        epoch(B.indptr, B.indices, B.data, blk.a, blk.uk, blk.order, 1.0, bp, act, blk.g)
        if k == 2:  # shrink to every other row: the block is rebuilt from them (compacted)
            blk.keep(np.arange(len(blk.order)) % 2 == 0)
            assert blk.rows is not None and blk.Bf.shape[0] == len(blk.order)
        if k in (4, 8):
            blk.sync()
            np.testing.assert_allclose(u, D.T @ alpha, atol=1e-10)
            blk.restrict(0.05)
            assert blk.cols is not None and 0 < len(blk.cols) < m
            np.testing.assert_array_equal(blk.B.toarray(), blk.Bf.toarray()[:, blk.cols])
    blk.sync()
    np.testing.assert_allclose(u, D.T @ alpha, atol=1e-10)
    assert np.all(alpha >= 0) and np.all(alpha <= 1.0)


def test_dcd_with_held_out_columns_turning_positive_still_reaches_the_optimum():
    """tau tiny and a restriction every epoch from the start: columns held out at u_j <= 0 turn
    positive later (counted in column_misses, tau doubled); the solve still ends on the optimum
    of the whole problem, certified on all of D, as without the column restriction."""
    from tripletbench.algorithms.svm_relative import solve_eq8_dual

    X, t = _random_problem(14, n_points=80, d=60, n_triplets=400)
    D = sp.csr_matrix(constraint_matrix(X[t[:, 0]], X[t[:, 1]], X[t[:, 2]]))
    plain = solve_eq8_dual(D, 1.0, tau=0)
    held = solve_eq8_dual(D, 1.0, tau=1e-12, col_every=1)
    assert plain["converged"] and held["converged"]
    assert plain["column_misses"] == 0 and held["column_misses"] > 0
    assert held["objective"] == pytest.approx(plain["objective"], rel=1e-9)
    np.testing.assert_allclose(held["w"], plain["w"], atol=1e-6)
    assert held["rel_gap"] <= 1e-9


def test_a_stalled_look_starts_a_check_and_the_solve_still_ends_on_the_optimum():
    """A look every pass: on this problem a look's gap (below newton_gap) has not halved since
    the previous look, so a check with Newton steps starts at once (counted in stalls); the
    certified optimum is the one reached with the stall rule off (look_stall=0: no stalls)."""
    from tripletbench.algorithms.svm_relative import solve_eq8_dual

    X, t = _random_problem(14, n_points=80, d=60, n_triplets=400)
    D = sp.csr_matrix(constraint_matrix(X[t[:, 0]], X[t[:, 1]], X[t[:, 2]]))
    off = solve_eq8_dual(D, 1.0, look_every=1, look_stall=0)
    on = solve_eq8_dual(D, 1.0, look_every=1, look_stall=0.5)
    assert off["converged"] and on["converged"]
    assert off["stalls"] == 0 and on["stalls"] >= 1
    assert on["rounds"] >= on["stalls"]
    assert on["objective"] == pytest.approx(off["objective"], rel=1e-9)
    np.testing.assert_allclose(on["w"], off["w"], atol=1e-6)
    assert on["rel_gap"] <= 1e-9


def test_predicted_seconds_follows_the_power_law_through_the_last_two_solves():
    from tripletbench.studies.svm.experiment import predicted_seconds

    def row(n, s, status="optimal"):
        return {"n_triplets": n, "fit_wall_s": s, "status": status}

    assert predicted_seconds([], 100) == 0.0  # nothing to go on: run it
    assert predicted_seconds([row(10, 1.0)], 100) == 0.0
    # quadratic growth 2,000 -> 5,000 (5 s -> 31.25 s) predicts 500 s at 20,000
    done = [row(1000, 0.1), row(2000, 5.0), row(5000, 31.25)]
    assert predicted_seconds(done, 20000) == pytest.approx(500.0)
    # the exponent is clipped to [1, 3]; failed or timed-out sizes are not used
    assert predicted_seconds([row(10, 1.0), row(20, 1.0)], 40) == pytest.approx(2.0)
    assert predicted_seconds([row(10, 1.0), row(20, 64.0)], 40) == pytest.approx(512.0)
    assert predicted_seconds(done + [row(20000, None, "timeout (> 180 s)")], 40000) == (
        pytest.approx(31.25 * 8**2)
    )
