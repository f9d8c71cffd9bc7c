import functools
import gzip
import hashlib
import http.server
import os
import shutil
import subprocess
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import datasets
from datasets.base import (
    ChecksumError,
    DataError,
    DatasetSpec,
    DataUnavailable,
    EmbeddedFile,
    RemoteFile,
    fetch_download,
    fetch_embedded,
    load,
)
from datasets.preprocess import check_features, make_split, minmax_scale, rng, split_per_class

ROOT = Path(__file__).resolve().parents[1]


def test_unknown_dataset_is_named():
    with pytest.raises(DataError, match="unknown dataset 'vehicel'.*vehicle"):
        datasets.get_dataset("vehicel")


def test_nan_features_are_reported_with_position():
    X = np.ones((4, 3))
    X[2, 1] = np.nan
    with pytest.raises(DataError, match="1 NaN/inf feature values.*row 2, column 1"):
        check_features(X, "toy")


def test_minmax_scaling_like_svm_scale():
    X = np.array([[0.0, 5.0, 2.0], [10.0, 5.0, 4.0], [5.0, 5.0, 3.0]])
    S = minmax_scale(X)
    np.testing.assert_allclose(S, [[-1, 0, -1], [1, 0, 1], [0, 0, 0]])


def test_split_is_per_class_disjoint_and_seeded():
    y = np.repeat(np.arange(3), [10, 20, 7])
    s = make_split(y, seed=4)
    assert set(s["train"]).isdisjoint(s["test"])
    assert len(s["train"]) + len(s["test"]) == len(y)
    for c, n in zip(range(3), [10, 20, 7]):
        assert np.sum(y[s["train"]] == c) == round(0.7 * n)
    assert set(s["fit"]) | set(s["val"]) == set(s["train"])
    np.testing.assert_array_equal(s["test"], make_split(y, seed=4)["test"])
    assert not np.array_equal(s["test"], make_split(y, seed=5)["test"])


def test_class_with_one_sample_is_a_clear_error():
    with pytest.raises(DataError, match="class 2 has 1 sample"):
        split_per_class(np.array([0, 0, 1, 1, 2]), 0.7, rng(0, "split"))


def _serve(folder):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _toy_spec(url, sha):
    return DatasetSpec(
        name="toy",
        description="toy",
        paper_shape=(3, 2, 2),
        download=(RemoteFile(url, sha, "toy.svm"),),
        parse_download=lambda p: datasets.base.load_libsvm(p, 2),
        scale_download=False,
    )


def test_download_verifies_checksum_and_rejects_a_truncated_file(tmp_path):
    content = b"1 1:0.5 2:-1\n2 1:1 2:0.25\n1 1:-1 2:1\n"
    sha = hashlib.sha256(content).hexdigest()
    served = tmp_path / "served"
    served.mkdir()
    (served / "good.svm").write_bytes(content)
    (served / "bad.svm").write_bytes(content[:-9])  # truncated
    server = _serve(served)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        cache = tmp_path / "cache"
        with pytest.raises(ChecksumError, match="checksum mismatch"):
            fetch_download(_toy_spec(base + "bad.svm", f"sha256:{sha}"), cache)
        assert not (cache / "download" / "toy" / "toy.svm").exists()  # nothing bad kept
        d = load(_toy_spec(base + "good.svm", f"sha256:{sha}"), "download", cache)
        np.testing.assert_allclose(d["X"], [[0.5, -1], [1, 0.25], [-1, 1]])
        assert d["files"] == {"toy.svm": sha}
        with pytest.raises(DataUnavailable, match="no pinned hash"):
            fetch_download(_toy_spec(base + "good.svm", None), tmp_path / "other")
    finally:
        server.shutdown()


def test_embedded_copy_with_wrong_checksum_is_rejected(tmp_path):
    spec = DatasetSpec(
        name="toy",
        description="toy",
        paper_shape=(1, 1, 1),
        download=(),
        parse_download=None,
        scale_download=False,
        embedded=(EmbeddedFile("some-package", "usr/share/x.txt", "0" * 64),),
    )
    target = tmp_path / "embedded" / "some-package" / "usr/share/x.txt"
    target.parent.mkdir(parents=True)
    target.write_text("tampered")
    with pytest.raises(ChecksumError, match="expected sha256 0000") as err:
        fetch_embedded(spec, tmp_path)
    # issue 22: a corrupt cached copy says how to recover
    assert f"delete {target} and rerun" in str(err.value) and "some-package" in str(err.value)


def test_dataset_without_embedded_copy_says_needs_download(tmp_path):
    spec = datasets.get_dataset("svmguide4")
    assert not spec.has_route("embedded")
    with pytest.raises(DataUnavailable, match="needs a download"):
        load(spec, "embedded", tmp_path)


@pytest.mark.skipif(shutil.which("apt-get") is None, reason="the embedded route needs Debian's apt")
@pytest.mark.parametrize("name", ["vehicle", "vowel", "segment", "letter", "fashion_mnist", "glass"])
def test_embedded_copies_match_the_papers_table(name):
    spec = datasets.get_dataset(name)
    d = load(spec, "embedded", ROOT / "data_cache")
    n, dim, k = spec.paper_shape
    assert d["X"].shape == (n, dim) and len(d["classes"]) == k
    X = d["X"][:528] if name == "vowel" else d["X"]  # vowel: scaled on its 528 training rows
    lo = 0.0 if name == "fashion_mnist" else -1.0  # LIBSVM sets: [-1, 1]; images: [0, 1]
    assert X.min() == lo and X.max() == 1.0


def test_paper_reference_is_the_shared_copy():
    shared = ROOT.parent / "shared/reference/paper_results.csv"
    if not shared.exists():
        pytest.skip("../shared is not beside this checkout")
    pd.testing.assert_frame_equal(
        pd.read_csv(shared), pd.read_csv(ROOT / "config/paper_results.csv")
    )


# --- issue 37, rule 10: no raw traceback without a remedy --------------------------------------


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="the embedded route needs dpkg-deb")
def test_a_corrupt_deb_names_the_package_and_the_remedy(tmp_path, monkeypatch):
    """dpkg-deb's CalledProcessError came out raw; now a DataError names the .deb and says
    rerun (downloaded again), then apt-get clean / update."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "apt-get"  # 'apt-get download' that fetches a truncated package
    fake.write_text('#!/bin/sh\nprintf "!<arch>\\ndebian-binary" > "$2_1.0_all.deb"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    spec = DatasetSpec(
        name="toy",
        description="toy",
        paper_shape=(1, 1, 1),
        embedded=(EmbeddedFile("some-package", "usr/share/x.txt", "0" * 64),),
    )
    with pytest.raises(DataError) as err:
        fetch_embedded(spec, tmp_path / "cache")
    message = str(err.value)
    assert "some-package_1.0_all.deb" in message and "dpkg-deb -x" in message
    assert "rerun" in message and "apt-get clean" in message
    assert not isinstance(err.value.__cause__, subprocess.CalledProcessError)
    assert not (tmp_path / "cache" / "embedded" / "some-package" / "usr/share/x.txt").exists()


@pytest.mark.parametrize(
    "content", [b"", b"not an archive at all", gzip.compress(b"x" * 5000)[:40]]
)
def test_a_corrupt_archive_or_compressed_file_is_named_with_the_remedy(tmp_path, content):
    """tarfile.ReadError, zipfile.BadZipFile, gzip's EOFError / BadGzipFile came out raw from
    the readers; each now names the file and says delete and rerun."""
    from datasets.caltech256 import safe_extract
    from datasets.imageclef_flickr import concept_lists
    from datasets.vowel import SPEC as VOWEL
    from datasets.webkb import parse_archive

    bad = tmp_path / "bad.archive"
    bad.write_bytes(content)
    for read in (
        lambda: safe_extract(bad, tmp_path / "out"),  # Caltech-256's tar
        lambda: parse_archive(bad),  # WebKB's tar.gz
        lambda: concept_lists(bad),  # MIRFLICKR's annotations zip
    ):
        with pytest.raises(DataError, match="Delete it and rerun") as err:
            read()
        assert str(bad) in str(err.value)
    assert not (tmp_path / "out").exists()
    # a parser of the tabular route (vowel's gzip'd table), through load()
    spec = DatasetSpec(
        name="toy",
        description="toy",
        paper_shape=(1, 1, 1),
        embedded=(EmbeddedFile("pkg", "x.gz", hashlib.sha256(content).hexdigest()),),
        parse_embedded=VOWEL.parse_embedded,
    )
    target = tmp_path / "cache" / "embedded" / "pkg" / "x.gz"
    target.parent.mkdir(parents=True)
    target.write_bytes(content)
    if content:  # an empty file parses as an empty table: refused by the shape check
        with pytest.raises(DataError, match="Delete it and rerun") as err:
            load(spec, "embedded", tmp_path / "cache")
        assert str(target) in str(err.value)


@pytest.mark.parametrize("content", ["", "dataset,algorithm,mean,std,route\n", "\x00\xff,\n"])
def test_an_empty_or_unreadable_table_or_benchmark_file_is_named(tmp_path, content):
    """pandas' EmptyDataError came out raw from the readers of other jobs' tables (the route
    comparison, the report's pages, the captions) and benchmark files."""
    from harness.io import ResultFileError, read_csv_named
    from harness.table_rows import benchmark_values

    table = tmp_path / "table.csv"
    table.write_text(content)
    with pytest.raises(ResultFileError, match="snakemake --forcerun") as err:
        read_csv_named(table, "other route's table")
    assert str(table) in str(err.value)
    bench = tmp_path / "vehicle_seed0_OASIS.tsv"
    bench.write_text(content)
    with pytest.raises(ResultFileError, match="benchmark file"):
        benchmark_values([bench])
    with pytest.raises(ResultFileError, match="does not exist"):
        read_csv_named(tmp_path / "missing.csv")


def test_a_mirror_file_that_is_a_symlink_is_refused_and_nothing_is_cached(tmp_path):
    """issue 37 (rules 5 and 10): shutil.copyfile followed a mirror's link to /etc/passwd, cached
    it as verified, and the parser then failed with a raw tarfile.ReadError; a link is refused by
    name with the remedy, even when its target would match the pin."""
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n")
    mirror = tmp_path / "mirror"
    (mirror / "toy").mkdir(parents=True)
    (mirror / "toy" / "x.txt").symlink_to(secret)
    pin = f"sha256:{hashlib.sha256(secret.read_bytes()).hexdigest()}"
    spec = DatasetSpec(
        name="toy",
        description="toy",
        paper_shape=(1, 1, 1),
        download=(RemoteFile("https://example.org/x.txt", pin, "x.txt", source="toy"),),
    )
    with pytest.raises(DataUnavailable, match="symbolic link") as err:
        fetch_download(spec, tmp_path / "cache", mirror=str(mirror))
    assert str(mirror / "toy" / "x.txt") in str(err.value) and "rerun" in str(err.value)
    assert not (tmp_path / "cache" / "download" / "toy" / "x.txt").exists()
