"""Snakemake's internals the workflow relies on, behind one guarded adapter.

The workflow needs a few things Snakemake's documented API does not give: to force a job while
the DAG is built (results that hold without Snakemake's metadata, :mod:`.keep`), the jobs about
to run (``onstart``: keep their old outputs), the run's target rules and cores (its wall-time
record), the ``--config`` values Snakemake recorded (the unpinned-download opt-in of a job
process), and the scheduler's job rate limiter (dropped in a local run). Each name is in
:data:`INTERNALS` with what it serves, and the private ones are read through this module's
functions; ``Workflow.is_main_process``, ``overwrite_configfiles`` and ``configfiles`` are also
read directly in the rule files, after :func:`check_workflow` has found them. The scheduler
itself (``Workflow.scheduler``, ``Workflow.local_exec``, which exist only once jobs run) is read
by :func:`tripletbench.harness.keep.without_rate_limiter_timers` with a fallback: where it is
missing, the rate limiter stays (a local run that waits a little longer, never a wrong one).

Tested with Snakemake :data:`TESTED` (requirements.txt pins 9.27.1). :func:`check_workflow` runs
when the workflow is parsed (``workflow/rules/common.smk``) and stops the run before any job if
an attribute is gone, naming it, the Snakemake version found and the range tested; an attribute
that exists only while a DAG is built (``DAG.forcefiles``, ``DAG.targetrules``) is checked where
it is used, with the same error. ``tests/test_snakemake_internals.py`` fails if any of them
disappears from the installed Snakemake.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

TESTED = ">=9.27.1,<10"

INTERNALS = {
    "Workflow._dag": "the DAG being built, to force a job (keep.force_if_outdated)",
    "Workflow.dag": "the run's DAG in onstart and onsuccess/onerror",
    "Workflow.is_main_process": "checks and start-up work run once, not in each job process",
    "Workflow.dag_settings.rerun_triggers": "forcing follows the run's --rerun-triggers",
    "Workflow.config_settings.config": "the --config values a job process was given",
    "Workflow.global_resources['_cores']": "--cores, for the run's wall-time record",
    "Workflow.overwrite_configfiles": "the default config only when no --configfile is given",
    "Workflow.configfiles": "every config file of the run, for the duplicate-key check",
    "DAG.forcefiles": "the outputs whose jobs are forced (keep.force_if_outdated)",
    "DAG.needrun_jobs()": "the jobs about to run (onstart: keep.keep_previous)",
    "DAG.targetrules": "the run's target rules, for its wall-time record",
    "JobScheduler.job_rate_limiter": "dropped in a local run (keep.without_rate_limiter_timers)",
    "snakemake.cli.get_profile_dir": "the profile files of a run, for the duplicate-key check",
}


class SnakemakeInternalsError(RuntimeError):
    """An attribute of Snakemake the workflow relies on is missing (another Snakemake version)."""


def _version() -> str:
    try:
        import snakemake

        return str(getattr(snakemake, "__version__", "unknown"))
    except ImportError:  # pragma: no cover - the workflow runs under Snakemake
        return "not installed"


def missing(name: str) -> SnakemakeInternalsError:
    """The error for internal ``name`` (a key of :data:`INTERNALS`) not found."""
    return SnakemakeInternalsError(
        f"Snakemake {_version()} has no {name}, which tripletbench's workflow uses for "
        f"{INTERNALS[name]}; tested with Snakemake {TESTED}: install that version "
        "(pip install -r requirements.txt)"
    )


def _get(obj, attr: str, name: str) -> Any:
    try:
        return getattr(obj, attr)
    except AttributeError:
        raise missing(name) from None


def check_workflow(workflow) -> None:
    """Raise :class:`SnakemakeInternalsError` unless ``workflow`` (Snakemake's ``workflow``
    object) has every internal of :data:`INTERNALS` that exists while the workflow is parsed
    (``dag_settings`` is still None then: its ``rerun_triggers`` is checked where it is read),
    and Snakemake's DAG class has ``needrun_jobs``."""
    _get(workflow, "_dag", "Workflow._dag")
    if not isinstance(getattr(type(workflow), "dag", None), property):
        raise missing("Workflow.dag")
    _get(workflow, "is_main_process", "Workflow.is_main_process")
    _get(workflow, "dag_settings", "Workflow.dag_settings.rerun_triggers")  # None until parsed
    _get(_get(workflow, "config_settings", "Workflow.config_settings.config"), "config",
         "Workflow.config_settings.config")  # fmt: skip
    cores(workflow)
    _get(workflow, "overwrite_configfiles", "Workflow.overwrite_configfiles")
    _get(workflow, "configfiles", "Workflow.configfiles")
    import snakemake.api  # noqa: F401  (Snakemake's own import order; snakemake.dag alone: a circle)
    from snakemake.dag import DAG

    if not callable(getattr(DAG, "needrun_jobs", None)):
        raise missing("DAG.needrun_jobs()")
    from snakemake import cli

    if not callable(getattr(cli, "get_profile_dir", None)):
        raise missing("snakemake.cli.get_profile_dir")


def is_main_process(workflow) -> bool:
    """True in the process that plans the run (not in a job's own process)."""
    return bool(_get(workflow, "is_main_process", "Workflow.is_main_process"))


def building_dag(workflow):
    """The DAG Snakemake is building in this process, or None (a job's process, or no DAG yet)."""
    dag = _get(workflow, "_dag", "Workflow._dag")
    if dag is None or not is_main_process(workflow):
        return None
    return dag


def rerun_triggers(workflow) -> set:
    """The run's rerun triggers (``snakemake.settings.types.RerunTrigger`` members)."""
    settings = _get(workflow, "dag_settings", "Workflow.dag_settings.rerun_triggers")
    return set(_get(settings, "rerun_triggers", "Workflow.dag_settings.rerun_triggers"))


def force(workflow, path) -> bool:
    """Force the job whose output is ``path`` in the DAG being built; False outside one."""
    dag = building_dag(workflow)
    if dag is None:
        return False
    _get(dag, "forcefiles", "DAG.forcefiles").add(str(path))
    return True


def needrun_jobs(workflow) -> list:
    """The jobs of this run that will run (``onstart``)."""
    dag = _get(workflow, "dag", "Workflow.dag")
    return list(_get(dag, "needrun_jobs", "DAG.needrun_jobs()")())


def target_rules(workflow) -> list[str]:
    """The names of the run's target rules, sorted; [] before a DAG exists."""
    dag = _get(workflow, "dag", "Workflow.dag")
    if dag is None:
        return []
    return sorted(r.name for r in _get(dag, "targetrules", "DAG.targetrules") or [])


def cores(workflow):
    """``--cores`` of the run (None under a cluster executor given none)."""
    resources = _get(workflow, "global_resources", "Workflow.global_resources['_cores']")
    try:
        value = resources["_cores"]
    except (KeyError, TypeError):
        raise missing("Workflow.global_resources['_cores']") from None
    return getattr(value, "value", value)


def recorded_config(workflow) -> dict:
    """The ``--config`` values Snakemake recorded for this run (a job process gets them from the
    main process's command line)."""
    settings = _get(workflow, "config_settings", "Workflow.config_settings.config")
    return _get(settings, "config", "Workflow.config_settings.config") or {}


def drop_rate_limiter(scheduler) -> bool:
    """Set ``scheduler.job_rate_limiter`` to None; raise if the scheduler has no such attribute."""
    _get(scheduler, "job_rate_limiter", "JobScheduler.job_rate_limiter")
    scheduler.job_rate_limiter = None
    return True


def profile_file(name: str):
    """The config file of profile ``name`` (a folder, a file, or a name under the user's or the
    site's config folders) as Snakemake's own lookup (``snakemake.cli.get_profile_dir``) finds
    it; None when there is none."""
    try:
        from snakemake.cli import get_profile_dir
    except ImportError:
        raise missing("snakemake.cli.get_profile_dir") from None
    found = get_profile_dir(name)
    return None if found is None else Path(found[1])
