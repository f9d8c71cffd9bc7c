"""The cell store of rule fit_evaluate (tripletbench.harness.cells): a cell is found again only
under the key of exactly its settings, seed and input bytes, only when it is whole, and a job
removes what it did not use."""

import numpy as np
import pandas as pd

from tripletbench.harness.cells import CellStore, cell_key, file_sha256


def _files(tmp_path):
    paths = []
    for name in ("data.npz", "split.npz", "fit.npz", "train.npz"):
        p = tmp_path / name
        p.write_bytes(name.encode() * 10)
        paths.append(p)
    return paths


def _digests(files):
    return [file_sha256(f) for f in files]


def test_a_cells_key_changes_with_any_byte_setting_or_seed_and_only_then(tmp_path):
    files = _files(tmp_path)
    key = cell_key({"C": 1}, 0, _digests(files))
    assert key == cell_key({"C": 1}, 0, _digests(files)) and len(key) == 24
    assert cell_key({"C": 2}, 0, _digests(files)) != key  # another setting or code
    assert cell_key({"C": 1}, 1, _digests(files)) != key  # another seed
    assert cell_key({"C": 1}, 0, _digests(files[::-1])) != key  # roles are part of the key
    for f in files:
        old = f.read_bytes()
        f.write_bytes(old[:-1] + b"!")  # one byte
        assert cell_key({"C": 1}, 0, _digests(files)) != key, f.name
        f.write_bytes(old)
    assert cell_key({"C": 1}, 0, _digests(files)) == key


def test_a_stored_cell_comes_back_as_written_and_only_when_whole(tmp_path):
    store = CellStore(tmp_path / "store")
    rows = pd.DataFrame({"seed": [0, 0], "metric": ["mAP", "fit_cpu_s"], "value": [0.5, 1.25],
                         "settings_hash": ["s0123456789ab", "s0123456789ab"]})
    arrays = {"W": np.arange(4.0).reshape(2, 2), "params": np.array('{"C": 1}')}
    assert store.get(0, "k1") is None
    store.put(0, "k1", rows, arrays)
    got_rows, got_arrays = CellStore(tmp_path / "store").get(0, "k1")
    pd.testing.assert_frame_equal(got_rows, rows)
    assert np.array_equal(got_arrays["W"], arrays["W"]) and str(got_arrays["params"]) == '{"C": 1}'
    assert CellStore(tmp_path / "store").get(1, "k1") is None  # another seed's key
    csv = tmp_path / "store/seed0-k1.csv"
    csv.write_text(csv.read_text().replace("0.5", "0.6"))  # not as the job wrote it (digest)
    assert CellStore(tmp_path / "store").get(0, "k1") is None
    store.put(0, "k1", rows, arrays)
    (tmp_path / "store/seed0-k1.npz").unlink()  # half a cell
    assert CellStore(tmp_path / "store").get(0, "k1") is None


def test_a_job_removes_the_stored_cells_it_did_not_use(tmp_path):
    rows = pd.DataFrame({"seed": [0], "metric": ["mAP"], "value": [0.5]})
    old = CellStore(tmp_path)
    old.put(0, "old", rows, {"W": np.eye(2)})
    old.put(1, "kept", rows.assign(seed=1), {"W": np.eye(2)})
    job = CellStore(tmp_path)
    assert job.get(1, "kept") is not None
    job.put(0, "new", rows, {"W": np.eye(2)})
    removed = job.prune()
    assert removed == ["seed0-old.csv", "seed0-old.csv.sha256", "seed0-old.npz"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "seed0-new.csv", "seed0-new.csv.sha256", "seed0-new.npz",
        "seed1-kept.csv", "seed1-kept.csv.sha256", "seed1-kept.npz",
    ]
