"""What a result depends on, so that results follow their inputs.

Every job that computes numbers gets ``params: settings=...``: the config values it reads and a
hash of the project code it runs. Snakemake compares a job's params with those recorded when its
output was made (rerun trigger "params", on by default), so a changed grid value, ``n_triplets`` or
learner reruns exactly the cells that use it, and the tables built on them. Each run row records
:func:`settings_hash` of its settings; a table refuses rows whose hash differs from the one the
current config implies (:func:`stale_cells`), e.g. after ``--rerun-triggers mtime`` or a ``touch``.

A config block is named by its key (``"<block>"``) or, for a nested one, by a dotted path
(``"<block>.<sub>"``). A cell's settings leave out its block's lists of datasets, seeds and methods
and the keys its study declares (:attr:`tripletbench.harness.study.Study.cell_exclude`: what the
cell's wildcards already say, or what only the figure or table reads), so that adding a dataset, seed or method reruns nothing that exists.

Code hashes cover the transitive closure of the project modules a job imports (the packages
``tripletbench.algorithms``, ``.datasets``, ``.evaluation`` and ``.harness``, folders at the top of
the checkout; imports read with :mod:`ast`, so nothing is imported; each file hashed under its path
in the checkout, e.g. ``algorithms/lego.py``), less the plumbing that cannot change a number (:data:`PLUMBING`). A cell's
closure leaves out the learner registry (``algorithms/__init__.py`` imports every learner) and adds
its own learner's closure instead, so editing LEGO reruns LEGO's cells only.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
from functools import lru_cache
from pathlib import Path

from .io import settings_hash  # noqa: F401 -- a settings value's hash, one place (io)

ROOT = Path(__file__).resolve().parents[1]
NAMESPACE = "tripletbench"
PACKAGES = ("algorithms", "datasets", "evaluation", "harness", "studies")
PACKAGE_DIRS = {
    NAMESPACE: Path("src") / NAMESPACE,
    **{f"{NAMESPACE}.{p}": Path(p) for p in PACKAGES},
}
"""Dotted package -> its folder in the checkout (``pyproject.toml``'s ``package-dir``): the
packages are installed as ``tripletbench.algorithms`` ... but stay at the top of the checkout, so
a hashed file is named by its path in the checkout (``algorithms/lego.py``)."""
PLUMBING = frozenset(
    {
        "tripletbench.files",
        "tripletbench.harness.io",
        "tripletbench.harness.config",
        "tripletbench.harness.config_files",
        "tripletbench.harness.settings",
        "tripletbench.harness.study",
        "tripletbench.studies",
    }
)
"""Modules left out of code hashes: writing files, config checks, these settings and the studies'
registry (they cannot change a number); so are each study's declaration and config checks
(``tripletbench.studies.<name>`` and ``tripletbench.studies.<name>.config``, :func:`is_plumbing`). The table and plot modules (``tripletbench.harness.tables``: mean, spread, differences;
``tripletbench.harness.plots``) are not plumbing: a table or figure rule's code hash covers them."""


def config_block(config: dict, block: str) -> dict:
    """``config[block]``, or the nested block of a dotted path (``"<block>.<sub>"``); ``{}`` when a
    level is absent."""
    out = config
    for key in block.split("."):
        out = (out or {}).get(key) or {}
    return out


def is_plumbing(name: str) -> bool:
    """Whether module ``name`` is left out of code hashes (:data:`PLUMBING`, a study's
    declaration or its config checks)."""
    if name in PLUMBING:
        return True
    parts = name.split(".")
    return parts[:2] == ["tripletbench", "studies"] and (
        len(parts) == 3 or (len(parts) == 4 and parts[3] == "config")
    )


@lru_cache(maxsize=None)
def _module_path(name: str) -> Path | None:
    """The source file of project module ``name`` (a dotted name under ``tripletbench``; a
    package's ``__init__.py``), or None."""
    parts = name.split(".")
    for n in (2, 1):
        folder = PACKAGE_DIRS.get(".".join(parts[:n]))
        if folder is not None and len(parts) >= n:
            path = ROOT / folder / Path(*parts[n:]) if parts[n:] else ROOT / folder
            break
    else:
        return None
    if (path / "__init__.py").exists():
        return path / "__init__.py"
    if path.with_suffix(".py").exists():
        return path.with_suffix(".py")
    return None


@lru_cache(maxsize=None)
def _imports(path: Path, module: str | None) -> frozenset[str]:
    """Project modules imported anywhere in ``path`` (also inside functions), as dotted names;
    ``module`` is the file's own dotted name (for relative imports), None for a script. Parsed
    once per process, as the code hashes are computed once (a Snakemake run builds some 50
    closures over the same files: parsing each file once took a dry run of the CI config from
    18-19 s to 7-8 s, measured 2026-11-26)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = None
    if module is not None:
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                if package is None:
                    continue
                base = importlib.util.resolve_name("." * node.level + base, package)
            # "from pkg import name" may import a submodule pkg.name
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        found.update(n for n in names if _module_path(n) is not None)
    return frozenset(found)


@lru_cache(maxsize=None)
def _closure(start: tuple[str, ...], script: str | None, exclude: frozenset[str]) -> tuple:
    todo = set(start)
    if script is not None:
        todo |= _imports(ROOT / script, None)
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen or name in exclude or is_plumbing(name):
            continue
        seen.add(name)
        todo |= _imports(_module_path(name), name)
    return tuple(sorted(seen))


def code_closure(modules=(), script: str | None = None, exclude=()) -> list[str]:
    """Dotted names of the project modules that ``modules`` and ``script`` (a path relative to the
    checkout) import, transitively, less ``exclude`` (exact names) and :data:`PLUMBING`."""
    return list(_closure(tuple(modules), script, frozenset(exclude)))


def code_hash(modules=(), script: str | None = None, exclude=()) -> str:
    """sha256 (12 hex digits) over the sources of :func:`code_closure` and of ``script``
    (computed once per process: a Snakemake run sees the code as it was when it started)."""
    return _code_hash(tuple(modules), script, frozenset(exclude))


@lru_cache(maxsize=None)
def _code_hash(modules: tuple, script: str | None, exclude: frozenset) -> str:
    h = hashlib.sha256()
    files = [_module_path(m) for m in code_closure(modules, script, exclude)]
    if script is not None:
        files.append(ROOT / script)
    for f in sorted(files):
        h.update(str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def learner_code_hash(algorithm: str) -> str:
    """Code hash of learner ``algorithm``: its module's closure (a learner module of
    :mod:`algorithms`, found by its name; not the package's ``__init__`` or other learners, so
    adding or editing one learner reruns its cells only). For an external learner (a dotted
    path): the wrapper's closure and the library's version (:mod:`tripletbench.algorithms.external`).
    """
    from tripletbench.algorithms import learner_class
    from tripletbench.algorithms.external import is_external, library_version

    if is_external(algorithm):
        return code_hash(["tripletbench.algorithms.external"]) + ":" + library_version(algorithm)
    return code_hash([learner_class(algorithm).__module__])


def canonical(obj):
    """``obj`` with every dict's keys in sorted order (recursively): Snakemake compares params by
    their text, so a reordered config must give the same settings."""
    if isinstance(obj, dict):
        return {k: canonical(obj[k]) for k in sorted(obj, key=str)}
    if isinstance(obj, (list, tuple)):
        return [canonical(v) for v in obj]
    return obj


def key_order(obj):
    """The order of the keys of every dict in ``obj``, which :func:`canonical` sorts away: a dict
    gives a list of ``[key, key_order(value)]`` in its own order, a list or tuple the list of its
    items' orders, anything else None. A job whose rows, columns or legend follow a mapping's
    order (the ``methods`` of a table or figure) takes ``key_order`` of it as a param beside the
    canonical settings, so that a reordered mapping reruns it; the cells, whose numbers do not
    depend on the order, keep the canonical settings alone."""
    if isinstance(obj, dict):
        return [[k, key_order(v)] for k, v in obj.items()]
    if isinstance(obj, (list, tuple)):
        return [key_order(v) for v in obj]
    return None


def cell_settings(config: dict, experiment: str, method: str, script: str) -> dict:
    """Everything a (dataset, seed) cell of ``method`` in ``experiment`` (a block name or dotted
    path) depends on besides its input files: the method's config less its ``notes``
    (descriptions), the experiment's other settings less the lists of datasets, seeds and methods
    (and the block's keys that its study excludes, :func:`tripletbench.harness.study.cell_exclude`), the data route, and the code of ``script`` (learner registry
    excluded) and of the method's learner. Raises ``KeyError`` for an unknown method."""
    from .experiment import algorithm_of

    exp = config_block(config, experiment)
    mcfg = exp["methods"][method]
    from .study import cell_exclude

    skip = {"methods", "datasets", "seeds", *cell_exclude().get(experiment, ())}
    return canonical(
        {
            "method": {k: v for k, v in mcfg.items() if k != "notes"},
            "experiment": {k: v for k, v in exp.items() if k not in skip},
            "route": config["data"]["route"],
            "code": code_hash(script=script, exclude={"tripletbench.algorithms"})
            + "+"
            + learner_code_hash(algorithm_of(method, mcfg)),
        }
    )


def stale_cells(runs, expected: dict) -> list[str]:
    """Cells of ``runs`` (tidy rows with ``dataset``, ``seed``, ``algorithm`` and
    ``settings_hash``) whose hash is not ``expected[algorithm]``; one message per cell."""
    bad = []
    cols = ["dataset", "seed", "algorithm", "settings_hash"]
    for d, s, a, h in runs[cols].drop_duplicates().itertuples(index=False):
        if a in expected and str(h) != expected[a]:
            bad.append(f"{a} on {d}, seed {s}: settings {h}, the config implies {expected[a]}")
    return bad


def data_settings(config: dict, experiment: str, keys, script: str, modules=()) -> dict:
    """Settings of a data job (split, constraints): the experiment's config values ``keys``, the
    route, and the code of ``script`` and ``modules``."""
    exp = config_block(config, experiment)
    return canonical(
        {
            "experiment": {k: exp.get(k) for k in keys},
            "route": config["data"]["route"],
            "code": code_hash(modules, script),
        }
    )


def expected_hashes(config: dict, experiment: str, script: str) -> dict:
    """method -> :func:`settings_hash` of its cells' settings under ``config``."""
    return {
        m: settings_hash(cell_settings(config, experiment, m, script))
        for m in config_block(config, experiment)["methods"]
    }


def check_fresh(runs, config: dict, experiment: str, script: str, rule="fit_evaluate") -> None:
    """Raise ``ValueError`` listing the cells of ``runs`` computed under other settings than
    ``config`` implies (rows without a ``settings_hash`` column count as stale); ``script`` is
    the cells' script and ``rule`` their rule (named in the message)."""
    if "settings_hash" not in runs.columns:
        raise ValueError(
            f"{experiment}: the run rows carry no settings_hash (made by an older version); "
            f"rerun their cells (snakemake --forcerun {rule})"
        )
    bad = stale_cells(runs, expected_hashes(config, experiment, script))
    if bad:
        raise ValueError(
            f"{experiment}: {len(bad)} cell(s) were computed under other settings than the "
            "config's; the table refuses them. Rerun them (Snakemake's default rerun triggers "
            "do; --rerun-triggers mtime does not):\n  " + "\n  ".join(bad[:20])
        )


def block_settings(config: dict, block: str, keys, script: str, learners=()) -> dict:
    """Settings of a job driven by one config block (curves, scaling, figures, tables): the values
    of ``keys`` in the block (a name or dotted path; missing keys as None; ``keys=None``: the whole
    block), the route, and ``script``'s code. ``learners``: the learners the job builds by name
    (``tripletbench.harness.experiment.fit_learner``), whose code its imports do not reach (the package
    ``algorithms`` finds its learners at run time): their :func:`learner_code_hash` is added."""
    cfg = config_block(config, block)
    out = {
        block: dict(cfg) if keys is None else {k: cfg.get(k) for k in keys},
        "route": config["data"]["route"],
        "code": code_hash(script=script),
    }
    if learners:
        out["learners"] = {name: learner_code_hash(name) for name in learners}
    return canonical(out)


def _require_settings_hash(runs, what: str, rule: str) -> None:
    """Raise ``ValueError`` when the rows ``runs`` carry no ``settings_hash`` column."""
    if "settings_hash" not in runs.columns:
        raise ValueError(
            f"{what}: the rows carry no settings_hash (made by an older version); rerun them "
            f"(snakemake --forcerun {rule})"
        )


def check_block_fresh(runs, settings, what: str, rule: str) -> None:
    """Raise ``ValueError`` unless every row of ``runs`` carries ``settings_hash`` equal to
    :func:`settings_hash` of ``settings`` (jobs whose rows share one block's settings); ``what`` names the rows, ``rule`` the rule that remakes them.
    """
    _require_settings_hash(runs, what, rule)
    want = settings_hash(settings)
    bad = sorted({str(h) for h in runs.settings_hash if str(h) != want})
    if bad:
        n = int((runs.settings_hash.astype(str) != want).sum())
        raise ValueError(
            f"{what}: {n} row(s) were computed under other settings ({', '.join(bad[:5])}) than "
            f"the config's ({want}); refused. Rerun rule {rule} (Snakemake's default rerun "
            "triggers do; --rerun-triggers mtime does not)"
        )


def check_cells_fresh(runs, hashes: dict, what: str, rule: str, key: str = "job") -> None:
    """Raise ``ValueError`` unless every row of ``runs`` carries the ``settings_hash`` that
    ``hashes`` gives its cell's ``key`` column (jobs with settings of their own, e.g. one human
    cell per method: ``hashes`` maps the method to :func:`settings_hash` of its settings); a row
    whose ``key`` is not in ``hashes`` is refused too (its row is no longer configured). ``what``
    names the rows, ``rule`` the rule that remakes them."""
    _require_settings_hash(runs, what, rule)
    want = runs[key].astype(str).map(hashes)
    bad = runs[want.isna() | (runs.settings_hash.astype(str) != want)]
    if len(bad):
        cells = sorted({f"{k} ({h})" for k, h in zip(bad[key], bad.settings_hash.astype(str))})
        raise ValueError(
            f"{what}: {len(bad)} row(s) of {', '.join(cells[:5])} were computed under other "
            "settings than the config's "
            f"({', '.join(f'{k} {h}' for k, h in sorted(hashes.items())[:5])}); refused. Rerun "
            f"rule {rule} (Snakemake's default rerun triggers do; --rerun-triggers mtime does "
            "not)"
        )


def __getattr__(name: str):
    """A name that moved into a study's package: found there, with a DeprecationWarning."""
    from tripletbench._moved import moved_name

    return moved_name(__name__, name)
