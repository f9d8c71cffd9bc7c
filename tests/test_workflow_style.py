"""Snakemake workflow conventions (issue 13 item 3): every Snakefile and rule file formatted by
snakefmt, `snakemake --lint` clean on the default and CI configs, every config key described in
config/README.md, and the Snakemake catalog's layout (workflow/Snakefile, config/config.yaml)
running the same workflow as the top-level Snakefile."""

import re
import subprocess
import sys
from pathlib import Path

import yaml

from tests.pipeline import ROOT

SNAKEFILES = [ROOT / "Snakefile", ROOT / "workflow/Snakefile", *sorted((ROOT / "workflow/rules").glob("*.smk"))]


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


def test_snakemake_lint_is_clean_on_the_default_and_ci_configs(tmp_path):
    for configfile in ("config/default.yaml", "config/ci.yaml"):
        res = _snakemake(
            "--lint", "--configfile", configfile,
            "--config", f"results_dir={tmp_path}", f"figures_dir={tmp_path}/figures",
        )
        out = res.stdout + res.stderr
        assert res.returncode == 0 and "Lints for" not in out, f"{configfile}:\n{out[-6000:]}"


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
    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
    keys = set(_schema_keys(schema, [], schema["definitions"]))
    assert len(keys) > 150  # the walk reached the nested blocks and the method rows
    readme = (ROOT / "config/README.md").read_text()
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
    assert not missing, f"config/README.md does not describe: {missing}"
    assert {"notes.protocol", "notes.paper", "notes.ours"} <= documented


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
    assert plans[0] == plans[1] == plans[2] and int(plans[0]["fit_evaluate"]) > 100
