"""Global image descriptor of 297 dimensions: colour, edge directions, Gabor texture, LBP.

Source: the SDCA paper (Wu et al., AAAI 2014, section 'Evaluation on the Large-scale Dataset')
represents each image by a 297-dimensional global descriptor made of "color histogram and
moments (81 dimensions), edge direction histogram (37 dimensions), Gabor wavelets
transformation (120 dimensions) and local binary pattern (59 dimensions)". The paper states only
these four parts and their lengths; **every parameter below is our choice**, part by part:

1. **Colour, 81 = 72 + 9** (our choice). The image is converted to HSV
   (``skimage.color.rgb2hsv``; a grey image is first replicated to three equal RGB channels, so
   its hue and saturation are 0). Histogram of 72 bins, the classic 8 x 3 x 3 HSV quantisation:
   each channel is quantised uniformly on [0, 1], ``h = min(floor(8 H), 7)``,
   ``s = min(floor(3 S), 2)``, ``v = min(floor(3 V), 2)``, bin index ``9 h + 3 s + v``; counts are
   divided by the pixel count (the 72 values sum to 1). Then 9 colour moments (Stricker &
   Orengo): per HSV channel the mean, the standard deviation (population, ``ddof=0``) and the
   cube root of the third central moment, in the order H-mean, H-std, H-skew, S-mean, ...,
   V-skew. The hue is treated as a linear value in [0, 1) (no circular statistics).
2. **Edge direction histogram, 37 = 36 + 1** (our choice). Grey image
   (``skimage.color.rgb2gray``); edge pixels from ``skimage.feature.canny(sigma=1.0)`` with its
   default thresholds; gradient direction at every edge pixel from the unsmoothed grey image,
   ``angle = arctan2(gy, gx)`` in [0, 360) degrees with ``gx = skimage.filters.sobel_v`` (positive
   where intensity grows with the column index) and ``gy = skimage.filters.sobel_h`` (positive
   where it grows with the row index, i.e. downwards). 36 bins of 10 degrees over the edge pixels
   (bin ``floor(angle / 10)``; bin 0 is a gradient pointing right, bin 18 pointing left), plus a
   37th bin counting the non-edge pixels; all 37 counts are divided by the pixel count (sum 1).
3. **Gabor wavelets, 120 = 5 frequencies x 12 orientations x 2 statistics** (our choice).
   ``skimage.filters.gabor_kernel`` with frequencies (0.05, 0.1, 0.2, 0.3, 0.4) cycles/pixel,
   orientations ``theta = k pi / 12``, k = 0..11, and its defaults otherwise (bandwidth 1,
   ``n_stds=3``, offset 0). The grey image is convolved with each complex kernel as
   ``scipy.signal.fftconvolve(grey, kernel, mode="same")`` does (zero padding outside the
   image, output the size of the image); the statistics are the mean and the standard deviation
   (``ddof=0``) of the magnitude ``|response|`` over the image (Manjunath & Ma's texture
   features). Order: for each frequency, for each orientation: mean, std. Under skimage's
   convention the carrier of ``theta = 0`` varies along the columns, so ``theta = 0`` responds
   to vertical stripes. Implementation (the same numbers as fftconvolve up to rounding, ~1e-15):
   the default kernels have an isotropic Gaussian envelope on a square support, so each is the
   outer product of a column and a row factor; one FFT of the zero-padded image per frequency is
   multiplied by the factors' spectra (cached per padded size) and transformed back axis by
   axis, the column pass being shared by ``theta`` and ``pi - theta`` (same vertical factor).
4. **Local binary patterns, 59** (our choice). ``skimage.feature.local_binary_pattern`` with
   P = 8 neighbours, radius R = 1, ``method="nri_uniform"`` (codes 0..57: the 58 uniform
   patterns, rotations distinguished; code 58: every non-uniform pattern), on the 8-bit grey
   image ``round(255 grey)``; a 59-bin histogram divided by the pixel count (sums to 1).
   Neighbours outside the image read as 0.

**Preprocessing** (our choice, parameter ``max_side``): before anything else the image is shrunk
so that its longer side is at most ``max_side`` pixels (default 256) with Pillow's
``Image.thumbnail`` (aspect ratio kept, bicubic resampling with Pillow's default reducing gap,
never enlarged). A uint8 image is resized as an 8-bit Pillow image; a float image channel by
channel as 32-bit float images, clipped back to [0, 1]. An image with a side under 16 pixels
(after shrinking) raises :class:`DataError`.

Each part is a normalised histogram or raw statistics; no weighting between parts, the learners
see the raw concatenation. Layout (``PARTS``): colour [0, 81), edge [81, 118), Gabor [118, 238),
LBP [238, 297).
"""

from __future__ import annotations

import io
from functools import lru_cache

import numpy as np

from tripletbench.optional import require

from .base import DataError
from .bovw import as_image

_PURPOSE = "the global image descriptor"

PARTS = (("color", 81), ("edge", 37), ("gabor", 120), ("lbp", 59))
N_DIMS = 297
# name -> slice of the descriptor holding that part
PART_SLICES = {
    name: slice(start, start + n)
    for (name, n), start in zip(PARTS, np.cumsum([0] + [n for _, n in PARTS[:-1]]).tolist())
}

DEFAULT_MAX_SIDE = 256
MIN_SIDE = 16

HSV_LEVELS = (8, 3, 3)
CANNY_SIGMA = 1.0
EDGE_BINS = 36
GABOR_FREQUENCIES = (0.05, 0.1, 0.2, 0.3, 0.4)
GABOR_N_ORIENTATIONS = 12
GABOR_THETAS = tuple(k * np.pi / GABOR_N_ORIENTATIONS for k in range(GABOR_N_ORIENTATIONS))
LBP_POINTS = 8
LBP_RADIUS = 1
LBP_BINS = LBP_POINTS * (LBP_POINTS - 1) + 3  # 59 codes of method="nri_uniform"


# --------------------------------------------------------------------------- input checks


def _part_input(image, ndim: int, name: str) -> np.ndarray:
    """Validated float64 image in [0, 1] with ``ndim`` dimensions (DataError otherwise)."""
    a = as_image(image)
    if a.ndim != ndim:
        want = "(H, W, 3) RGB" if ndim == 3 else "(H, W) grey"
        raise DataError(f"{name} expects a {want} image, got shape {a.shape}")
    if a.size == 0:
        raise DataError(f"{name} got an empty image of shape {a.shape}")
    return a


# --------------------------------------------------------------------------- the four parts


def _color(rgb: np.ndarray) -> np.ndarray:
    rgb2hsv = require("skimage.color", _PURPOSE).rgb2hsv

    hsv = np.ascontiguousarray(rgb2hsv(rgb).reshape(-1, 3).T)  # (3, n): H, S, V rows
    n = hsv.shape[1]
    lh, ls, lv = HSV_LEVELS
    code = np.zeros(n, dtype=np.int64)
    for row, levels in zip(hsv, HSV_LEVELS):  # bin = (h * ls + s) * lv + v = 9 h + 3 s + v
        code *= levels
        code += np.minimum((row * levels).astype(np.int64), levels - 1)
    hist = np.bincount(code, minlength=lh * ls * lv) / n
    mean = hsv.mean(axis=1, keepdims=True)
    d = hsv - mean
    d2 = d * d
    std = np.sqrt(d2.mean(axis=1))
    skew = np.cbrt((d2 * d).mean(axis=1))
    return np.concatenate([hist, np.column_stack([mean[:, 0], std, skew]).ravel()])


def color_features(rgb) -> np.ndarray:
    """Colour histogram and moments of an RGB image: (81,) float64.

    ``rgb``: (H, W, 3), float in [0, 1] (uint8 is accepted and divided by 255). Returns the 72-bin
    8 x 3 x 3 HSV histogram (bin ``9 h + 3 s + v``, fractions of the pixels, sums to 1) followed by
    the 9 moments H-mean, H-std, H-skew, S-mean, S-std, S-skew, V-mean, V-std, V-skew (HSV values
    in [0, 1]; skew = cube root of the third central moment). Raises :class:`DataError` for
    another shape, an empty image, NaN/inf or values outside [0, 1]. Parameters are our choice
    (see the module docstring); the paper (Wu et al., AAAI 2014, section 'Evaluation on the
    Large-scale Dataset') gives only the length 81.
    """
    return _color(_part_input(rgb, 3, "color_features"))


def _edge(grey: np.ndarray) -> np.ndarray:
    canny = require("skimage.feature", _PURPOSE).canny
    filters = require("skimage.filters", _PURPOSE)
    sobel_h, sobel_v = filters.sobel_h, filters.sobel_v

    edges = canny(grey, sigma=CANNY_SIGMA)
    gx = sobel_v(grey)[edges]
    gy = sobel_h(grey)[edges]
    angle = np.degrees(np.arctan2(gy, gx)) % 360.0
    width = 360.0 / EDGE_BINS
    b = np.minimum((angle // width).astype(np.int64), EDGE_BINS - 1)
    hist = np.bincount(b, minlength=EDGE_BINS + 1).astype(np.float64)
    hist[EDGE_BINS] = grey.size - len(b)
    return hist / grey.size


def edge_features(grey) -> np.ndarray:
    """Edge direction histogram of a grey image: (37,) float64.

    ``grey``: (H, W), float in [0, 1] (uint8 accepted). Bins 0..35: fractions of the pixels that
    are Canny edges (sigma 1) with gradient direction in [10 b, 10 b + 10) degrees (0 = gradient
    towards increasing column, 90 = towards increasing row); bin 36: fraction of non-edge pixels.
    Sums to 1. Raises :class:`DataError` for another shape, an empty image, NaN/inf or values
    outside [0, 1]. Parameters are our choice (module docstring); the paper (Wu et al., AAAI 2014,
    section 'Evaluation on the Large-scale Dataset') gives only the length 37.
    """
    return _edge(_part_input(grey, 2, "edge_features"))


@lru_cache(maxsize=None)
def _gabor_bank() -> tuple:
    """Per frequency: (support half-size, vertical factors (7, ...), group of each orientation,
    horizontal factors (12, ...)), ``kernel == outer(vertical, horizontal)`` (checked to 1e-13).

    Orientation k and 12 - k have the same sin(theta), hence the same vertical factor; the shared
    factor is the one of k <= 6 (checked equal to the other to 1e-13).
    """
    gabor_kernel = require("skimage.filters", _PURPOSE).gabor_kernel

    bank = []
    for f in GABOR_FREQUENCIES:
        cols, rows, half = [], [], 0
        for theta in GABOR_THETAS:
            k = gabor_kernel(f, theta=theta)
            hy, hx = k.shape[0] // 2, k.shape[1] // 2
            row = k[hy, :].copy()  # y = 0
            col = k[:, hx] / k[hy, hx]  # x = 0, normalised so that outer(col, row) == k
            if np.abs(np.outer(col, row) - k).max() > 1e-13 * np.abs(k).max():
                raise RuntimeError(f"Gabor kernel f={f}, theta={theta} is not separable")
            cols.append(col)
            rows.append(row)
            half = max(half, hy, hx)
        n = GABOR_N_ORIENTATIONS
        group = tuple(k if k <= n // 2 else n - k for k in range(n))
        for k in range(n):
            if not np.allclose(cols[k], cols[group[k]], rtol=0, atol=1e-13 * np.abs(cols[k]).max()):
                raise RuntimeError(f"Gabor column factors of f={f} differ for theta, pi - theta")
        shared = tuple(cols[: n // 2 + 1])
        bank.append((half, shared, group, tuple(rows)))
    return tuple(bank)


def _centred_spectrum(factor: np.ndarray, length: int) -> np.ndarray:
    """FFT of a centred odd-length 1-D filter placed with its centre at index 0 (wrap-around)."""
    from scipy.fft import fft

    h = len(factor) // 2
    z = np.zeros(length, dtype=np.complex128)
    z[: h + 1] = factor[h:]
    if h:
        z[length - h :] = factor[:h]
    return fft(z)


@lru_cache(maxsize=256)  # ~90 KB an entry
def _gabor_spectra(fi: int, ph: int, pw: int) -> tuple[np.ndarray, np.ndarray]:
    """Spectra of frequency ``fi``'s factors at padded size (ph, pw): (7, ph) and (12, pw)."""
    _, shared, _, rows = _gabor_bank()[fi]
    sy = np.stack([_centred_spectrum(c, ph) for c in shared])
    sx = np.stack([_centred_spectrum(r, pw) for r in rows])
    return sy, sx


def _gabor_columns(grey: np.ndarray, fi: int) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """Column pass of frequency index ``fi``: (7, H, pw) arrays, (12, pw) row spectra, groups.

    The image is zero-padded to (ph, pw) >= (H + half, W + half), so that circular convolution
    with a kernel centred at index 0 equals the linear ("same") one on the image's H x W pixels.
    ``ifft(columns[group[k]] * row_spectra[k], axis=1)[:, :W]`` is the response to kernel k.
    """
    from scipy.fft import fft2, ifft, next_fast_len

    H, W = grey.shape
    half, _, group, _ = _gabor_bank()[fi]
    ph, pw = next_fast_len(H + half), next_fast_len(W + half)
    sy, sx = _gabor_spectra(fi, ph, pw)
    spec = fft2(grey, s=(ph, pw))
    cols = ifft(spec[None, :, :] * sy[:, :, None], axis=1, overwrite_x=True)[:, :H, :]
    return cols, sx, group


def _gabor_responses(grey: np.ndarray, fi: int):
    """Complex responses (H, W) of ``grey`` to the 12 kernels of frequency index ``fi``, in
    orientation order (a generator). Equal, to rounding, to
    ``scipy.signal.fftconvolve(grey, gabor_kernel(f, theta), mode="same")``.
    """
    from scipy.fft import ifft

    W = grey.shape[1]
    cols, sx, group = _gabor_columns(grey, fi)
    for k in range(GABOR_N_ORIENTATIONS):
        yield ifft(cols[group[k]] * sx[k], axis=1, overwrite_x=True)[:, :W]


def _gabor(grey: np.ndarray) -> np.ndarray:
    feats = np.empty((len(GABOR_FREQUENCIES), GABOR_N_ORIENTATIONS, 2))
    for fi in range(len(GABOR_FREQUENCIES)):
        for k, r in enumerate(_gabor_responses(grey, fi)):
            mag = np.abs(r)
            feats[fi, k, 0] = mag.mean()
            feats[fi, k, 1] = mag.std()
    return feats.ravel()


def gabor_features(grey) -> np.ndarray:
    """Gabor texture features of a grey image: (120,) float64.

    ``grey``: (H, W), float in [0, 1] (uint8 accepted). For each frequency in (0.05, 0.1, 0.2,
    0.3, 0.4) cycles/pixel, for each orientation ``theta = k pi / 12`` (k = 0..11): the mean and
    the standard deviation of ``|fftconvolve(grey, skimage.filters.gabor_kernel(f, theta),
    "same")|`` over the H x W pixels (grey-level units: the kernels sum to about 1 in absolute
    value). Raises :class:`DataError` for another shape, an empty image, NaN/inf or values
    outside [0, 1]. Parameters are our choice (module docstring); the paper (Wu et al., AAAI
    2014, section 'Evaluation on the Large-scale Dataset') gives only the length 120.
    """
    return _gabor(_part_input(grey, 2, "gabor_features"))


def _lbp(grey: np.ndarray) -> np.ndarray:
    local_binary_pattern = require("skimage.feature", _PURPOSE).local_binary_pattern

    g8 = np.round(grey * 255).astype(np.uint8)
    codes = local_binary_pattern(g8, LBP_POINTS, LBP_RADIUS, method="nri_uniform")
    return np.bincount(codes.astype(np.int64).ravel(), minlength=LBP_BINS) / grey.size


def lbp_features(grey) -> np.ndarray:
    """Local-binary-pattern histogram of a grey image: (59,) float64.

    ``grey``: (H, W), float in [0, 1] (uint8 accepted), quantised to ``round(255 grey)``. The
    codes of ``skimage.feature.local_binary_pattern(P=8, R=1, method="nri_uniform")`` (0..58;
    57 = all neighbours >= centre, 58 = non-uniform) counted and divided by the pixel count
    (sums to 1). Raises :class:`DataError` for another shape, an empty image, NaN/inf or values
    outside [0, 1]. Parameters are our choice (module docstring); the paper (Wu et al., AAAI
    2014, section 'Evaluation on the Large-scale Dataset') gives only the length 59.
    """
    return _lbp(_part_input(grey, 2, "lbp_features"))


# --------------------------------------------------------------------------- whole descriptor


def _shrink(image, max_side: int | None) -> np.ndarray:
    """Validated float64 image in [0, 1], longer side shrunk to at most ``max_side`` pixels."""
    Image = require("PIL.Image", _PURPOSE)

    if max_side is not None:
        if isinstance(max_side, bool) or not isinstance(max_side, (int, np.integer)):
            raise ValueError(f"max_side must be an int >= {MIN_SIDE} or None, got {max_side!r}")
        if max_side < MIN_SIDE:
            raise ValueError(f"max_side must be >= {MIN_SIDE}, got {max_side}")
    a = np.asarray(image)
    if a.ndim == 3 and a.shape[2] == 4:
        a = a[:, :, :3]
    H, W = a.shape[:2] if a.ndim >= 2 else (0, 0)
    box = None if max_side is None or max(H, W) <= max_side else (int(max_side), int(max_side))
    if box and a.dtype == np.uint8 and (a.ndim == 2 or (a.ndim == 3 and a.shape[2] == 3)):
        # 8-bit: resize as a Pillow L / RGB image, then validate and convert
        pil = Image.fromarray(np.ascontiguousarray(a))
        pil.thumbnail(box)
        a, box = np.asarray(pil), None
    img = as_image(a)  # DataError for a wrong shape, NaN/inf, floats outside [0, 1]
    if box:  # float image: each channel as a 32-bit float Pillow image
        chans = []
        for c in range(1 if img.ndim == 2 else 3):
            ch = img if img.ndim == 2 else img[:, :, c]
            pil = Image.fromarray(np.ascontiguousarray(ch, dtype=np.float32))
            pil.thumbnail(box)
            chans.append(np.clip(np.asarray(pil, dtype=np.float64), 0.0, 1.0))
        img = chans[0] if img.ndim == 2 else np.stack(chans, axis=2)
    h, w = img.shape[:2]
    if min(h, w) < MIN_SIDE:
        shrunk = f" (shrunk from {H} x {W}, max_side={max_side})" if (h, w) != (H, W) else ""
        raise DataError(
            f"image of {h} x {w} pixels{shrunk} is smaller than {MIN_SIDE} pixels on a side"
        )
    return img


def global_descriptor(image, max_side: int | None = DEFAULT_MAX_SIDE) -> np.ndarray:
    """The 297-dimensional global descriptor of one image: (297,) float64, finite.

    Source: Wu et al., AAAI 2014, section 'Evaluation on the Large-scale Dataset' (parts and
    lengths only; every parameter is our choice, see the module docstring).

    Parameters
    ----------
    image : (H, W) grey or (H, W, 3) RGB array, uint8 or float in [0, 1]; an (H, W, 4) RGBA
        image loses its alpha channel.
    max_side : the image is first shrunk with Pillow's ``Image.thumbnail`` so that its longer
        side is at most ``max_side`` pixels (never enlarged); ``None`` keeps the full size.

    Returns
    -------
    (297,) float64: colour (81), edge (37), Gabor (120), LBP (59) concatenated, unweighted
    (offsets in ``PART_SLICES``).

    Raises
    ------
    DataError
        for a wrong shape, NaN/inf, float values outside [0, 1], or a side under 16 pixels
        (after shrinking).
    ValueError
        for ``max_side`` not an int >= 16 (or None).
    """
    rgb2gray = require("skimage.color", _PURPOSE).rgb2gray

    img = _shrink(image, max_side)
    if img.ndim == 3:
        rgb, grey = img, rgb2gray(img)
    else:
        rgb, grey = np.repeat(img[:, :, None], 3, axis=2), img
    out = np.concatenate([_color(rgb), _edge(grey), _gabor(grey), _lbp(grey)])
    if not np.all(np.isfinite(out)):  # cannot happen for valid input; never return garbage
        raise DataError("the global descriptor is not finite")
    return out


def descriptor_from_bytes(data: bytes, max_side: int | None = DEFAULT_MAX_SIDE) -> np.ndarray:
    """:func:`global_descriptor` of an encoded image (JPEG, PNG, ... anything Pillow reads).

    The bytes are decoded with Pillow and converted to RGB (``Image.convert("RGB")``: grey and
    palette images become three equal or looked-up channels, alpha is dropped), then described as
    a uint8 (H, W, 3) array. Returns (297,) float64. Raises :class:`DataError` naming the problem
    when Pillow cannot decode the bytes (or for an image under 16 pixels on a side).
    """
    Image = require("PIL.Image", _PURPOSE)

    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DataError(f"descriptor_from_bytes expects bytes, got {type(data).__name__}")
    try:
        with Image.open(io.BytesIO(bytes(data))) as im:
            arr = np.asarray(im.convert("RGB"))
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as e:
        raise DataError(f"cannot decode the image ({len(data)} bytes): {e}") from e
    return global_descriptor(arr, max_side=max_side)


def descriptors(images, max_side: int | None = DEFAULT_MAX_SIDE) -> np.ndarray:
    """:func:`global_descriptor` of every image of an iterable: (n, 297) float64.

    Raises :class:`DataError` (naming the image's position) for the first invalid image.
    """
    rows = []
    for i, image in enumerate(images):
        try:
            rows.append(global_descriptor(image, max_side=max_side))
        except DataError as e:
            raise DataError(f"image {i}: {e}") from e
    return np.array(rows, dtype=np.float64).reshape(len(rows), N_DIMS)
