"""Text corpora and the Schultz & Joachims protocol (section 5): the Reuters stand-in (weka ARFF
files, pinned hashes, Corn/Grain consistency), the WebKB download route (pooch through a loopback
HTTP server with a small archive of WebKB's layout, hash checks, no extraction, unsafe names), the
universities read from the pages' URLs, each notion's triplet rule on a hand-made corpus of that
layout (checked against the paper's wording written out independently), the paper's random-triple
draw (uniform over the rule's triples), the static baselines' preprocessing and TFIDF by hand, the
kernel row, and classical MDS."""

import functools
import hashlib
import http.server
import io
import itertools
import shutil
import tarfile
import threading
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import pdist, squareform

from tripletbench.datasets import reuters, webkb
from tripletbench.datasets.base import ChecksumError, DataError, DataUnavailable
from tripletbench.studies.svm.experiment import (
    NOTIONS,
    classical_mds,
    count_rule_triplets,
    document_split,
    eligible_items,
    median_gamma,
    rule_holds,
    run_notion,
    sample_rule_triplets,
    static_features,
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

# A hand-made corpus in WebKB's layout (webkb/<topic>/<university folder>/<URL as file name>):
# (topic, folder, host, words); "misc" pages belong to the university of their URL's host.
TINY = [
    ("faculty", "cornell", "www.cs.cornell.edu", b"prof cornell"),
    ("faculty", "cornell", "www.cs.cornell.edu", b"prof ithaca"),
    ("student", "cornell", "www.cs.cornell.edu", b"grad cornell"),
    ("student", "cornell", "www.cs.cornell.edu", b"grad ithaca"),
    ("course", "texas", "www.cs.utexas.edu", b"cs course austin"),
    ("student", "texas", "www.cs.utexas.edu", b"grad austin"),
    ("faculty", "texas", "www.cs.utexas.edu", b"prof austin"),
    ("project", "wisconsin", "www.cs.wisc.edu", b"project madison"),
    ("faculty", "washington", "www.cs.washington.edu", b"prof seattle"),
    ("course", "washington", "www.cs.washington.edu", b"course seattle"),
    ("student", "misc", "www.cs.cmu.edu:80", b"grad pittsburgh"),
    ("student", "misc", "www.cs.cmu.edu", b"grad pittsburgh robots"),
    ("faculty", "misc", "cs.cmu.edu", b"prof pittsburgh"),
    ("course", "misc", "www.comlab.ox.ac.uk", b"course oxford"),
    ("project", "misc", "www.ai.mit.edu", b"project cambridge"),
]
TINY_UNIVERSITY = ["cornell.edu"] * 4 + ["utexas.edu"] * 3 + ["wisc.edu"] + ["washington.edu"] * 2
TINY_UNIVERSITY += ["cmu.edu"] * 3 + ["ox.ac.uk", "mit.edu"]


def _webkb_archive(path, extra_member=None):
    """TINY plus a staff page (a topic the paper does not use) and an empty faculty page."""
    members = [
        (f"webkb/{t}/{f}/http:^^{h}^~p{q}^index.html", PAGE % (w, w, w))
        for q, (t, f, h, w) in enumerate(TINY)
    ]
    members.append(("webkb/staff/cornell/http:^^www.cs.cornell.edu^staff^", PAGE % ((b"S",) * 3)))
    members.append(
        ("webkb/faculty/washington/empty", b"Date: x\nContent-type: text/html\n\n<html></html>")
    )
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members:
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
    assert c.label("topic").tolist() == [t for t, *_ in TINY]  # staff dropped, empty dropped
    assert c.label("university").tolist() == TINY_UNIVERSITY
    assert set(c.labels) == {"topic", "university"}  # no label merging faculty and student
    assert "1 empty pages dropped" in c.note and "7 universities" in c.note
    assert c.texts[0] == "prof cornell prof cornell prof cornell & more"  # header, script, style
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
    line = c3.files["webkb-data.gtar.gz"]  # provenance: sha256, name, URL, how it was verified
    assert line.startswith(f"{sha}  webkb-data.gtar.gz  from {url}") and "taken as served" in line
    assert c.files["webkb-data.gtar.gz"].endswith("pinned sha256 (datasets/webkb.py)")


def test_webkb_unreachable_url_says_download_failed(tmp_path):
    spec = webkb.make_spec("http://127.0.0.1:9/webkb-data.gtar.gz", "sha256:" + "0" * 64)
    with pytest.raises(DataUnavailable, match="could not download"):
        webkb.load_corpus(tmp_path, spec=spec)


def test_webkb_unsafe_member_name_is_rejected(tmp_path):
    _webkb_archive(tmp_path / "a.tgz", extra_member="webkb/faculty/../../../etc/evil")
    with pytest.raises(DataError, match="unsafe member"):
        webkb.parse_archive(tmp_path / "a.tgz")


def test_university_of_a_page_from_its_folder_or_its_url():
    assert webkb.page_university("texas", "http:^^www.cs.cmu.edu^x^") == "utexas.edu"  # folder
    assert webkb.page_university("misc", "http:^^www.cs.cmu.edu:80^~avrim^") == "cmu.edu"
    assert webkb.page_university("misc", "http:^^WWW.CS.OX.AC.UK^a^") == "ox.ac.uk"
    assert webkb.page_university("misc", "http:^^cs.ubc.ca^") == "ubc.ca"
    assert webkb.page_university("misc", "http:^^128.2.222.1^a^") == "128.2.222.1"
    with pytest.raises(DataError, match="no URL host"):
        webkb.page_university("misc", "index.html")


# -- the notions' rules on the hand-made corpus, against the paper's wording written out here ------


def _paper_rule(name, topic, univ, kept):
    """Section 5's rules, written out from the text independently of tripletbench.studies.svm.experiment."""

    def rule(i, j, k):
        if name == "webkb_university":  # same university for i, j; k from a different one
            return kept[i] and kept[j] and kept[k] and univ[i] == univ[j] != univ[k]
        same_topic = topic[i] == topic[j] and topic[k] != topic[i]
        if name == "webkb_topic":
            return same_topic
        faculty_student = (
            topic[i] == "faculty" and topic[j] == "student" and topic[k] in ("project", "course")
        )
        return same_topic or faculty_student

    return rule


@pytest.mark.parametrize("name", ["webkb_university", "webkb_topic", "webkb_topic_facultystudent"])
def test_each_webkb_notion_draws_exactly_the_papers_triplets_on_a_tiny_corpus(tmp_path, name):
    _webkb_archive(tmp_path / "w.tgz")
    c = webkb.parse_archive(tmp_path / "w.tgz")
    notion = NOTIONS[name]
    labels = c.label(notion.column)
    # University: the 3 universities with the most pages (cornell.edu 4, then cmu.edu and
    # utexas.edu with 3 each); the paper's seven would be every university of this corpus
    eligible = eligible_items(notion, labels, n_groups=3)
    kept = [u in ("cornell.edu", "cmu.edu", "utexas.edu") for u in TINY_UNIVERSITY]
    assert eligible.tolist() == (kept if name == "webkb_university" else [True] * len(TINY))
    rule = _paper_rule(name, c.label("topic"), c.label("university"), kept)
    expected = {t for t in itertools.permutations(range(len(TINY)), 3) if rule(*t)}
    inside = np.flatnonzero(eligible)
    assert count_rule_triplets(notion, labels[inside]) == len(expected)
    # drawing all of them (P is a set: no triple twice) gives exactly the paper's triplets
    t, rate = sample_rule_triplets(notion, labels[inside], len(expected), np.random.default_rng(0))
    got = {tuple(x) for x in inside[t]}
    assert got == expected and len(t) == len(expected)
    m = len(inside)
    assert rate == pytest.approx(len(expected) / (m * (m - 1) * (m - 2)))
    with pytest.raises(DataError, match="only"):
        sample_rule_triplets(notion, labels[inside], len(expected) + 1, np.random.default_rng(0))


def test_topic_facultystudent_is_the_topic_rule_plus_the_faculty_student_rule():
    fs, topic = NOTIONS["webkb_topic_facultystudent"], NOTIONS["webkb_topic"]
    g = np.array(["faculty", "student", "course", "project", "faculty", "student"])
    f, s, c, p = 0, 1, 2, 3
    assert rule_holds(fs, g, f, s, c) and rule_holds(fs, g, f, s, p)  # the added rule
    assert not rule_holds(topic, g, f, s, c)  # not a Topic comparison
    assert not rule_holds(fs, g, s, f, c)  # the rule is stated for a faculty anchor only
    assert not rule_holds(fs, g, f, s, 4)  # k must be a course or project page
    assert rule_holds(fs, g, f, 4, s) and rule_holds(topic, g, f, 4, s)  # Topic still holds:
    # a faculty page is closer to another faculty page than to a student page
    assert not rule_holds(fs, g, f, c, s)


def test_stand_ins_copy_the_rules_they_mimic():
    cg = NOTIONS["reuters_topic_corngrain"]
    assert NOTIONS[cg.mimics].extra is not None and cg.extra[2] == ("neither",)
    g = np.array(["corn", "grain-not-corn", "neither", "corn"])
    assert rule_holds(cg, g, 0, 1, 2) and not rule_holds(cg, g, 1, 0, 2)
    assert rule_holds(NOTIONS["reuters_topic"], g, 0, 3, 1)
    assert not rule_holds(NOTIONS["reuters_topic"], g, 0, 1, 2)


def test_random_triple_draw_is_uniform_over_the_rules_triplets():
    # the paper's draw (random triples kept when the rule holds) makes every valid triple equally
    # likely: the first triple of many independent draws is uniform over the 12 valid ones
    from scipy.stats import chisquare

    g = np.array(["a", "a", "b", "b", "c"])
    notion = NOTIONS["webkb_topic"]
    assert count_rule_triplets(notion, g) == 12  # (2 + 2 ordered pairs) x 3 negatives
    counts = {}
    for s in range(3000):
        t, _ = sample_rule_triplets(notion, g, 1, np.random.default_rng(s))
        counts[tuple(t[0])] = counts.get(tuple(t[0]), 0) + 1
    assert len(counts) == 12
    assert chisquare(list(counts.values())).pvalue > 1e-3


def test_a_smaller_draw_is_the_start_of_a_larger_one():
    # nested training sets: a size's triplets must not depend on the largest size configured
    # (the larger draw below needs more than one batch of candidates)
    g = np.repeat(["a", "b", "c"], 100)
    notion = NOTIONS["webkb_topic"]
    big, _ = sample_rule_triplets(notion, g, 40_000, np.random.default_rng(7))
    for n in (1, 300, 5_000):
        small, _ = sample_rule_triplets(notion, g, n, np.random.default_rng(7))
        np.testing.assert_array_equal(small, big[:n])
    assert len({tuple(t) for t in big}) == len(big)  # P is a set


def test_static_features_preprocessing_variants():
    texts = ["The runners were running", "the runner runs", "A cat and THE dog"]
    vocab = {p: set(static_features(texts, preprocessing=p)[2]) for p in ("none", "stop", "stem")}
    assert {"the", "running", "runners"} <= vocab["none"]  # no stop list, no stemming
    assert "the" not in vocab["stop"] and "were" not in vocab["stop"] and "running" in vocab["stop"]
    assert {"run", "runner"} <= vocab["stem"] and "running" not in vocab["stem"]
    binary, _, v = static_features(texts, preprocessing="stem+stop")
    assert "the" not in v and "run" in v
    assert set(binary.data) == {1.0}  # binary although "run" occurs twice in the first text


def test_tfidf_by_hand():
    # raw counts x smoothed idf ln((1 + n) / (1 + df)) + 1, then unit rows
    texts = ["a b b", "a c", "c c c d"]
    _, tfidf, vocab = static_features(texts, token_pattern=r"\w")
    idf = {w: np.log(4 / (1 + df)) + 1 for w, df in {"a": 2, "b": 1, "c": 2, "d": 1}.items()}
    row0 = np.array([1 * idf["a"], 2 * idf["b"], 0, 0])
    row2 = np.array([0, 0, 3 * idf["c"], 1 * idf["d"]])
    assert vocab.tolist() == ["a", "b", "c", "d"]
    np.testing.assert_allclose(tfidf.toarray()[0], row0 / np.linalg.norm(row0))
    np.testing.assert_allclose(tfidf.toarray()[2], row2 / np.linalg.norm(row2))


def test_median_gamma_is_one_over_the_median_squared_distance():
    X = np.array([[0.0], [1.0], [2.0]])  # squared distances 1, 1, 4: the median pair is 1 apart
    assert median_gamma(X, np.arange(3), seed=0) == pytest.approx(1.0)
    with pytest.raises(DataError, match="median"):
        median_gamma(np.zeros((3, 2)), np.arange(3), seed=0)


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


def test_protocol_learns_a_topic_metric_with_the_configured_solver_and_a_kernel_row():
    # topic words decide the topic; noise words are shared by all documents at random
    from tripletbench.evaluation.triplets import model_triplet_accuracy, static_triplet_accuracy

    rng = np.random.default_rng(0)
    topics = np.repeat(["a", "b", "c"], 40)
    vocab_noise = [f"n{i}" for i in range(60)]
    texts = [
        " ".join(
            [f"{t}{k}" for k in rng.choice(5, 2, replace=False)] + list(rng.choice(vocab_noise, 12))
        )
        for t in topics
    ]
    split = document_split(len(texts), 0)
    binary, tfidf, _ = static_features(texts)
    rows, model, parts = run_notion(
        NOTIONS["webkb_topic"],
        binary,
        topics,
        0,
        [50, 200],
        300,
        {("Binary", "none"): binary, ("TFIDF", "none"): tfidf},
        split,
        solver="dcd",
        solver_options={"tol": 1e-7},
        kernel={"n_train_triplets": 40, "gamma": None, "solver": "CLARABEL"},
        log=lambda *a: None,
    )
    svm = rows[rows.method == "SVM-relative"].set_index("n_train_triplets")
    binary_acc = rows[rows.method == "Binary"].triplet_accuracy.iloc[0]
    assert (svm.solver == "dcd").all() and (svm.solver_status == "optimal").all()
    assert svm.triplet_accuracy.loc[200] > binary_acc + 0.1
    assert np.all(model.w_ >= 0) and model.solver_options == {"tol": 1e-7}
    assert (svm.rel_gap <= 1e-7).all()  # dcd's duality-gap certificate at the tolerance asked
    rbf = rows[rows.method == "SVM-relative-RBF"].iloc[0]
    assert rbf.solver == "CLARABEL" and rbf.solver_status == "optimal"
    assert rbf.n_train_triplets == 40 and rbf.gamma > 0 and 0 <= rbf.triplet_accuracy <= 1
    # the accuracy through transform() equals the accuracy through pair_distance()
    test = parts["test"]
    t = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [1, 5, 9]])
    a = static_triplet_accuracy(model.transform(binary[test]), t)["triplet_accuracy"]
    assert a == model_triplet_accuracy(model, binary[test], t)["triplet_accuracy"]


@pytest.mark.parametrize("name", ["webkb_university", "webkb_topic", "webkb_topic_facultystudent"])
def test_each_webkb_notion_runs_through_the_protocol_on_a_corpus_in_webkbs_layout(tmp_path, name):
    # 72 pages: 4 topics x 6 universities (two named folders, four hosts in "misc") x 3; each page
    # says its topic and its university, plus shared noise words
    rng = np.random.default_rng(0)
    hosts = [("cornell", "www.cs.cornell.edu"), ("texas", "www.cs.utexas.edu")]
    misc = ("www.cs.cmu.edu", "www.ai.mit.edu", "cs.ubc.ca", "www.x.ox.ac.uk")
    hosts += [("misc", h) for h in misc]
    with tarfile.open(tmp_path / "w.tgz", "w:gz") as tar:
        for q in range(72):
            topic = webkb.TOPICS[q % 4]
            folder, host = hosts[(q // 4) % 6]
            noise = " ".join(rng.choice(list("abcdefgh"), 6))
            words = f"{topic}word {host.split('.')[-2]}word {noise}"
            data = PAGE % ((words.encode(),) * 3)
            info = tarfile.TarInfo(f"webkb/{topic}/{folder}/http:^^{host}^p{q}^")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    c = webkb.parse_archive(tmp_path / "w.tgz")
    notion = NOTIONS[name]
    labels = c.label(notion.column)
    eligible = eligible_items(notion, labels, n_groups=4)
    if name == "webkb_university":
        # 12 pages each: the tie is broken by name
        assert sorted(set(labels[eligible])) == ["cmu.edu", "cornell.edu", "mit.edu", "ox.ac.uk"]
    binary, tfidf, _ = static_features(c.texts)
    rows, model, parts = run_notion(
        notion,
        binary,
        labels,
        0,
        [40, 80],
        200,
        {("Binary", "none"): binary},
        document_split(len(labels), 0),
        solver="dcd",
        eligible=eligible,
        log=lambda *a: None,
    )
    svm = rows[rows.method == "SVM-relative"].set_index("n_train_triplets")
    assert (svm.solver_status == "optimal").all() and (rows.n_test_triplets == 200).all()
    assert svm.triplet_accuracy.loc[80] > 0.9  # the page's own topic/university word decides


def test_largest_groups_tie_is_broken_by_the_collection_not_the_alphabet():
    """Seven universities of WebKB: b and a tie on the pages of the four topics; the one with
    more pages in the whole collection wins, whatever the names; names decide only a full tie."""
    notion = NOTIONS["webkb_university"]
    labels = np.array(["z"] * 5 + ["b"] * 3 + ["a"] * 3)
    keep = eligible_items(notion, labels, n_groups=2, tie_counts={"z": 9, "a": 4, "b": 7})
    assert set(labels[keep]) == {"z", "b"}
    keep = eligible_items(notion, labels, n_groups=2, tie_counts={"a": 7, "b": 7})
    assert set(labels[keep]) == {"z", "a"}
    keep = eligible_items(notion, labels, n_groups=2)
    assert set(labels[keep]) == {"z", "a"}


_PAGE = (
    b"MIME-Version: 1.0\r\nServer: CERN/3.0\r\nDate: Thu, 07 Nov 1996\r\n\r\n"
    b'<html><head><title>Home</title><style>p {color: red}</style></head>\n'
    b'<body><a href="http://www.cs.utexas.edu/users/x/">My Page</a> <img src="me.gif"></body>'
)


def test_each_page_reading_takes_exactly_its_part_of_the_file():
    """The four readings of one page file, written out by hand from the reading's definition."""
    assert webkb.page_text(_PAGE, "visible_text") == "Home My Page"
    assert webkb.page_text(_PAGE) == webkb.page_text(_PAGE, "visible_text")  # the default
    assert webkb.page_text(_PAGE, "text_and_header") == (
        "MIME-Version: 1.0 Server: CERN/3.0 Date: Thu, 07 Nov 1996 Home My Page"
    )
    assert webkb.page_text(_PAGE, "text_and_attributes") == (
        "Home http://www.cs.utexas.edu/users/x/ My Page me.gif"
    )
    whole = webkb.page_text(_PAGE, "whole_page")
    assert whole.startswith("MIME-Version: 1.0 Server: CERN/3.0") and "<style>p {color" in whole
    assert whole.endswith('<img src="me.gif"></body>')
    with pytest.raises(ValueError, match="unknown page reading 'html'"):
        webkb.page_text(_PAGE, "html")
    with pytest.raises(ValueError, match="unknown page reading"):
        webkb.parse_archive(Path("absent.tgz"), reading="html")


def test_case_and_unit_scale_of_the_binary_vectors():
    from tripletbench.studies.svm.experiment import make_analyzer, scale_rows

    docs = ["The Cat and the cat", "THE dog", "a"]
    assert make_analyzer(lowercase=False)("The Cat the") == ["The", "Cat", "the"]
    assert make_analyzer()("The Cat the") == ["the", "cat", "the"]
    # stop words are dropped whatever their case; the stemmer lower-cases
    assert make_analyzer(preprocessing="stop", lowercase=False)("The Cat AND cats") == [
        "Cat", "cats"
    ]  # fmt: skip
    kept, _, vocab = static_features(docs, lowercase=False)
    assert list(vocab) == ["Cat", "THE", "The", "a", "and", "cat", "dog", "the"]
    unit, tfidf, _ = static_features(docs, scale="unit")
    lower, _, _ = static_features(docs)
    np.testing.assert_allclose(unit.toarray(), lower.toarray() / np.sqrt([[3], [2], [1]]))  # the, cat, and
    np.testing.assert_allclose(np.linalg.norm(tfidf.toarray(), axis=1), 1.0)  # as before
    zero = scale_rows(np.array([[0.0, 0.0], [3.0, 4.0]]), "unit")
    np.testing.assert_allclose(zero, [[0.0, 0.0], [0.6, 0.8]])  # an empty row stays empty
    with pytest.raises(ValueError, match="unknown vector scale 'l1'"):
        scale_rows(zero, "l1")


def test_corpus_features_read_back_equal_and_a_bad_file_is_named(tmp_path):
    from tripletbench.files import save_npz
    from tripletbench.studies.svm.experiment import (
        PREPROCESSING,
        corpus_features,
        features_name,
        read_corpus_features,
    )

    corpus = webkb.TextCorpus(
        name="t",
        texts=["Students and courses", "A faculty page", "Course notes of students"],
        labels={"topic": np.array(["student", "faculty", "course"])},
        files={"a.tgz": "sha"},
        collection_counts={"university": {"x.edu": 3}},
        note="three pages",
    )
    tf = {"reading": "whole_page", "lowercase": True, "scale": "unit"}
    save_npz(tmp_path / "f.npz", **corpus_features(corpus, r"(?u)\b\w+\b", tf))
    back = read_corpus_features(tmp_path / "f.npz")
    for p in PREPROCESSING:
        b, t, v = static_features(corpus.texts, preprocessing=p, scale="unit")
        np.testing.assert_array_equal(back["binary"][p].toarray(), b.toarray())
        np.testing.assert_array_equal(back["tfidf"][p].toarray(), t.toarray())
        assert back["n_vocab"][p] == len(v)
    assert list(back["labels"]["topic"]) == ["student", "faculty", "course"]
    assert back["collection_counts"] == {"university": {"x.edu": 3}} and back["note"] == "three pages"
    assert back["text_features"] == tf and back["files"] == {"a.tgz": "sha"}
    assert features_name("webkb", tf) == "whole_page-lower-unit"
    assert features_name("reuters", tf) == "plain_text-lower-unit"  # no pages: no reading
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(DataError, match=r"bad\.npz: not a readable text-features file"):
        read_corpus_features(tmp_path / "bad.npz")
