"""Optional dependencies, imported at use, with an error that names what to install.

A core install (``pip install tripletbench``) has the learners, the evaluation and the datasets'
downloads; what needs more is an optional extra of ``pyproject.toml``. Every import of a module
listed in :data:`EXTRAS` goes through :func:`require` (tested over the whole tree by
``tests/test_optional.py``), so a missing one raises :class:`MissingOptionalDependency`, a
``ModuleNotFoundError`` whose message names the feature that needs it and the command that
installs it, never a bare ``No module named 'cvxpy'``.
"""

from __future__ import annotations

import importlib
import importlib.util

NO_DEPS_INSTALL = "pip install --no-deps cblearn==0.4.0 sparse==0.19.3"
"""cblearn 0.4.0 declares numpy~=1.26, which excludes the numpy this package needs; its own tests
pass on ours (measured 2026-11-26: the checkout's requirements-nodeps.txt), so it is installed
without its declared dependencies, and no extra can hold it."""

EXTRAS: dict[str, str | None] = {
    # import name -> the optional extra that installs it (None: no extra can; NO_DEPS_INSTALL)
    "torch": "oahu",
    "cvxpy": "cvxpy",
    "clarabel": "cvxpy",
    "pandas": "data",
    "rdata": "data",
    "arff": "data",
    "PIL": "data",
    "skimage": "data",
    "snowballstemmer": "data",
    "snakemake": "pipeline",
    "matplotlib": "pipeline",
    "jsonschema": "pipeline",
    "yaml": "pipeline",
    "tabulate": "pipeline",
    "scikit_posthocs": "pipeline",
    "cblearn": None,
    "sparse": None,
}
"""Every optional module by its import name (the top-level package) and its extra."""

PIPELINE_MODULES = (
    "pandas",
    "yaml",
    "jsonschema",
    "matplotlib",
    "tabulate",
    "scikit_posthocs",
    "snakemake",
)
"""What the pipeline's packages (``tripletbench.harness``, ``tripletbench.studies``) import
without :func:`require`: checked, without importing them, when ``tripletbench.harness`` is
imported (``tripletbench.studies`` imports it first)."""


class MissingOptionalDependency(ModuleNotFoundError):
    """An optional dependency is not installed. ``name`` is the missing module, ``extra`` the
    optional extra of ``pyproject.toml`` that installs it (None: see :data:`NO_DEPS_INSTALL`)."""

    def __init__(self, message: str, *, name: str, extra: str | None):
        super().__init__(message, name=name)
        self.extra = extra


def install_hint(name: str) -> str:
    """The command that installs the optional module ``name`` (its top-level import name)."""
    top = name.split(".")[0]
    if top not in EXTRAS:
        raise KeyError(f"{top!r} is not an optional dependency of tripletbench ({sorted(EXTRAS)})")
    extra = EXTRAS[top]
    if extra is None:
        return f"{NO_DEPS_INSTALL} (without its declared dependencies: it pins numpy~=1.26)"
    return f"pip install 'tripletbench[{extra}]'"


def _missing(top: str, purpose: str, extra: str | None = None) -> MissingOptionalDependency:
    hint = f"pip install 'tripletbench[{extra}]'" if extra else install_hint(top)
    return MissingOptionalDependency(
        f"{purpose} needs {top!r}, which is not installed: {hint}",
        name=top,
        extra=extra or EXTRAS[top],
    )


def require(name: str, purpose: str):
    """Import and return the module ``name`` (dotted, e.g. ``"skimage.feature"``), an optional
    dependency listed in :data:`EXTRAS`. ``purpose`` says what needs it, in words a user knows
    (``"SVM-relative's solver 'CLARABEL'"``).

    Raises :class:`MissingOptionalDependency` (a ``ModuleNotFoundError``) naming ``purpose``, the
    module and the install command when that module, or another optional module it imports, is
    missing; ``KeyError`` when ``name`` is not in :data:`EXTRAS` (a programming error). Any other
    import error (a broken install) passes unchanged."""
    top = name.split(".")[0]
    if top not in EXTRAS:
        raise KeyError(f"{top!r} is not an optional dependency of tripletbench ({sorted(EXTRAS)})")
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        missing = (err.name or "").split(".")[0]
        if isinstance(err, MissingOptionalDependency) or missing not in EXTRAS:
            raise
        raise _missing(missing, purpose) from err


def require_installed(modules: tuple[str, ...], purpose: str, extra: str | None = None) -> None:
    """Raise :class:`MissingOptionalDependency` for the first of ``modules`` (top-level import
    names in :data:`EXTRAS`) that is not installed, naming ``extra`` (default: the module's own
    extra); imports none of them (``find_spec``)."""
    for top in modules:
        try:
            found = importlib.util.find_spec(top) is not None
        except (ModuleNotFoundError, ValueError):  # a finder refused it, or a None placeholder
            found = False
        if not found:
            raise _missing(top, purpose, extra)
