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
(they write nothing). A run with ``--no-hooks`` would skip ``onstart`` and so the lock: it is
refused at parse time (:func:`check_hooks`).
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
        if _create(path, me):
            atexit.register(release, folder)
            return path
        holder = _read(path)
        if holder is None:  # a lock file always holds its run (_create): gone this instant?
            time.sleep(0.2)
            holder = _read(path)
            if holder is None and not path.exists():
                continue
        if holder is not None and holder.get("host") == me["host"] and not _alive(holder):
            if _remove_if_still(path, holder):
                print(f"{path}: a stale lock of a run that is gone ({_describe(holder)}); "
                      "removed", file=sys.stderr)  # fmt: skip
            continue  # take it now (or find the run that just took it)
        who = _describe(holder) if holder else "a lock file that cannot be read: remove it by hand"
        where = "" if holder is None or holder.get("host") == me["host"] else (
            " (on another host: if that run is gone, remove the lock file by hand)"
        )  # fmt: skip
        raise RunLocked(
            f"results folder {folder} is in use by another run ({who}){where}; two runs on "
            f"one results folder would undo each other's kept outputs. Wait for it to end, "
            f"or give this run another results_dir. Lock: {path}"
        )
    raise RunLocked(f"{path}: could not take the lock (it keeps reappearing)")


def check_hooks(argv) -> None:
    """Raise :class:`RunLocked` for a Snakemake command line ``argv`` with ``--no-hooks`` that
    runs jobs: Snakemake then skips the workflow's ``onstart``, which takes this lock and keeps
    the previous outputs, so such a run could undo another's. A dry run (``-n``,
    ``--dry-run``, ``--dryrun``, or ``-n`` among combined short flags such as ``-np``) writes
    nothing and passes. Snakemake's own job processes (not the main one) are not checked."""
    if "--no-hooks" not in argv:
        return
    dry = any(
        a in ("--dry-run", "--dryrun", "-n")
        or (a.startswith("-") and not a.startswith("--") and a[1:].isalpha() and "n" in a[1:])
        for a in argv
    )
    if not dry:
        raise RunLocked(
            "--no-hooks skips the workflow's start and end hooks, which take the results "
            "folder's lock (one run per results folder) and keep the previous outputs for a "
            "failed rerun: drop --no-hooks"
        )


def _create(path: Path, me: dict) -> bool:
    """Create the lock file ``path`` holding ``me``, atomically and only if it does not exist
    (a temporary file written in full, then hard-linked to ``path``: a lock file is never seen
    empty or half written, even after a kill). False if it exists."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(me))
    try:
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    finally:
        tmp.unlink(missing_ok=True)


def _remove_if_still(path: Path, holder: dict) -> bool:
    """Remove the lock ``path`` if it still holds ``holder`` (a stale run's): renamed aside
    first, so that two runs judging the same stale lock at once cannot both remove it, nor one
    remove the fresh lock the other has just taken (what is renamed aside is read back; a lock
    that is not ``holder``'s is linked back, unless a third run has taken the path meanwhile).
    True if this process removed it."""
    aside = path.with_name(f".{path.name}.{os.getpid()}.stale")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return False  # another run removed it first
    if _read(aside) == holder:
        aside.unlink(missing_ok=True)
        return True
    try:
        os.link(aside, path)  # a live run's fresh lock: put it back
    except FileExistsError:
        pass
    aside.unlink(missing_ok=True)
    return False


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
