"""Bag of visual words (tripletbench.datasets.bovw): block histograms against a direct per-block computation,
codebook from training images only, sparse tf-idf rows, feature files, and the sparse retrieval
path (no densified database; same numbers as the dense computation)."""

import numpy as np
import pytest
import scipy.sparse as sp
from skimage.feature import local_binary_pattern

from tripletbench.datasets.base import DataError
from tripletbench.datasets.bovw import (
    as_image,
    bag_of_words,
    block_descriptors,
    fit_codebook,
    load_features,
    n_descriptor_dims,
    save_features,
    word_counts,
)
from tripletbench.evaluation.retrieval import (
    mean_average_precision,
    retrieval_scores,
    sparse_mahalanobis_similarity,
)


def _direct(img, b, s, levels, P=8, R=1.0):
    """Per-block histograms computed block by block, independently of the integral image."""
    from skimage.color import rgb2gray

    grey = rgb2gray(img) if img.ndim == 3 else img
    lbp = local_binary_pattern(np.round(grey * 255).astype(np.uint8), P, R, "uniform")
    q = np.minimum((img * levels).astype(int), levels - 1)
    code = q[..., 0] * levels**2 + q[..., 1] * levels + q[..., 2] if img.ndim == 3 else q
    n_col = levels**3 if img.ndim == 3 else levels
    out = []
    for r in range(0, img.shape[0] - b + 1, s):
        for c in range(0, img.shape[1] - b + 1, s):
            hc = np.bincount(code[r : r + b, c : c + b].ravel(), minlength=n_col)
            hl = np.bincount(lbp[r : r + b, c : c + b].astype(int).ravel(), minlength=P + 2)
            out.append(np.concatenate([hc, hl]) / (b * b))
    return np.array(out)


@pytest.mark.parametrize(
    ("rgb", "b", "s"), [(False, 8, 4), (True, 8, 4), (True, 6, 4), (False, 9, 3)]
)
def test_block_histograms_equal_a_direct_per_block_computation(rgb, b, s):
    """Both paths: cells when the stride divides the block, an integral image otherwise."""
    gen = np.random.default_rng(0)
    shape = (23, 31, 3) if rgb else (23, 31)
    img = gen.integers(0, 256, size=shape).astype(np.uint8)
    got = block_descriptors(img, block_size=b, stride=s, color_levels=3)
    want = _direct(img / 255.0, b, s, 3)
    assert got.shape == (((23 - b) // s + 1) * ((31 - b) // s + 1), n_descriptor_dims(rgb, 3, 8))
    np.testing.assert_allclose(got, want, atol=1e-12)
    # each half is a histogram of the block's pixels: sums to one
    n_col = 27 if rgb else 3
    np.testing.assert_allclose(got[:, :n_col].sum(1), 1.0)
    np.testing.assert_allclose(got[:, n_col:].sum(1), 1.0)


def test_overlapping_blocks_share_pixels():
    img = np.zeros((8, 12))
    img[:, 6:] = 1.0  # right half white
    h = block_descriptors(img, block_size=4, stride=2, color_levels=2)
    # 3 rows x 5 columns of blocks; block at columns 4..7 straddles the edge: half white
    white = h[:, 1].reshape(3, 5)
    np.testing.assert_allclose(white[0], [0, 0, 0.5, 1, 1])


def test_bad_images_are_clear_errors():
    with pytest.raises(DataError, match="smaller than one"):
        block_descriptors(np.zeros((5, 40)), block_size=8, stride=4)
    with pytest.raises(DataError, match="NaN"):
        as_image(np.full((8, 8), np.nan))
    with pytest.raises(DataError, match=r"\[0, 1\]"):
        as_image(np.full((8, 8), 2.0))
    with pytest.raises(DataError, match="shape"):
        as_image(np.zeros((8, 8, 2)))
    assert as_image(np.zeros((8, 8, 4), dtype=np.uint8)).shape == (8, 8, 3)


def _two_kinds(n_per=6, seed=0):
    """Images of two classes: dark smooth vs bright striped, with noise."""
    gen = np.random.default_rng(seed)
    imgs, y = [], []
    for i in range(2 * n_per):
        c = i % 2
        base = np.full((24, 24), 0.2) if c == 0 else 0.6 + 0.3 * (np.arange(24) % 4 < 2)
        img = np.clip(base + 0.05 * gen.standard_normal((24, 24)), 0, 1)
        imgs.append(img)
        y.append(c)
    return imgs, np.array(y)


def test_codebook_comes_from_training_images_only():
    imgs, _y = _two_kinds()
    descs = [block_descriptors(im, 8, 4, 4) for im in imgs]
    train = np.arange(6)
    km = fit_codebook([descs[i] for i in train], n_words=5, seed=0)
    # same seed and training descriptors -> same codebook, whatever the test images are
    km2 = fit_codebook([descs[i] for i in train], n_words=5, seed=0)
    np.testing.assert_allclose(km.cluster_centers_, km2.cluster_centers_)
    X, _info = bag_of_words(descs, train, n_words=5, seed=0)
    descs_other_test = descs[:6] + [block_descriptors(np.ones((24, 24)) * 0.9, 8, 4, 4)] * 6
    X2, _ = bag_of_words(descs_other_test, train, n_words=5, seed=0)
    np.testing.assert_allclose(X[:6].toarray(), X2[:6].toarray())  # train rows unchanged
    with pytest.raises(DataError, match="cannot make a codebook"):
        fit_codebook([descs[0][:3]], n_words=5, seed=0)


def test_bag_of_words_rows_are_sparse_tfidf_unit_vectors():
    imgs, _y = _two_kinds()
    descs = [block_descriptors(im, 8, 4, 4) for im in imgs]
    X, info = bag_of_words(descs, np.arange(8), n_words=6, seed=1)
    assert sp.isspmatrix_csr(X) and X.shape == (12, 6)
    np.testing.assert_allclose(np.sqrt(X.multiply(X).sum(1)).A.ravel(), 1.0)
    assert info["mean_nnz"] == pytest.approx(np.diff(X.indptr).mean())
    # counts: every block lands on exactly one word
    km = fit_codebook([descs[i] for i in range(8)], 6, seed=1)
    C = word_counts(descs, km)
    np.testing.assert_array_equal(C.sum(1).A.ravel(), [len(d) for d in descs])


def test_feature_files_round_trip_dense_and_sparse(tmp_path):
    Xs = sp.random(5, 7, density=0.3, format="csr", random_state=0)
    save_features(tmp_path / "s.npz", Xs, np.arange(5))
    back = load_features(tmp_path / "s.npz")
    assert sp.issparse(back) and (back != Xs).nnz == 0
    Xd = np.arange(6.0).reshape(2, 3)
    save_features(tmp_path / "d.npz", Xd, np.arange(2))
    np.testing.assert_array_equal(load_features(np.load(tmp_path / "d.npz")), Xd)


class _NoDense(sp.csr_matrix):
    """A CSR matrix that refuses to be densified (the evaluation must not call toarray)."""

    def toarray(self, *a, **k):
        raise AssertionError("the database was densified")

    todense = toarray

    def __getitem__(self, key):
        return _NoDense(super().__getitem__(key))


def test_sparse_retrieval_equals_dense_without_densifying():
    gen = np.random.default_rng(3)
    Xq = sp.random(7, 12, density=0.3, format="csr", random_state=1)
    Xd = sp.random(15, 12, density=0.3, format="csr", random_state=2)
    yq, yd = gen.integers(0, 3, 7), gen.integers(0, 3, 15)
    L = gen.standard_normal((12, 12))
    M = L @ L.T
    W = gen.standard_normal((12, 12))
    dense_maha = lambda A, B: (
        -(
            np.einsum("ij,jk,ik->i", A, M, A)[:, None]
            + np.einsum("ij,jk,ik->i", B, M, B)[None, :]
            - 2 * A @ M @ B.T
        )
    )
    f = sparse_mahalanobis_similarity(M)
    got = f(_NoDense(Xq), _NoDense(Xd))
    np.testing.assert_allclose(got, dense_maha(Xq.toarray(), Xd.toarray()), atol=1e-10)
    # mAP and precision@k through the batched protocol, sparse vs dense
    res_s = retrieval_scores(f, _NoDense(Xq), yq, _NoDense(Xd), yd, ks=(1, 3), batch_size=3)
    res_d = retrieval_scores(dense_maha, Xq.toarray(), yq, Xd.toarray(), yd, ks=(1, 3))
    np.testing.assert_allclose(res_s["ap"], res_d["ap"])
    np.testing.assert_allclose(res_s["precision_at"][3], res_d["precision_at"][3])
    bil = lambda A, B: np.asarray(B @ np.asarray(A @ W).T).T
    m_s, _ = mean_average_precision(bil, _NoDense(Xq), yq, _NoDense(Xd), yd)
    m_d, _ = mean_average_precision(bil, Xq.toarray(), yq, Xd.toarray(), yd)
    assert m_s == pytest.approx(m_d)
