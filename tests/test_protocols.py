"""Protocol metrics: kNN, error rate, macro F1, paired t-test, ROC/AUC and Recall@K, checked
against scikit-learn and hand-computed values."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.metrics import f1_score, roc_auc_score
from sklearn.neighbors import KNeighborsClassifier

from tripletbench.evaluation.classification import error_rate, knn_predict, macro_f1, paired_ttest
from tripletbench.evaluation.retrieval import recall_at_k
from tripletbench.evaluation.verification import fold_roc, make_pair_folds, mean_roc, normalise_distances


def neg_euclid(A, B):
    return -cdist(A, B)


def test_knn_matches_scikit_learn():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 4)), rng.integers(3, size=200)
    Xt = rng.normal(size=(50, 4))
    ours = knn_predict(neg_euclid, Xt, X, y, k=1)
    sk = KNeighborsClassifier(n_neighbors=1).fit(X, y).predict(Xt)
    np.testing.assert_array_equal(ours, sk)
    ours5 = knn_predict(neg_euclid, Xt, X, y, k=5)
    clf = KNeighborsClassifier(n_neighbors=5).fit(X, y)
    proba = clf.predict_proba(Xt)
    clear = (proba == proba.max(axis=1, keepdims=True)).sum(axis=1) == 1  # no tie in the vote
    assert clear.sum() > 30
    np.testing.assert_array_equal(ours5[clear], clf.predict(Xt)[clear])


def test_knn_vote_tie_goes_to_the_nearer_class():
    X = np.array([[0.0], [1.0], [3.0], [4.0]])
    y = np.array([7, 8, 8, 7])
    # neighbours of 0.4: 0 (class 7), 1 (class 8): a 1-1 tie, class 7 is met first
    assert knn_predict(neg_euclid, np.array([[0.4]]), X, y, k=2)[0] == 7


def test_error_rate_and_macro_f1_by_hand_and_sklearn():
    yt = np.array([0, 0, 1, 1, 2, 2])
    yp = np.array([0, 1, 1, 1, 2, 0])
    assert error_rate(yt, yp) == pytest.approx(2 / 6)
    # per class F1: 0: P=1/2,R=1/2 -> 1/2; 1: P=2/3,R=1 -> 0.8; 2: P=1,R=1/2 -> 2/3
    assert macro_f1(yt, yp) == pytest.approx((0.5 + 0.8 + 2 / 3) / 3)
    assert macro_f1(yt, yp) == pytest.approx(f1_score(yt, yp, average="macro"))


def test_paired_ttest_win_tie_loss():
    ref = np.array([0.20, 0.21, 0.19, 0.20, 0.22])
    worse = ref + np.array([0.05, 0.06, 0.05, 0.07, 0.05])
    assert paired_ttest(worse, ref)[1] == "loss"  # error rates: higher is worse
    assert paired_ttest(ref - 0.05 + [0, 0.001, 0, 0.002, 0], ref)[1] == "win"
    assert paired_ttest(ref + [0.01, -0.01, 0.01, -0.01, 0], ref)[1] == "tie"
    assert paired_ttest(ref, ref)[1] == "tie"


def _quiet_ttest(*args, **kw):
    """paired_ttest with every warning an error: the degenerate cases are decided before scipy,
    which is never left to warn (precision loss) or divide 0 by 0."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return paired_ttest(*args, **kw)


def test_paired_ttest_a_constant_nonzero_difference_is_a_win_or_loss_never_a_tie():
    """0.3 against 0.5 on every run was (nan, "tie"), shown as "≈"; the t statistic
    is infinite, p = 0 in the limit: a consistent win or loss, by the sign and the direction.
    A difference constant only up to float rounding (ours = ref + 0.2) is the same case, and
    the same gap with a little real noise gets scipy's tiny p and the same outcome."""
    from scipy.stats import ttest_rel

    low, high = [0.3] * 5, [0.5] * 5
    assert _quiet_ttest(low, high) == (0.0, "win")  # error rates: lower is better
    assert _quiet_ttest(high, low) == (0.0, "loss")
    assert _quiet_ttest(low, high, higher_is_better=True) == (0.0, "loss")  # e.g. mAP
    assert _quiet_ttest(high, low, higher_is_better=True) == (0.0, "win")
    ref = np.array([0.21, 0.35, 0.48, 0.62, 0.7])
    shifted = ref + 0.2  # the gap differs from 0.2 by rounding on some runs
    assert np.ptp(shifted - ref) > 0
    assert _quiet_ttest(shifted, ref) == (0.0, "loss")
    assert _quiet_ttest(ref, shifted) == (0.0, "win")
    assert _quiet_ttest(shifted, ref, higher_is_better=True) == (0.0, "win")
    assert _quiet_ttest(ref, shifted, higher_is_better=True) == (0.0, "loss")
    assert _quiet_ttest([0.3, 0.4], [0.5, 0.6]) == (0.0, "win")  # two runs are enough
    noisy = shifted + np.array([1e-6, -1e-6, 0, 2e-6, -2e-6])
    p, outcome = _quiet_ttest(noisy, ref)
    assert outcome == "loss" and 0 < p < 1e-10 and p == pytest.approx(ttest_rel(noisy, ref).pvalue)


def test_paired_ttest_a_zero_difference_on_every_run_is_a_tie_with_p_one():
    """Identical runs were (nan, "tie"); now p = 1 (no difference at all), also for
    values equal only up to float rounding; a zero mean gap that varies is scipy's test."""
    from scipy.stats import ttest_rel

    ref = np.array([0.21, 0.35, 0.48, 0.62, 0.7])
    assert _quiet_ttest(ref, ref) == (1.0, "tie")
    assert _quiet_ttest(ref, ref, higher_is_better=True) == (1.0, "tie")
    same = ref + 0.3 - 0.3  # scipy alone: p = 0.61 from the rounding noise
    assert np.ptp(same - ref) > 0 and _quiet_ttest(same, ref) == (1.0, "tie")
    assert _quiet_ttest([0.0, 0.0], [0.0, 0.0]) == (1.0, "tie")
    swing = ref + [0.01, -0.01, 0.02, -0.02, 0]
    p, outcome = _quiet_ttest(swing, ref)
    assert outcome == "tie" and p == pytest.approx(ttest_rel(swing, ref).pvalue)


def test_paired_ttest_needs_two_finite_pairs():
    """One run is no test: (nan, "n/a"), not a tie (the tables show no mark); two runs
    are scipy's test (df = 1); a NaN or infinite value is refused with a ValueError naming it
    (callers drop the runs without a number: tripletbench.harness.paper_table._paired), as is a shape
    mismatch."""
    from scipy.stats import ttest_rel

    for ours, ref in (([0.3], [0.5]), ([0.5], [0.5]), ([], [])):
        p, outcome = _quiet_ttest(ours, ref)
        assert np.isnan(p) and outcome == "n/a"
    p, outcome = _quiet_ttest([0.3, 0.45], [0.5, 0.55])
    assert p == pytest.approx(ttest_rel([0.3, 0.45], [0.5, 0.55]).pvalue) and outcome == "tie"
    for bad in ([0.3, np.nan, 0.4], [0.3, np.inf, 0.4]):
        with pytest.raises(ValueError, match="NaN or infinite"):
            paired_ttest(bad, [0.5, 0.5, 0.5])
        with pytest.raises(ValueError, match="NaN or infinite"):
            paired_ttest([0.5, 0.5, 0.5], bad)
    with pytest.raises(ValueError, match="one value per run"):
        paired_ttest([0.3, 0.4], [0.5, 0.6, 0.7])


def test_roc_auc_per_fold_matches_sklearn():
    rng = np.random.default_rng(1)
    same = rng.integers(2, size=300).astype(bool)
    d = rng.normal(size=300) + 1.5 * ~same
    folds = np.repeat(np.arange(3), 100)
    res = fold_roc(d, same, folds)
    dn = normalise_distances(d)
    for r in res:
        m = folds == r["fold"]
        assert r["auc"] == pytest.approx(roc_auc_score(same[m], -d[m]))
        assert r["auc"] == pytest.approx(np.trapezoid(r["tpr"], r["fpr"]))
    assert dn.min() == 0 and dn.max() == 1
    _grid, tpr, _ = mean_roc(res)
    assert tpr[0] >= 0 and tpr[-1] == 1


def test_pair_folds_are_balanced_distinct_and_avoid_excluded_pairs():
    y = np.repeat(np.arange(10), 20)
    excl = {frozenset((0, 1))}
    f = make_pair_folds(y, 4, 30, np.random.default_rng(0), exclude=excl)
    assert len(f["pairs"]) == 240
    assert all(f["same"][f["fold"] == k].sum() == 30 for k in range(4))
    np.testing.assert_array_equal(y[f["pairs"][:, 0]] == y[f["pairs"][:, 1]], f["same"])
    keys = {frozenset(p) for p in f["pairs"].tolist()}
    assert len(keys) == 240 and not keys & excl


def test_recall_at_k_by_hand():
    # queries on a line; database labels; nearest-first orders are easy to read
    db = np.array([[0.0], [1.0], [2.0], [3.0]])
    ydb = np.array([0, 1, 1, 0])
    q = np.array([[0.1], [2.9], [1.1]])
    yq = np.array([1, 1, 0])
    # q0 order: 0(0),1(1) -> first hit rank 2; q1: 3(0),2(1) -> rank 2; q2: 1,2,0 -> rank 3
    r = recall_at_k(neg_euclid, q, yq, db, ydb, ks=(1, 2, 4))
    assert r == {1: 0.0, 2: 2 / 3, 4: 1.0}
    with pytest.raises(ValueError):
        recall_at_k(neg_euclid, q, yq, db, ydb, ks=(5,))


def test_recall_at_k_excluding_self():
    X = np.array([[0.0], [0.1], [5.0], [5.1]])
    y = np.array([0, 1, 1, 0])
    assert recall_at_k(neg_euclid, X, y, X, y, ks=(1,), exclude_self=True) == {1: 0.0}


# ------------------------------------------------------------------ OAHU protocol (harness)
def _blobs(n=90, d=6, k=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(k), n // k)
    return rng.normal(size=(n, d)) + 2.0 * np.eye(k, d)[y], y


def test_validation_parts_are_stratified_folds_of_the_development_half():
    from tripletbench.studies.oahu.experiment import dev_test_split, validation_parts

    _X, y = _blobs(n=300)
    split = dev_test_split(y, 0, split="stratified")
    one = validation_parts(y, split, 0, None)
    assert len(one) == 1 and one[0][0] is split["fit"] and one[0][1] is split["val"]
    parts = validation_parts(y, split, 0, 5)
    held = np.concatenate([v for _f, v in parts])
    assert len(parts) == 5 and np.array_equal(np.sort(held), np.sort(split["dev"]))
    for fit, val in parts:
        assert not set(fit) & set(val) and len(fit) + len(val) == len(split["dev"])
        assert np.all(np.bincount(y[val]) == np.bincount(y[split["dev"]]) // 5)  # per class
    # the same seed gives the same folds
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(parts, validation_parts(y, split, 0, 5)))


def test_oahu_deployments_through_the_harness():
    from tripletbench.algorithms import OAHU
    from tripletbench.datasets.constraints import sample_class_triplets
    from tripletbench.studies.oahu.experiment import knn_scores, retrieval_rows

    X, y = _blobs()
    T = sample_class_triplets(y, 200, np.random.default_rng(0))
    kw = {"n_hidden": 8, "embedding_dim": 4, "random_state": 0, "preprocessor": X}
    # one layer (L = 0): that layer's own kNN error is the error of eqs. 23-25
    m = OAHU(n_hidden_layers=0, **kw).fit(T)
    ev = knn_scores(m, X, y, X, y, 3)
    assert ev["knn_error_layer0"] == ev["error_rate"]
    m = OAHU(n_hidden_layers=2, **kw).fit(T)
    assert {f"knn_error_layer{l}" for l in range(3)} <= set(knn_scores(m, X, y, X, y, 3))
    # combined variant: eq.-27-free retrieval equals Recall@K under its similarity matrix
    m.set_params(deployment="combined")
    ours = {r["K"]: r["recall"] for r in retrieval_rows(m, X, y, [1, 2, 4], {})}
    assert ours == recall_at_k(m.similarity_matrix, X, y, X, y, (1, 2, 4), exclude_self=True)
    assert "knn_error_layer0" not in knn_scores(m, X, y, X, y, 3)


# ------------------------------------------------------------------ download routes (fake files)
def _cifar_record(label, r, g, b):
    return bytes([label]) + bytes([r] * 1024) + bytes([g] * 1024) + bytes([b] * 1024)


def _fake_cifar(path):
    import io
    import tarfile

    from tripletbench.datasets.cifar10_gray import BATCHES

    with tarfile.open(path, "w:gz") as tf:
        for i, name in enumerate(BATCHES):
            raw = _cifar_record(i % 10, 255, 0, 0) + _cifar_record(9, 0, 0, 255)
            info = tarfile.TarInfo(name)
            info.size = len(raw)
            tf.addfile(info, io.BytesIO(raw))


def test_cifar10_binary_records_become_luma_gray(tmp_path):
    from tripletbench.datasets.cifar10_gray import SPEC

    _fake_cifar(tmp_path / "c.tar.gz")
    X, names = SPEC.parse_download([tmp_path / "c.tar.gz"])
    assert X.shape == (12, 1024)
    np.testing.assert_allclose(X[0], 0.299)  # pure red
    np.testing.assert_allclose(X[1], 0.114)  # pure blue
    assert names[0] == "airplane" and names[1] == "truck"


def test_emnist_members_are_read_from_the_zip_and_untransposed(tmp_path):
    import gzip
    import struct
    import zipfile

    from tripletbench.datasets.emnist import MEMBERS, SPEC

    img = np.zeros((1, 28, 28), np.uint8)
    img[0, 0, 5] = 255  # stored transposed: becomes row 5, column 0
    imgs = struct.pack(">HBBIII", 0, 8, 3, 1, 28, 28) + img.tobytes()
    labs = struct.pack(">HBBI", 0, 8, 1, 1) + bytes([7])
    with zipfile.ZipFile(tmp_path / "e.zip", "w") as zf:
        for m in MEMBERS:
            zf.writestr(m, gzip.compress(imgs if "images" in m else labs))
    X, names = SPEC.parse_download([tmp_path / "e.zip"])
    assert X.shape == (2, 784) and X[0].reshape(28, 28)[5, 0] == 1.0
    assert list(names) == ["7", "7"]


def test_lfw_pairs_and_attributes_parse(tmp_path):
    from tripletbench.datasets.lfw import N_ATTRIBUTES, parse_attributes, parse_pairs

    vals = "\t".join(["0.5"] * N_ATTRIBUTES)
    (tmp_path / "a.txt").write_text(
        f"# header\n#\tperson\timagenum\nAnn Bo\t1\t{vals}\nAnn Bo\t2\t{vals}\nCy\t1\t{vals}\n"
    )
    X, person, num = parse_attributes(tmp_path / "a.txt")
    assert X.shape == (3, N_ATTRIBUTES) and list(person) == ["Ann Bo", "Ann Bo", "Cy"]
    assert list(num) == [1, 2, 1]
    (tmp_path / "p.txt").write_text("2\t1\nAnn_Bo\t1\t2\nAnn_Bo\t1\tCy\t1\nX\t1\t2\nX\t1\tY\t3\n")
    pairs = parse_pairs(tmp_path / "p.txt")
    assert pairs[0] == (0, "Ann_Bo", 1, "Ann_Bo", 2) and pairs[3] == (1, "X", 1, "Y", 3)


def test_download_route_verifies_the_pinned_hash_over_http(tmp_path):
    """pooch fetches the CIFAR spec's file from a loopback server: right md5 accepted, wrong
    md5 rejected (ChecksumError); an unreachable server gives DataUnavailable ("needs
    download")."""
    import dataclasses
    import functools
    import hashlib
    import http.server
    import threading

    from tripletbench.datasets.base import ChecksumError, DataUnavailable, RemoteFile, fetch_download
    from tripletbench.datasets.cifar10_gray import SPEC

    srv_dir = tmp_path / "srv"
    srv_dir.mkdir()
    _fake_cifar(srv_dir / "cifar-10-binary.tar.gz")
    md5 = hashlib.md5((srv_dir / "cifar-10-binary.tar.gz").read_bytes()).hexdigest()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(srv_dir))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/cifar-10-binary.tar.gz"
    try:
        good = dataclasses.replace(
            SPEC, download=(RemoteFile(url, f"md5:{md5}", "cifar-10-binary.tar.gz"),)
        )
        (path,) = fetch_download(good, tmp_path / "cache1")
        X, _ = SPEC.parse_download([path])
        assert X.shape == (12, 1024)
        bad = dataclasses.replace(
            SPEC, download=(RemoteFile(url, "md5:" + "0" * 32, "cifar-10-binary.tar.gz"),)
        )
        with pytest.raises(ChecksumError):
            fetch_download(bad, tmp_path / "cache2")
    finally:
        server.shutdown()
        server.server_close()  # closed: a later request is refused at once
    gone = dataclasses.replace(
        SPEC, download=(RemoteFile(url, f"md5:{md5}", "cifar-10-binary.tar.gz"),)
    )
    with pytest.raises(DataUnavailable):
        fetch_download(gone, tmp_path / "cache3")


def test_lfw_attributes_have_no_pinned_hash_and_need_permission(tmp_path):
    from tripletbench.datasets.base import DataUnavailable
    from tripletbench.datasets.lfw import load_lfw

    with pytest.raises(DataUnavailable, match="no pinned hash"):
        load_lfw(tmp_path, allow_unpinned=False)


def test_a_cell_refuses_precision_at_k_beyond_its_database_before_fitting():
    """The image cells keep a "failed" row for a ValueError; a k beyond the training
    set is a config error (tripletbench.harness.config.ConfigError), raised before any fit."""
    from tripletbench.harness.config import ConfigError
    from tripletbench.harness.experiment import run_cell

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(12, 3)), np.arange(12) % 2
    split = {"train": np.arange(8), "test": np.arange(8, 12)}
    split.update(fit=np.arange(6), val=np.arange(6, 8))
    t = np.array([[0, 2, 1]])
    base = {"table": "images", "dataset": "toy"}
    quiet = {"log": lambda m: None}
    rows, _ = run_cell("Eucl", {}, X, y, split, t, t, 0, base, ks=range(1, 9), **quiet)
    assert any(r["metric"] == "precision@8" for r in rows)
    with pytest.raises(ConfigError, match=r"images\.precision_at_k: 9 exceeds the 8 training"):
        run_cell("Eucl", {}, X, y, split, t, t, 0, base, ks=range(1, 10), **quiet)


def test_the_oahu_split_halves_the_shuffled_rows_as_the_paper_does():
    """The OAHU paper (4.3.2) shuffles each dataset and divides it 1:1; ours was 1:1
    per class (kept as split="stratified")."""
    from tripletbench.datasets.base import DataError
    from tripletbench.studies.oahu.experiment import dev_test_split

    y = np.repeat(np.arange(3), [200, 60, 41])
    s = dev_test_split(y, 0)
    assert len(s["dev"]) == 151 and len(s["test"]) == 150
    assert not set(s["dev"]) & set(s["test"])
    assert set(s["fit"]) | set(s["val"]) == set(s["dev"])
    per_class = [np.bincount(y[dev_test_split(y, k)["dev"]], minlength=3) for k in range(20)]
    assert any(c[2] != 21 and c[2] != 20 for c in per_class)  # not stratified: counts vary
    strat = dev_test_split(y, 0, split="stratified")
    assert np.bincount(y[strat["dev"]]).tolist() == [100, 30, 20]  # round(0.5 n) per class
    with pytest.raises(DataError, match="fewer than two development samples"):
        dev_test_split(np.array([0] * 50 + [1]), 3)  # one sample of class 1: never two
    with pytest.raises(ValueError, match="split must be one of"):
        dev_test_split(y, 0, split="random")


def test_oahu_pair_learners_get_as_many_constraints_as_the_stream_has_triplets():
    """The OAHU paper (4.3.2) counts 5,000 + 5,000 constraints, "pairwise or triplet":
    a pair learner gets one pair per triplet of the stream by default (half similar), and both
    pairs of each triplet only with pairs_per_triplet: 2; the row's constraint count and U
    follow."""
    from tripletbench.studies.oahu.captions import pair_rule_caption
    from tripletbench.studies.oahu.experiment import classification_rows

    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(4), 50)
    X = rng.normal(size=(200, 5)) + y[:, None]
    cfg = {"n_samples": None, "n_seeds": 40, "n_closure": 20, "k": 3}

    def fit(mcfg):
        rows, model = classification_rows("LEGO", mcfg, X, y, 0, cfg, {"dataset": "toy"})
        return {r["metric"]: r["value"] for r in rows}, rows[0]["n_constraints"], model

    lego = {"fixed": {"eta": 0.125, "update": "violation"}}
    one, n, model = fit(lego)
    assert n == 60 and model.n_steps_ == 60
    assert 0 < one["constraint_utilization"] < 1  # the violation rule skips satisfied pairs
    two, n, model = fit({**lego, "pairs_per_triplet": 2})
    assert n == 60 and model.n_steps_ == 120
    always, _, _ = fit({"fixed": {"eta": 0.125}})
    assert always["constraint_utilization"] == 1.0
    words = pair_rule_caption({"LEGO": lego, "RDML": {"pairs_per_triplet": 2}, "OASIS": {}})
    assert "Pair learners (LEGO) get one pair per triplet" in words
    assert "Pair learners (RDML) get both pairs of every triplet" in words
    assert "OASIS" not in words
