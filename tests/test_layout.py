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
    reader of a clone does not have."""
    hits = []
    for folder in ("algorithms", "datasets", "evaluation", "harness", "studies", "workflow", "src"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".smk", ".yaml") or path.name == "Snakefile":
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
