"""Row files: a prepared dataset's ``X`` read only where a job indexes it.

A job that uses some rows of a large ``X`` (a 4,000-sample OAHU cell of the 70,000 Fashion-MNIST
images: the whole matrix is 440 MB of float64) reads them from the prepared file's **row file**
``{cache_dir}/rows/<name>_<route>.X.npy`` (rule prepare_rows, :func:`write_rows`): ``X``
uncompressed, each row read on its own (``os.preadv`` at its offset) and checked against its
CRC-32, the file tied to the sha256 of the prepared file it was made from
(:func:`load_prepared_rows`, :class:`PreparedRows`). The jobs choose their rows from the labels
alone, so the rows, and every number made from them, are those of the whole-matrix load.
Measured on the development machine (2026-11-26, loaded; process CPU, medians of 3): loading a
Table 3 cell's 4,000 rows took 2.0 CPU s and a 590 MB peak from the compressed prepared file,
0.10 CPU s and 171 MB (imports included) from the row file.

Its own module (not :mod:`tripletbench.datasets.base`): the dataset parsers' code hash, which
reruns rule prepare_dataset, does not cover it.
"""

from __future__ import annotations

import os
import zipfile
import zlib
from pathlib import Path

import numpy as np

from tripletbench.files import atomic_path, save_npz

from .base import DataError, file_sha256, load_prepared, prepared_hash_path


def rows_paths(prepared) -> tuple[Path, Path]:
    """Where the row file of prepared file ``prepared`` (``{cache_dir}/prepared/<stem>.npz``) is:
    ``({cache_dir}/rows/<stem>.X.npy, {cache_dir}/rows/<stem>.X.crc32.npz)``, its ``X`` stored
    uncompressed (readable row by row) and its check (:func:`write_rows`).
    Works on a path with Snakemake wildcards in it (the rules name the files through it)."""
    prepared = Path(prepared)
    folder = prepared.parent.parent / "rows"
    stem = prepared.name.removesuffix(".npz")
    return folder / f"{stem}.X.npy", folder / f"{stem}.X.crc32.npz"


def _prepared_sha256(path) -> str:
    """The sha256 (hex) of prepared file ``path``: its sidecar's, else computed."""
    side = prepared_hash_path(path)
    recorded = side.read_text().split()[:1] if side.exists() else []
    return recorded[0] if recorded else file_sha256(path)


def _row_crc32(X: np.ndarray) -> np.ndarray:
    """CRC-32 of each row's bytes (C order), (n,) uint32."""
    return np.fromiter(
        (zlib.crc32(np.ascontiguousarray(row)) for row in X), dtype=np.uint32, count=len(X)
    )


def write_rows(prepared, rows_npy, check_npz) -> tuple[int, int]:
    """Write the row file of prepared file ``prepared`` (after :func:`load_prepared`'s checks):
    ``rows_npy``, its ``X`` (n, d) as a plain ``.npy`` in C order (same dtype and values; a
    Fortran-order ``X``, as some parsers make, is written row by row), and
    ``check_npz``: ``crc32`` (n,) uint32, the CRC-32 of each row, and ``prepared_sha256``, the
    prepared file it was made from. Both written atomically. Returns ``X.shape``; raises
    :class:`DataError` as :func:`load_prepared` does, or for an ``X`` that is not 2-d."""
    X = load_prepared(prepared, ["X"])["X"]
    if X.ndim != 2:
        raise DataError(f"{prepared}: X has shape {X.shape}, not (n, d)")
    with atomic_path(rows_npy) as tmp:
        with open(tmp, "wb") as fh:
            np.save(fh, np.ascontiguousarray(X), allow_pickle=False)  # rows contiguous
    save_npz(check_npz, crc32=_row_crc32(X), prepared_sha256=_prepared_sha256(prepared))
    return X.shape


class PreparedRows:
    """The ``X`` (n, d) of a prepared dataset, read only where indexed: ``rows[i]`` (an int) gives
    row i, ``rows[idx]`` (a 1-d array of int indices, any order, repeats allowed) the rows idx,
    as a new in-memory ndarray of the stored dtype (each row read from the file at its offset,
    nothing else) whose every row is checked against its stored CRC-32. ``shape``, ``dtype`` and
    ``len()`` are the whole matrix's; with ``row_shape`` (e.g. (28, 28) for an image's pixels)
    each row comes reshaped to it. Turning the whole object into an array (``np.asarray(rows)``)
    raises ``TypeError``: a job indexes the rows it uses.

    Not a memory map: on the development machine (2026-11-26) fancy-indexing 2,000 scattered
    rows of Fashion-MNIST's 70,000 through ``np.load(mmap_mode="r")`` mapped 430 MB, the whole
    file, into the job's memory (a page fault maps far more than its page there, ``MADV_RANDOM``
    or not); read row by row they add 19 MB and take 12 ms.

    Made by :func:`load_prepared_rows`; raises :class:`DataError` when the row file is missing,
    truncated, made from another prepared file (stale), or a row read fails its CRC-32 (rerun
    the workflow to rebuild it)."""

    def __init__(self, rows_npy, check_npz, prepared_sha256: str, row_shape=None):
        self.path, self.row_shape = Path(rows_npy), row_shape
        try:
            with np.load(check_npz, allow_pickle=False) as c:
                self._crc, made_from = c["crc32"], str(c["prepared_sha256"])
            with open(self.path, "rb") as fh:
                version = np.lib.format.read_magic(fh)
                read = (
                    np.lib.format.read_array_header_1_0
                    if version == (1, 0)
                    else np.lib.format.read_array_header_2_0
                )
                shape, fortran, dtype = read(fh)
                self._offset = fh.tell()
            size = self.path.stat().st_size
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
            raise DataError(
                f"row file {self.path}: {err}; rerun the workflow to rebuild it"
            ) from None
        if made_from != prepared_sha256:
            raise DataError(
                f"row file {self.path} was made from another prepared file (sha256 {made_from}, "
                f"not {prepared_sha256}); rerun the workflow to rebuild it"
            )
        self._shape, self._dtype = tuple(shape), np.dtype(dtype)
        if len(shape) != 2 or fortran or dtype.hasobject or shape[0] != len(self._crc):
            raise DataError(
                f"row file {self.path} holds a {'Fortran-order ' if fortran else ''}{dtype} "
                f"array of shape {shape} for {len(self._crc)} row checksums; rerun the workflow "
                "to rebuild it"
            )
        self._row_bytes = int(shape[1]) * self._dtype.itemsize
        if size != self._offset + shape[0] * self._row_bytes:
            raise DataError(
                f"row file {self.path} has {size} bytes, not the {self._offset} + "
                f"{shape[0]} x {self._row_bytes} of its header (truncated?); rerun the workflow "
                "to rebuild it"
            )

    @property
    def shape(self) -> tuple[int, int]:
        return self._shape

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    def __len__(self) -> int:
        return self._shape[0]

    def __getitem__(self, idx) -> np.ndarray:
        scalar = np.ndim(idx) == 0
        flat = np.atleast_1d(np.asarray(idx))
        if flat.ndim != 1 or not np.issubdtype(flat.dtype, np.integer):
            raise TypeError(f"index PreparedRows by an int or a 1-d int array, not {idx!r}")
        flat = np.where(flat < 0, flat + len(self), flat)
        if len(flat) and (flat.min() < 0 or flat.max() >= len(self)):
            raise IndexError(f"row index out of range for {len(self)} rows")
        out = np.empty((len(flat), self._shape[1]), dtype=self._dtype)
        buf, rb = memoryview(out.reshape(-1).view(np.uint8)), self._row_bytes
        fd = os.open(self.path, os.O_RDONLY)
        try:
            for k, i in enumerate(flat.tolist()):
                got = os.preadv(fd, [buf[k * rb : (k + 1) * rb]], self._offset + i * rb)
                if got != rb:
                    raise DataError(f"row file {self.path}: row {i} cut short; rerun the workflow")
        finally:
            os.close(fd)
        bad = np.flatnonzero(_row_crc32(out) != self._crc[flat])
        if len(bad):
            raise DataError(
                f"row file {self.path} is corrupt: row {int(flat[bad[0]])} fails its CRC-32 "
                f"({len(bad)} of the {len(flat)} rows read); rerun the workflow to rebuild it"
            )
        if self.row_shape is not None:
            out = out.reshape(len(out), *self.row_shape)
        return out[0] if scalar else out

    def __array__(self, *args, **kwargs):
        raise TypeError(
            f"PreparedRows ({self.path.name}, {self.shape}) is read only where indexed: "
            "use rows[idx] for the rows a job uses"
        )


def load_prepared_rows(path, keys=(), row_shape=None) -> tuple[PreparedRows, dict]:
    """``X`` of prepared file ``path`` as :class:`PreparedRows` (from its row file,
    :func:`rows_paths`, which rule prepare_rows writes; rows reshaped to ``row_shape`` if given),
    and the arrays ``keys`` of ``path`` (:func:`load_prepared`; "X" must not be among them:
    ``ValueError``). Raises :class:`DataError` as :func:`load_prepared` and :class:`PreparedRows`
    do."""
    if "X" in keys:
        raise ValueError("load_prepared_rows reads X through its row file; do not ask for 'X'")
    arrays = load_prepared(path, list(keys) or ["y"])
    arrays = {k: arrays[k] for k in keys}
    return PreparedRows(*rows_paths(path), _prepared_sha256(path), row_shape), arrays
