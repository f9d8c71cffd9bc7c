"""The layout holds (tests/layout_report.py): modules and functions within their sizes, no import
circle, no import up a layer, and a core (harness/) that names no study."""

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import layout_report  # noqa: E402

import tripletbench.studies  # noqa: E402,F401 -- registers the studies
from tripletbench.datasets import ALL_SPECS  # noqa: E402
from tripletbench.harness import study  # noqa: E402

ENGLISH = {"figures", "images", "human", "performance", "letter", "segment", "vowel", "vehicle",
           "glass", "material", "text"}
"""Study, block or dataset names that are also English words: named in the core only where they
stand as a name (quoted, in backticks, or as a dotted config path)."""


@pytest.fixture(scope="module")
def measured():
    return layout_report.measure()


def test_no_import_circle(measured):
    assert measured["circles"] == []


def test_no_import_climbs_a_layer(measured):
    assert measured["upward"] == []


def _study_tokens() -> tuple[set, set]:
    """(names matched as words, names matched only where they stand as a name)."""
    words = set()
    for s in study.studies():
        words |= {s.name, *s.blocks, *s.items}
        words |= set(re.findall(r"([A-Z][a-z]+) (?:et al|&)", s.category))
    words |= set(ALL_SPECS)
    return words - ENGLISH, words & ENGLISH


def core_mentions() -> list[str]:
    """Every place a core module (harness/) names a study, a config block of one, a paper's
    author or a dataset: ``file:line: [name] text``."""
    words, english = _study_tokens()
    plain = re.compile(
        r"(?<![A-Za-z0-9])(" + "|".join(sorted(map(re.escape, words), key=len, reverse=True))
        + r")(?![A-Za-z0-9])(?!-scale)"  # svm-scale: LIBSVM's scaling tool, not a study
    )
    quoted = re.compile(
        r"""(?:["'`])(""" + "|".join(map(re.escape, sorted(english))) + r""")(?:["'`.])"""
    )
    out = []
    for path in sorted((ROOT / "harness").glob("*.py")):
        for i, line in enumerate(path.read_text().splitlines(), 1):
            for m in list(plain.finditer(line)) + list(quoted.finditer(line)):
                out.append(f"{path.relative_to(ROOT)}:{i}: [{m.group(1)}] {line.strip()}")
    return out


def test_the_core_names_no_study():
    """harness/ is the generic core: a study (its name, config blocks, report items, its papers'
    authors) or a dataset named there would tie the core to one study; each study's package
    declares what the core needs (tripletbench.harness.study.Study)."""
    assert core_mentions() == []


def test_the_core_imports_no_study_and_studies_import_no_workflow(measured):
    core = {m for m in measured["graph"] if m.startswith("tripletbench.harness")}
    assert not {t for m in core for t in measured["graph"][m] if ".studies" in t}


def test_every_study_has_its_package_rule_file_and_scripts():
    """One name everywhere: tripletbench.studies.<name>, workflow/rules/<name>.smk,
    workflow/scripts/<name>/, and the package listed in pyproject.toml."""
    pyproject = (ROOT / "pyproject.toml").read_text()
    for s in study.studies():
        assert (ROOT / "studies" / s.name / "__init__.py").is_file()
        assert (ROOT / "workflow" / "rules" / f"{s.name}.smk").is_file(), s.name
        assert (ROOT / "workflow" / "scripts" / s.name).is_dir(), s.name
        assert f'"tripletbench.studies.{s.name}"' in pyproject, s.name


def test_the_layout_report_runs_and_holds_its_limits():
    """The script CI runs: its --check exits 0 when every limit holds."""
    assert layout_report.main(["--check", "--top", "3"]) == 0


def test_no_issue_numbers_in_code():
    """Docstrings and comments say what was measured and when, not "issue N" of a tracker a
    reader of a clone does not have: the code, the rule files, the configs, the tests and the
    docs."""
    hits = []
    folders = ("algorithms", "datasets", "evaluation", "harness", "studies", "workflow", "src")
    for folder in (*folders, "config", "tests", "docs"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".smk", ".yaml", ".md") or path.name == "Snakefile":
                for i, line in enumerate(path.read_text().splitlines(), 1):
                    if re.search(r"\b[Ii]ssues? #?\d", line):
                        hits.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert hits == []


OLD_IMPORTS = [
    # (old module, a name users imported from it)
    ("tripletbench.harness.oahu_speed", "main"),
    ("tripletbench.harness.oahu_experiment", "dev_test_split"),
    ("tripletbench.harness.human", "cell_rows"),
    ("tripletbench.harness.svm_experiment", "NOTIONS"),
    ("tripletbench.harness.performance", "single_threaded"),
    ("tripletbench.harness.curves", "sdca_convergence"),
    ("tripletbench.harness.curves", "scaling"),
    ("tripletbench.harness.table_rows", "readings_markdown"),
    ("tripletbench.harness.captions", "sdca_table2"),
    ("tripletbench.harness.captions", "human_table"),
    ("tripletbench.harness.paper_settings", "PAPER_SETTINGS"),
    ("tripletbench.harness.paper_settings", "vs_paper"),
    ("tripletbench.harness.config", "split_sizes"),
    ("tripletbench.harness.plots", "scaling"),
]


@pytest.mark.parametrize("module,name", OLD_IMPORTS)
def test_an_old_import_path_still_works_and_says_where_it_moved(module, name):
    """Code that moved into the studies' packages stays importable from its old place, with a
    DeprecationWarning naming the new one (tripletbench._moved)."""
    import importlib
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = getattr(importlib.import_module(module), name)
    assert value is not None
    assert any(
        issubclass(w.category, DeprecationWarning) and "tripletbench.studies" in str(w.message)
        or "each study's paper module" in str(w.message)
        for w in caught
    ), [str(w.message) for w in caught]


def test_python_m_on_an_old_module_names_the_new_one():
    import subprocess

    out = subprocess.run(
        [sys.executable, "-m", "tripletbench.harness.oahu_speed", "--help"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode != 0
    assert "python -m tripletbench.studies.oahu.speed" in out.stderr


def test_a_new_study_is_seen_by_the_core_without_an_edit_there(tmp_path):
    """A study declared and registered (as tripletbench.studies does for every package that
    declares STUDY) is seen by the core's config checks, schema and report: its block switches
    the config on, its schema is merged, its checks and learner rows run, its items are in the
    report; nothing in harness/ names it."""
    from tripletbench.harness import config as core
    from tripletbench.harness import report
    from tripletbench.harness.study import _REGISTRY, Study, register

    (tmp_path / "schema.yaml").write_text(
        "properties:\n  toy_block:\n    type: object\n    properties:\n"
        "      n: {type: integer, default: 3}\n"
    )
    seen = []

    def check(config, libraries=True):
        seen.append(config["toy_block"])
        if config["toy_block"].get("n", 3) > 10:
            raise core.ConfigError("config toy_block.n: at most 10")

    def rows(config):
        yield "toy_block", {"Eucl": {"fixed": {}}, "OASIS": {"fixed": {"C": -1.0}}}, []

    toy = Study(
        name="toy",
        category="Toy et al. 2026 (TOY)",
        blocks=("toy_block",),
        items={"toy_table1": ("Table 1: toy", "table")},
        schema=str(tmp_path / "schema.yaml"),
        check=check,
        method_blocks=rows,
    )
    register(toy)
    try:
        assert "toy_block" in core.experiment_blocks({"toy_block": {}})
        assert "toy_block" in core.schema()["properties"]
        assert report.ITEMS["toy_table1"].category == "Toy et al. 2026 (TOY)"
        with pytest.raises(core.ConfigError, match=r"toy_block\.methods\.OASIS\.fixed\.C"):
            core.check_config({"toy_block": {"n": 4}})  # its rows checked as learners
    finally:
        _REGISTRY.pop("toy")
    assert "toy_block" not in core.schema()["properties"]
