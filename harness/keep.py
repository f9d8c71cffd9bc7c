"""Results that hold without Snakemake's memory, and old results that survive a failed rerun.

Rule 1 (:func:`recorded_settings`, :func:`force_if_outdated`): a cell's CSV records the
``settings_hash`` it was made under (``tripletbench.harness.settings``). Snakemake's params trigger compares a
job's params with those it recorded in ``.snakemake/metadata``; once that record is lost (``rm -rf
.snakemake``, ``--cleanup-metadata``, a results folder copied to another checkout) a changed
setting plans nothing. The workflow therefore also compares, for every cell job in the DAG of a
run (dry runs included), the hash its existing CSV records with the one the config implies now,
and forces the job when they differ; the tables built on it follow, as on any rerun. Nothing on
disk is changed by the check.

The same check forces a job of rule fit_evaluate whose CSV does not hold exactly the config's
seeds (:func:`lacks_seeds`): one such job covers every seed of a (dataset, method), so a seed
added to the config adds input files to an existing job, which Snakemake's input trigger sees
only through the same lost metadata.

Rule 4 (:func:`keep_previous`, :func:`put_back`): Snakemake deletes a job's outputs when the job
starts, so a rerun that fails or is killed used to leave neither the old nor the new file. At the
start of a run (``onstart``) every existing output of the jobs about to run is hard-linked (a copy
across file systems) under ``{results}/.previous/``; our writes replace a file by a new one
(``tripletbench.harness.io.atomic_path``), so the link keeps the old bytes. On error (``onerror``), and at the
start of the next run after a kill, every output that is missing is put back from there, with its
modification time set to 1970 so that Snakemake reruns its job (the failed job's metadata is gone);
on success the copies are dropped. An output of a job with no input files (a timing table made
from synthetic data, a download) is not put back in place, since nothing would
then tell Snakemake it is old: it stays under ``.previous/`` and the message names it.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys
import zipfile
from pathlib import Path

import numpy as np

PREVIOUS = ".previous"
MANIFEST = "manifest.json"


def recorded_values(path, column: str) -> set[str] | None:
    """The values of ``column`` recorded in result CSV ``path`` (as text), or the array of that
    name in a ``.npz`` result (a data job's ``settings_hash``,
    :func:`tripletbench.harness.io.settings_record`); None when the file is absent, unreadable
    or has no such column (a table refuses such a file by name, tripletbench.harness.io; a data
    file made before it recorded its settings is left as it is)."""
    if str(path).endswith(".npz"):
        try:
            with np.load(path, allow_pickle=False) as z:
                return {str(v) for v in np.ravel(z[column])} if column in z.files else None
        except (OSError, ValueError, EOFError, zipfile.BadZipFile):
            return None
    try:
        with open(path, newline="") as fh:
            rows = csv.reader(fh)
            header = next(rows)
            if column not in header:
                return None
            i = header.index(column)
            return {row[i] for row in rows if len(row) > i}
    except (OSError, StopIteration, csv.Error, UnicodeDecodeError):
        return None


def recorded_settings(path) -> set[str] | None:
    """The ``settings_hash`` values recorded in result CSV ``path`` (:func:`recorded_values`)."""
    return recorded_values(path, "settings_hash")


def is_outdated(path, expected: str) -> bool:
    """True when ``path`` exists and records a settings hash other than ``expected``."""
    got = recorded_settings(path)
    return got is not None and got != {expected}


def lacks_seeds(path, seeds) -> bool:
    """True when ``path`` exists and the seeds its rows record (column ``seed``) are not exactly
    ``seeds`` (a file of rule fit_evaluate holds every seed of its job: a seed added to or removed
    from the config changes the job's inputs, which Snakemake sees only through its metadata)."""
    got = recorded_values(path, "seed")
    return got is not None and got != {str(int(s)) for s in seeds}


def kept_but_missing(path, results) -> bool:
    """True when ``path`` does not exist but a copy of it waits under ``{results}/.previous``
    (a run was killed after its job started: the next run with jobs puts it back). Snakemake
    plans nothing for a missing intermediate file under an up-to-date table, so the file would
    stay missing; its job is forced instead (:func:`force_if_outdated`), dry runs included."""
    manifest = _store(results) / MANIFEST
    if results is None or os.path.exists(path) or not manifest.is_file():
        return False
    try:
        entries = json.loads(manifest.read_text())
    except (OSError, ValueError):
        return False
    wanted = os.path.abspath(path)
    return any(e.get("path") == wanted and Path(e.get("backup", "")).is_file() for e in entries)


def written_by_another_rule(path, rule) -> bool:
    """True when ``.npz`` result ``path`` records (``settings_rule``) that a rule other than
    ``rule`` wrote it: its settings are that rule's to judge."""
    if rule is None:
        return False
    got = recorded_values(path, "settings_rule")
    return got is not None and got != {str(rule)}


def force_if_outdated(workflow, path, expected: str, seeds=None, results=None, rule=None) -> bool:
    """Force the job of output ``path`` in the DAG being built when the file records other
    settings than ``expected`` (Snakemake's params trigger on), or, with ``seeds`` given, other
    seeds (its input trigger on), or when it is missing with a copy kept under
    ``{results}/.previous`` (:func:`kept_but_missing`); not in a job's own process. Returns True
    when it forced it. Snakemake's DAG is reached through :mod:`.snakemake_internals` (a clear
    error if another Snakemake version lacks what it uses)."""
    from snakemake.settings.types import RerunTrigger

    from .snakemake_internals import building_dag, force, rerun_triggers

    if building_dag(workflow) is None or written_by_another_rule(path, rule):
        return False
    triggers = rerun_triggers(workflow)
    # without those triggers (--rerun-triggers mtime) the tables refuse stale rows instead
    stale = RerunTrigger.PARAMS in triggers and is_outdated(path, expected)
    if seeds is not None and RerunTrigger.INPUT in triggers:
        stale = stale or lacks_seeds(path, seeds)
    stale = stale or kept_but_missing(path, results)
    return bool(stale) and force(workflow, path)


def _store(results) -> Path:
    return Path(results or ".") / PREVIOUS


def _backup_name(store: Path, path: str) -> Path:
    return store / "files" / os.path.abspath(path).lstrip(os.sep)


def _link_or_copy(src, dst) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if dst.exists():
        dst.unlink()
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def keep_previous(results, jobs) -> list[str]:
    """Keep the existing outputs of ``jobs`` (Snakemake jobs about to run) under
    ``{results}/.previous/``, after putting back what an earlier killed run left there. Returns
    the kept paths."""
    put_back(results)
    store = _store(results)
    entries = []
    if (store / MANIFEST).is_file():  # outputs of jobs without input files, kept from before
        entries = [e for e in json.loads((store / MANIFEST).read_text())]
    for job in jobs:
        for f in job.output:
            path = str(f)
            if not os.path.isfile(path):
                continue  # directory() outputs are not kept
            backup = _backup_name(store, path)
            _link_or_copy(path, backup)
            entries.append(
                {"path": os.path.abspath(path), "backup": str(backup), "in_place": bool(job.input)}
            )
    if entries:
        from tripletbench.harness.io import save_text

        save_text(store / MANIFEST, json.dumps(entries, indent=1))
    return [e["path"] for e in entries]


def put_back(results, quiet=False) -> list[str]:
    """Put every kept output that is missing back in place (modification time 1970, so that its
    job reruns), drop the other copies, and remove ``{results}/.previous`` unless it still holds
    an output of a job without input files. Returns the paths put back."""
    store = _store(results)
    manifest = store / MANIFEST
    if not manifest.is_file():
        return []
    try:
        entries = json.loads(manifest.read_text())
    except (OSError, ValueError):
        print(
            f"{manifest}: unreadable; the previous outputs under {store} are left as they are",
            file=sys.stderr,
        )
        return []
    restored, left = [], []
    for e in entries:
        path, backup = Path(e["path"]), Path(e["backup"])
        if not backup.is_file():
            continue
        if path.exists():
            backup.unlink()
        elif e.get("in_place", True):
            path.parent.mkdir(parents=True, exist_ok=True)
            os.replace(backup, path)
            os.utime(path, (0, 0))
            restored.append(str(path))
        else:
            left.append(e)
    if restored and not quiet:
        print(
            "the previous version of these outputs is back (their jobs will rerun):\n  "
            + "\n  ".join(restored),
            file=sys.stderr,
        )
    if left:
        from tripletbench.harness.io import save_text

        save_text(manifest, json.dumps(left, indent=1))
        print(
            "the previous version of these outputs (of jobs without input files, which "
            "Snakemake could not tell are old) is kept, not put back:\n  "
            + "\n  ".join(f"{e['path']}: {e['backup']}" for e in left),
            file=sys.stderr,
        )
    else:
        shutil.rmtree(store, ignore_errors=True)
    return restored


def drop_previous(results) -> None:
    """After a successful run: drop the kept copies (outputs of jobs without input files that an
    earlier failed run left under ``.previous`` stay until put back or removed by hand)."""
    put_back(results, quiet=True)


def without_rate_limiter_timers(workflow) -> bool:
    """Drop Snakemake's job rate limiter from a local run's scheduler (``onstart``); True if done.

    Measured in Snakemake 9.27 (``scheduling/job_scheduler.py``): with a rate limiter (the
    default ``--max-jobs-per-timespan 100/1s``, which no profile setting can switch off), every
    scheduler pass starts a ``threading.Timer`` that wakes the scheduler again one timespan later,
    whose pass starts another: each finished job adds such a chain for the rest of the run (a
    toy run of 200 jobs of 0.3 s on 2 cores: 200 threads at the end; the default run: 130-215
    threads and 24% of the jobs' CPU spent scheduling by job 393 of 602, measured 2026-11-27; upstream:
    snakemake's GitHub thread 2967). On one machine the limit serves no purpose (``--cores`` bounds the
    jobs), so a local run drops it (the toy: 4 threads); a cluster run (``local_exec`` false:
    e.g. workflow/profiles/slurm) keeps it, where it spaces ``sbatch`` calls. Uses a private
    attribute (``JobScheduler.job_rate_limiter``, through :mod:`.snakemake_internals`, which
    raises a clear error if Snakemake no longer has it)."""
    from .snakemake_internals import drop_rate_limiter

    scheduler = getattr(workflow, "scheduler", None)
    if not getattr(workflow, "local_exec", False) or scheduler is None:
        return False
    return drop_rate_limiter(scheduler)
