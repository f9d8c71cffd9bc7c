"""Global 297-dim descriptor (tripletbench.datasets.global_descriptor): part layout, each part's math on
hand-computable images, the fast Gabor route against scipy.signal.fftconvolve, shrinking, errors,
and real photographs bundled with scikit-image (astronaut, coffee, chelsea, camera)."""

import io

import numpy as np
import pytest
from PIL import Image
from scipy.signal import fftconvolve
from skimage import data
from skimage.filters import gabor_kernel

import tripletbench.datasets.global_descriptor as gd
from tripletbench.datasets.base import DataError
from tripletbench.datasets.global_descriptor import (
    N_DIMS,
    PART_SLICES,
    PARTS,
    color_features,
    descriptor_from_bytes,
    descriptors,
    edge_features,
    gabor_features,
    global_descriptor,
    lbp_features,
)

PHOTOS = ("astronaut", "coffee", "chelsea", "camera")


@pytest.fixture(scope="module")
def photo_descriptors():
    return {name: global_descriptor(getattr(data, name)()) for name in PHOTOS}


def _png(array) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(array).save(buf, format="PNG")
    return buf.getvalue()


# --------------------------------------------------------------------------- layout, photos


def test_layout():
    assert PARTS == (("color", 81), ("edge", 37), ("gabor", 120), ("lbp", 59))
    assert N_DIMS == 297 == sum(n for _, n in PARTS)
    assert PART_SLICES == {
        "color": slice(0, 81),
        "edge": slice(81, 118),
        "gabor": slice(118, 238),
        "lbp": slice(238, 297),
    }
    g = np.random.default_rng(0).random((40, 50))
    rgb = np.repeat(g[:, :, None], 3, axis=2)
    parts = [color_features(rgb), edge_features(g), gabor_features(g), lbp_features(g)]
    assert [p.shape for p in parts] == [(81,), (37,), (120,), (59,)]
    assert all(p.dtype == np.float64 for p in parts)
    # the descriptor is the plain concatenation of the parts, at the stated offsets
    d = global_descriptor(g)
    for (name, _), p in zip(PARTS, parts):
        np.testing.assert_array_equal(d[PART_SLICES[name]], p)


def test_real_photos(photo_descriptors):
    for name, d in photo_descriptors.items():
        assert d.shape == (297,) and d.dtype == np.float64, name
        assert np.all(np.isfinite(d)), name
        # the three histograms are normalised; the statistics are non-negative where they must be
        assert d[0:72].sum() == pytest.approx(1.0), name
        assert d[PART_SLICES["edge"]].sum() == pytest.approx(1.0), name
        assert d[PART_SLICES["lbp"]].sum() == pytest.approx(1.0), name
        assert np.all(d[0:72] >= 0) and np.all(d[PART_SLICES["gabor"]] >= 0), name
        assert 0 < d[PART_SLICES["edge"]][36] < 1, name  # some, not all, pixels are edges
    names = list(photo_descriptors)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert np.linalg.norm(photo_descriptors[a] - photo_descriptors[b]) > 0.1, (a, b)
    # camera is grey: no hue, no saturation
    cam = photo_descriptors["camera"]
    assert cam[0:3].sum() == pytest.approx(1.0)  # h = 0, s = 0: bins 0..2 only
    np.testing.assert_allclose(cam[72:78], 0.0, atol=1e-12)  # H and S moments


def test_descriptors_stacks_rows(photo_descriptors):
    imgs = [data.astronaut(), data.camera()]
    D = descriptors(iter(imgs))
    assert D.shape == (2, 297) and D.dtype == np.float64
    np.testing.assert_array_equal(D[0], photo_descriptors["astronaut"])
    np.testing.assert_array_equal(D[1], photo_descriptors["camera"])
    assert descriptors([]).shape == (0, 297)
    with pytest.raises(DataError, match="image 1"):
        descriptors([data.camera(), np.zeros((8, 8))])


# --------------------------------------------------------------------------- colour


def _solid(rgb, shape=(20, 30)):
    return np.broadcast_to(np.array(rgb, dtype=np.uint8), shape + (3,)).copy()


def test_color_constant_images():
    # pure red: H = 0, S = 1, V = 1 -> h = 0, s = 2, v = 2 -> bin 9*0 + 3*2 + 2 = 8
    c = color_features(_solid((255, 0, 0)))
    expected = np.zeros(72)
    expected[8] = 1.0
    np.testing.assert_array_equal(c[:72], expected)
    np.testing.assert_allclose(c[72:], [0, 0, 0, 1, 0, 0, 1, 0, 0], atol=1e-12)
    # pure blue: H = 2/3 -> h = floor(8 * 2/3) = 5 -> bin 45 + 8 = 53
    c = color_features(_solid((0, 0, 255)))
    assert c[53] == 1.0
    np.testing.assert_allclose(c[72:], [2 / 3, 0, 0, 1, 0, 0, 1, 0, 0], atol=1e-12)
    # mid grey (float 0.5): H = S = 0, V = 0.5 -> v = 1 -> bin 1
    c = color_features(np.full((16, 16, 3), 0.5))
    assert c[1] == 1.0
    np.testing.assert_allclose(c[72:], [0, 0, 0, 0, 0, 0, 0.5, 0, 0], atol=1e-12)
    # dark orange (255, 128, 0) * 0.25: V = 0.25 -> v = 0; H = (128/255)/6 -> h = 0; S = 1 -> s = 2
    c = color_features(np.full((16, 16, 3), 0.25) * np.array([1.0, 128 / 255, 0.0]))
    assert c[6] == 1.0
    np.testing.assert_allclose(c[72:75], [(128 / 255) / 6, 0, 0], atol=1e-12)


def test_color_moments_two_colours():
    # 3/4 red (H = 0), 1/4 blue (H = 2/3): mean 1/6, var 1/12, third central moment 1/36
    img = _solid((255, 0, 0), (16, 16))
    img[:4] = (0, 0, 255)
    c = color_features(img)
    assert c[8] == pytest.approx(0.75) and c[53] == pytest.approx(0.25)
    assert c[:72].sum() == pytest.approx(1.0)
    np.testing.assert_allclose(
        c[72:], [1 / 6, np.sqrt(1 / 12), np.cbrt(1 / 36), 1, 0, 0, 1, 0, 0], atol=1e-12
    )
    # the mirror case: 1/4 red, 3/4 blue -> negative skew, cube root keeps the sign
    c = color_features(img[::-1, :, ::-1])  # red <-> blue: 1/4 red, 3/4 blue
    assert c[72 + 2] == pytest.approx(-np.cbrt(1 / 36))


def test_grey_image_replicated_to_rgb():
    g = np.random.default_rng(1).random((24, 20))
    d = global_descriptor(g)
    np.testing.assert_array_equal(d[:81], color_features(np.repeat(g[:, :, None], 3, axis=2)))
    # RGBA drops alpha
    rgba = np.dstack([_solid((10, 200, 30), (20, 20)), np.full((20, 20), 7, np.uint8)])
    np.testing.assert_array_equal(global_descriptor(rgba), global_descriptor(rgba[:, :, :3]))


# --------------------------------------------------------------------------- edges


def test_edge_constant_and_steps():
    H = W = 32
    e = edge_features(np.full((H, W), 0.7))
    np.testing.assert_array_equal(e, np.eye(37)[36])
    step = np.zeros((H, W))
    step[:, W // 2 :] = 1.0  # dark left, bright right: gradient along +columns -> 0 degrees
    e = edge_features(step)
    assert e.sum() == pytest.approx(1.0)
    n_edge = 1.0 - e[36]
    assert n_edge > 0
    assert e[0] == pytest.approx(n_edge)  # all edge mass in the 0-10 degree bin
    e = edge_features(step[:, ::-1].copy())  # bright left: 180 degrees
    assert e[18] == pytest.approx(1.0 - e[36]) and e[36] < 1
    e = edge_features(step.T.copy())  # dark top, bright bottom: towards +rows = 90 degrees
    assert e[9] == pytest.approx(1.0 - e[36]) and e[36] < 1
    # a diagonal step: gradient towards +rows and +columns, 45 degrees (bin 4)
    y, x = np.mgrid[:H, :W]
    e = edge_features((x + y > W).astype(float))
    assert e[4] == pytest.approx(1.0 - e[36]) and e[36] < 1


# --------------------------------------------------------------------------- Gabor


def test_gabor_equals_direct_fftconvolve():
    g = np.random.default_rng(2).random((37, 29))
    direct = []
    for fi, f in enumerate(gd.GABOR_FREQUENCIES):
        responses = list(gd._gabor_responses(g, fi))
        assert len(responses) == 12
        for k, theta in enumerate(gd.GABOR_THETAS):
            ref = fftconvolve(g, gabor_kernel(f, theta=theta), mode="same")
            np.testing.assert_allclose(responses[k], ref, rtol=0, atol=1e-10)
            direct += [np.abs(ref).mean(), np.abs(ref).std()]
    np.testing.assert_allclose(gabor_features(g), direct, rtol=0, atol=1e-10)
    assert gd.GABOR_THETAS[3] == pytest.approx(np.pi / 4)


def test_gabor_constant_images():
    assert np.all(gabor_features(np.zeros((32, 32))) == 0)
    ones = gabor_features(np.ones((48, 48)))
    # magnitudes are homogeneous: a constant c gives c times the response to ones
    np.testing.assert_allclose(gabor_features(np.full((48, 48), 0.3)), 0.3 * ones, atol=1e-14)
    # a square constant image is symmetric under flips: orientation k and 12 - k agree
    f = ones.reshape(5, 12, 2)
    np.testing.assert_allclose(f[:, 1:], f[:, 1:][:, ::-1], atol=1e-12)
    # away from the border (zero padding), |response| = c |sum of the kernel| (nearly 0: the
    # kernels are almost zero-mean); near the border it is not, so the std is not 0
    c = 0.6
    img = np.full((96, 96), c)
    for fi, f_ in enumerate(gd.GABOR_FREQUENCIES):
        for k, r in enumerate(gd._gabor_responses(img, fi)):
            kern = gabor_kernel(f_, theta=gd.GABOR_THETAS[k])
            hy, hx = kern.shape[0] // 2, kern.shape[1] // 2
            inner = np.abs(r[hy:-hy, hx:-hx])
            np.testing.assert_allclose(inner, c * abs(kern.sum()), rtol=1e-9, atol=1e-13)
            assert c * abs(kern.sum()) < 0.003 * c
    assert np.all(f[:, :, 1] > 0)


def test_gabor_stripes_select_frequency_and_orientation():
    x = np.arange(64)
    vertical = np.tile(0.5 + 0.5 * np.cos(2 * np.pi * 0.2 * x), (64, 1))  # varies along columns
    means = gabor_features(vertical).reshape(5, 12, 2)[:, :, 0]
    # skimage's carrier for theta = 0 runs along the columns (x): theta = 0 sees vertical stripes
    assert np.unravel_index(means.argmax(), means.shape) == (2, 0)  # f = 0.2, theta = 0
    assert means[2, 0] == pytest.approx(0.25, abs=0.03)  # 0.5 cos -> one exponential of 0.25
    assert means[2, 6] < 0.1 * means[2, 0]
    means = gabor_features(vertical.T.copy()).reshape(5, 12, 2)[:, :, 0]  # horizontal stripes
    assert np.unravel_index(means.argmax(), means.shape) == (2, 6)  # theta = pi / 2


# --------------------------------------------------------------------------- LBP


def test_lbp():
    # constant black: every neighbour (inside, or outside read as 0) >= centre -> code 57
    np.testing.assert_array_equal(lbp_features(np.zeros((20, 20))), np.eye(59)[57])
    # constant grey: interior pixels code 57; border pixels see zeros outside the image
    h = lbp_features(np.full((20, 20), 0.5))
    assert h[57] == pytest.approx(18 * 18 / 400)
    assert h.sum() == pytest.approx(1.0)
    # an isolated bright pixel on black: the pixel itself has no neighbour >= it (code 0)
    img = np.zeros((20, 20))
    img[10, 10] = 1.0
    assert lbp_features(img)[0] == pytest.approx(1 / 400)
    h = lbp_features(data.camera())
    assert h.sum() == pytest.approx(1.0) and h[58] > 0  # some non-uniform patterns


# --------------------------------------------------------------------------- shrinking


@pytest.mark.slow
def test_max_side_shrinks_with_thumbnail(monkeypatch):
    big = np.asarray(Image.fromarray(data.chelsea()).resize((600, 1000)))  # (1000, 600, 3)
    assert big.shape == (1000, 600, 3)
    shapes = []
    real_color = gd._color

    def spy(rgb):
        shapes.append(rgb.shape)
        return real_color(rgb)

    monkeypatch.setattr(gd, "_color", spy)
    d = global_descriptor(big)
    assert shapes[-1][:2] == (256, 154)  # longer side 256, aspect kept (Pillow rounding)
    pil = Image.fromarray(big)
    pil.thumbnail((256, 256))
    np.testing.assert_array_equal(d, global_descriptor(np.asarray(pil), max_side=None))
    # a float image is resized channel by channel to the same size
    global_descriptor(big / 255.0)
    assert shapes[-1][:2] == (256, 154)
    global_descriptor(big, max_side=100)
    assert max(shapes[-1][:2]) == 100
    # never enlarged; None keeps the full size
    global_descriptor(big[:100, :80])
    assert shapes[-1][:2] == (100, 80)
    global_descriptor(big, max_side=None)
    assert shapes[-1][:2] == (1000, 600)


# --------------------------------------------------------------------------- errors, bytes


def test_errors():
    with pytest.raises(DataError, match="smaller than 16 pixels"):
        global_descriptor(np.zeros((10, 10), np.uint8))
    with pytest.raises(DataError, match="smaller than 16 pixels"):
        global_descriptor(np.zeros((2000, 40), np.uint8))  # 256 x 5 after shrinking
    nan = np.full((32, 32), 0.5)
    nan[3, 4] = np.nan
    with pytest.raises(DataError, match="NaN"):
        global_descriptor(nan)
    with pytest.raises(DataError, match="NaN"):
        global_descriptor(np.full((300, 300), np.inf))
    with pytest.raises(DataError, match="shape"):
        global_descriptor(np.zeros((32, 32, 5)))
    with pytest.raises(DataError, match="shape"):
        global_descriptor(np.zeros((300, 32, 5), np.uint8))
    with pytest.raises(DataError, match=r"\[0, 1\]"):
        global_descriptor(np.full((32, 32), 1.5))
    with pytest.raises(DataError, match="grey"):
        edge_features(np.zeros((32, 32, 3)))
    with pytest.raises(DataError, match="RGB"):
        color_features(np.zeros((32, 32)))
    with pytest.raises(ValueError, match="max_side"):
        global_descriptor(np.zeros((32, 32)), max_side=8)
    with pytest.raises(DataError, match="cannot decode"):
        descriptor_from_bytes(b"definitely not an image")
    with pytest.raises(DataError, match="cannot decode"):
        descriptor_from_bytes(_png(data.camera())[:500])  # truncated PNG


def test_descriptor_from_bytes(photo_descriptors):
    chelsea = data.chelsea()
    np.testing.assert_array_equal(
        descriptor_from_bytes(_png(chelsea)), photo_descriptors["chelsea"]
    )
    np.testing.assert_array_equal(
        descriptor_from_bytes(_png(chelsea), max_side=64), global_descriptor(chelsea, max_side=64)
    )
    # a JPEG decodes (lossy: close to, not equal to, the array's descriptor)
    buf = io.BytesIO()
    Image.fromarray(data.coffee()).save(buf, format="JPEG", quality=95)
    d = descriptor_from_bytes(buf.getvalue())
    assert d.shape == (297,) and np.all(np.isfinite(d))
    assert np.linalg.norm(d - photo_descriptors["coffee"]) < 0.1
