"""The learners as a library: the installed package ``tripletbench``, importing one learner
in a fresh interpreter, the version and citation, and docs/library.md's section "Use the learners
in your own code" run from a wheel in a fresh virtual environment beside Hugging Face ``datasets`` and
metric-learn. Code about Hugging Face's ``datasets`` is marked tripletbench-rewrite: skip-file (the
import rewrite of the package layout leaves this file alone)."""

import ast
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = ("algorithms", "datasets", "evaluation", "harness", "studies")
NEVER_FOR_A_LEARNER = (
    "pooch",  # the downloader
    "snakemake",
    "requests",
    "matplotlib",
    "cvxpy",
    "tripletbench.datasets",
    "tripletbench.harness",
)


def _learners() -> dict[str, str]:
    """class name -> module of every learner (tripletbench.algorithms.ALGORITHMS)."""
    from tripletbench.algorithms import ALGORITHMS

    return {cls.__name__: cls.__module__ for cls in ALGORITHMS.values()}


IMPORT_ONE = """
import json, sys, time
if {block_pandas}:
    sys.modules["pandas"] = None  # an import of pandas fails: the learner must not need it
before = set(sys.modules)
t = time.perf_counter()
from tripletbench.algorithms import {name}
dt = time.perf_counter() - t
print(json.dumps({{"seconds": dt, "new": sorted(set(sys.modules) - before)}}))
"""


def _import_in_fresh_interpreter(name: str, block_pandas=False) -> dict:
    code = IMPORT_ONE.format(name=name, block_pandas=block_pandas)
    out = subprocess.run(
        [sys.executable, "-c", code], cwd="/", capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(_learners()))
def test_each_learner_imports_alone_without_the_data_layer(name):
    """``from tripletbench.algorithms import <Learner>`` in a fresh interpreter, from outside the
    checkout: no downloader, no Snakemake, none of tripletbench's data or harness packages, no
    other learner than the ones its module imports; pandas is not needed (scikit-learn imports it
    when installed: blocked, the import still works)."""
    from tripletbench.harness.settings import code_closure

    module = _learners()[name]
    got = _import_in_fresh_interpreter(name, block_pandas=True)
    loaded = set(got["new"])
    assert not [m for m in loaded for bad in NEVER_FOR_A_LEARNER if m == bad or
                m.startswith(bad + ".")], sorted(loaded)
    ours = {m for m in loaded if m.startswith("tripletbench")}
    # the top package and its finder of old import paths (tripletbench._moved: strings only)
    allowed = set(code_closure([module])) | {"tripletbench", "tripletbench._moved", "tripletbench.algorithms"}
    assert ours <= allowed, sorted(ours - allowed)
    assert module in ours


@pytest.mark.slow
def test_the_modules_and_time_of_importing_sdca_are_listed():
    """The measured import of SDCA (printed with ``pytest -s``): its own modules, and the
    third-party packages it brings (numpy, scipy, scikit-learn, threadpoolctl, tqdm)."""
    got = _import_in_fresh_interpreter("SDCA")
    loaded = got["new"]
    ours = sorted(m for m in loaded if m.startswith("tripletbench"))
    tops = sorted({m.split(".")[0] for m in loaded if not m.startswith("_")})
    print(f"\nfrom tripletbench.algorithms import SDCA: {got['seconds']:.2f} s, "
          f"{len(loaded)} modules; tripletbench: {ours}; top-level packages: {tops}")
    assert ours == [
        "tripletbench",
        "tripletbench._moved",
        "tripletbench.algorithms",
        "tripletbench.algorithms._checks",
        "tripletbench.algorithms._pairs",
        "tripletbench.algorithms._params",
        "tripletbench.algorithms._scores",
        "tripletbench.algorithms._stream",
        "tripletbench.algorithms._tuples",
        "tripletbench.algorithms.base",
        "tripletbench.algorithms.kernels",
        "tripletbench.algorithms.sdca",
    ]
    assert {"numpy", "scipy", "sklearn"} <= set(tops)
    assert not {"pooch", "snakemake", "torch", "numba", "metric_learn"} & set(tops)


def test_the_data_layer_re_exports_the_learners_errors_and_conversions():
    from tripletbench.algorithms import DataError, _checks, _constraints
    from tripletbench.datasets import base, constraints, preprocess

    assert base.DataError is DataError is _checks.DataError
    assert issubclass(base.ChecksumError, DataError) and issubclass(base.DataUnavailable, DataError)
    for mod, source, names in (
        (preprocess, _checks, ("check_features", "check_labelled")),
        (constraints, _constraints, ("sample_class_triplets", "triplets_to_pairs",
                                     "triplets_to_chunklets")),
    ):  # fmt: skip
        for n in names:
            assert getattr(mod, n) is getattr(source, n)


def test_the_package_is_this_checkout_under_its_namespace_only():
    """Installed (setup.sh: editable), the four folders are tripletbench.*; no top-level
    ``datasets`` / ``algorithms`` comes from this checkout, from any folder."""
    code = (
        "import importlib.util, json, tripletbench, tripletbench.algorithms as a\n"
        "spec = {n: importlib.util.find_spec(n) for n in ('datasets', 'algorithms')}\n"
        "print(json.dumps({'a': a.__file__, 'v': tripletbench.__version__,\n"
        "  'top': {n: (s.origin if s else None) for n, s in spec.items()}}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True,
                         timeout=120, check=True)
    got = json.loads(out.stdout)
    assert Path(got["a"]).resolve() == ROOT / "algorithms/__init__.py"
    for name, origin in got["top"].items():
        assert origin is None or not Path(origin).resolve().is_relative_to(ROOT), (name, origin)


def test_the_version_is_the_citations_and_the_metadatas():
    import importlib.metadata

    import tripletbench

    cff = re.search(r'^version:\s*"?([^"\s]+)"?', (ROOT / "CITATION.cff").read_text(), re.M)
    assert cff and cff[1] == tripletbench.__version__
    assert importlib.metadata.version("tripletbench") == tripletbench.__version__


def test_code_hashes_name_checkout_paths_of_namespaced_modules():
    from tripletbench.harness import settings

    assert settings._module_path("tripletbench.algorithms.lego") == ROOT / "algorithms/lego.py"
    assert settings._module_path("tripletbench.datasets") == ROOT / "datasets/__init__.py"
    assert settings._module_path("tripletbench") == ROOT / "src/tripletbench/__init__.py"
    assert settings._module_path("algorithms.lego") is None  # the old names are not ours
    assert settings._module_path("datasets") is None  # e.g. Hugging Face's


@pytest.mark.slow
def test_no_code_imports_the_packages_by_their_old_top_level_names():
    """Every import goes through tripletbench. (or is relative inside a package): the code, the
    workflow's scripts, rules and Snakefiles, the tests. (A merged branch written in the old
    style is rewritten by the one-off script that renamed them, in the history of 2026-11.)"""
    bad = []
    files = [p for d in (*OURS, "tests", "workflow", "src") for p in (ROOT / d).rglob("*.py")]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            bad += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names
                    if n.split(".")[0] in OURS and path.name != "test_library.py"]
    smk = [ROOT / "Snakefile", ROOT / "workflow/Snakefile", *(ROOT / "workflow/rules").rglob("*.smk")]
    pattern = re.compile(rf"^\s*(from|import)\s+({'|'.join(OURS)})\b", re.M)
    for path in smk:
        bad += [f"{path.relative_to(ROOT)}: {m[0]}" for m in pattern.finditer(path.read_text())]
    assert not bad, bad


# --- the wheel in a fresh virtual environment, beside Hugging Face datasets and metric-learn -----


def _pypi_reachable() -> str | None:
    """None when PyPI answers, else why not."""
    try:
        with urllib.request.urlopen("https://pypi.org/simple/pip/", timeout=10) as r:
            r.read(1)
        return None
    except Exception as err:  # noqa: BLE001
        return f"{type(err).__name__}: {err}"


def readme_library_code() -> str:
    """The Python block of docs/library.md's section "Use the learners in your own code"."""
    text = (ROOT / "docs/library.md").read_text()
    section = text.split("## Use the learners in your own code", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the section holds one Python block"
    return blocks[0]


BESIDE = """
import numpy as np
import datasets as hf                      # Hugging Face datasets, beside tripletbench
import metric_learn
from sklearn.datasets import load_iris
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
import tripletbench
from tripletbench.algorithms.supervised import RDML_Supervised
from tripletbench.evaluation.scorers import SCORERS

assert "site-packages" in hf.__file__ and hasattr(hf, "load_dataset"), hf.__file__
for name in ("algorithms", "datasets"):
    import importlib.util
    spec = importlib.util.find_spec(name)
    assert name == "datasets" or spec is None, spec   # nothing top-level of ours
X, y = load_iris(return_X_y=True)
ds = hf.Dataset.from_dict({"x": X.tolist(), "label": y.tolist()}).with_format("numpy")
X, y = ds["x"], ds["label"]
ours = Pipeline([("scale", StandardScaler()),
                 ("metric", RDML_Supervised(n_constraints=300, random_state=0)),
                 ("knn", KNeighborsClassifier(n_neighbors=3))])
theirs = Pipeline([("scale", StandardScaler()),
                   ("metric", metric_learn.ITML_Supervised(n_constraints=300, max_iter=50,
                                                           random_state=0)),
                   ("knn", KNeighborsClassifier(n_neighbors=3))])
a = GridSearchCV(ours, {"metric__lam": [0.01, 0.1]}, cv=3).fit(X, y)
b = GridSearchCV(theirs, {"metric__gamma": [0.5, 1.0]}, cv=3).fit(X, y)
c = GridSearchCV(RDML_Supervised(n_constraints=300, random_state=0), {"lam": [0.01, 0.1]},
                 scoring=SCORERS, refit="mAP",
                 cv=StratifiedKFold(3, shuffle=True, random_state=0)).fit(StandardScaler().fit_transform(X), y)
from tripletbench.algorithms import SVMRelative            # the core install: no cvxpy
from tripletbench.optional import MissingOptionalDependency
t = np.array([[[0.0], [1.0], [2.0]]])
assert SVMRelative().fit(t).solver_ == "dcd"
try:
    SVMRelative(solver="CLARABEL").fit(t)
except MissingOptionalDependency as err:
    assert "pip install 'tripletbench[cvxpy]'" in str(err), err
else:
    raise AssertionError("cvxpy is in no core install: CLARABEL should say which extra")
print("ok", tripletbench.__version__, round(a.best_score_, 3), round(b.best_score_, 3),
      round(c.best_score_, 3))
assert a.best_score_ > 0.8 and b.best_score_ > 0.8 and c.best_score_ > 0.5
"""


@pytest.mark.slow
@pytest.mark.network
def test_the_readme_library_section_runs_from_a_wheel_beside_hf_datasets_and_metric_learn(
    tmp_path,
):
    """``pip wheel`` of the checkout, installed into a fresh virtual environment with Hugging Face
    ``datasets`` and metric-learn from PyPI; the README's section runs as written from a folder
    outside the checkout; a tripletbench learner in a scikit-learn Pipeline / GridSearchCV next to
    a metric-learn learner. Skipped, saying why, when PyPI cannot be reached."""
    why = _pypi_reachable()
    if why is not None:
        pytest.skip(f"PyPI is unreachable ({why}): the wheel test installs Hugging Face "
                    "datasets and the dependencies from it")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    t0 = time.time()

    def run(cmd, cwd, timeout=900):
        out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                             timeout=timeout)
        assert out.returncode == 0, f"{cmd}:\n{(out.stdout + out.stderr)[-5000:]}"
        return out.stdout

    wheels = tmp_path / "wheels"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        tmp_path)
    (wheel,) = wheels.glob("tripletbench-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"tripletbench"}, tops  # no top-level datasets / algorithms in the wheel
    assert {f"tripletbench/{p}/__init__.py" for p in OURS} <= set(names)
    for paper in ("Large Scale Image Similarity", "Stochastic Dual Coordinate Ascent",
                  "Relative Comparisons", "One Feature at a Time", "Self-Adaptive Metric Learning"):
        assert paper in meta, paper

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    py = str(venv / "bin/python")
    run([py, "-m", "pip", "install", "-q", str(wheel), "datasets", "metric-learn"], tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "readme_section.py").write_text(readme_library_code())
    out = run([py, "readme_section.py"], outside, timeout=600)
    assert "SDCA mAP" in out and "triplet accuracy" in out
    (outside / "beside.py").write_text(BESIDE)
    out = run([py, "beside.py"], outside, timeout=600)
    assert out.startswith("ok")
    print(f"\nwheel test: {time.time() - t0:.0f} s; {out.strip()}")
