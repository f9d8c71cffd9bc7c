"""Atomic file writes: the bottom layer's file primitives.

Every result, prepared dataset, feature file and sidecar of the project is written through
:func:`atomic_path` (directly, or through :func:`save_text` / :func:`save_npz`): the content goes
to a hidden temporary file beside its target (``.<name>.<random><suffix>``), which replaces the
target by one atomic rename only once it is whole. A writer that fails or is killed leaves the
previous file as it was (and at most a hidden temporary, which no reader takes for a result).

This module imports nothing from the rest of ``tripletbench``, so every layer may use it
(:mod:`tripletbench.datasets` as well as :mod:`tripletbench.harness.io`, which re-exports it).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

import numpy as np


def current_umask() -> int:
    """The process's file-mode creation mask (Linux: read from /proc, which changes nothing;
    elsewhere set and restored at once)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path):
    """Yield a temporary path beside ``path``; on success it replaces ``path`` atomically, on error
    it is removed, so an interrupted write never leaves a half-written result behind.

    The result gets the permissions an ordinary ``open(path, "w")`` would give it
    (0o666 minus the umask), not the 0o600 of the temporary file ``mkstemp`` creates."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def save_npz(path, **arrays) -> None:
    """Write ``arrays`` (name -> array) to ``path`` as a compressed ``.npz``, atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays)


def save_text(path, text: str) -> None:
    """Write ``text`` to ``path``, atomically."""
    with atomic_path(path) as tmp:
        Path(tmp).write_text(text)


__all__ = ["atomic_path", "current_umask", "save_npz", "save_text"]
