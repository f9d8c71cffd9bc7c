"""Text corpora and the Schultz & Joachims protocol: the Reuters stand-in (weka ARFF files, pinned
hashes, Corn/Grain consistency), the WebKB download route (pooch through a loopback HTTP server
with a small archive of the same layout, hash checks, no extraction, unsafe names), features,
triplet rules and classical MDS."""

import functools
import hashlib
import http.server
import io
import shutil
import tarfile
import threading
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import pdist, squareform

from datasets import reuters, webkb
from datasets.base import ChecksumError, DataError, DataUnavailable
from harness.svm_experiment import (
    classical_mds,
    document_split,
    notion_groups,
    run_notion,
    text_features,
)

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "data_cache"
WEKA_DIR = CACHE / "embedded" / "weka" / reuters.WEKA
has_weka = (WEKA_DIR / "ReutersCorn-train.arff").exists() or shutil.which("apt-get") is not None


@pytest.mark.skipif(not has_weka, reason="the embedded route needs Debian's apt")
def test_reuters_stand_in_documents_and_topics():
    c = reuters.load_corpus(CACHE)
    assert len(c.texts) == 1554 + 604
    topic = c.label("topic")
    counts = {t: int((topic == t).sum()) for t in np.unique(topic)}
    assert set(counts) == {"corn", "grain-not-corn", "neither"}
    assert sum(counts.values()) == 2158 and counts["neither"] > counts["corn"] > 0
    assert (c.label("modapte") == "train").sum() == 1554
    assert set(c.files) == set(reuters.FILES)
    assert all(c.files[k] == v for k, v in reuters.FILES.items())


def _arff(path, texts, flags):
    rows = "\n".join(f"'{t}',{f}" for t, f in zip(texts, flags))
    path.write_text(
        "@relation r\n\n@attribute Text string\n@attribute class-att {0,1}\n\n@data\n" + rows + "\n"
    )


def test_reuters_parser_rejects_corn_and_grain_files_with_different_texts(tmp_path, monkeypatch):
    monkeypatch.setattr(reuters, "N_DOCUMENTS", {"train": 2, "test": 1})
    _arff(tmp_path / "ReutersCorn-train.arff", ["a b", "c d"], [1, 0])
    _arff(tmp_path / "ReutersGrain-train.arff", ["a b", "c d"], [1, 1])
    _arff(tmp_path / "ReutersCorn-test.arff", ["e"], [0])
    _arff(tmp_path / "ReutersGrain-test.arff", ["e"], [0])
    paths = sorted(tmp_path.glob("*.arff"))
    c = reuters.parse(paths)
    assert c.label("topic").tolist() == ["corn", "grain-not-corn", "neither"]
    _arff(tmp_path / "ReutersGrain-test.arff", ["other"], [0])
    with pytest.raises(DataError, match="different texts"):
        reuters.parse(paths)


@pytest.mark.skipif(not has_weka, reason="the embedded route needs Debian's apt")
def test_reuters_corrupt_embedded_copy_is_refused(tmp_path):
    reuters.load_corpus(CACHE)  # make sure the verified copy exists
    target = tmp_path / "embedded" / "weka" / reuters.WEKA
    target.mkdir(parents=True)
    for name in reuters.FILES:
        shutil.copy(WEKA_DIR / name, target / name)
    with open(target / "ReutersCorn-test.arff", "a") as fh:
        fh.write("% tampered\n")
    with pytest.raises(ChecksumError, match="ReutersCorn-test"):
        reuters.load_corpus(tmp_path)


PAGE = (
    b"Date: Wed, 15 Jan 1997 20:37:48 GMT\nServer: NCSA/1.4.2\nContent-type: text/html\n\n"
    b"<html><head><title>%s</title><style>p {color: red}</style></head>"
    b"<body><h1>%s</h1><script>var x = 1;</script><p>%s &amp; more</p></body></html>"
)


def _webkb_archive(path, extra_member=None):
    pages = {
        "webkb/faculty/cornell/http:^^www.cs.cornell.edu^~prof^": (b"Prof", b"Research", b"x"),
        "webkb/student/texas/http:^^www.cs.utexas.edu^~stu^": (b"Student", b"Home", b"y"),
        "webkb/course/misc/http:^^www.other.edu^cs101^": (b"CS101", b"Course", b"z"),
        "webkb/project/wisconsin/http:^^www.cs.wisc.edu^proj^": (b"Proj", b"Project", b"w"),
        "webkb/staff/cornell/http:^^www.cs.cornell.edu^staff^": (b"Staff", b"S", b"s"),
        "webkb/faculty/washington/empty": None,
    }
    with tarfile.open(path, "w:gz") as tar:
        for name, parts in pages.items():
            data = PAGE % parts if parts else b"Date: x\nContent-type: text/html\n\n<html></html>"
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        if extra_member:
            info = tarfile.TarInfo(extra_member)
            info.size = 1
            tar.addfile(info, io.BytesIO(b"x"))


@pytest.fixture
def served(tmp_path):
    """A loopback HTTP server on a folder; yields (folder, base URL)."""
    root = tmp_path / "srv"
    root.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_webkb_download_route_through_pooch_with_a_pinned_hash(served, tmp_path):
    root, url = served
    _webkb_archive(root / "webkb-data.gtar.gz")
    sha = hashlib.sha256((root / "webkb-data.gtar.gz").read_bytes()).hexdigest()
    spec = webkb.make_spec(f"{url}/webkb-data.gtar.gz", f"sha256:{sha}")
    c = webkb.load_corpus(tmp_path / "cache", spec=spec)
    assert c.label("topic").tolist() == ["faculty", "student", "course", "project"]
    assert c.label("university").tolist() == ["cornell", "texas", "misc", "wisconsin"]
    assert c.label("topic_facultystudent").tolist() == ["person", "person", "course", "project"]
    assert "1 empty pages dropped" in c.note
    assert c.texts[0] == "Prof Research x & more"  # header, script and style dropped
    assert not list((tmp_path / "cache").rglob("webkb/faculty"))  # nothing was extracted
    # a wrong pinned hash is refused
    bad = webkb.make_spec(f"{url}/webkb-data.gtar.gz", "sha256:" + "0" * 64)
    with pytest.raises(ChecksumError):
        webkb.load_corpus(tmp_path / "cache2", spec=bad)
    # no pinned hash: refused unless the config allows it (then the sha256 is recorded)
    unpinned = webkb.make_spec(f"{url}/webkb-data.gtar.gz", None)
    with pytest.raises(DataUnavailable, match="no pinned hash"):
        webkb.load_corpus(tmp_path / "cache3", spec=unpinned)
    c3 = webkb.load_corpus(tmp_path / "cache3", allow_unpinned=True, spec=unpinned)
    assert c3.files["webkb-data.gtar.gz"] == sha


def test_webkb_unreachable_url_says_download_failed(tmp_path):
    spec = webkb.make_spec("http://127.0.0.1:9/webkb-data.gtar.gz", "sha256:" + "0" * 64)
    with pytest.raises(DataUnavailable, match="could not download"):
        webkb.load_corpus(tmp_path, spec=spec)


def test_webkb_unsafe_member_name_is_rejected(tmp_path):
    _webkb_archive(tmp_path / "a.tgz", extra_member="webkb/faculty/../../../etc/evil")
    with pytest.raises(DataError, match="unsafe member"):
        webkb.parse_archive(tmp_path / "a.tgz")


def test_binary_bag_of_words_keeps_stop_words_and_uses_training_vocabulary():
    texts = ["The cat sat", "the dog", "A cat and THE dog", "zebra the"]
    binary, tfidf, vocab = text_features(texts, np.array([0, 1, 2]))
    assert "the" in vocab and "a" in vocab and "zebra" not in vocab  # no stop list; train only
    assert set(binary.data) == {1.0}  # binary, though "the" is repeated
    np.testing.assert_allclose(np.sqrt(tfidf.multiply(tfidf).sum(axis=1)).A.ravel(), 1.0)


def test_university_rule_makes_misc_pages_negatives_only():
    g = notion_groups(np.array(["cornell", "misc", "cornell", "misc", "texas"]), "webkb_university")
    assert g[0] == g[2] and g[1] != g[3] and len(set(g)) == 4


def test_document_split_is_70_30_and_seeded():
    a, b = document_split(100, 0)
    assert len(a) == 70 and len(b) == 30 and not set(a) & set(b)
    np.testing.assert_array_equal(a, document_split(100, 0)[0])
    assert not np.array_equal(a, document_split(100, 1)[0])


def test_classical_mds_recovers_euclidean_configuration():
    rng = np.random.default_rng(0)
    Y = rng.normal(size=(30, 2)) * [3.0, 1.0]
    D2 = squareform(pdist(Y, "sqeuclidean"))
    Z, ev, explained = classical_mds(D2, 2)
    np.testing.assert_allclose(squareform(pdist(Z, "sqeuclidean")), D2, atol=1e-8)
    assert explained == pytest.approx(1.0) and ev[0] >= ev[1] > 0


def test_protocol_learns_a_topic_metric_on_synthetic_documents():
    # topic words decide the topic; noise words are shared by all documents at random
    rng = np.random.default_rng(0)
    topics = np.repeat(["a", "b", "c"], 40)
    vocab_noise = [f"n{i}" for i in range(60)]
    texts = [
        " ".join(
            [f"{t}{k}" for k in rng.choice(5, 2, replace=False)] + list(rng.choice(vocab_noise, 12))
        )
        for t in topics
    ]
    train, test = document_split(len(texts), 0)
    binary, tfidf, _ = text_features(texts, train)
    rows, model, _ = run_notion(
        "synthetic",
        {"learn": binary, "Binary": binary, "TFIDF": tfidf},
        topics,
        0,
        [50, 200],
        300,
        split=(train, test),
        log=lambda *a: None,
    )
    svm = rows[rows.method == "SVM-relative"].set_index("n_train_triplets")
    binary_acc = rows[rows.method == "Binary"].triplet_accuracy.iloc[0]
    assert (svm.solver_status == "optimal").all()
    assert svm.triplet_accuracy.loc[200] > binary_acc + 0.1
    assert np.all(model.w_ >= 0)
