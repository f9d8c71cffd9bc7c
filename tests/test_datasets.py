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

from tripletbench import datasets
from tripletbench.datasets.base import (
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
from tripletbench.datasets.preprocess import check_features, make_split, minmax_scale, rng, split_per_class

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
        shape=(3, 2, 2),
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
        shape=(1, 1, 1),
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
    # a corrupt cached copy says how to recover
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
    n, dim, k = spec.shape
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


# --- no raw traceback without a remedy ---------------------------------------------------------


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
        shape=(1, 1, 1),
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
    from tripletbench.datasets.caltech256 import safe_extract
    from tripletbench.datasets.imageclef_flickr import concept_lists
    from tripletbench.datasets.vowel import SPEC as VOWEL
    from tripletbench.datasets.webkb import parse_archive

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
        shape=(1, 1, 1),
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
    comparison, the report's pages, the captions) and benchmark files (no table reads Snakemake's
    benchmark files: the runtime table reads each cell's own job_cpu_s)."""
    from tripletbench.harness.io import ResultFileError, read_csv_named

    table = tmp_path / "table.csv"
    table.write_text(content)
    with pytest.raises(ResultFileError, match="snakemake --forcerun") as err:
        read_csv_named(table, "other route's table")
    assert str(table) in str(err.value)
    with pytest.raises(ResultFileError, match="does not exist"):
        read_csv_named(tmp_path / "missing.csv")
    # the report reads tables that may hold no row on purpose (a sweep 'not run' offline): a
    # header alone is then a table, a file without a header or unreadable is still refused
    if content.startswith("dataset"):
        assert read_csv_named(table, allow_no_rows=True).columns[0] == "dataset"
    elif not content:
        with pytest.raises(ResultFileError, match="is empty"):
            read_csv_named(table, allow_no_rows=True)


def test_a_mirror_file_that_is_a_symlink_is_refused_and_nothing_is_cached(tmp_path):
    """shutil.copyfile followed a mirror's link to /etc/passwd, cached
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
        shape=(1, 1, 1),
        download=(RemoteFile("https://example.org/x.txt", pin, "x.txt", source="toy"),),
    )
    with pytest.raises(DataUnavailable, match="symbolic link") as err:
        fetch_download(spec, tmp_path / "cache", mirror=str(mirror))
    assert str(mirror / "toy" / "x.txt") in str(err.value) and "rerun" in str(err.value)
    assert not (tmp_path / "cache" / "download" / "toy" / "x.txt").exists()


# --- a mirror cannot vouch for what no publisher pinned -----------------------------------------


def _fake_webkb(path: Path, pages: int = 3, text: bytes = b"fake page") -> str:
    """A small WebKB-shaped .tar.gz at ``path``; returns its sha256."""
    import io
    import tarfile

    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as tar:
        for i in range(pages):
            data = b"Content-type: text/html\n\n<html>" + text + b"</html>"
            info = tarfile.TarInfo(f"webkb/faculty/cornell/page{i}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _mirror_with(folder: Path, rel: str, sha: str) -> str:
    (folder / "SHA256SUMS").write_text(f"{sha}  {rel}\n")
    return str(folder)


def test_a_mirrors_own_list_cannot_vouch_for_an_unpinned_file(tmp_path):
    """A data.mirror in a config file let the mirror's SHA256SUMS accept 640
    fake WebKB pages. A file no publisher pinned is accepted from a mirror only with the copy's
    measured sha256 pinned in our code (datasets/webkb.py, svmguide4.py) or under the
    command-line opt-in; the mirror's list then checks the transfer, and the record says so."""
    from tripletbench.datasets import svmguide4, webkb

    fake = tmp_path / "fake"
    sha = _fake_webkb(fake / "webkb" / "webkb-data.gtar.gz")
    mirror = _mirror_with(fake, "webkb/webkb-data.gtar.gz", sha)
    with pytest.raises(ChecksumError, match="webkb"):  # not the copy our code pins
        fetch_download(webkb.SPEC, tmp_path / "c1", mirror=mirror)
    assert not (tmp_path / "c1" / "download" / "webkb" / "webkb-data.gtar.gz").exists()
    unpinned = webkb.make_spec(mirror_hash=None)  # a file with no pin of ours at all
    with pytest.raises(DataUnavailable, match="cannot vouch for it.*allow_unpinned_downloads"):
        fetch_download(unpinned, tmp_path / "c1", mirror=mirror)
    (path,) = fetch_download(unpinned, tmp_path / "c1", allow_unpinned=True, mirror=mirror)
    record = path.with_name(path.name + ".source").read_text()
    assert record.startswith(sha) and "allow_unpinned_downloads" in record
    assert "SHA256SUMS" in record
    # svmguide4 likewise: a made-up copy listed by its mirror is refused without the opt-in
    (fake / "libsvm").mkdir()
    for name in ("svmguide4", "svmguide4.t"):
        (fake / "libsvm" / name).write_text("1 1:0.5\n2 1:0.25\n")
    listed = hashlib.sha256(b"1 1:0.5\n2 1:0.25\n").hexdigest()
    (fake / "SHA256SUMS").write_text(f"{listed}  libsvm/svmguide4\n{listed}  libsvm/svmguide4.t\n")
    with pytest.raises(ChecksumError, match="svmguide4"):
        fetch_download(svmguide4.SPEC, tmp_path / "c2", mirror=mirror)
    # every file without a publisher pin: only a measured mirror pin or the opt-in can take it
    for spec in datasets.ALL_SPECS.values():
        for rf in spec.download:
            if rf.known_hash is None and rf.mirror_hash is not None:
                assert rf.mirror_hash.startswith("sha256:"), (spec.name, rf.fname)


def test_an_unpinned_cached_file_is_fetched_again_from_another_mirror(tmp_path):
    """Once cached, an unpinned file was reused whatever mirror a later run
    named. Now it is reused only under the opt-in and from the URL its record names; from another
    mirror it is fetched again; without the opt-in only a pinned copy is used, and the fake one in
    the cache is replaced by the pinned one (switching to the real mirror reruns)."""
    from tripletbench.datasets import webkb

    a, b = tmp_path / "a", tmp_path / "b"
    sha_a = _fake_webkb(a / "webkb" / "webkb-data.gtar.gz", text=b"from a")
    sha_b = _fake_webkb(b / "webkb" / "webkb-data.gtar.gz", text=b"from b")
    _mirror_with(a, "webkb/webkb-data.gtar.gz", sha_a)
    _mirror_with(b, "webkb/webkb-data.gtar.gz", sha_b)
    cache = tmp_path / "cache"
    spec = webkb.make_spec(mirror_hash=None)
    (path,) = fetch_download(spec, cache, True, mirror=str(a))
    assert hashlib.sha256(path.read_bytes()).hexdigest() == sha_a
    (path,) = fetch_download(spec, cache, True, mirror=str(b))  # another mirror: fetched again
    assert hashlib.sha256(path.read_bytes()).hexdigest() == sha_b
    assert f"from {b}/webkb" in path.with_name(path.name + ".source").read_text()
    with pytest.raises(DataUnavailable, match="allow_unpinned_downloads"):
        fetch_download(spec, cache, mirror=str(b))  # the cached copy needs the opt-in too
    # a mirror whose copy our code pins (as the real mirror's is): the fake cached copy goes
    pinned = webkb.make_spec(mirror_hash=f"sha256:{sha_a}")
    (path,) = fetch_download(pinned, cache, mirror=str(a))
    assert hashlib.sha256(path.read_bytes()).hexdigest() == sha_a
    record = path.with_name(path.name + ".source").read_text()
    assert "pinned by its measured sha256" in record
    # and that pinned copy is reused offline, whatever mirror is named (the bytes are pinned)
    assert fetch_download(pinned, cache) == [path]
    # the workflow's fetching rules carry where unpinned files come from in a param
    rules = "".join(p.read_text() for p in (ROOT / "workflow" / "rules").rglob("*.smk"))
    assert 'allow_unpinned=config["data"]' not in rules and "allow_unpinned=UNPINNED_FROM" in rules


def test_a_mirror_folder_linked_out_of_the_mirror_is_refused(tmp_path):
    """A link anywhere on a mirror file's path (a folder above it, not only the
    file) that leads out of the mirror is refused by name; nothing is copied into the cache."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.txt").write_text("root:x:0:0:root:/root:/bin/bash\n")
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "toy").symlink_to(outside, target_is_directory=True)
    pin = f"sha256:{hashlib.sha256((outside / 'x.txt').read_bytes()).hexdigest()}"
    spec = DatasetSpec(
        name="toy",
        description="toy",
        shape=(1, 1, 1),
        download=(RemoteFile("https://example.org/x.txt", pin, "x.txt", source="toy"),),
    )
    with pytest.raises(DataUnavailable, match="leads out of the data mirror") as err:
        fetch_download(spec, tmp_path / "cache", mirror=str(mirror))
    assert str(mirror / "toy" / "x.txt") in str(err.value) and "rerun" in str(err.value)
    assert not (tmp_path / "cache" / "download" / "toy" / "x.txt").exists()
    # a mirror folder that is itself a link (a site's mount point) is fine
    real = tmp_path / "real"
    (real / "toy").mkdir(parents=True)
    shutil.copy(outside / "x.txt", real / "toy" / "x.txt")
    (tmp_path / "linked").symlink_to(real, target_is_directory=True)
    assert fetch_download(spec, tmp_path / "c2", mirror=str(tmp_path / "linked"))


# --- every download and archive read is bounded -------------------------------------------------


class _Hostile(http.server.BaseHTTPRequestHandler):
    """/endless: bytes without end; /big: a Content-Length over the cap; /trickle: a byte every
    0.05 s; /silent: headers, then nothing; /file: the bytes of ``good``."""

    good = b"1 1:0.5\n"

    def log_message(self, *a, **k):
        pass

    def do_GET(self):
        import time

        path = self.path.rsplit("/", 1)[-1]
        self.send_response(200)
        if path == "file":
            self.send_header("Content-Length", str(len(self.good)))
            self.end_headers()
            self.wfile.write(self.good)
            return
        if path == "big":
            self.send_header("Content-Length", str(10**12))
        self.end_headers()
        try:
            for _ in range(100_000):
                if path == "silent":
                    time.sleep(5)
                    return
                self.wfile.write(b"x" * (2**16 if path in ("endless", "big") else 1))
                self.wfile.flush()
                if path == "trickle":
                    time.sleep(0.05)
        except OSError:
            pass


@pytest.fixture
def hostile_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _one_file(url, name="x.txt", max_bytes=63_065, known=None):
    known = known or f"sha256:{hashlib.sha256(_Hostile.good).hexdigest()}"
    return DatasetSpec(
        name="toy",
        description="toy",
        shape=(1, 1, 1),
        download=(RemoteFile(url, known, name, max_bytes=max_bytes),),
    )


def test_an_endless_or_oversized_download_is_cut_at_the_pins_size(hostile_server, tmp_path):
    """An http mirror serving an endless stream took 233 MB for a 63 KB pinned
    file. Now a download reads at most the file's size (or its stated cap): refused naming the
    file and the cap, nothing kept; a declared Content-Length over the cap is refused unread."""
    import time

    start = time.monotonic()
    with pytest.raises(DataUnavailable, match=r"x\.txt.*more than the 63,065 bytes"):
        fetch_download(_one_file(f"{hostile_server}/endless"), tmp_path)
    assert time.monotonic() - start < 10
    assert not list((tmp_path / "download" / "toy").glob("x.txt*"))
    with pytest.raises(DataUnavailable, match=r"x\.txt.*63,065 bytes.*Content-Length"):
        fetch_download(_one_file(f"{hostile_server}/big"), tmp_path)
    # the same cap from a folder mirror: a copy larger than the cap is refused before copying
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "x.txt").write_bytes(b"x" * 70_000)
    with pytest.raises(DataUnavailable, match=r"holds 70,000 bytes, more than the 63,065"):
        fetch_download(_one_file("https://example.org/x.txt"), tmp_path / "c", mirror=str(mirror))
    # every download file has a cap: its size, a stated cap or the default
    for spec in datasets.ALL_SPECS.values():
        for rf in spec.download:
            assert 0 < rf.cap <= 32 * 2**30, (spec.name, rf.fname)


def test_a_stalled_or_trickling_download_times_out(hostile_server, tmp_path, monkeypatch):
    """One byte every 10 s hung the fetch. A server that sends nothing for
    READ_TIMEOUT_S, or more slowly than the cap allows (READ_TIMEOUT_S + cap / MIN_RATE_BYTES_S
    in all), is abandoned with an error naming the file (short timeouts here)."""
    import tripletbench.datasets.fetch as fetch  # the downloader's module (base re-exports it)

    monkeypatch.setattr(fetch, "READ_TIMEOUT_S", 0.5)
    monkeypatch.setattr(fetch, "MIN_RATE_BYTES_S", 63_065)  # 1.5 s in all for 63,065 bytes
    with pytest.raises(DataUnavailable, match=r"x\.txt.*stalled"):
        fetch_download(_one_file(f"{hostile_server}/silent"), tmp_path)
    with pytest.raises(DataUnavailable, match=r"x\.txt.*too slow"):
        fetch_download(_one_file(f"{hostile_server}/trickle"), tmp_path)
    assert not list((tmp_path / "download" / "toy").glob("x.txt*"))
    # a normal pinned file still downloads, and its record says where from
    (path,) = fetch_download(_one_file(f"{hostile_server}/file"), tmp_path)
    assert path.read_bytes() == _Hostile.good
    record = path.with_name("x.txt.source").read_text()
    assert f"from {hostile_server}/file; pinned sha256" in record


def test_an_archive_member_over_its_cap_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """A 300 KB gzip bomb holding one 300 MB WebKB page was read whole into
    memory and accepted. A tar member whose size is over the cap is refused from its header; a
    gzip stream is read no further than its cap; a zip member's declared size is checked."""
    import io
    import tarfile
    import zipfile

    from tripletbench.datasets import fashion_mnist, human_judgments, webkb

    page = b"Content-type: text/html\n\n" + b" " * (webkb.PAGE_MAX_BYTES + 1)
    bomb = tmp_path / "webkb-data.gtar.gz"
    with tarfile.open(bomb, "w:gz") as tar:
        info = tarfile.TarInfo("webkb/faculty/cornell/page")
        info.size = len(page)
        tar.addfile(info, io.BytesIO(page))
    assert bomb.stat().st_size < 50_000
    with pytest.raises(DataError, match=r"page webkb/faculty/cornell/page holds 4,194,330 bytes"):
        webkb.parse_archive(bomb)
    # a gzip-compressed IDX file larger than its cap, decompressed: cut at the cap
    monkeypatch.setattr(fashion_mnist, "IDX_MAX_BYTES", 2**20)
    idx = tmp_path / "bomb-idx1-ubyte.gz"
    with gzip.open(idx, "wb") as fh:
        fh.write(b"\0\0\x08\x01" + b"\0" * 8 * 2**20)
    with pytest.raises(DataError, match=r"bomb-idx1-ubyte\.gz holds more than the 1,048,576"):
        fashion_mnist.read_idx(idx)
    # a zip member of a human-judgment archive, by its declared size
    monkeypatch.setattr(human_judgments, "MEMBER_MAX_BYTES", 2**20)
    archive = tmp_path / "food100-dataset.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("food100-dataset/all-triplets.csv", b"a,b,c\n" * 2**20)
    store = human_judgments.MemberStore("zip", archive, "food100-dataset/")
    with pytest.raises(DataError, match=r"all-triplets\.csv holds 6,291,456 bytes, more than"):
        store.read("all-triplets.csv")


def test_the_files_shape_is_named_shape_and_the_old_name_warns():
    """``DatasetSpec.shape`` is the files' (n_samples, n_features, n_classes), checked on every
    load; the paper's own size, where it differs, is ``paper_lists`` (segment: 2,310 rows in the
    files, 1,937 in the SDCA paper's table). The old name ``paper_shape`` still reads, with a
    DeprecationWarning that names both."""
    from tripletbench.datasets import get_dataset

    seg = get_dataset("segment")
    assert seg.shape == (2310, 19, 7) and seg.paper_lists[0] == 1937
    with pytest.warns(DeprecationWarning, match="now named DatasetSpec.shape"):
        assert seg.paper_shape == seg.shape
