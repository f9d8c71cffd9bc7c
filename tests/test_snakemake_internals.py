"""Rule: every Snakemake internal the workflow uses goes through harness/snakemake_internals.py,
is present in the installed Snakemake, and a missing one is a clear error naming it and the
versions tested, never a silent no-op (``keep.force_if_outdated`` once returned False when
``workflow._dag`` was missing, and raised a bare AttributeError without ``forcefiles``)."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
from tripletbench.harness import snakemake_internals as si
from tripletbench.harness.keep import force_if_outdated

ROOT = Path(__file__).resolve().parents[1]


def _fake_workflow(**drop):
    """A stand-in with every internal check_workflow reads; ``drop`` names attributes to leave
    out."""
    from snakemake.settings.types import RerunTrigger

    class Workflow:
        dag = property(lambda self: self._dag)

    wf = Workflow()
    values = {
        "_dag": None,
        "is_main_process": True,
        "dag_settings": SimpleNamespace(rerun_triggers={RerunTrigger.PARAMS}),
        "config_settings": SimpleNamespace(config={}),
        "global_resources": {"_cores": SimpleNamespace(value=2)},
        "overwrite_configfiles": [],
        "configfiles": [],
    }
    for key, value in values.items():
        if key not in drop:
            setattr(wf, key, value)
    return wf


@pytest.mark.slow
def test_the_installed_snakemake_has_every_internal_the_workflow_uses(tmp_path):
    """A real (tiny) workflow run under the installed Snakemake: the parse-time check passes, a
    job is forced through the adapter while the DAG is built, onstart sees the jobs to run, and
    the run's target rules, cores and rate limiter are reached."""
    snakefile = tmp_path / "Snakefile"
    snakefile.write_text(textwrap.dedent(f'''
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from tripletbench.harness import snakemake_internals as si
        si.check_workflow(workflow)

        def forced(wc):
            print("FORCED", si.force(workflow, "out.txt"), sorted(t.name for t in si.rerun_triggers(workflow)))
            return []

        onstart:
            print("NEEDRUN", sorted(j.rule.name for j in si.needrun_jobs(workflow)))
            print("TARGETS", si.target_rules(workflow), "CORES", si.cores(workflow))
            print("LIMITER", si.drop_rate_limiter(workflow.scheduler))

        rule all:
            input: "out.txt"

        rule make:
            input: forced
            output: "out.txt"
            shell: "echo made > {{output}}"
    '''))  # fmt: skip
    (tmp_path / "out.txt").write_text("old\n")  # up to date: only the forcing makes it run
    res = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", "-s", str(snakefile)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    log = res.stdout + res.stderr
    assert res.returncode == 0, log[-3000:]
    assert re.search(r"FORCED True \[.*PARAMS.*\]", log), log[-3000:]
    assert "NEEDRUN ['all', 'make']" in log or "NEEDRUN ['make']" in log, log[-3000:]
    assert "TARGETS ['all'] CORES 1" in log and "LIMITER True" in log, log[-3000:]
    assert (tmp_path / "out.txt").read_text() == "made\n"


@pytest.mark.parametrize(
    "drop, name",
    [
        ("_dag", "Workflow._dag"),
        ("is_main_process", "Workflow.is_main_process"),
        ("dag_settings", "Workflow.dag_settings.rerun_triggers"),
        ("config_settings", "Workflow.config_settings.config"),
        ("global_resources", "Workflow.global_resources['_cores']"),
        ("overwrite_configfiles", "Workflow.overwrite_configfiles"),
        ("configfiles", "Workflow.configfiles"),
    ],
)
def test_a_missing_internal_stops_the_parse_naming_it_and_the_versions_tested(drop, name):
    si.check_workflow(_fake_workflow())
    with pytest.raises(si.SnakemakeInternalsError) as err:
        si.check_workflow(_fake_workflow(**{drop: True}))
    msg = str(err.value)
    assert name in msg and si.TESTED in msg and "requirements.txt" in msg, msg


def test_forcing_without_forcefiles_or_dag_is_a_clear_error_not_a_silent_no_op(tmp_path):
    cell = tmp_path / "cell.csv"
    cell.write_text("settings_hash,value\nold,1\n")
    wf = _fake_workflow()
    wf._dag = SimpleNamespace()  # a DAG without forcefiles
    with pytest.raises(si.SnakemakeInternalsError, match=r"DAG\.forcefiles"):
        force_if_outdated(wf, cell, "new")
    with pytest.raises(si.SnakemakeInternalsError, match=r"Workflow\._dag"):
        force_if_outdated(_fake_workflow(_dag=True), cell, "new")
    wf._dag = SimpleNamespace(forcefiles=set())
    assert force_if_outdated(wf, cell, "new") and wf._dag.forcefiles == {str(cell)}
    wf.is_main_process = False  # a job's own process: nothing to force, by design
    assert not force_if_outdated(wf, cell, "newer")


def test_no_rate_limiter_is_a_clear_error():
    with pytest.raises(si.SnakemakeInternalsError, match="job_rate_limiter"):
        si.drop_rate_limiter(SimpleNamespace())


def test_no_code_but_the_adapter_reaches_into_snakemakes_workflow_internals():
    """The workflow's rule files and the harness name none of the internals but through it."""
    pattern = re.compile(
        r"workflow\.(_dag|dag\b|dag_settings|config_settings\.config|global_resources|scheduler)"
        r"|\.forcefiles|needrun_jobs\(|job_rate_limiter|targetrules"
    )
    files = [*ROOT.glob("workflow/rules/**/*.smk"), ROOT / "Snakefile", *ROOT.glob("harness/*.py"),
             *ROOT.glob("studies/**/*.py")]  # fmt: skip
    offenders = []
    for f in files:
        if f.name == "snakemake_internals.py":
            continue
        for i, code in _code_lines(f):
            if pattern.search(code) and "snakemake_internals" not in code:
                offenders.append(f"{f.relative_to(ROOT)}:{i}: {code.strip()}")
    assert not offenders, "\n".join(offenders)


def _code_lines(path):
    """(line number, the line's code without its strings and comments) of a Python or rule file."""
    import io
    import tokenize

    names = (
        "STRING",
        "COMMENT",
        "FSTRING_START",
        "FSTRING_MIDDLE",
        "FSTRING_END",
    )  # 3.12: f-strings
    SKIPPED = {getattr(tokenize, n) for n in names if hasattr(tokenize, n)}
    lines: dict[int, str] = {}
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    try:
        for tok in tokens:
            if tok.type not in SKIPPED:
                lines[tok.start[0]] = lines.get(tok.start[0], "") + tok.string
    except (tokenize.TokenError, IndentationError):
        pass
    return sorted(lines.items())


def test_every_internal_listed_is_one_the_adapter_checks_or_reads():
    src = (ROOT / "harness/snakemake_internals.py").read_text()
    body = src.split("class SnakemakeInternalsError", 1)[1]
    for name in si.INTERNALS:
        assert f'"{name}"' in body, f"{name} is listed but never checked or read"
