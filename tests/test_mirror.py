"""Data mirrors (tripletbench.datasets.base.fetch_download with ``mirror``) on the real files of
``../shared/mirror``: the publishers' LIBSVM ``.scale`` files and LFW pairs files, and the WebKB
pages repacked, served over HTTP on localhost (real server, real pooch HTTP) and as a folder. Each
route that has mirrored files is run from fetch to prepared arrays; the parsers meet the real bytes
(WebKB's CRLF headers, LFW's underscore names), not fixtures written to imitate them.

Skipped where no mirror folder stands beside the checkout (CI has one: ../shared/mirror)."""

import dataclasses
import functools
import hashlib
import http.server
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT

from tripletbench import datasets
from tripletbench.datasets import lfw, webkb
from tripletbench.datasets.base import (
    ChecksumError,
    DataError,
    DataUnavailable,
    fetch_download,
    load,
    mirror_location,
)
from tripletbench.harness.captions import scaling_words
from tripletbench.harness.config import ConfigError, check_config

MIRROR = ROOT.parent / "shared" / "mirror"
pytestmark = [
    pytest.mark.skipif(
        not (MIRROR / "SHA256SUMS").is_file(), reason="no data mirror beside the checkout"
    ),
    pytest.mark.slow,  # runs the workflow: not in the fast subset (-m "not slow")
]


def _listed():
    """The mirror's own list (its ``SHA256SUMS``): relative path -> sha256. Every test below reads
    what the mirror holds from this list, never from a fixed inventory: the mirror grows."""
    out = {}
    if (MIRROR / "SHA256SUMS").is_file():
        for line in (MIRROR / "SHA256SUMS").read_text().splitlines():
            if line.strip():
                h, name = line.split(None, 1)
                out[name.lstrip("*")] = h
    return out


def _route_files(spec):
    return [f"{rf.source}/{rf.fname}" for rf in spec.download]


def _mirrored_routes(source):
    """Names of the feature tables whose download route reads from ``source`` (a mirror folder)
    and whose every file the mirror lists."""
    listed = _listed()
    return sorted(
        name
        for name, spec in datasets.DATASETS.items()
        if spec.download
        and all(rf.source == source for rf in spec.download)
        and all(rel in listed for rel in _route_files(spec))
    )


LIBSVM_ROUTES = _mirrored_routes("libsvm")  # every LIBSVM set whose files the mirror lists


class _Server:
    """A directory served by a real HTTP server on 127.0.0.1 (``url``; ``stop()`` ends it)."""

    def __init__(self, directory):
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(directory))
        handler.log_message = lambda *a, **k: None
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self):
        self.server.shutdown()


@pytest.fixture(scope="module")
def http_mirror():
    """``../shared/mirror`` served by a real HTTP server on 127.0.0.1 (stopped at the end)."""
    server = _Server(MIRROR)
    yield server.url
    server.stop()


def _partial_mirror(folder, spec, keep):
    """A folder mirror holding the first ``keep`` files of ``spec``'s download route (copied from
    the real mirror) and a ``SHA256SUMS`` listing just those."""
    listed = _listed()
    lines = []
    for rel in _route_files(spec)[:keep]:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(MIRROR / rel, folder / rel)
        lines.append(f"{listed[rel]}  {rel}\n")
    (folder / "SHA256SUMS").write_text("".join(lines))
    return folder


def test_every_pin_agrees_with_the_mirror_list():
    """Every pinned file of every download route that the mirror lists has the mirror's sha256,
    and every file the mirror lists under a route's source folder is read by some route (a
    renamed route file would otherwise leave its mirror copy unread)."""
    listed = _listed()
    specs = [*datasets.ALL_SPECS.values()]
    read = set()
    for spec in specs:
        for rf in spec.download:
            rel = f"{rf.source}/{rf.fname}"
            read.add(rel)
            if rel in listed and rf.known_hash:
                algo, _, value = rf.known_hash.partition(":")
                if algo == "sha256":
                    assert value == listed[rel], rel
    sources = {rf.source for spec in specs for rf in spec.download if rf.source}
    for rel in listed:
        top = rel.split("/", 1)[0]
        if top in sources and rel.count("/") == 1:
            assert rel in read, f"the mirror lists {rel}, which no download route reads"


@pytest.mark.parametrize("name", LIBSVM_ROUTES)
def test_libsvm_route_from_the_http_mirror_to_prepared_arrays(name, http_mirror, tmp_path):
    """Every LIBSVM set the mirror lists, from fetch to prepared arrays, with its provenance: a
    publisher's pin, or (no pin published: svmguide4) the mirror copy's measured sha256 pinned in
    its module, said so."""
    from sklearn.datasets import load_svmlight_file

    spec = datasets.get_dataset(name)
    d = load(spec, "download", tmp_path, mirror=http_mirror)
    n, dim, k = spec.shape
    assert d["X"].shape == (n, dim) and len(d["classes"]) == k
    # scaled here: every row in [-1, 1]; scaled by LIBSVM (a .scale file): the first (training)
    # file's rows, on their own range (a .t file's rows were scaled on the training range and may
    # fall outside); published unscaled (svmguide4): the file's own values, as served
    first = MIRROR / _route_files(spec)[0]
    X0 = load_svmlight_file(str(first), n_features=dim)[0].toarray()
    if spec.scale_download:
        assert d["X"].min() == -1.0 and d["X"].max() == 1.0
    elif first.name.endswith(".scale"):
        rows = d["X"][: len(X0)]
        assert -1.0 <= rows.min() and rows.max() <= 1.0
    else:
        np.testing.assert_array_equal(d["X"][: len(X0)], X0)
        assert "unscaled" in scaling_words(spec, "download")
    for line, rf in zip(d["sources"], spec.download):
        assert f"from {http_mirror}/libsvm/{rf.fname}" in line
        if rf.known_hash:
            assert "pinned sha256" in line
        else:
            assert "the mirror's copy, pinned by its measured sha256" in line
            assert line.startswith(rf.mirror_hash.split(":")[1])


def test_a_route_names_the_file_the_mirror_lacks(tmp_path):
    """A mirror that holds only the first file of a two-file route: the fetch fails naming the
    missing file, the mirror and the HTTP status; a folder mirror leaves the route out of the plan."""
    name = next(n for n in LIBSVM_ROUTES if len(datasets.get_dataset(n).download) > 1)
    spec = datasets.get_dataset(name)
    partial = _partial_mirror(tmp_path / "partial", spec, keep=1)
    missing = spec.download[1].fname
    server = _Server(partial)
    try:
        with pytest.raises(DataUnavailable, match=missing.replace(".", r"\.")) as err:
            load(spec, "download", tmp_path / "cache", mirror=server.url)
    finally:
        server.stop()
    assert server.url in str(err.value) and "404" in str(err.value)
    assert not spec.has_route("download", str(partial))  # the plan leaves it out (folder mirror)
    assert spec.has_route("download", str(MIRROR))  # the whole mirror has it
    assert spec.has_route("download", None)


def test_webkb_from_the_http_mirror_is_verified_by_its_measured_pin(http_mirror, tmp_path):
    """No publisher pin exists for WebKB: the mirror's repacked archive is verified by its sha256
    as measured and pinned in datasets/webkb.py (never by the mirror's own SHA256SUMS), without
    the unpinned opt-in, and the provenance says so; the cached copy is reused offline."""
    corpus = webkb.load_corpus(tmp_path, mirror=http_mirror)
    (line,) = corpus.files.values()
    assert line.startswith(_listed()["webkb/webkb-data.gtar.gz"])
    assert line.startswith(webkb.MIRROR_HASH.split(":")[1])
    assert "the mirror's copy, pinned by its measured sha256" in line
    again = webkb.load_corpus(tmp_path)  # no mirror, no network: the verified copy in the cache
    assert again.files == corpus.files
    with pytest.raises(DataUnavailable, match="no pinned hash"):
        webkb.load_corpus(tmp_path / "fresh")  # publisher's URL, unpinned, no opt-in: refused


def test_webkb_real_pages_keep_their_start(tmp_path):
    """The real archive: 4,199 pages of the four topics, none empty; pages whose MIME header
    ends in CRLF CRLF lose the header, not their title."""
    corpus = webkb.parse_archive(MIRROR / "webkb" / "webkb-data.gtar.gz")
    assert len(corpus.texts) == 4199 and "0 empty pages dropped" in corpus.note
    counts = dict(zip(*np.unique(corpus.label("topic"), return_counts=True)))
    assert counts == {"course": 930, "faculty": 1124, "project": 504, "student": 1641}
    assert not any(t.lower().startswith(("mime-version", "date:", "server:")) for t in corpus.texts)
    assert not any("Content-Type: text/html" in t for t in corpus.texts)
    assert sum(t.startswith("CS414 Home Page") for t in corpus.texts) >= 1  # a CRLF page
    assert len(set(corpus.label("university"))) == 119
    # the seven universities: nyu.edu and ualberta.ca tie for seventh (105 pages of the four
    # topics); nyu.edu has more pages in the whole collection (145 against 110)
    from tripletbench.studies.svm.experiment import NOTIONS, eligible_items

    univ = corpus.label("university")
    ties = corpus.collection_counts["university"]
    assert (ties["nyu.edu"], ties["ualberta.ca"]) == (145, 110)
    keep = eligible_items(NOTIONS["webkb_university"], univ, 7, tie_counts=ties)
    assert set(univ[keep]) == {
        "wisc.edu",
        "washington.edu",
        "utexas.edu",
        "cornell.edu",
        "rutgers.edu",
        "umass.edu",
        "nyu.edu",
    }
    assert keep.sum() == 308 + 255 + 252 + 226 + 110 + 107 + 105


def test_page_text_drops_crlf_and_mixed_headers():
    for sep in ("\r\n\r\n", "\n\n", "\r\n\n", "\n\r\n"):
        head = "MIME-Version: 1.0\r\nDate: x\r\nContent-Type: text/html"
        raw = f"{head}{sep}<title>Hi</title>\n\n<p>a b"
        assert webkb.page_text(raw.encode()) == "Hi a b"
    assert webkb.page_text(b"<p>no header</p>\n\n<p>two</p>") == "no header two"


def test_lfw_real_pairs_files_keep_every_pair_of_a_listed_person(http_mirror, tmp_path):
    """The real pairs files (underscore names) with an attribute file in PubFig's published layout
    (people named with spaces): no pair of a listed person is dropped; a person missing from the
    attribute file drops exactly that person's pairs."""
    pairs_only = dataclasses.replace(lfw.SPEC, download=lfw.SPEC.download[1:])
    pairs = fetch_download(pairs_only, tmp_path, mirror=http_mirror)
    images = set()
    for f in pairs:
        for _, n1, i1, n2, i2 in lfw.parse_pairs(f):
            images |= {(n1, i1), (n2, i2)}
    assert any("_" in n for n, _ in images)
    left_out = "Abel_Pacheco"
    rng = np.random.default_rng(0)
    attr = tmp_path / "lfw_attributes.txt"
    with open(attr, "w", encoding="utf-8") as fh:
        fh.write("# lfw_attributes.txt (layout of the PubFig page)\n")
        fh.write("#\t" + "\t".join(["person", "imagenum", *map(str, range(73))]) + "\n")
        for n, i in sorted(images):
            if n != left_out:
                vals = "\t".join(f"{v:.6f}" for v in rng.normal(size=73))
                fh.write(f"{n.replace('_', ' ')}\t{i}\t{vals}\n")
    d = lfw.assemble(attr, *pairs)
    expected_drop = 0
    for f in pairs:
        expected_drop += sum(left_out in (p[1], p[3]) for p in lfw.parse_pairs(f))
    assert expected_drop > 0 and d["dropped"] == expected_drop
    assert len(d["view2"]["pairs"]) + len(d["view1"]["pairs"]) == 6000 + 3200 - expected_drop
    assert d["view2"]["same"].sum() > 2990  # matched pairs kept (names compared after the key)
    # an attribute file that names nobody in the pairs files is an error, not a silent figure
    with open(attr, "w", encoding="utf-8") as fh:
        fh.write("Someone Else\t1\t" + "\t".join(["0"] * 73) + "\n")
    with pytest.raises(DataError, match="pairs have attribute rows"):
        lfw.assemble(attr, *pairs)


def test_folder_and_file_url_mirrors(tmp_path):
    spec = datasets.get_dataset("vehicle")
    for i, mirror in enumerate([str(MIRROR), MIRROR.as_uri()]):
        d = load(spec, "download", tmp_path / str(i), mirror=mirror)
        assert d["X"].shape == (846, 18)


def test_a_local_copy_given_as_file_url_is_no_checksum_error(tmp_path):
    """A publisher URL replaced by a file:// URL (a local copy) is fetched and verified."""
    spec = datasets.get_dataset("segment")
    rf = spec.download[0]
    url = (MIRROR / "libsvm" / "segment.scale").as_uri()
    local = dataclasses.replace(spec, download=(dataclasses.replace(rf, url=url),))
    d = load(local, "download", tmp_path)
    assert d["X"].shape == (2310, 19)


def test_mirror_errors_name_the_file_and_the_mirror(tmp_path):
    spec = datasets.get_dataset("letter")
    with pytest.raises(DataError, match="unsupported scheme 'ftp'"):
        fetch_download(spec, tmp_path, mirror="ftp://example.org/data")
    with pytest.raises(DataUnavailable, match="no such folder"):
        fetch_download(spec, tmp_path, mirror=str(tmp_path / "absent"))
    partial = tmp_path / "partial"
    (partial / "libsvm").mkdir(parents=True)
    shutil.copy(MIRROR / "libsvm" / "letter.scale", partial / "libsvm")
    with pytest.raises(DataUnavailable, match=r"partial.*letter\.scale\.t"):
        fetch_download(spec, tmp_path / "c1", mirror=str(partial))
    # a corrupt copy: the pin decides, whatever host served it; nothing bad is kept
    data = bytearray((MIRROR / "libsvm" / "letter.scale.t").read_bytes())
    data[100] ^= 1
    (partial / "libsvm" / "letter.scale.t").write_bytes(bytes(data))
    with pytest.raises(ChecksumError, match="letter.scale.t"):
        fetch_download(spec, tmp_path / "c2", mirror=str(partial))
    assert not (tmp_path / "c2" / "download" / "letter" / "letter.scale.t").exists()
    # a file with no publisher pin whose copy is not the one pinned (the mirror's measured hash):
    # refused, whatever the mirror's own list says
    (partial / "webkb").mkdir()
    data = bytearray((MIRROR / "webkb" / "webkb-data.gtar.gz").read_bytes())
    data[-100] ^= 1
    (partial / "webkb" / "webkb-data.gtar.gz").write_bytes(bytes(data))
    listed = hashlib.sha256(bytes(data)).hexdigest()
    (partial / "SHA256SUMS").write_text(f"{listed}  webkb/webkb-data.gtar.gz\n")
    with pytest.raises(ChecksumError):
        webkb.load_corpus(tmp_path / "c3", mirror=str(partial))
    # with the opt-in, the mirror's list still checks the transfer: another hash is refused
    (partial / "SHA256SUMS").write_text(f"{'0' * 64}  webkb/webkb-data.gtar.gz\n")
    with pytest.raises(ChecksumError):
        unpinned = webkb.make_spec(mirror_hash=None)
        fetch_download(unpinned, tmp_path / "c4", True, mirror=str(partial))


def test_config_checks_the_mirror():
    assert mirror_location("https://example.org/m/") == ("http", "https://example.org/m")
    assert mirror_location(str(MIRROR)) == ("folder", str(MIRROR.resolve()))
    for bad in ("s3://bucket/x", str(MIRROR / "absent")):
        with pytest.raises(ConfigError, match="data.mirror"):
            check_config({"data": {"mirror": bad}})


EMBEDDED_MATCH = {  # dataset -> largest difference; the mirror's files print 6 digits
    "vehicle": 5e-7,
    "segment": 1.3e-5,
    "letter": 5e-7,
    "vowel": 5e-6,  # test rows beyond [-1, 1]: six significant digits leave five decimals
}


@pytest.mark.skipif(shutil.which("apt-get") is None, reason="the embedded route needs Debian's apt")
@pytest.mark.parametrize(
    "name", [n for n in LIBSVM_ROUTES if datasets.get_dataset(n).embedded]
)
def test_embedded_route_equals_the_libsvm_files(name, tmp_path):
    """The two routes give the same features (rows matched after sorting; segment's ARFF copy
    holds its rows in another order), so Table 2's route difference is the data's, not ours."""
    from sklearn.neighbors import NearestNeighbors

    spec = datasets.get_dataset(name)
    emb = load(spec, "embedded", ROOT / "data_cache")
    down = load(spec, "download", tmp_path, mirror=str(MIRROR))
    assert emb["X"].shape == down["X"].shape
    for a, b in ((emb, down), (down, emb)):  # every row of each route is a row of the other
        nn = NearestNeighbors(n_neighbors=1, metric="chebyshev").fit(b["X"])
        dist, idx = nn.kneighbors(a["X"])
        assert dist.max() <= EMBEDDED_MATCH[name]
        classes = set(zip(a["y"].tolist(), b["y"][idx[:, 0]].tolist()))
        assert len(classes) == len(a["classes"])  # each class is one class of the other route


@pytest.mark.skipif(shutil.which("apt-get") is None, reason="the embedded route needs Debian's apt")
def test_vowel_embedded_is_scaled_as_libsvm_scaled_vowel_scale():
    """The embedded route scales on the 528 training rows: they equal LIBSVM's vowel.scale (same
    order, same labels) to its six printed digits; the test rows use the training range."""
    from sklearn.datasets import load_svmlight_file

    d = load(datasets.get_dataset("vowel"), "embedded", ROOT / "data_cache")
    Xs, ys = load_svmlight_file(str(MIRROR / "libsvm" / "vowel.scale"), n_features=10)
    train = d["X"][:528]
    assert np.abs(train - Xs.toarray()).max() <= 5e-7
    np.testing.assert_array_equal(d["classes"][d["y"][:528]].astype(int), ys.astype(int))
    assert train.min() == -1 and train.max() == 1
    assert hashlib.sha256((MIRROR / "libsvm" / "vowel.scale").read_bytes()).hexdigest() == (
        datasets.get_dataset("vowel").download[0].known_hash.split(":")[1]
    )


def _snakemake(targets, cache, data, out, timeout=600):
    import subprocess
    import sys

    data_cfg = "{" + ", ".join(f"{k}: '{v}'" for k, v in {"cache_dir": cache, **data}.items()) + "}"
    cmd = [sys.executable, "-m", "snakemake", *targets, "--configfile", "config/ci.yaml",
           "--config", f"results_dir={out}", f"figures_dir={out}/figures", f"data={data_cfg}",
           "--cores", "2", "--nolock"]  # fmt: skip
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_the_workflow_fetches_through_the_http_mirror(http_mirror, tmp_path):
    """The config key reaches every fetching rule: prepare_dataset (a LIBSVM set) and fetch_raw
    (WebKB) through the localhost mirror, with the provenance in the prepared file and the log."""
    from tripletbench.datasets.base import load_prepared

    cache = tmp_path / "cache"
    targets = [f"{cache}/prepared/vehicle_download.npz", f"{cache}/fetched/webkb.sha256"]
    data = {"route": "download", "mirror": http_mirror}
    res = _snakemake(targets, cache, data, tmp_path / "out")
    assert res.returncode == 0, (res.stdout + res.stderr)[-4000:]
    d = load_prepared(cache / "prepared" / "vehicle_download.npz", ["sources", "route"])
    (line,) = d["sources"].tolist()
    assert f"from {http_mirror}/libsvm/vehicle.scale; pinned sha256" in line
    fetched = (cache / "fetched" / "webkb.sha256").read_text()
    assert fetched.startswith(_listed()["webkb/webkb-data.gtar.gz"])
    log = (tmp_path / "out" / "logs" / "fetch_raw" / "webkb.log").read_text()
    assert "the mirror's copy, pinned by its measured sha256" in log
    # an unusable mirror is refused before any job, naming the key
    res = _snakemake(targets, cache, {"route": "download", "mirror": "s3://b/x"}, tmp_path / "o2")
    assert res.returncode != 0 and "data.mirror" in res.stdout + res.stderr


def test_a_verified_copy_in_the_cache_keeps_its_provenance(http_mirror, tmp_path):
    """A pinned file fetched once is reused (pooch re-checks its pin) whatever mirror a later run
    names, even one that lacks it, and its record still says where it came from."""
    spec = datasets.get_dataset("vehicle")
    first = load(spec, "download", tmp_path, mirror=http_mirror)["sources"]
    empty = tmp_path / "empty-mirror"
    empty.mkdir()
    assert load(spec, "download", tmp_path, mirror=str(empty))["sources"] == first
    assert load(spec, "download", tmp_path)["sources"] == first  # the publisher's URL: no fetch


def test_table1_tells_a_row_a_notion_lacks_from_a_file_the_mirror_lacks(tmp_path):
    """The mirror run's Table 1 said "a file of its download route is not in the data mirror"
    on Eucl x WebKB and Binary x vehicle, rows those notions do not have. A class-labelled set
    is available from a folder mirror exactly when the mirror holds every file of its route."""
    from tripletbench.studies.svm.experiment import method_applies, notion_available

    mirror = str(MIRROR)
    assert notion_available("webkb_topic", "download", mirror)
    assert not notion_available("webkb_topic", "embedded", mirror)
    for name, spec in datasets.DATASETS.items():
        if spec.download:
            held = all((MIRROR / rel).is_file() for rel in _route_files(spec))
            assert notion_available(name, "download", mirror) == held, name
    two_files = next(n for n in LIBSVM_ROUTES if len(datasets.get_dataset(n).download) > 1)
    partial = _partial_mirror(tmp_path / "p", datasets.get_dataset(two_files), keep=1)
    assert not notion_available(two_files, "download", str(partial))
    assert notion_available("reuters_topic", "download", mirror)  # embedded stand-in
    assert not method_applies("webkb_topic", "Eucl") and method_applies("webkb_topic", "TFIDF")
    assert not method_applies("vehicle", "Binary") and method_applies("vehicle", "Eucl")


# Vocabulary sizes of the four readings of the real pages (4,199 pages of the four topics, token
# pattern (?u)\b\w+\b), lower-cased and case kept; the paper counts 63,949 words.
READING_VOCABULARY = {
    ("visible_text", True): 48_511,
    ("visible_text", False): 61_890,
    ("text_and_header", True): 50_189,
    ("text_and_header", False): 63_574,
    ("text_and_attributes", True): 71_976,
    ("text_and_attributes", False): 91_693,
    ("whole_page", True): 75_827,
    ("whole_page", False): 95_973,
}


def test_page_readings_on_the_real_pages():
    """A real Wisconsin page: its header's server name (NCSA) is a word under the readings that
    keep the header and not under the visible text; a link's host (www.cs.wisc.edu) is words
    under the readings that keep the attributes, not in the visible text. Then each reading's
    vocabulary over all 4,199 pages, lower-cased and not."""
    import tarfile

    from tripletbench.studies.svm.experiment import make_analyzer, static_features

    archive = MIRROR / "webkb" / "webkb-data.gtar.gz"
    name = "webkb/course/wisconsin/http:^^www.cs.wisc.edu^~arch^uwarch^courses^cs354.html"
    with tarfile.open(archive) as tar:
        raw = tar.extractfile(name).read()
    assert b"Server: NCSA/1.5" in raw and b'HREF="http://www.cs.wisc.edu' in raw
    words = {r: set(make_analyzer()(webkb.page_text(raw, r))) for r in webkb.PAGE_READINGS}
    assert "ncsa" in words["whole_page"] and "ncsa" in words["text_and_header"]
    assert "ncsa" not in words["visible_text"] and "ncsa" not in words["text_and_attributes"]
    assert {"wisc", "www"} <= words["text_and_attributes"] and {"wisc", "www"} <= words["whole_page"]
    assert not {"wisc", "www"} & words["visible_text"]
    assert words["visible_text"] <= words["text_and_header"] <= words["whole_page"]
    for reading in webkb.PAGE_READINGS:
        corpus = webkb.parse_archive(archive, reading=reading)
        assert len(corpus.texts) == 4199 and f"page reading {reading}" in corpus.note
        for lower in (True, False):
            _, _, vocab = static_features(corpus.texts, lowercase=lower)
            assert len(vocab) == READING_VOCABULARY[(reading, lower)], (reading, lower)
