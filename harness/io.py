"""Atomic writes and provenance columns."""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
import platform
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd


@contextlib.contextmanager
def atomic_path(path):
    """Yield a temporary path beside ``path``; on success it replaces ``path`` atomically, on error
    it is removed, so an interrupted write never leaves a half-written result behind."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def save_npz(path, **arrays) -> None:
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays)


def save_csv(path, df: pd.DataFrame) -> None:
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False)


def save_text(path, text: str) -> None:
    with atomic_path(path) as tmp:
        Path(tmp).write_text(text)


def save_json(path, obj) -> None:
    save_text(path, json.dumps(obj, indent=2, sort_keys=True, default=_json_default) + "\n")


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serializable: {type(o)}")


def config_hash(cfg) -> str:
    """Short sha256 of a JSON-serialisable config section (provenance of every result row)."""
    return hashlib.sha256(json.dumps(cfg, sort_keys=True, default=str).encode()).hexdigest()[:12]


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def package_versions() -> str:
    import importlib.metadata as md

    names = ["numpy", "scipy", "scikit-learn", "metric-learn", "pandas"]
    return ";".join(f"{n}={md.version(n)}" for n in names) + f";python={platform.python_version()}"


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, MiB (``getrusage``; includes imports)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


class _Tee:
    def __init__(self, *streams):
        self.streams = streams

    def write(self, s):
        for st in self.streams:
            st.write(s)
            st.flush()
        return len(s)

    def flush(self):
        for st in self.streams:
            st.flush()

    def isatty(self):
        return False


def start_log(path) -> None:
    """Send this process's stdout and stderr to ``path`` and to the console (rule scripts)."""
    import atexit
    import sys
    import warnings

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fh = open(path, "w", buffering=1)
    sys.stdout = _Tee(sys.__stdout__, fh)
    sys.stderr = _Tee(sys.__stderr__, fh)

    def close():
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        fh.close()

    atexit.register(close)
    warnings.simplefilter("default")
