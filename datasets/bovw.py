"""Bag-of-visual-words features: block descriptors, a k-means codebook, sparse tf-idf vectors.

Source: the OASIS paper (Chechik, Sharma, Shalit, Bengio, "Large Scale Online Learning of Image
Similarity Through Ranking", JMLR 11, 2010, section 5.1 "Image representation"), which takes the
features of Grangier & Bengio (PAMIR, 2008) and the SDCA paper reuses for its Table 3:

1. each image is cut into **overlapping square blocks**;
2. each block is described by a **colour histogram** and a **texture histogram** (uniform local
   binary patterns, LBP) concatenated;
3. the block descriptors of the **training images only** are clustered by k-means into a codebook
   of ``n_words`` visual words (1000 for Caltech-256);
4. each image becomes the counts of its blocks' nearest words, weighted by **tf-idf** (idf from the
   training images) and L2-normalised: a sparse vector (the paper reports ~70 non-zeros on
   average for Caltech-256 with 1000 words).

Libraries: scikit-image (``local_binary_pattern``, pinned 0.25.2 in requirements.txt) for LBP,
scikit-learn ``MiniBatchKMeans`` for the codebook and ``TfidfTransformer`` for the weighting.

Deviations, stated: PAMIR's colour histogram quantises colours with a k-means colour codebook; we
quantise each RGB channel uniformly into ``color_levels`` levels (``color_levels**3`` bins; a grey
image has ``color_levels`` intensity bins). The two histograms are each normalised to sum 1 before
concatenation, so colour and texture weigh the same. The block size and overlap of the paper are
configuration values here (``block_size``, ``stride``; defaults in config/default.yaml). The
codebook is fitted on at most ``max_descriptors`` training block descriptors (a random subset) to
bound k-means' time; the subset's size is recorded.

The same code runs on Fashion-MNIST's 28 x 28 grey images (the offline stand-in) and on Caltech-256
photographs (``tripletbench.datasets.caltech256``).
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np
import scipy.sparse as sp

from tripletbench.files import save_npz
from tripletbench.optional import require

from .base import DataError, load_prepared

# Seed stream of the codebook's k-means, beside tripletbench.datasets.preprocess.PURPOSES (0-4 there).
CODEBOOK_STREAM = 100


def as_image(image) -> np.ndarray:
    """``image`` as float64 in [0, 1]: (H, W) grey or (H, W, 3) RGB.

    Accepts uint8 (divided by 255) or floats in [0, 1]; an RGBA image loses its alpha channel.
    Raises :class:`DataError` for another shape, NaN/inf, or values outside [0, 1].
    """
    a = np.asarray(image)
    if a.ndim == 3 and a.shape[2] == 4:
        a = a[:, :, :3]
    if not (a.ndim == 2 or (a.ndim == 3 and a.shape[2] == 3)):
        raise DataError(f"an image must be (H, W) or (H, W, 3), got shape {a.shape}")
    if a.dtype == np.uint8:
        return a.astype(np.float64) / 255.0
    a = a.astype(np.float64)
    if not np.all(np.isfinite(a)):
        raise DataError("the image contains NaN or inf")
    if a.size and (a.min() < 0 or a.max() > 1):
        raise DataError("a float image must have values in [0, 1]")
    return a


def n_descriptor_dims(rgb: bool, color_levels: int, lbp_points: int) -> int:
    """Length of one block descriptor: colour bins + uniform-LBP bins (P + 2)."""
    return (color_levels**3 if rgb else color_levels) + lbp_points + 2


def _block_histograms(codes: list[tuple[np.ndarray, int]], block: int, stride: int) -> np.ndarray:
    """Histograms of integer code images over every block x block window at the given stride.

    ``codes``: (code image (H, W) int, number of codes) pairs; the histograms are concatenated.
    Returns (n_blocks, sum of the numbers of codes) float64 counts, blocks in row-major order of
    their top-left corners (0, stride, 2 stride, ... while the block fits).

    When ``stride`` divides ``block`` the image is cut into stride x stride cells, each cell's
    histogram is one ``np.bincount`` and a block sums (block / stride)^2 cells (through a cumulative
    sum over the small cell grid); otherwise an integral image of the one-hot codes is used.
    """
    H, W = codes[0][0].shape
    nbr, nbc = (H - block) // stride + 1, (W - block) // stride + 1
    hists = []
    for code, n in codes:
        if block % stride == 0:
            k = block // stride
            nr, nc = nbr + k - 1, nbc + k - 1
            c = code[: nr * stride, : nc * stride]
            cell = (np.arange(nr * stride) // stride)[:, None] * nc + (
                np.arange(nc * stride) // stride
            )[None, :]
            h = np.bincount((cell * n + c).ravel(), minlength=nr * nc * n).reshape(nr, nc, n)
            ii = np.zeros((nr + 1, nc + 1, n))
            ii[1:, 1:] = h.cumsum(0).cumsum(1)
            r, q = np.arange(nbr), np.arange(nbc)
            R, C = np.meshgrid(r, q, indexing="ij")
        else:
            onehot = np.zeros((H, W, n))
            rows, cols = np.indices((H, W))
            onehot[rows, cols, code] = 1.0
            ii = np.zeros((H + 1, W + 1, n))
            ii[1:, 1:] = onehot.cumsum(0).cumsum(1)
            R, C = np.meshgrid(np.arange(nbr) * stride, np.arange(nbc) * stride, indexing="ij")
            k = block
        R, C = R.ravel(), C.ravel()
        hists.append(ii[R + k, C + k] - ii[R, C + k] - ii[R + k, C] + ii[R, C])
    return np.hstack(hists)


def block_descriptors(
    image,
    block_size: int = 32,
    stride: int = 16,
    color_levels: int = 4,
    lbp_points: int = 8,
    lbp_radius: float = 1.0,
) -> np.ndarray:
    """Colour + uniform-LBP histograms of the overlapping square blocks of one image.

    Parameters
    ----------
    image : (H, W) grey or (H, W, 3) RGB, uint8 or float in [0, 1].
    block_size, stride : block side and step in pixels (stride < block_size: overlapping blocks).
    color_levels : uniform levels per channel (RGB: color_levels**3 bins; grey: color_levels).
    lbp_points, lbp_radius : P and R of ``skimage.feature.local_binary_pattern(method="uniform")``,
        which gives P + 2 texture codes.

    Returns
    -------
    (n_blocks, n_descriptor_dims) float64: per block the colour histogram (sums to 1) followed by
    the LBP histogram (sums to 1). ``n_blocks = (floor((H - b) / s) + 1) * (floor((W - b) / s) + 1)``.

    Raises :class:`DataError` if the image is smaller than one block or the sizes are invalid.
    """
    rgb2gray = require("skimage.color", "the bag-of-visual-words descriptor").rgb2gray
    local_binary_pattern = require(
        "skimage.feature", "the bag-of-visual-words descriptor"
    ).local_binary_pattern

    if not (block_size >= 2 and 1 <= stride and color_levels >= 1 and lbp_points >= 1):
        raise DataError(
            f"invalid block settings: block_size={block_size}, stride={stride}, "
            f"color_levels={color_levels}, lbp_points={lbp_points}"
        )
    img = as_image(image)
    H, W = img.shape[:2]
    if H < block_size or W < block_size:
        raise DataError(f"image of {H} x {W} pixels is smaller than one {block_size}-pixel block")
    rgb = img.ndim == 3
    grey = rgb2gray(img) if rgb else img
    q = np.minimum((img * color_levels).astype(np.int64), color_levels - 1)
    color_code = q[..., 0] * color_levels**2 + q[..., 1] * color_levels + q[..., 2] if rgb else q
    n_color = color_levels**3 if rgb else color_levels
    # LBP on 8-bit grey values (skimage recommends integer images: no float ties noise)
    lbp = local_binary_pattern(
        np.round(grey * 255).astype(np.uint8), lbp_points, lbp_radius, method="uniform"
    ).astype(np.int64)
    h = _block_histograms([(color_code, n_color), (lbp, lbp_points + 2)], block_size, stride)
    return h / float(block_size * block_size)


def fit_codebook(
    train_descriptors: list[np.ndarray],
    n_words: int,
    seed: int,
    max_descriptors: int = 200_000,
    batch_size: int = 4096,
):
    """k-means codebook on the block descriptors of the **training images only**.

    ``train_descriptors``: one (n_blocks_i, D) array per training image. At most
    ``max_descriptors`` of them (a uniform random subset) are clustered with scikit-learn's
    ``MiniBatchKMeans(n_clusters=n_words, n_init=3)``, seeded from ``[seed, CODEBOOK_STREAM]``.
    Returns the fitted ``MiniBatchKMeans`` (``cluster_centers_`` (n_words, D)).
    Raises :class:`DataError` if there are fewer descriptors than words.
    """
    from sklearn.cluster import MiniBatchKMeans

    D = np.vstack(train_descriptors)
    if len(D) < n_words:
        raise DataError(
            f"{len(D)} training block descriptors cannot make a codebook of {n_words} words"
        )
    gen = np.random.default_rng([int(seed), CODEBOOK_STREAM])
    if len(D) > max_descriptors:
        D = D[np.sort(gen.choice(len(D), max_descriptors, replace=False))]
    km = MiniBatchKMeans(
        n_clusters=n_words,
        batch_size=batch_size,
        n_init=3,
        random_state=int(gen.integers(2**31 - 1)),
    )
    with warnings.catch_warnings():
        # identical blocks (flat background) can leave fewer distinct centres than words
        warnings.filterwarnings("ignore", message="Number of distinct clusters")
        km.fit(D)
    km.n_descriptors_fitted_ = len(D)
    return km


def word_counts(descriptors: list[np.ndarray], codebook) -> sp.csr_matrix:
    """(n_images, n_words) CSR matrix of visual-word counts (each block -> its nearest word)."""
    n_words = codebook.cluster_centers_.shape[0]
    rows, cols = [], []
    for i, d in enumerate(descriptors):
        words = codebook.predict(d)
        rows.append(np.full(len(words), i))
        cols.append(words)
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    C = sp.csr_matrix(
        (np.ones(len(rows)), (rows, cols)), shape=(len(descriptors), n_words), dtype=np.float64
    )
    C.sum_duplicates()
    return C


def bag_of_words(
    descriptors: list[np.ndarray], train: np.ndarray, n_words: int, seed: int, **codebook_kw
) -> tuple[sp.csr_matrix, dict]:
    """Sparse tf-idf bag-of-words vectors of all images; codebook and idf from ``train`` only.

    ``descriptors``: one (n_blocks_i, D) array per image; ``train``: int indices of the training
    images. Returns ``(X, info)``: X (n_images, n_words) CSR float64, rows L2-normalised (tf-idf,
    scikit-learn's ``TfidfTransformer(norm="l2", smooth_idf=True)`` fitted on the training rows);
    info = {"mean_nnz", "mean_nnz_train", "n_descriptors_fitted", "codebook_s"}.
    """
    from sklearn.feature_extraction.text import TfidfTransformer

    train = np.asarray(train)
    t0 = time.perf_counter()
    km = fit_codebook([descriptors[i] for i in train], n_words, seed, **codebook_kw)
    counts = word_counts(descriptors, km)
    tfidf = TfidfTransformer(norm="l2", smooth_idf=True).fit(counts[train])
    X = sp.csr_matrix(tfidf.transform(counts), dtype=np.float64)
    X.sort_indices()
    nnz = np.diff(X.indptr)
    info = {
        "mean_nnz": float(nnz.mean()),
        "mean_nnz_train": float(nnz[train].mean()),
        "n_descriptors_fitted": int(km.n_descriptors_fitted_),
        "codebook_s": time.perf_counter() - t0,
    }
    return X, info


def save_features(path, X, y, **extra) -> None:
    """Write features (dense array or CSR) and labels atomically to ``path`` (.npz).

    A CSR matrix is stored as ``X_data``, ``X_indices``, ``X_indptr``, ``X_shape``; a dense one as
    ``X``. Read back with :func:`load_features`.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        arrays = {
            "X_data": X.data,
            "X_indices": X.indices,
            "X_indptr": X.indptr,
            "X_shape": np.asarray(X.shape),
        }
    else:
        arrays = {"X": np.asarray(X)}
    save_npz(path, y=np.asarray(y), **arrays, **extra)


def feature_summary(paths) -> "pd.DataFrame":
    """One row per features file of rule images_features (``.../features/NAME/seedS.npz``, written
    by :func:`save_features` with ``seed`` and a JSON ``info``): dataset, seed, n_images,
    n_features and the ``info`` entries (mean_nnz, descriptor_s_per_image, codebook_s, ...)."""
    import json

    pd = require("pandas", "the image features' summary table")

    rows = []
    for path in paths:
        d = np.load(path)
        n, dim = tuple(d["X_shape"]) if "X_shape" in d.files else d["X"].shape
        name = str(path).split("/features/")[1].split("/")[0]
        rows.append(
            {
                "dataset": name,
                "seed": int(d["seed"]),
                "n_images": n,
                "n_features": dim,
                **json.loads(str(d["info"])),
            }
        )
    return pd.DataFrame(rows)


def load_features(npz):
    """The feature matrix of a loaded .npz (``np.load`` result, the dict of
    :func:`tripletbench.datasets.base.load_prepared`, or a path, read through ``load_prepared``, which refuses
    a corrupt file with ``DataError``): a CSR matrix if it was saved sparse by
    :func:`save_features`, else the dense ``X`` array."""
    if isinstance(npz, (str, os.PathLike)):
        npz = load_prepared(npz)
    names = npz.files if hasattr(npz, "files") else npz.keys()
    if "X_data" in names:
        return sp.csr_matrix(
            (npz["X_data"], npz["X_indices"], npz["X_indptr"]), shape=tuple(npz["X_shape"])
        )
    return npz["X"]
