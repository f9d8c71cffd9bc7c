"""tripletbench.files: the atomic writes every layer uses (results, prepared datasets, features,
sidecars). tripletbench.harness.io re-exports them; the harness's own writers (save_csv and its
digest) are tested in test_robustness.py."""

import ast
import os
from pathlib import Path

import numpy as np
import pytest

from tripletbench import files
from tripletbench.files import atomic_path, save_npz, save_text


class _WriterFailed(Exception):
    pass


@pytest.mark.parametrize("error", [_WriterFailed, KeyboardInterrupt])
def test_a_failing_writer_leaves_no_partial_file(tmp_path, error):
    """A writer that raises (an error, or Ctrl-C) half-way leaves neither the target nor its
    temporary behind."""
    path = tmp_path / "out" / "rows.npz"
    with pytest.raises(error):
        with atomic_path(path) as tmp:
            tmp.write_bytes(b"half of it")
            raise error
    assert not path.exists()
    assert list(path.parent.iterdir()) == []


def test_the_temporary_is_hidden_beside_its_target_until_the_write_ends(tmp_path):
    """The content goes to a hidden file in the target's folder (readers skip hidden files; the
    rename stays on one file system), with the target's suffix; the target appears only at the
    end; missing folders are made."""
    path = tmp_path / "a" / "b" / "features.npz"
    with atomic_path(path) as tmp:
        assert tmp.parent == path.parent
        assert tmp.name.startswith(".features.npz.") and tmp.suffix == ".npz"
        tmp.write_bytes(b"content")
        assert not path.exists()
    assert path.read_bytes() == b"content"
    assert [p.name for p in path.parent.iterdir()] == ["features.npz"]


def test_an_existing_file_is_replaced_atomically(tmp_path):
    """While a new version is written the old file stays whole; a failed write keeps it; a
    finished one replaces it by a rename (a new file: a reader that opened the old one still
    reads the old content)."""
    path = tmp_path / "rows.txt"
    save_text(path, "old\n")
    with pytest.raises(_WriterFailed):
        with atomic_path(path) as tmp:
            tmp.write_text("new, cut")
            raise _WriterFailed
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["rows.txt"]
    with open(path) as reader:
        inode = os.fstat(reader.fileno()).st_ino
        with atomic_path(path) as tmp:
            tmp.write_text("new\n")
            assert path.read_text() == "old\n"
        assert path.read_text() == "new\n"
        assert path.stat().st_ino != inode
        assert reader.read() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["rows.txt"]


def test_save_text_and_save_npz_round_trip(tmp_path):
    text = "dataset,mAP\nvehicle,0.5\nnon-ASCII: é ü →\n"
    save_text(tmp_path / "t.csv", text)
    assert (tmp_path / "t.csv").read_text() == text
    save_text(tmp_path / "t.csv", "")  # replaced, even by nothing
    assert (tmp_path / "t.csv").read_text() == ""

    arrays = {
        "X": np.random.default_rng(0).normal(size=(7, 3)),
        "y": np.arange(7, dtype=np.int64),
        "classes": np.array(["a", "bé", "c"]),
        "mask": np.array([True, False]),
        "route": np.array("embedded"),
    }
    path = tmp_path / "p.npz"
    save_npz(path, **arrays)
    with np.load(path, allow_pickle=False) as data:
        assert sorted(data.files) == sorted(arrays)
        for key, value in arrays.items():
            assert data[key].dtype == value.dtype and data[key].shape == value.shape, key
            np.testing.assert_array_equal(data[key], value)
    save_npz(path, X=np.zeros(2))
    with np.load(path) as data:
        assert data.files == ["X"]


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_atomic_writes_get_the_umask_permissions(tmp_path, umask, mode):
    """An atomically written file has the mode an ordinary open() gives (0o666 less the umask),
    not the 0o600 of the temporary file."""
    old = os.umask(umask)
    try:
        assert files.current_umask() == umask
        save_text(tmp_path / "a.txt", "x\n")
        save_npz(tmp_path / "c.npz", a=np.zeros(2))
    finally:
        os.umask(old)
    for f in ("a.txt", "c.npz"):
        assert (tmp_path / f).stat().st_mode & 0o777 == mode, f


def test_the_harness_re_exports_the_same_writers():
    from tripletbench.harness import io

    for name in ("atomic_path", "current_umask", "save_npz", "save_text"):
        assert getattr(io, name) is getattr(files, name), name


def test_the_module_imports_nothing_of_tripletbench():
    """Layer 0: every layer may import it, so it imports no other module of the project."""
    tree = ast.parse(Path(files.__file__).read_text())
    imported = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            imported.append("." * node.level + (node.module or ""))
    assert imported and not [
        m for m in imported if m.startswith(".") or m.split(".")[0] == "tripletbench"
    ], imported
