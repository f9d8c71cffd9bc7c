"""One run per results folder: a lock the workflow takes when a run starts and drops when it ends.

Snakemake's own lock (``.snakemake/locks``) refuses a second run only when the two runs' outputs
overlap, and only within one checkout. Two runs whose outputs are disjoint (one table's target
running, then another table's started on the same results folder) were both let in; the second
run's start (``onstart``: :func:`tripletbench.harness.keep.keep_previous`) put back the first
run's in-flight cell file and emptied ``{results}/.previous``, so that seven old outputs of the
first run were lost when its table then failed (measured on 8fd98b7).

The workflow therefore takes :data:`LOCK` in the results folder at the start of every run that
has jobs (``onstart``, before anything under the folder is touched) and drops it on success or
error (and at exit, should Snakemake stop another way). A second run finds it and stops with an
error naming the first run (its pid, host, start and command), before it touches anything. A
lock whose process is gone (the run was killed) is stale: the next run says so, removes it and
goes on. Staleness is told on the host that took the lock (the pid and, on Linux, the process's
start time, so that a reused pid does not count as alive); a lock taken on another host is
refused with the file to remove by hand once that run is known to be gone. Dry runs take no lock
(they write nothing).
"""

from __future__ import annotations

import atexit
import json
import os
import socket
import sys
import time
from pathlib import Path

LOCK = ".tripletbench-run.lock"


class RunLocked(RuntimeError):
    """Another run is using the results folder."""


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after "pid (comm)" (Linux), or None."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _process_start(pid: int) -> str | None:
    """The start time of process ``pid`` in clock ticks since boot (Linux ``/proc``), or None."""
    fields = _stat(pid)
    return None if fields is None else fields[19]  # field 22 of proc(5)


def _alive(holder: dict) -> bool:
    """Whether the process that wrote ``holder`` (this host) still runs."""
    pid = int(holder.get("pid", -1))
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, under another user
    fields = _stat(pid)
    if fields is not None and fields[0] in ("Z", "X"):  # killed, not yet reaped by its parent
        return False
    started = holder.get("process_start")
    return started is None or fields is None or fields[19] == started


def _describe(holder: dict) -> str:
    return (
        f"pid {holder.get('pid')} on {holder.get('host')}, started {holder.get('started_utc')}: "
        f"{holder.get('command', '?')}"
    )


def acquire(results, argv=None) -> Path:
    """Take the lock of results folder ``results`` for this process; returns its path.

    Raises :class:`RunLocked` naming the other run when a live run holds it (or one on another
    host, whose life cannot be checked from here). A stale lock (its process gone) is removed
    with a message on stderr. The lock is dropped at this process's exit if not before."""
    folder = Path(results)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK
    me = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "process_start": _process_start(os.getpid()),
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": " ".join(sys.argv if argv is None else argv),
    }
    for _ in range(3):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            holder = _read(path)
            if holder is None:  # being written this instant, or unreadable: look again
                time.sleep(0.2)
                holder = _read(path)
            if holder is not None and holder.get("host") == me["host"] and not _alive(holder):
                print(f"{path}: a stale lock of a run that is gone ({_describe(holder)}); "
                      "removed", file=sys.stderr)  # fmt: skip
                path.unlink(missing_ok=True)
                continue
            who = _describe(holder) if holder else "an unreadable lock file"
            where = "" if holder is None or holder.get("host") == me["host"] else (
                " (on another host: if that run is gone, remove the lock file by hand)"
            )  # fmt: skip
            raise RunLocked(
                f"results folder {folder} is in use by another run ({who}){where}; two runs on "
                f"one results folder would undo each other's kept outputs. Wait for it to end, "
                f"or give this run another results_dir. Lock: {path}"
            )
        with os.fdopen(fd, "w") as fh:
            json.dump(me, fh)
        atexit.register(release, folder)
        return path
    raise RunLocked(f"{path}: could not take the lock (it keeps reappearing)")


def _read(path: Path) -> dict | None:
    try:
        holder = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return holder if isinstance(holder, dict) else None


def holds(results) -> bool:
    """Whether this process holds the lock of ``results``."""
    holder = _read(Path(results) / LOCK)
    return (
        bool(holder)
        and holder.get("pid") == os.getpid()
        and (holder.get("host") == socket.gethostname())
    )


def release(results) -> None:
    """Drop the lock of ``results`` if this process holds it (idempotent)."""
    if holds(results):
        (Path(results) / LOCK).unlink(missing_ok=True)
