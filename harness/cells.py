"""The cell store of rule ``fit_evaluate``: each (dataset, seed, method) cell's rows and final
model, kept under a key of everything the cell depends on.

One ``fit_evaluate`` job covers every seed of a (dataset, method): a process per cell spent more
CPU on imports and start-up than the small cells spend learning. Snakemake reruns the whole job
when any of its inputs or settings change (a seed added to the config, one seed's triplets
resampled), and deletes the job's outputs first; the store keeps each seed's cell beside them so
that the rerun job recomputes exactly the seeds whose own inputs or settings changed and takes
the others as they were computed (their timings and provenance columns included).

A cell's key (:func:`cell_key`) is the sha256 over its settings (the method's and the
experiment's settings and the hash of the code the cell runs, the value whose hash the cell's
``settings_hash`` column records: :func:`tripletbench.harness.settings.cell_settings`), its
seed, and the sha256 of each of its input files (features, split, the two triplet files): a
changed byte in any of them, a changed setting or a changed line of the code it runs gives
another key. The store holds, per cell, ``seed<s>-<key>.npz`` (the model) and
``seed<s>-<key>.csv`` (the rows, with the digest sidecar of
:func:`tripletbench.harness.io.save_csv`), written in that order, each atomically: a cell counts
as stored only when its CSV is there and whole (digest checked), so an interrupted job leaves no
half cell. A job removes the entries of its own folder that it did not use
(:meth:`CellStore.prune`).

To recompute every seed of a job (e.g. to re-time it), delete its store folder
(``<results>/<experiment>/cell_store/<dataset>/<method>``) before rerunning the job.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd


def file_sha256(path) -> str:
    """sha256 (hex) of a file's bytes, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cell_key(settings, seed: int, digests) -> str:
    """The store key of one cell (24 hex digits): sha256 over ``settings`` (a JSON-serialisable
    value, keys sorted), ``seed`` (int) and ``digests``, the :func:`file_sha256` of each of its
    input files in a fixed order (a job hashes a file its seeds share once)."""
    text = json.dumps(settings, sort_keys=True, default=str)
    h = hashlib.sha256(f"{text}\0{int(seed)}\0".encode())
    for d in digests:
        h.update(d.encode() + b"\0")
    return h.hexdigest()[:24]


class CellStore:
    """The stored cells of one fit_evaluate job (one folder per (experiment, dataset, method))."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.used: set[str] = set()

    def _stem(self, seed: int, key: str) -> Path:
        return self.folder / f"seed{int(seed)}-{key}"

    def get(self, seed: int, key: str):
        """``(rows, arrays)`` of the stored cell (rows: DataFrame as it was written; arrays: dict
        of the model's arrays), or None when it is absent or not whole (then it is recomputed)."""
        from .io import ResultFileError, check_digest

        stem = self._stem(seed, key)
        csv, npz = stem.with_suffix(".csv"), stem.with_suffix(".npz")
        if not (csv.is_file() and npz.is_file()):
            return None
        try:
            data = csv.read_bytes()
            check_digest(csv, data, "It is recomputed.")
            rows = pd.read_csv(io.BytesIO(data), dtype={"settings_hash": str})
            with np.load(npz, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except (ResultFileError, OSError, ValueError) as err:
            print(f"cell store: {csv.name} not usable ({err}); recomputing")
            return None
        self.used.add(stem.name)
        return rows, arrays

    def put(self, seed: int, key: str, rows: pd.DataFrame, arrays: dict) -> None:
        """Store one cell: the model's arrays first, then its rows (atomic writes)."""
        from .io import save_csv, save_npz

        stem = self._stem(seed, key)
        self.folder.mkdir(parents=True, exist_ok=True)
        save_npz(stem.with_suffix(".npz"), **arrays)
        save_csv(stem.with_suffix(".csv"), rows)
        self.used.add(stem.name)

    def prune(self) -> list[str]:
        """Remove the folder's entries that this job did not use; returns their names."""
        gone = []
        if not self.folder.is_dir():
            return gone
        for f in sorted(self.folder.iterdir()):
            stem = f.name.split(".", 1)[0]
            if stem not in self.used:
                f.unlink()
                gone.append(f.name)
        return gone
