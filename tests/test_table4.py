"""The SDCA paper's Table 4: the MIRFLICKR route, its protocol, the cells' own query
and database sets, the prepared Mahalanobis database side, and the scale measurement.

The route test builds a small data mirror in the MIRFLICKR layout from real photographs
(scikit-image's bundled ones, cropped: no fixture of features) and runs the Table 4 rules on it
through the download route, from the archives to the table."""

import hashlib
import io
import zipfile

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT
from pipeline import run_targets

from tripletbench.datasets.base import DataError
from tripletbench.datasets.imageclef_flickr import (
    assemble,
    concept_lists,
    image_members,
    single_concept_items,
    table4_split,
)

pytestmark = pytest.mark.slow  # runs the workflow: not in the fast subset (-m "not slow")


def _labels(n_per_class=(5, 7, 9), n_background=50):
    y = np.concatenate([np.full(n, c) for c, n in enumerate(n_per_class)])
    return np.concatenate([y, np.full(n_background, -1)])


def test_split_follows_the_protocol_and_keeps_the_background_in_the_database():
    y = _labels((50, 70, 90), 400)
    s = table4_split(y, seed=3)
    gt = np.flatnonzero(y >= 0)
    assert np.array_equal(np.sort(np.concatenate([s["train"], s["test"]])), gt)
    assert np.array_equal(np.sort(np.concatenate([s["fit"], s["val"]])), s["train"])
    in_test = np.concatenate([s["query"], s["database"][y[s["database"]] >= 0]])
    assert np.array_equal(np.sort(in_test), s["test"])  # queries + rest of the test set
    assert set(np.flatnonzero(y < 0)) <= set(s["database"])  # every background image is searched
    assert not set(s["query"]) & set(s["database"])
    assert (y[s["train"]] >= 0).all() and (y[s["query"]] >= 0).all()
    for c, n in enumerate((50, 70, 90)):  # per class: 60/40, 80/20 of train, 10% of test
        n_train = round(0.6 * n)
        assert (y[s["train"]] == c).sum() == n_train
        assert (y[s["fit"]] == c).sum() == round(0.8 * n_train)
        assert (y[s["query"]] == c).sum() == round(0.1 * (n - n_train))
    again = table4_split(y, seed=3)
    assert all(np.array_equal(s[k], again[k]) for k in s)  # the seed's streams fix it
    assert not np.array_equal(table4_split(y, seed=4)["query"], s["query"])


def test_split_errors_are_clear():
    with pytest.raises(DataError, match="no ground-truth item"):
        table4_split(np.full(10, -1), 0)
    with pytest.raises(DataError, match="needs at least 2"):
        table4_split(np.array([0, 0, 0, 1, -1]), 0)  # class 1: one image


def test_cells_use_the_protocols_own_queries_and_database():
    """run_cell's test stage: split["query"] ranks split["database"] (not the training set)."""
    from tripletbench.datasets.constraints import sample_class_triplets
    from tripletbench.datasets.preprocess import rng
    from tripletbench.evaluation.retrieval import mean_average_precision
    from tripletbench.harness.experiment import run_cell

    g = np.random.default_rng(0)
    y = _labels((20, 20, 20), 200)
    X = g.standard_normal((len(y), 5)) + 2 * np.eye(5)[np.maximum(y, 0)] * (y >= 0)[:, None]
    s = table4_split(y, 0)
    t = {
        p: sample_class_triplets(y[s[p]], 200, rng(0, f"constraints_{p}")) for p in ("fit", "train")
    }
    rows, _ = run_cell("Eucl", {}, X, y, s, t["fit"], t["train"], 0, {"table": "t"})
    got = pd.DataFrame(rows).query("stage == 'test' and metric == 'mAP'").value.iloc[0]
    want, _ = mean_average_precision(
        lambda A, B: -((A[:, None, :] - B[None, :, :]) ** 2).sum(-1),
        X[s["query"]],
        y[s["query"]],
        X[s["database"]],
        y[s["database"]],
    )
    assert got == pytest.approx(want, rel=1e-12)


def test_prepared_mahalanobis_database_gives_the_same_scores():
    """tripletbench.evaluation.retrieval.database_scorer: Y L^T once per evaluation, same numbers."""
    from tripletbench.algorithms.euclidean import Euclidean
    from tripletbench.evaluation.retrieval import database_scorer

    g = np.random.default_rng(1)
    X, Y = g.standard_normal((7, 4)), g.standard_normal((30, 4))
    model = Euclidean().fit(g.standard_normal((2, 3, 4)))
    A = g.standard_normal((4, 4))
    model.M_ = A @ A.T  # any PSD metric
    f = database_scorer(model.similarity_matrix, Y)
    assert np.array_equal(f(X, Y), model.similarity_matrix(X, Y))  # bit for bit
    assert np.array_equal(f(X, X), model.similarity_matrix(X, X))  # another database: as before
    plain = lambda A, B: A @ B.T  # noqa: E731
    assert database_scorer(plain, Y) is plain


def _jpeg(img) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="JPEG", quality=90)
    return buf.getvalue()


def _crops(photo, n, size, seed):
    g = np.random.default_rng(seed)
    H, W = photo.shape[:2]
    return [
        photo[r : r + size, c : c + size]
        for r, c in zip(g.integers(0, H - size, n), g.integers(0, W - size, n))
    ]


def _mirror(folder):
    """A data mirror in the MIRFLICKR layout: mirflickr/mirflickr25k.zip (15 single-concept
    images in 3 classes, 2 with two concepts, 1 with none), the annotations zip, images0.zip
    (background crops, a byte copy of one ground-truth image, one undecodable file) and the
    mirror's SHA256SUMS."""
    from skimage import data

    src = folder / "mirflickr"
    src.mkdir(parents=True)
    photos = {"sky": data.astronaut(), "food": data.coffee(), "animals": data.chelsea()}
    files, concepts, k = {}, {c: [] for c in ("sky", "food", "animals", "people")}, 0
    for i, (concept, photo) in enumerate(photos.items()):
        for crop in _crops(photo, 5, 96, seed=i):
            k += 1
            files[f"mirflickr/im{k}.jpg"] = _jpeg(crop)
            concepts[concept].append(k)
    for crop in _crops(data.rocket(), 3, 96, seed=9):  # two concepts, then none: not ground truth
        k += 1
        files[f"mirflickr/im{k}.jpg"] = _jpeg(crop)
        if k <= 17:
            concepts["food"].append(k)
            concepts["people"].append(k)
    with zipfile.ZipFile(src / "mirflickr25k.zip", "w") as zf:
        for name, b in files.items():
            zf.writestr(name, b)
    with zipfile.ZipFile(src / "mirflickr25k_annotations_v080.zip", "w") as zf:
        for c, ids in concepts.items():
            zf.writestr(f"{c}.txt", "".join(f"{v}\r\n" for v in ids))
        zf.writestr("README.txt", "concept annotations")
    with zipfile.ZipFile(src / "images0.zip", "w") as zf:
        for j, crop in enumerate(_crops(data.hubble_deep_field(), 20, 80, seed=5)):
            zf.writestr(f"images/0/{j}.jpg", _jpeg(crop))
        zf.writestr("images/0/20.jpg", files["mirflickr/im1.jpg"])  # a copy of ground truth
        zf.writestr("images/0/21.jpg", b"not a jpeg")
    sums = [
        f"{hashlib.sha256(p.read_bytes()).hexdigest()}  mirflickr/{p.name}"
        for p in sorted(src.iterdir())
    ]
    (folder / "SHA256SUMS").write_text("\n".join(sums) + "\n")
    return concepts


def test_annotations_give_single_concept_classes(tmp_path):
    concepts = _mirror(tmp_path)
    src = tmp_path / "mirflickr"
    lists = concept_lists(src / "mirflickr25k_annotations_v080.zip", list(concepts))
    numbers, names = single_concept_items(lists)
    assert list(numbers) == list(range(1, 16))  # 16, 17: two concepts; 18: none
    assert sorted(set(names)) == ["animals", "food", "sky"]
    assert [n for _, n in image_members(src / "images0.zip")][:2] == [
        "images/0/0.jpg",
        "images/0/1.jpg",
    ]
    with pytest.raises(DataError, match="unknown MIRFLICKR concepts"):
        concept_lists(src / "mirflickr25k_annotations_v080.zip", ["sky", "unicorn"])
    with pytest.raises(DataError, match="not a zip archive"):
        image_members(tmp_path / "SHA256SUMS")


def test_assemble_drops_background_copies_of_ground_truth():
    gt = {
        "X": np.ones((3, 2)),
        "y": np.array(["a", "b", "a"]),
        "sha1": np.array([b"1", b"2", b"3"]),
    }
    shard = {"X": np.zeros((3, 2)), "sha1": np.array([b"9", b"2", b"8"], dtype="S20")}
    c = assemble(gt, [shard])
    assert c["n_duplicates_dropped"] == 1
    assert list(c["y"]) == [0, 1, 0, -1, -1] and list(c["classes"]) == ["a", "b"]


def test_table4_rules_run_on_a_small_mirror_through_the_download_route(tmp_path):
    """From the MIRFLICKR archives (real photographs, cropped) to Table 4 with our numbers, and
    table4_scaling on tiny sizes, in one Snakemake run."""
    _mirror(tmp_path / "mirror")
    config = tmp_path / "t4.yaml"
    config.write_text(f"""
data: {{route: download, cache_dir: {tmp_path / "cache"}, mirror: {tmp_path / "mirror"}}}
sdca_table4:
  seeds: [0]
  n_triplets: 300
  concepts: [sky, food, animals, people]
  background_shards: [0]
  max_side: 64
  methods:
    Eucl: {{}}
    OASIS: {{fixed: {{n_epochs: 1}}, grid: {{C: [0.01, 0.1]}}}}
table4_scaling: {{n_ground_truth: 60, n_classes: 3, n_background: 500, d: 8}}
""")
    out = tmp_path / "out"
    # no publisher pins MIRFLICKR and a mirror's own SHA256SUMS cannot vouch for it:
    # the typed opt-in (a second --config replaces the first, so it repeats the folders)
    opt_in = ["--config", f"results_dir={out}", f"figures_dir={out}/figures"]
    opt_in.append("allow_unpinned_downloads=true")
    run_targets(["table_sdca_4", "table4_scaling"], out, configfile=config, extra=opt_in)
    table = pd.read_csv(out / "tables/sdca_table4.csv")
    assert list(table.algorithm) == ["Eucl", "OASIS"]
    assert table["mean"].between(0, 1).all() and (table.status != "needs download").all()
    assert list(table.paper) == [0.3305, 0.4088]
    with np.load(out / "sdca_table4/collection/imageclef_flickr.npz") as c:
        assert c["X"].shape == (15 + 20, 297)  # 21 background: one copy dropped, one undecodable
        assert int(c["n_duplicates_dropped"]) == 1 and (c["y"] == -1).sum() == 20
    with np.load(out / "sdca_table4/features/background0.npz") as b:
        assert list(b["skipped"]) == ["images/0/21.jpg"]
    split = np.load(out / "sdca_table4/splits/imageclef_flickr/seed0.npz")
    assert len(split["query"]) == 3 and len(split["database"]) == 3 + 20
    scaling = pd.read_csv(out / "tables/table4_scaling.csv")
    assert {"cell Eucl", "cell OASIS", "split (Table 4 protocol)"} <= set(scaling.stage)
    assert (scaling.peak_rss_mb > 0).all() and (scaling.wall_s >= 0).all()
    assert "not results" in (out / "tables/table4_scaling.md").read_text()
