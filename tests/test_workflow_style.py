"""Snakemake workflow conventions: every Snakefile and rule file formatted by
snakefmt, `snakemake --lint` clean on the default and CI configs, every config key described in
docs/src/config.md (the hand-written meanings of the generated docs/config.md), and the Snakemake
catalog's layout (workflow/Snakefile, config/config.yaml) running the same workflow as the
top-level Snakefile."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.pipeline import ROOT

SNAKEFILES = [ROOT / "Snakefile", ROOT / "workflow/Snakefile", *sorted((ROOT / "workflow/rules").rglob("*.smk"))]


@pytest.mark.slow
def test_every_snakefile_is_formatted_by_snakefmt():
    res = subprocess.run(
        [sys.executable, "-m", "snakefmt", "--check", "--diff", *map(str, SNAKEFILES)],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=300,
    )
    assert res.returncode == 0, f"snakefmt would change:\n{(res.stdout + res.stderr)[-6000:]}"


def _snakemake(*args, timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args, "--nolock"],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=timeout,
    )


@pytest.mark.slow
def test_snakemake_lint_is_clean_on_the_default_and_ci_configs(tmp_path):
    for configfile in ("config/default.yaml", "config/ci.yaml"):
        res = _snakemake(
            "--lint", "--configfile", configfile,
            "--config", f"results_dir={tmp_path}", f"figures_dir={tmp_path}/figures",
        )
        out = res.stdout + res.stderr
        assert res.returncode == 0 and "Lints for" not in out, f"{configfile}:\n{out[-6000:]}"


@pytest.mark.slow
def test_no_rule_is_tried_on_another_rules_files(tmp_path):
    """Every rule's output patterns are narrow enough that Snakemake never tries one rule on the
    files of another: a dry run of reproduce_all builds its DAG under
    ``--strict-dag-evaluation functions`` (an input function that fails on a candidate's
    wildcards stops the run instead of printing an InputFunctionException and moving on), on the
    default, CI and mirror configs. Example: fit_evaluate's ``<experiment>/runs/<dataset>/
    <method>.csv`` also matches ``svm/runs/<notion>/seed<k>.csv`` unless its experiment wildcard
    names only the experiments it fits."""
    for configs in (["config/default.yaml"], ["config/ci.yaml"],
                    ["config/default.yaml", "config/mirror.yaml"]):
        res = _snakemake(
            "-n", "reproduce_all", "--strict-dag-evaluation", "functions", "--configfile",
            *configs, "--config", f"results_dir={tmp_path}", f"figures_dir={tmp_path}/figures",
            timeout=600,
        )
        out = res.stdout + res.stderr
        assert res.returncode == 0 and "Exception" not in out, f"{configs}:\n{out[-6000:]}"


def _schema_keys(node, path, defs):
    """Dotted paths of every key the config schema allows (``<row>`` for the names of an open
    mapping such as ``methods``; ``$ref`` followed)."""
    if not isinstance(node, dict):
        return
    if "$ref" in node:
        ref = node["$ref"].split("/")[2:]
        target = defs
        for part in ref:
            target = target[part] if part in target else target["properties"][part]
        yield from _schema_keys(target, path, defs)
        return
    for key, sub in (node.get("properties") or {}).items():
        yield ".".join([*path, key])
        yield from _schema_keys(sub, [*path, key], defs)
    if isinstance(node.get("additionalProperties"), dict):
        yield from _schema_keys(node["additionalProperties"], [*path, "<row>"], defs)


def test_config_readme_describes_every_config_key():
    from tripletbench.harness.config import schema

    schema = schema()
    keys = set(_schema_keys(schema, [], schema["definitions"]))
    assert len(keys) > 150  # the walk reached the nested blocks and the method rows
    readme = (ROOT / "docs/src/config.md").read_text()
    documented = set(re.findall(r"`([A-Za-z_0-9<>.]+)`", readme))
    # the OAHU experiments share keys: oahu.<experiment>.k stands for oahu.table3.k etc.
    for key in list(documented):
        if key.startswith("oahu.<experiment>."):
            for exp in ("table3", "figure4", "figure5", "figure7"):
                documented.add(key.replace("<experiment>", exp))
        if key.startswith("notes."):
            documented.add(key)
    # a row's notes: {protocol, paper, ours} are described once, under `notes`
    missing = sorted(
        k for k in keys
        if k not in documented and not re.search(r"notes(\.<row>)?\.(protocol|paper|ours)$", k)
    )
    assert not missing, f"docs/src/config.md does not describe: {missing}"
    assert {"notes.protocol", "notes.paper", "notes.ours"} <= documented


@pytest.mark.slow
def test_the_catalog_layout_runs_the_same_workflow(tmp_path):
    """`snakemake -s workflow/Snakefile` (with config/config.yaml, the catalog's names) plans the
    same jobs as the top-level Snakefile with config/default.yaml, for the default target (`all`:
    a default target set in an included file is lost, so each Snakefile sets its own) and for
    reproduce_all."""
    assert (ROOT / "config/config.yaml").resolve() == (ROOT / "config/default.yaml").resolve()
    plans = []
    for args in (
        ["-s", "workflow/Snakefile", "--configfile", "config/config.yaml"],
        ["--configfile", "config/default.yaml"],
        ["reproduce_all", "--configfile", "config/default.yaml"],
    ):
        res = _snakemake(
            *args, "-n", "--quiet", "rules",
            "--config", f"results_dir={tmp_path}", f"figures_dir={tmp_path}/figures",
        )
        assert res.returncode == 0, res.stdout + res.stderr
        # the job counts per rule (Snakemake's "Job stats" table)
        plans.append(dict(re.findall(r"^(\w+)\s+(\d+)$", res.stdout, re.M)))
    plans[2].pop("reproduce_all")
    plans[2]["total"] = str(int(plans[2]["total"]) - 1)
    plans[0].pop("all"), plans[1].pop("all")
    plans[0]["total"] = plans[1]["total"] = str(int(plans[0]["total"]) - 1)
    assert plans[0] == plans[1] == plans[2] and int(plans[0]["fit_evaluate"]) > 50


#: Rules whose script's code is deliberately outside their params, and why.
NO_CODE_HASH = {
    "prepare_dataset": "params.code covers the dataset's parser and the scaling; fetching and "
    "checksums (tripletbench.datasets.base) cannot change the arrays, and a changed array fails its sha256",
    "fetch_raw": "a verified download: its output is the files' checksums",
    "images_caltech256": "extraction of a verified archive (safe_extract)",
}


def _rule_blocks():
    """(rule name, script file or None, rule text) of every rule of the rule files; a
    ``use rule A as B`` block inherits A's script."""
    out, scripts = [], {}
    for f in sorted((ROOT / "workflow/rules").rglob("*.smk")):
        for part in re.split(r"^(?=(?:rule|use rule) )", f.read_text(), flags=re.M)[1:]:
            use = re.match(r"use rule (\w+) as (\w+)", part)
            name = use.group(2) if use else re.match(r"rule (\w+)", part).group(1)
            m = re.search(r'^    script:\n        "(?:\.\./)+scripts/((?:\w+/)?\w+\.py)"', part, re.M)
            script = m.group(1) if m else scripts.get(use.group(1)) if use else None
            scripts[name] = script
            out.append((name, script, part))
    return out


def test_every_table_figure_and_timing_rule_hashes_the_code_its_script_runs():
    """Rule: every line of code a table, figure, report or timing reads is in its hash: a
    rule's params name its script's path, through script_code, block_settings,
    cell_settings or data_settings, directly or through a settings value defined in the rule
    files, tripletbench.harness.settings or a study's module; tripletbench.harness.settings.code_hash then covers every project module the
    script imports (tripletbench.harness.tables and tripletbench.harness.plots included, see PLUMBING)."""
    from tripletbench.harness.settings import PLUMBING, code_closure

    assert not {"tripletbench.harness.tables", "tripletbench.harness.plots", "tripletbench.harness.report"} & PLUMBING
    assert "tripletbench.harness.tables" in code_closure(script="workflow/scripts/sdca/table_sdca_2.py")
    assert "tripletbench.harness.plots" in code_closure(script="workflow/scripts/sdca/plot_figure.py")
    files = [*(ROOT / "workflow/rules").rglob("*.smk"), ROOT / "harness/settings.py",
             *(ROOT / "studies").rglob("*.py")]
    sources = "\n".join(p.read_text() for p in files)
    definitions = {  # NAME = ... or def name(...): with their text
        m.group(1): m.group(0)
        for m in re.finditer(r"^(?:def )?(\w+)(?: = |\().*?(?=^\S|\Z)", sources, re.M | re.S)
    }
    unhashed = []
    for name, script, text in _rule_blocks():
        if script is None or name in NO_CODE_HASH:
            continue
        params = text.split("    params:", 1)[1] if "    params:" in text else ""
        path = f"workflow/scripts/{script}"
        named = re.findall(r"\b([A-Za-z_]\w*)\b", params)
        if path not in params and not any(path in definitions.get(n, "") for n in named):
            unhashed.append(f"{name} ({script})")
    assert not unhashed, f"rules whose params do not hash their script's code: {unhashed}"
    # the report's pages: the paper-vs-ours join
    report = next(t for n, _, t in _rule_blocks() if n == "report_pages")
    assert 'code=code_hash(["tripletbench.harness.report"])' in report


def test_every_test_named_in_the_readmes_reliability_table_exists():
    readme = (ROOT / "docs/reliability.md").read_text()
    table = readme.split("# Reliability: what a run promises", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"`(tests/[\w/]+\.py)(?:::(\w+))?`", table)
    assert len(named) > 20
    rows = [r for r in table.splitlines() if r.startswith("| ") and not r.startswith("| situation")]
    untested = [r.split("|")[1].strip()[:80] for r in rows if "`tests/" not in r.split("|")[-2]]
    assert not untested, f"promises without a test: {untested}"
    for path, test in named:
        text = (ROOT / path).read_text()
        assert not test or f"def {test}(" in text, f"{path}::{test} is not there"
