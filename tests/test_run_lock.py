"""Rule: one run per results folder. A second Snakemake run on a results folder another run is
using stops before it touches anything (its onstart once put back the first run's in-flight cell
file and emptied ``.previous``, losing 7 of the first run's outputs); the lock goes when its run
ends, and a lock left by a killed run is found stale and replaced."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tripletbench.harness import run_lock
from tripletbench.harness.run_lock import LOCK, RunLocked, acquire, holds, release

ROOT = Path(__file__).resolve().parents[1]


def _holder(results, seconds=120):
    """A separate live process that holds the lock of ``results``."""
    code = (
        "import sys, time; from tripletbench.harness.run_lock import acquire; "
        f"acquire({str(results)!r}, ['snakemake', 'table_sdca_2']); print('held', flush=True); "
        f"time.sleep({seconds})"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_live_run_holds_the_folder_and_a_killed_ones_lock_is_stale(tmp_path, capsys):
    proc = _holder(tmp_path)
    try:
        with pytest.raises(RunLocked, match=rf"in use by another run \(pid {proc.pid} on "):
            acquire(tmp_path)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    path = acquire(tmp_path)  # the killed run's lock is stale: removed, then taken
    assert "stale lock" in capsys.readouterr().err
    assert holds(tmp_path) and json.loads(path.read_text())["pid"] == os.getpid()
    release(tmp_path)
    assert not (tmp_path / LOCK).exists()
    release(tmp_path)  # idempotent


def test_a_reused_pid_is_not_taken_for_the_run_that_held_the_lock(tmp_path):
    """The lock records the process's start time: a live process with the same pid but another
    start (pid reuse after a crash) leaves the lock stale."""
    if run_lock._process_start(os.getpid()) is None:
        pytest.skip("no /proc here")
    stale = {"pid": os.getpid(), "host": socket.gethostname(), "process_start": "1",
             "started_utc": "2026-01-01T00:00:00Z", "command": "snakemake all"}  # fmt: skip
    (tmp_path / LOCK).write_text(json.dumps(stale))
    acquire(tmp_path)
    assert json.loads((tmp_path / LOCK).read_text())["process_start"] != "1"
    release(tmp_path)


def test_a_lock_from_another_host_is_refused_with_the_file_to_remove(tmp_path):
    other = {"pid": 1, "host": "elsewhere.example", "started_utc": "2026-01-01T00:00:00Z",
             "command": "snakemake all"}  # fmt: skip
    (tmp_path / LOCK).write_text(json.dumps(other))
    with pytest.raises(RunLocked, match=r"another host: if that run is gone, remove the lock"):
        acquire(tmp_path)
    assert (tmp_path / LOCK).exists()


@pytest.mark.slow
def test_a_second_workflow_run_is_refused_before_it_touches_anything(tmp_path):
    """Through Snakemake: a run with jobs on a folder whose lock a live run holds stops in its
    onstart, before keep_previous; the kept outputs under .previous are as they were."""
    results = tmp_path / "results"
    kept = results / ".previous" / "files" / "x.csv"
    kept.parent.mkdir(parents=True)
    kept.write_text("the first run's old output\n")
    manifest = results / ".previous" / "manifest.json"
    manifest.write_text(json.dumps([{"path": str(results / "x.csv"), "backup": str(kept),
                                     "in_place": True}]))  # fmt: skip
    proc = _holder(results)
    try:
        cmd = [sys.executable, "-m", "snakemake", "table_sdca_2", "--configfile", "config/ci.yaml",
               "--config", f"results_dir={results}", f"figures_dir={tmp_path}/figures",
               "--cores", "1", "--nolock"]  # fmt: skip
        res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    out = res.stdout + res.stderr
    assert res.returncode != 0 and f"in use by another run (pid {proc.pid}" in out, out[-3000:]
    assert kept.read_text() == "the first run's old output\n" and manifest.exists()
    assert not (results / "x.csv").exists()  # nothing put back by the refused run
    assert not list((results / "logs").glob("run_walltime.csv"))
    assert "localrule" not in out and "rule split" not in out  # no job started


def test_a_finished_run_leaves_no_lock(ci_run):
    """The CI run (conftest.py) took the lock of its results folder and dropped it at the end."""
    assert (ci_run / "logs/run_walltime.csv").exists()
    assert not (ci_run / LOCK).exists()


def test_a_killed_run_not_yet_reaped_is_gone(tmp_path):
    """A run killed but not yet waited for by its parent (a zombie) holds nothing."""
    proc = _holder(tmp_path)
    proc.send_signal(signal.SIGKILL)
    for _ in range(50):  # until the kernel has made it a zombie (not reaped: no wait() yet)
        if (run_lock._stat(proc.pid) or ["?"])[0] == "Z":
            break
        time.sleep(0.1)
    assert (run_lock._stat(proc.pid) or ["?"])[0] == "Z"  # the zombie branch is what is tested
    try:
        acquire(tmp_path)
        release(tmp_path)
    finally:
        proc.wait()


def test_two_runs_judging_one_stale_lock_never_both_hold_the_folder(tmp_path):
    """Runs A and B both read a dead run's lock and judge it stale. A removes it and takes the
    folder; B, acting on what it read before, must not remove A's fresh lock: the stale lock is
    renamed aside and read back before removal, so B finds A's lock and is refused."""
    dead = {"pid": 2**22 + 1, "host": socket.gethostname(), "process_start": "1",
            "started_utc": "2026-01-01T00:00:00Z", "command": "snakemake all"}  # fmt: skip
    (tmp_path / LOCK).write_text(json.dumps(dead))
    proc = _holder(tmp_path)  # run A: found the stale lock, removed it, holds the folder
    try:
        a = json.loads((tmp_path / LOCK).read_text())
        assert a["pid"] == proc.pid
        # run B, late: its removal of what it judged stale leaves A's lock in place
        assert not run_lock._remove_if_still(tmp_path / LOCK, dead)
        assert json.loads((tmp_path / LOCK).read_text()) == a
        with pytest.raises(RunLocked, match=rf"pid {proc.pid} on "):
            acquire(tmp_path)
        assert sorted(p.name for p in tmp_path.iterdir()) == [LOCK]  # nothing left aside
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def test_a_lock_file_is_never_seen_half_written(tmp_path, monkeypatch):
    """The lock is created by linking a fully written file: a kill between creating the lock
    and writing its holder can no longer leave an empty lock that refuses every later run. An
    unreadable lock (written by hand) is refused, saying to remove it."""
    seen = []
    real_link = os.link

    def link(src, dst):
        seen.append(json.loads(Path(src).read_text()))  # full before it becomes the lock
        return real_link(src, dst)

    monkeypatch.setattr(run_lock.os, "link", link)
    acquire(tmp_path)
    assert seen and seen[0]["pid"] == os.getpid()
    release(tmp_path)
    (tmp_path / LOCK).write_text("")
    with pytest.raises(RunLocked, match="cannot be read: remove it by hand"):
        acquire(tmp_path)


@pytest.mark.slow
def test_a_run_with_no_hooks_is_refused_a_dry_run_passes():
    """--no-hooks skips onstart, so such a run would take no lock: refused; dry runs pass."""
    from tripletbench.harness.run_lock import check_hooks

    with pytest.raises(RunLocked, match="drop --no-hooks"):
        check_hooks(["table_sdca_2", "--cores", "2", "--no-hooks"])
    for dry in (["-n"], ["-np"], ["--dry-run"], ["--dryrun"]):
        check_hooks(["table_sdca_2", "--no-hooks", *dry])
    check_hooks(["table_sdca_2", "--cores", "2"])
    res = subprocess.run(
        [sys.executable, "-m", "snakemake", "table_sdca_2", "--cores", "1", "--no-hooks",
         "--configfile", "config/ci.yaml", "--config", "results_dir=/nonexistent/r",
         "figures_dir=/nonexistent/f"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert res.returncode != 0 and "drop --no-hooks" in res.stdout + res.stderr
    assert not Path("/nonexistent").exists()
