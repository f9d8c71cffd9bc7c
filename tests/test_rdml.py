import numpy as np
import pytest

from tripletbench.algorithms import RDML


def test_dissimilar_violation_adds_lambda_d_dt():
    pairs = np.array([[[0.0, 0.0], [1.0, 0.0]]])
    m = RDML(lam=2.0).fit(pairs, [-1])  # A_0 = 0: y (1 - 0) = -1 <= 0, violated
    np.testing.assert_allclose(m.M_, [[2.0, 0.0], [0.0, 0.0]])


def test_theorem6_step_when_the_difference_is_in_the_range():
    # two dissimilar unit pairs make A = 2 I; the similar pair D = (1, 1) has ||D||_A^2 = 4 >= 1,
    # D^T A^{-1} D = 1, lambda_t = min(2, 1) = 1: A = 2 I - D D^T = [[1, -1], [-1, 1]].
    o = [0.0, 0.0]
    pairs = np.array([[o, [1.0, 0.0]], [o, [0.0, 1.0]], [o, [1.0, 1.0]]])
    m = RDML(lam=2.0).fit(pairs, [-1, -1, 1])
    np.testing.assert_allclose(m.M_, [[1.0, -1.0], [-1.0, 1.0]], atol=1e-12)
    assert m.n_projections_ == 0


def test_singular_start_takes_the_exact_projection():
    # A = 2 e1 e1^T; D = (1, 1) is not in its range: the exact projection of A - 2 D D^T is used.
    o = [0.0, 0.0]
    pairs = np.array([[o, [1.0, 0.0]], [o, [1.0, 1.0]]])
    m = RDML(lam=2.0).fit(pairs, [-1, 1])
    w, V = np.linalg.eigh(np.array([[2.0, 0.0], [0.0, 0.0]]) - 2 * np.ones((2, 2)))
    np.testing.assert_allclose(m.M_, (V * np.clip(w, 0, None)) @ V.T, atol=1e-12)
    assert m.n_projections_ == 1


def test_stays_psd_on_a_random_stream():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))
    pairs = rng.integers(40, size=(500, 2))
    y = np.where(rng.random(500) < 0.5, 1, -1)
    m = RDML(lam=0.1, n_passes=2, preprocessor=X).fit(pairs, y)
    assert np.linalg.eigvalsh(m.M_).min() > -1e-9
    assert np.all(np.isfinite(m.M_))


def test_bad_lambda():
    with pytest.raises(ValueError, match="lam"):
        RDML(lam=0).fit(np.zeros((1, 2, 2)), [1])


def test_a_least_squares_solve_that_does_not_converge_takes_the_exact_projection(monkeypatch):
    # LAPACK's SVD (lstsq) failed to converge on a singular A from people's answers (material,
    # 297-d): the step then takes the exact projection instead of stopping the fit. Here the
    # Theorem 6 case above, its solve made to fail: A - 2 D D^T projected onto the PSD cone.
    def fail(*args, **kwargs):
        raise np.linalg.LinAlgError("SVD did not converge in Linear Least Squares")

    monkeypatch.setattr(np.linalg, "lstsq", fail)
    o = [0.0, 0.0]
    pairs = np.array([[o, [1.0, 0.0]], [o, [0.0, 1.0]], [o, [1.0, 1.0]]])
    m = RDML(lam=2.0).fit(pairs, [-1, -1, 1])
    w, V = np.linalg.eigh(2 * np.eye(2) - 2 * np.ones((2, 2)))
    np.testing.assert_allclose(m.M_, (V * np.clip(w, 0, None)) @ V.T, atol=1e-12)
    assert m.n_projections_ == 1
