"""The documentation: the generated pages (docs/targets.md from the rules' docstrings,
docs/config.md from the config schema) are up to date, every target rule has a docstring, every
config key a meaning, and the README stays a five-minute read whose links to docs/ all lead
somewhere. Fast: docs/build.py reads the rule files as text and runs no Snakemake."""

import importlib.util
import re
import sys

import pytest

from tests.pipeline import ROOT

README_MAX_LINES = 200


@pytest.fixture(scope="module")
def build():
    spec = importlib.util.spec_from_file_location("docs_build", ROOT / "docs" / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_generated_pages_are_up_to_date(build):
    """`docs/build.py --check`: no stale page, no target rule without a docstring, no config key
    without a meaning (run `.venv/bin/python docs/build.py` to rewrite the pages)."""
    assert build.problems() == []
    assert build.main(["--check"]) == 0


def test_every_target_rule_has_a_docstring_and_its_section(build):
    rules = build.rules()
    targets = [r for r in rules.values() if build.is_target(r.name)]
    assert {"reproduce_all", "table_sdca_2", "table_oahu_3", "table_svm_1", "table_human",
            "figure_sdca_1", "performance", "regression_check"} <= {r.name for r in targets}
    page = (ROOT / "docs" / "targets.md").read_text()
    for r in targets:
        assert r.doc, f"{r.file}:{r.line}: rule {r.name} has no docstring"
        assert f"### `{r.name}`" in page, r.name
    # a `use rule A as B with:` has its own docstring (figure_oasis_3 is not figure_sdca_1)
    assert rules["figure_oasis_3"].parent == "figure_sdca_1"
    assert rules["figure_oasis_3"].doc != rules["figure_sdca_1"].doc
    # the outputs are read from the rule: Table 2's CSV in the default results folder
    assert any(p == "results/tables/sdca_table2.csv" for _, p, _ in rules["table_sdca_2"].outputs)


def test_a_rule_without_a_docstring_is_reported(build, tmp_path, monkeypatch):
    rules = tmp_path / "workflow" / "rules"
    (rules / "x").mkdir(parents=True)
    (rules / "x" / "a.smk").write_text(
        'rule table_x_1:\n    """Table 1 of X."""\n    output:\n        f"{RESULTS}/tables/x.csv",\n\n\n'
        "use rule table_x_1 as table_x_2 with:\n    output:\n        f\"{RESULTS}/tables/x2.csv\",\n\n\n"
        "rule figure_x_1:\n    output:\n        f\"{FIGURES}/x.png\",\n"
    )
    monkeypatch.setattr(build, "RULES", rules)
    found = build.rules()
    assert found["table_x_1"].doc == "Table 1 of X."
    assert found["table_x_2"].doc == "Table 1 of X."  # inherited
    assert found["figure_x_1"].doc is None
    assert found["figure_x_1"].outputs == [(None, "figures/x.png", "")]


def test_a_stale_page_fails_the_check_naming_it(build, tmp_path, monkeypatch):
    stale = tmp_path / "targets.md"
    stale.write_text("old\n")
    monkeypatch.setattr(build, "TARGETS_PAGE", stale)
    assert any("targets.md is stale" in p for p in build.problems())


def test_the_readme_is_short_and_its_docs_links_exist():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= README_MAX_LINES
    links = re.findall(r"\]\((docs/[^)#\s]+\.md)(?:#[^)]*)?\)", readme)
    assert links, "the README links to the docs pages"
    assert not [link for link in links if not (ROOT / link).is_file()]
    # every page under docs/ is linked from the README
    pages = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    assert pages <= set(links), sorted(pages - set(links))
    # the command CI runs (.ci/run), exactly
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci == "bash setup.sh && .venv/bin/python -m pytest tests"
    assert ci in readme


DURATION = re.compile(r"\b\d+(?:\.\d+)? ?(?:s|min|h)\b(?: \d+ ?min\b)?|\babout (?:a|an) (?:minute|hour)\b")
STATING = ("README.md", "config/README.md", "docs/extending.md", "config/examples/minimal.yaml")


def test_every_stated_command_duration_is_one_measured_here():
    """One source for every duration of a command: docs/durations.md's table (each row dated,
    its commit and conditions named); the pages that quote one state no other."""
    table = (ROOT / "docs/durations.md").read_text()
    rows = [r.split("|")[2].strip() for r in table.splitlines() if r.startswith("| ")][1:]
    assert rows and all(DURATION.fullmatch(r) for r in rows), rows
    for name in STATING:
        for line in (ROOT / name).read_text().splitlines():
            for found in DURATION.findall(line):
                assert found in rows, f"{name}: {found!r} is not in docs/durations.md ({line})"
