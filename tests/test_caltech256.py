"""Caltech-256 route (tripletbench.datasets.caltech256): md5-pinned download through a loopback server, safe
extraction (members leaving the folder are refused before anything is written), listing without
the clutter class, small images skipped, nested class subsets, the 40 + 25 per-class selection,
and features of a tiny image folder made here."""

import dataclasses
import functools
import hashlib
import http.server
import io
import tarfile
import threading

import numpy as np
import pytest
from PIL import Image

from tripletbench.datasets.base import ChecksumError, DataError, RemoteFile
from tripletbench.datasets.caltech256 import (
    SPEC,
    LazyImages,
    choose_classes,
    fetch_images,
    image_features,
    image_set,
    image_side,
    list_images,
    load_image,
    safe_extract,
    select_split,
)


def make_folder(root, classes=("001.ak47", "002.bear", "003.cake"), n=6, small=1, seed=0):
    """Class folders of JPEGs (class-coloured noise, 40 x 52) plus ``small`` 12 x 12 images each,
    and a clutter folder."""
    gen = np.random.default_rng(seed)
    top = root / "256_ObjectCategories"
    for k, c in enumerate([*classes, "257.clutter"]):
        (top / c).mkdir(parents=True)
        colour = np.array([(k * 80) % 256, (k * 150) % 256, (k * 40 + 60) % 256])
        for i in range(n + small):
            side = (40, 52) if i < n else (12, 12)
            img = np.clip(colour + gen.normal(0, 30, (*side, 3)), 0, 255).astype(np.uint8)
            Image.fromarray(img).save(top / c / f"{c[:3]}_{i:04d}.jpg")
    return top


def make_tar(path, folder):
    with tarfile.open(path, "w") as tf:
        tf.add(folder, arcname=folder.name)
    return path


def test_image_set_names():
    assert image_set("caltech256_50") == image_set("caltech256_50")
    s = image_set("caltech256_20")
    assert (s.source, s.features, s.n_classes) == ("caltech256", "bovw", 20)
    assert not s.has_route("embedded") and s.has_route("download")
    assert image_set("fashion_mnist_pixels").has_route("embedded")
    for bad in ("caltech256_1", "caltech256_300", "mnist_bovw", "caltech256"):
        with pytest.raises(DataError, match="unknown image set"):
            image_set(bad)


def test_pinned_hash_is_torchvisions_md5():
    (rf,) = SPEC.download
    assert rf.known_hash == "md5:67b4f42ca05d46448c6bb8ecd2220f6d"
    assert rf.fname == "256_ObjectCategories.tar"


def _evil_tar(path, kind):
    with tarfile.open(path, "w") as tf:
        data = b"x"
        if kind == "dotdot":
            info = tarfile.TarInfo("256_ObjectCategories/../../evil.txt")
        elif kind == "absolute":
            info = tarfile.TarInfo("/tmp/evil_caltech_test.txt")
        else:
            info = tarfile.TarInfo("256_ObjectCategories/link")
            info.type = tarfile.SYMTYPE
            info.linkname = "/etc/passwd"
            data = b""
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink"])
def test_unsafe_archives_are_refused_and_nothing_is_written(tmp_path, kind):
    tar = _evil_tar(tmp_path / "evil.tar", kind)
    dest = tmp_path / "cache" / "extracted"
    with pytest.raises(DataError, match="unsafe archive member"):
        safe_extract(tar, dest)
    assert not dest.exists()
    assert not (tmp_path / "evil.txt").exists()
    assert list((tmp_path / "cache").iterdir()) == []  # the temporary folder is removed


def _serve(folder):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_download_checks_md5_then_extracts_once(tmp_path):
    top = make_folder(tmp_path / "src", n=2, small=0)
    served = tmp_path / "served"
    served.mkdir()
    tar = make_tar(served / "256_ObjectCategories.tar", top)
    md5 = hashlib.md5(tar.read_bytes()).hexdigest()
    server = _serve(served)
    url = f"http://127.0.0.1:{server.server_address[1]}/256_ObjectCategories.tar"
    try:
        bad = dataclasses.replace(SPEC, download=(RemoteFile(url, "md5:" + "0" * 32, tar.name),))
        with pytest.raises(ChecksumError):
            fetch_images(tmp_path / "cache_bad", spec=bad)
        assert not (tmp_path / "cache_bad/download/caltech256/extracted").exists()
        good = dataclasses.replace(SPEC, download=(RemoteFile(url, f"md5:{md5}", tar.name),))
        root = fetch_images(tmp_path / "cache", spec=good)
    finally:
        server.shutdown()
    assert root == tmp_path / "cache/download/caltech256/extracted/256_ObjectCategories"
    paths, names = list_images(root)
    assert len(paths) == 6 and set(names) == {"001.ak47", "002.bear", "003.cake"}  # no clutter
    # a second call reuses the extracted folder (the server is gone)
    assert fetch_images(tmp_path / "cache", spec=good) == root


def test_small_images_sides_and_loading(tmp_path):
    top = make_folder(tmp_path, n=1, small=1)
    paths, _names = list_images(top)
    sides = sorted(image_side(p) for p in paths)
    assert sides == [12, 12, 12, 40, 40, 40]
    img = load_image(paths[0], max_side=26)
    assert img.dtype == np.uint8 and img.shape == (20, 26, 3)  # aspect ratio kept


def test_class_subsets_are_nested_and_fixed():
    names = np.array([f"{i:03d}.c{i}" for i in range(1, 257)])
    c10, c20, c50 = (choose_classes(names, k) for k in (10, 20, 50))
    assert len(set(c50)) == 50 and set(c10) <= set(c20) <= set(c50)
    np.testing.assert_array_equal(c10, choose_classes(names, 10))
    with pytest.raises(DataError, match="only 256"):
        choose_classes(names, 257)


def test_per_class_selection_and_validation_split():
    y = np.repeat(np.arange(4), [70, 80, 66, 90])
    s = select_split(y, 40, 25, seed=3)
    ys = y[s["selected"]]
    assert np.all(np.bincount(ys[s["train"]]) == 40) and np.all(np.bincount(ys[s["test"]]) == 25)
    assert not set(s["train"]) & set(s["test"])
    assert sorted([*s["fit"], *s["val"]]) == sorted(s["train"])
    assert np.all(np.bincount(ys[s["val"]]) == 8)  # 20% of 40
    np.testing.assert_array_equal(s["selected"], select_split(y, 40, 25, seed=3)["selected"])
    assert not np.array_equal(s["selected"], select_split(y, 40, 25, seed=4)["selected"])
    with pytest.raises(DataError, match="class 2 has 66 usable images"):
        select_split(y, 40, 30, seed=0)


def test_features_of_a_tiny_folder(tmp_path):
    top = make_folder(tmp_path, n=6, small=1)
    paths, names = list_images(top)
    keep = np.array([image_side(p) >= 32 for p in paths])  # the small images are skipped
    paths = [p for p, k in zip(paths, keep) if k]
    _classes, y = np.unique(names[keep], return_inverse=True)
    cfg = {
        "n_train_per_class": 4,
        "n_test_per_class": 2,
        "bovw": {"caltech256": {"n_words": 8, "block_size": 16, "stride": 8, "color_levels": 2}},
    }
    X, ys, _sel, split, info = image_features(
        image_set("caltech256_3"), LazyImages(paths, 64), y, 0, cfg, log=lambda *a: None
    )
    assert X.shape == (18, 8) and X.nnz > 0 and len(ys) == 18
    assert info["blocks_per_image"] == 4 * 5  # 40 x 52: 4 x 5 blocks of 16 at stride 8
    assert 0 < info["mean_nnz"] <= 8 and info["descriptor_s_per_image"] > 0
    # the classes are colour-coded: nearest training image (cosine) is mostly of the same class
    S = (X[split["test"]] @ X[split["train"]].T).toarray()
    hit = ys[split["train"]][S.argmax(1)] == ys[split["test"]]
    assert hit.mean() >= 0.8
