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
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays)


def save_csv(path, df: pd.DataFrame) -> None:
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False)


def save_text(path, text: str) -> None:
    with atomic_path(path) as tmp:
        Path(tmp).write_text(text)


def append_csv_row(path, header: str, row: str) -> None:
    """Add one line ``row`` to the CSV file ``path`` whose first line is ``header``: the file is
    rewritten atomically (a full disk or a kill leaves the old file whole, never a file without
    its header); a missing, empty or headerless file gets the header first."""
    path = Path(path)
    lines = path.read_text().splitlines() if path.exists() else []
    if not lines or lines[0] != header:
        lines = [header] + [ln for ln in lines if ln.strip()]
    save_text(path, "\n".join(lines + [row]) + "\n")


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


LOG_RESERVE_BYTES = 1 << 20
"""Disk space reserved for each job's log when it starts (see :func:`start_log`)."""


def _reserve(fd: int, nbytes: int) -> bool:
    """Reserve ``nbytes`` of disk blocks for file ``fd`` without changing its size (Linux
    ``fallocate`` with FALLOC_FL_KEEP_SIZE); False where that is not possible."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong]
        return libc.fallocate(fd, 1, 0, nbytes) == 0  # 1 = FALLOC_FL_KEEP_SIZE
    except (OSError, AttributeError):
        return False


class _Tee:
    """Write to the console and to a log file. A failing log write (disk full, quota) never
    stops the job nor hides its own error: the console still gets everything, and the first
    failure is reported there once. A progress bar's redraw (text with a carriage return, as
    tqdm writes) goes to the log only, one line per redraw, so that Snakemake's own progress
    on the console stays as it is."""

    def __init__(self, console, log):
        self.console = console
        self.log = log
        self.log_error = None

    def write(self, s):
        if "\r" in s:  # a progress bar's redraw (tqdm): one line per redraw, in the log only
            s = "".join(part.strip() + "\n" for part in s.split("\r") if part.strip())
        else:
            self.console.write(s)
            self.console.flush()
        if self.log_error is None:
            try:
                self.log.write(s)
                self.log.flush()
            except (OSError, ValueError) as err:  # ValueError: the log is already closed
                self.log_error = err
                self.console.write(f"\n[harness.io] the log file can no longer be written: {err}\n")
        return len(s)

    def flush(self):
        self.console.flush()
        if self.log_error is None:
            try:
                self.log.flush()
            except (OSError, ValueError) as err:
                self.log_error = err

    def isatty(self):
        return False


_IN_JOB = False


def job_progress() -> bool:
    """True inside a rule job (after :func:`start_log`): the learners on the shared online loops
    then report progress and the estimated time left into the job's log (tqdm, through
    ``algorithms.base.TraceRecorder``)."""
    return _IN_JOB


def start_log(path) -> None:
    """Send this process's stdout and stderr to ``path`` and to the console (rule scripts).

    The log survives a failing job: :data:`LOG_RESERVE_BYTES` of disk space are reserved for it
    at the start (so a job that fails because the disk filled up still logs what it did and its
    error), a failed write to the log never masks the job's own error (see :class:`_Tee`), and at
    exit the unused reservation is released."""
    import atexit
    import sys
    import warnings

    global _IN_JOB
    _IN_JOB = True
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fh = open(path, "w", buffering=1)
    _reserve(fh.fileno(), LOG_RESERVE_BYTES)
    out, err = _Tee(sys.__stdout__, fh), _Tee(sys.__stderr__, fh)
    sys.stdout, sys.stderr = out, err

    def close():
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        with contextlib.suppress(OSError, ValueError):
            fh.flush()
            end = os.lseek(fh.fileno(), 0, os.SEEK_CUR)
            os.ftruncate(fh.fileno(), end)  # gives back the unused reserved blocks
        with contextlib.suppress(OSError, ValueError):
            fh.close()

    atexit.register(close)
    warnings.simplefilter("default")
