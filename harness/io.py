"""Atomic writes and provenance columns.

The atomic writes themselves (:func:`~tripletbench.files.atomic_path`, ``save_text``,
``save_npz``) live in :mod:`tripletbench.files`, the bottom layer, so that the data layer writes
through them without importing the harness; they are re-exported here unchanged."""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
import platform
from pathlib import Path

import numpy as np
import pandas as pd

from tripletbench.files import atomic_path, current_umask, save_npz, save_text  # noqa: F401

DIGEST_SUFFIX = ".sha256"
"""The sidecar of a result CSV: ``<file>.sha256`` beside it (:func:`save_csv`)."""


class ResultFileError(ValueError):
    """A result file that a table or figure refuses: empty, cut, lacking columns, or not as its
    job wrote it (no digest, or one that does not match). The message names the file and how to
    remake it."""


def read_csv_named(
    path, what: str = "table", allow_no_rows: bool = False, **kwargs
) -> pd.DataFrame:
    """``pd.read_csv(path, **kwargs)`` for a CSV (or TSV) that another job wrote (a table, a
    Snakemake benchmark file), or :class:`ResultFileError` naming the file, what is wrong
    (missing, empty, not a readable CSV, no row) and the remedy, instead of pandas' raw
    ``EmptyDataError`` / ``ParserError``. ``allow_no_rows``: a header without rows is a valid
    table (one whose job wrote no row on purpose, e.g. a sweep "not run" on this route, its
    caption saying why); a file without even a header is refused all the same."""
    from pandas.errors import EmptyDataError, ParserError

    remedy = (
        f"Remake it by rerunning the rule that writes it: snakemake --forcerun {path} (with your "
        "usual targets and options), or delete the file and run again."
    )
    try:
        df = pd.read_csv(path, **kwargs)
    except FileNotFoundError:
        raise ResultFileError(f"{path}: the {what} does not exist. {remedy}") from None
    except EmptyDataError:
        raise ResultFileError(
            f"{path}: the {what} is empty (no header, no row). {remedy}"
        ) from None
    except (ParserError, UnicodeDecodeError) as err:
        raise ResultFileError(
            f"{path}: the {what} is not a readable CSV ({err}). {remedy}"
        ) from None
    if not len(df) and not allow_no_rows:
        raise ResultFileError(f"{path}: the {what} has a header but no row. {remedy}")
    return df


def digest_path(path) -> Path:
    """The sidecar that records the sha256 of result file ``path``: ``<path>.sha256``."""
    return Path(f"{path}{DIGEST_SUFFIX}")


def digest_line(data: bytes, name: str) -> str:
    """A sidecar's text for the bytes ``data`` of a file named ``name`` (``sha256sum`` format:
    "<hex>  <name>\n", so that ``sha256sum -c`` checks it in the file's folder)."""
    return f"{hashlib.sha256(data).hexdigest()}  {name}\n"


def save_csv(path, df: pd.DataFrame, digest: bool = True) -> None:
    """Write ``df`` to ``path`` atomically, then (``digest``, the default for every result) its
    sha256 to ``<path>.sha256`` (:func:`digest_line`), also atomically, computed from the very
    bytes that replace ``path``. A table reads the file only if the two agree
    (:func:`check_digest`): a file edited by hand, copied from elsewhere, or replaced by a job
    that stopped before its sidecar was written (the old sidecar then records the old content)
    is refused. A rerun job rewrites both. ``digest=False`` for a file that is no result (e.g.
    the stored regression values under config/)."""
    path = Path(path)
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False)
        line = digest_line(Path(tmp).read_bytes(), path.name) if digest else ""
    if digest:
        save_text(digest_path(path), line)


def check_digest(path, data: bytes, remedy: str) -> None:
    """Raise :class:`ResultFileError` unless ``data`` (the bytes just read from result file
    ``path``) is what its job wrote: ``<path>.sha256`` exists, names the file and records
    sha256(``data``). ``remedy`` (how to remake the file) ends the message."""
    path = Path(path)
    side = digest_path(path)
    try:
        recorded = side.read_text().split()
    except FileNotFoundError:
        raise ResultFileError(
            f"{path}: no {side.name} beside it, so nothing says that its job wrote it as it is "
            "now (a result written before results carried a digest, or a file made or edited "
            f"by hand or by another tool). {remedy} Only for a file that you know its job "
            "wrote, before digests existed: python -m tripletbench.harness.io adopt "
            f"{path}"
        ) from None
    except (OSError, UnicodeDecodeError) as err:
        raise ResultFileError(
            f"{path}: its digest {side} cannot be read ({err}). {remedy}"
        ) from None
    got = hashlib.sha256(data).hexdigest()
    if len(recorded) != 2 or recorded[1].lstrip("*") != path.name:
        raise ResultFileError(
            f"{path}: {side.name} is no digest of this file (it reads {' '.join(recorded)[:100]!r}"
            f", not '<sha256>  {path.name}'). {remedy}"
        )
    if recorded[0] != got:
        raise ResultFileError(
            f"{path}: its content does not match the digest its job wrote ({side.name} records "
            f"sha256 {recorded[0][:16]}..., the file has {got[:16]}...): it was edited or "
            f"replaced after the job wrote it, or the job stopped between the two. {remedy}"
        )


def adopt(paths) -> list[Path]:
    """Write the digest of each result CSV of ``paths`` (files, or folders searched for
    ``*.csv``) that has none, as if its job had written it; returns the files adopted. For the
    results of a run made before results carried digests, and only where you know that each
    file is as its job wrote it: the table will trust them from now on. A file that already has
    a digest is left alone (a mismatch stays refused: rerun its job instead); hidden files (a
    running job's temporaries) are skipped."""
    done = []
    for p in map(Path, paths):
        files = sorted(p.rglob("*.csv")) if p.is_dir() else [p]
        for f in files:
            if f.name.startswith(".") or digest_path(f).exists():
                continue
            save_text(digest_path(f), digest_line(f.read_bytes(), f.name))
            done.append(f)
    return done


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


def job_cpu_s() -> float:
    """Process CPU seconds (user + system) of this job so far, imports included
    (``time.process_time``): the job's own timer, exact where Snakemake's ``benchmark:``
    ``cpu_time`` is a psutil sample taken every few seconds (it can miss the end of a job)."""
    import time

    return time.process_time()


def settings_hash(settings) -> str:
    """``"s"`` + sha256 (12 hex digits) of a JSON-serialisable settings value (keys sorted).

    The prefix keeps the value text when a CSV reader guesses types: bare hex digits such as
    ``2420338e9583`` parse as a float (``inf``) and would make a fresh cell look stale."""
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode())
    return "s" + digest.hexdigest()[:12]


def settings_record(settings, rule: str | None = None) -> dict:
    """``{"settings_hash": 0-d str array}`` of a job's ``params.settings``, saved in each
    ``.npz`` output of a data job (split, triplets, features), so that the file says what it was
    made under: :mod:`tripletbench.harness.keep` forces the job when the config implies other
    settings (with Snakemake's metadata lost), and every job reading such a file (the cells,
    the image sets' curves) refuses one made under other settings and records the hashes it
    read (:func:`check_input_settings`). ``rule``: the rule that wrote the file
    (``snakemake.rule``), recorded as ``settings_rule``, so that a rule that could also write
    that path but loses to another by ``ruleorder`` (split, for the image sets' splits, which
    images_features writes) does not judge the file by its own settings."""
    out = {"settings_hash": np.array(settings_hash(settings))}
    if rule is not None:
        out["settings_rule"] = np.array(str(rule))
    return out


def recorded_setting(path) -> str:
    """The settings hash recorded in the ``.npz`` file ``path`` (:func:`settings_record`), or
    ``"-"`` for a file made before files recorded them. Raises
    :class:`~tripletbench.datasets.base.DataError` naming the file and the ``--forcerun`` that
    remakes it for a file numpy cannot read as an ``.npz`` (truncated, corrupt, another format)."""
    import zipfile

    from tripletbench.algorithms._checks import DataError

    try:
        with np.load(path, allow_pickle=False) as z:
            return str(z["settings_hash"]) if "settings_hash" in z.files else "-"
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, AttributeError) as err:
        raise DataError(
            f"{path}: not a readable .npz file ({type(err).__name__}: {err}); it is truncated or "
            f"corrupt: remake it with --forcerun {path}"
        ) from None


def check_input_settings(files: dict, expected: dict) -> str:
    """Check that each input file (``files``: kind -> path) records the settings hash the config
    implies for it (``expected``: kind -> hash, the settings of the job that writes it); return
    the recorded hashes joined by ``+`` in the order of ``files`` (a cell's ``input_settings``
    column: what it actually consumed).

    Raises ``ValueError`` naming the file, both hashes and the remedy: a file made under other
    settings (a results folder copied without Snakemake's metadata, an upstream job skipped)
    would otherwise be consumed silently by a cell whose own settings say otherwise."""
    got = {kind: recorded_setting(path) for kind, path in files.items()}
    bad = [k for k in files if got[k] != expected[k]]
    if bad:
        lines = [
            f"{files[k]}: made under settings {got[k]}"
            + (" (before files recorded them)" if got[k] == "-" else "")
            + f", the config implies {expected[k]}"
            for k in bad
        ]
        raise ValueError(
            "this cell's input files were made under other settings than the config's, so it "
            "would be computed on data the config does not describe:\n  "
            + "\n  ".join(lines)
            + "\nremake them: add --forcerun "
            + " ".join(str(files[k]) for k in bad)
            + " to the snakemake command (Snakemake's metadata for them is lost)"
        )
    return "+".join(got[k] for k in files)


def stamp_cell(rows, block_cfg, settings, started: str, cpu_s: float | None = None):
    """Add the provenance columns every cell writes to its rows (a DataFrame, in place; returned):
    ``config_hash`` of the config block, ``settings_hash`` of the rule's settings param
    (:func:`tripletbench.harness.settings.settings_hash`), the package ``versions``, ``started_utc``,
    ``peak_rss_mb`` (of the job's process so far) and ``job_cpu_s``: ``cpu_s`` where the job
    gives its cell's own share (rule fit_evaluate, whose job runs several cells: the cell's own
    CPU plus an equal share of the job's start-up), else the process CPU so far
    (:func:`job_cpu_s`, imports included), seconds."""
    rows["config_hash"] = config_hash(block_cfg)
    rows["settings_hash"] = settings_hash(settings)
    rows["versions"] = package_versions()
    rows["started_utc"] = started
    rows["peak_rss_mb"] = peak_rss_mb()
    rows["job_cpu_s"] = job_cpu_s() if cpu_s is None else float(cpu_s)
    return rows


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
                self.console.write(
                    f"\n[tripletbench.harness.io] the log file can no longer be written: {err}\n"
                )
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
    ``tripletbench.algorithms.base.TraceRecorder``)."""
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


def main(argv=None) -> int:
    """``python -m tripletbench.harness.io adopt PATH...``: :func:`adopt` (see there when to use it)."""
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m tripletbench.harness.io",
        description="Vouch for result CSVs written before results carried a digest: write "
        "<file>.sha256 for each file under PATH that has none. Only for files that you know "
        "their job wrote and nobody edited; otherwise rerun the job.",
    )
    ap.add_argument("command", choices=["adopt"])
    ap.add_argument("paths", nargs="+", help="result CSVs, or folders searched for *.csv")
    args = ap.parse_args(argv)
    done = adopt(args.paths)
    for f in done:
        print(f"adopted {f}")
    print(f"{len(done)} file(s) adopted; files that already had a digest were left alone")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
