"""Optional dependencies: imported at use, with an error that names the extra to install.

Rule (``tripletbench.optional``): no module of the package imports an optional dependency except
through ``require`` (the pipeline's packages may import the pipeline extra's own modules, which
``tripletbench.harness`` checks when it is imported); a core install imports every library module,
and a feature that needs a missing extra raises ``MissingOptionalDependency`` naming it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tripletbench.optional import (
    EXTRAS,
    PIPELINE_MODULES,
    MissingOptionalDependency,
    install_hint,
    require,
)

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ("algorithms", "datasets", "evaluation", "src")
PIPELINE = ("harness", "studies", "workflow/scripts")


def _guarded(node: ast.AST, parents: dict) -> bool:
    """True when ``node`` sits in a ``try`` whose handlers catch ImportError."""
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.Try):
            for h in node.handlers:
                names = {getattr(e, "id", None) for e in ast.walk(h.type)} if h.type else set()
                if names & {"ImportError", "ModuleNotFoundError"}:
                    return True
    return False


def _optional_imports(folders):
    """(file:line, module) of every import of a module in EXTRAS under ``folders``."""
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            parents = {c: p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    if name.split(".")[0] in EXTRAS and not _guarded(node, parents):
                        yield f"{path.relative_to(ROOT)}:{node.lineno}", name


def test_the_library_imports_optional_modules_only_through_require():
    found = list(_optional_imports(LIBRARY))
    assert not found, f"import these through tripletbench.optional.require: {found}"


def test_the_pipeline_imports_only_its_own_extra_directly():
    found = [
        (where, name)
        for where, name in _optional_imports(PIPELINE)
        if name.split(".")[0] not in PIPELINE_MODULES
    ]
    assert not found, f"import these through tripletbench.optional.require: {found}"


def test_every_extra_named_exists_in_pyproject():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    for module, extra in EXTRAS.items():
        assert extra is None or extra in extras, (module, extra)
    assert "pip install 'tripletbench[cvxpy]'" == install_hint("cvxpy.atoms")
    assert "--no-deps cblearn" in install_hint("cblearn")
    with pytest.raises(KeyError, match="not an optional dependency"):
        require("numpy", "anything")


def _without(modules, code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter in which ``modules`` cannot be imported (a finder
    first on ``sys.meta_path`` raises ModuleNotFoundError for them, as a missing install does)."""
    block = f"""
    import sys
    class _Blocked:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {set(modules)!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
    sys.meta_path.insert(0, _Blocked())
    """
    prog = textwrap.dedent(block) + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", prog], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


@pytest.mark.slow
def test_a_core_install_imports_every_library_module_and_says_what_a_feature_needs():
    """Every optional module blocked: each module of algorithms, evaluation and datasets imports;
    SVM-relative's default solver and OAHU's default backend fit; CLARABEL, OAHU's torch
    backend, an .rda reader and the image features raise MissingOptionalDependency naming the
    extra; the pipeline's package names its extra."""
    code = """
    import importlib, pkgutil
    import numpy as np
    import tripletbench.algorithms as A, tripletbench.evaluation as E, tripletbench.datasets as D
    for pkg in (A, E, D):
        for m in pkgutil.iter_modules(pkg.__path__):
            importlib.import_module(f"{pkg.__name__}.{m.name}")
    from tripletbench.optional import MissingOptionalDependency as Missing
    from tripletbench.algorithms.svm_relative import SVMRelative
    from tripletbench.algorithms.oahu import OAHU
    t = np.array([[[0.0], [1.0], [2.0]]])
    m = SVMRelative().fit(t)
    assert m.solver_ == "dcd" and abs(m.w_[0] - 1 / 3) < 1e-6, m.w_
    rng = np.random.default_rng(0)
    t3 = rng.normal(size=(10, 3, 3))
    net = dict(n_hidden_layers=1, n_hidden=4, embedding_dim=2, random_state=0)
    OAHU(**net).fit(t3)
    def says(f, extra):
        try:
            f()
        except Missing as err:
            assert f"tripletbench[{extra}]" in str(err), err
            print("OK", err)
        else:
            raise AssertionError(f"no error for {extra}")
    says(lambda: SVMRelative(solver="CLARABEL").fit(t), "cvxpy")
    says(lambda: SVMRelative(kernel="rbf").fit(t), "cvxpy")
    says(lambda: OAHU(backend="torch", **net).fit(t3), "oahu")
    from tripletbench.datasets.base import load_rda_frame
    says(lambda: load_rda_frame("x.rda", "x"), "data")
    from tripletbench.datasets.global_descriptor import global_descriptor
    says(lambda: global_descriptor(np.zeros((32, 32, 3), np.uint8)), "data")
    says(lambda: __import__("tripletbench.harness"), "pipeline")
    """
    r = _without(sorted(EXTRAS), code)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.count("OK ") == 6, r.stdout
    assert "SVM-relative's solver 'CLARABEL' needs 'cvxpy'" in r.stdout


def test_a_missing_module_that_is_not_optional_is_not_relabelled():
    with pytest.raises(KeyError):
        require("no_such_module_xyz", "x")
    r = _without(
        ["cblearn"],
        """
        from tripletbench.studies.human.ordinal import ordinal_class
        ordinal_class("cblearn.embedding.SOE")
        """,
    )
    assert r.returncode != 0
    assert "MissingOptionalDependency" in r.stderr and "pip install --no-deps cblearn" in r.stderr


def test_auto_solver_is_recorded():
    from tripletbench.algorithms.svm_relative import SVMRelative

    t = np.array([[[0.0], [1.0], [2.0]]])
    assert SVMRelative().fit(t).solver_ == "dcd"
    m = SVMRelative(kernel="rbf", gamma=1.0).fit(t)
    assert m.solver_ == "CLARABEL" and m.solver_status_ == "optimal"
    assert isinstance(MissingOptionalDependency("x", name="y", extra=None), ModuleNotFoundError)
