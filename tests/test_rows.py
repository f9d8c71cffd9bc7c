"""tripletbench.datasets.rows: a job reads only the rows of a prepared X that it uses, and gets
exactly the rows (and the numbers) of the whole-matrix load."""

import tracemalloc

import numpy as np
import pytest

from tripletbench.datasets.base import (
    DataError,
    load_prepared,
    prepared_hash_line,
    prepared_hash_path,
)
from tripletbench.datasets.rows import PreparedRows, load_prepared_rows, rows_paths, write_rows
from tripletbench.files import save_npz, save_text


def _prepared(tmp_path, n=3000, d=40, k=5, seed=0, order="C"):
    """A prepared file in rule prepare_dataset's layout (``<cache>/prepared/<name>.npz`` and its
    sha256 sidecar; ``X`` in ``order``) and its row file as rule prepare_rows writes it; returns
    (path, X, y)."""
    g = np.random.default_rng(seed)
    X, y = np.asarray(g.normal(size=(n, d)), order=order), np.arange(n) % k
    path = tmp_path / "cache" / "prepared" / "toy_embedded.npz"
    save_npz(path, X=X, y=y, classes=np.array([f"c{i}" for i in range(k)]), route="embedded")
    save_text(prepared_hash_path(path), prepared_hash_line(path))
    assert write_rows(path, *rows_paths(path)) == (n, d)
    return path, X, y


def test_row_file_sits_in_the_caches_rows_folder():
    npy, check = rows_paths("data_cache/prepared/{dataset}_embedded.npz")
    assert str(npy) == "data_cache/rows/{dataset}_embedded.X.npy"
    assert str(check) == "data_cache/rows/{dataset}_embedded.X.crc32.npz"


@pytest.mark.parametrize("order", ["C", "F"])  # vehicle's parser makes a Fortran-order X
def test_rows_read_are_exactly_the_whole_matrix_rows(tmp_path, order):
    path, X, y = _prepared(tmp_path, order=order)
    assert load_prepared(path, ["X"])["X"].flags[f"{order}_CONTIGUOUS"]
    rows, d = load_prepared_rows(path, ["y", "route"])
    assert set(d) == {"y", "route"} and np.array_equal(d["y"], y)
    assert rows.shape == X.shape and rows.dtype == X.dtype and len(rows) == len(X)
    idx = np.random.default_rng(1).choice(len(X), 500, replace=True)  # any order, repeats
    for i in (idx, np.sort(idx), idx[:1], np.array([-1, 0, 7]), np.array([], dtype=np.int64)):
        got = rows[i]
        assert type(got) is np.ndarray and got.dtype == X.dtype
        assert np.array_equal(got, X[i]) and got.tobytes() == X[i].tobytes()
    assert np.array_equal(rows[17], X[17]) and rows[17].shape == (X.shape[1],)
    shaped, _ = load_prepared_rows(path, row_shape=(8, 5))
    assert np.array_equal(shaped[3], X[3].reshape(8, 5))
    assert np.array_equal(shaped[idx], X[idx].reshape(-1, 8, 5))
    with pytest.raises(IndexError):
        rows[np.array([len(X)])]
    with pytest.raises(TypeError):
        rows[np.array([0.5])]
    with pytest.raises(ValueError, match="do not ask for 'X'"):
        load_prepared_rows(path, ["X"])


def test_the_whole_matrix_is_never_materialised(tmp_path):
    """Reading 200 rows of 20,000 x 40 allocates about those rows, not X; np.asarray(rows)
    (anything that would turn it into the whole matrix) raises."""
    path, X, _ = _prepared(tmp_path, n=20_000)
    rows, _ = load_prepared_rows(path)
    idx = np.random.default_rng(2).choice(len(X), 200, replace=False)
    tracemalloc.start()
    got = rows[idx]
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert got.nbytes == 200 * X.shape[1] * 8
    assert peak < 2 * got.nbytes + 64_000 and peak < X.nbytes / 20, (peak, got.nbytes, X.nbytes)
    with pytest.raises(TypeError, match="read only where indexed"):
        np.asarray(rows)
    with pytest.raises(TypeError):
        rows @ np.ones(X.shape[1])


def test_a_corrupt_truncated_or_stale_row_file_is_refused(tmp_path):
    path, X, _ = _prepared(tmp_path)
    npy, check = rows_paths(path)
    good = npy.read_bytes()
    rows, _ = load_prepared_rows(path)
    row_bytes = X.shape[1] * 8
    offset = len(good) - len(X) * row_bytes
    flipped = bytearray(good)
    flipped[offset + 5 * row_bytes + 3] ^= 0x40  # one bit of row 5
    npy.write_bytes(bytes(flipped))
    assert np.array_equal(rows[np.array([4, 6])], X[[4, 6]])  # other rows still read
    with pytest.raises(DataError, match="row 5 fails its CRC-32.*rerun the workflow"):
        rows[np.array([4, 5])]
    npy.write_bytes(good[:-100])
    with pytest.raises(DataError, match="truncated"):
        load_prepared_rows(path)
    npy.write_bytes(good)
    # the prepared file rebuilt with other data, the row file not: stale
    save_npz(path, X=X + 1, y=np.arange(len(X)) % 5, classes=np.array(["c"]), route="embedded")
    save_text(prepared_hash_path(path), prepared_hash_line(path))
    with pytest.raises(DataError, match="made from another prepared file"):
        load_prepared_rows(path)
    write_rows(path, npy, check)
    rows, _ = load_prepared_rows(path)
    assert np.array_equal(rows[np.arange(3)], load_prepared(path, ["X"])["X"][:3])


class _Recording(PreparedRows):
    """PreparedRows that records every row index read."""

    def __getitem__(self, idx):
        self.read = np.union1d(getattr(self, "read", np.array([], dtype=np.int64)), idx)
        return super().__getitem__(idx)


def test_an_oahu_cell_reads_only_its_subsample_and_gives_the_whole_load_numbers(tmp_path):
    """The OAHU Table 3 cell (harness.oahu_experiment.classification_rows and the Recall@K rows)
    on a row file and on the whole matrix: the same rows, to the bit (timings aside); the rows
    read are the seed's subsample, chosen from the labels alone."""
    from tripletbench.studies.oahu.experiment import (
        classification_rows,
        dev_test_split,
        retrieval_rows,
    )

    path, X, y = _prepared(tmp_path, n=3000, d=12, k=4)
    _, d = load_prepared_rows(path, ["y"])
    rows = _Recording(*rows_paths(path), prepared_hash_line(path).split()[0])
    cfg = {"n_samples": 300, "n_seeds": 150, "n_closure": 150, "k": 3}
    mcfg = {"fixed": {"C": 0.1, "n_epochs": 1}}
    timing = {"fit_wall_s", "fit_cpu_s", "eval_wall_s"}

    def cell(features):
        out, model = classification_rows(
            "OASIS", mcfg, features, d["y"], 0, cfg, {}, log=lambda *a: None
        )
        split = dev_test_split(d["y"], 0, cfg["n_samples"])
        rec = retrieval_rows(model, features[split["test"]], d["y"][split["test"]], [1, 4], {})
        return [r for r in out if r["metric"] not in timing], rec, split

    whole, rec_whole, split = cell(X)
    part, rec_part, _ = cell(rows)
    assert part == whole and rec_part == rec_whole
    used = np.union1d(split["dev"], split["test"])
    assert np.array_equal(rows.read, used) and len(used) <= cfg["n_samples"] + 4


def test_images_features_read_only_the_selected_images(tmp_path):
    """Fashion-MNIST pixels through a row file (rule images_features): the same features and
    selection as from the whole matrix, and only the selected rows read."""
    from tripletbench.datasets.caltech256 import image_features, image_set

    path, X, y = _prepared(tmp_path, n=2000, d=784, k=10)
    rows = _Recording(*rows_paths(path), prepared_hash_line(path).split()[0])
    cfg = {"n_train_per_class": 4, "n_test_per_class": 3, "fit_fraction": 0.75}
    iset = image_set("fashion_mnist_pixels")
    whole = image_features(iset, X, y, 1, cfg, log=lambda *a: None)
    part = image_features(iset, rows, y, 1, cfg, log=lambda *a: None)
    assert np.array_equal(part[0], whole[0]) and np.array_equal(part[2], whole[2])
    assert np.array_equal(rows.read, np.unique(whole[2])) and len(rows.read) == 70
