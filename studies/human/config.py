"""The human-judgment study's config checks (``human:`` block), beyond what the schema says."""

from __future__ import annotations

import functools

from tripletbench.harness.config import ConfigError, did_you_mean
from tripletbench.harness.experiment import algorithm_of, constraint_kind_of


def _check_human(block: dict, libraries: bool = True) -> None:
    """The human-judgment rows learn from triplets or the pairs of triplets only (the sets have
    no class labels, :mod:`tripletbench.studies.human.experiment`), or are cblearn ordinal embeddings
    (:func:`check_ordinal_embedding`); ``human.mirror`` is a folder, a ``file://`` or an
    http(s) URL (a folder that does not exist is allowed: the sets are then not run).
    ``libraries``: :func:`check_config`'s.

    A row's ``features`` (the feature sets it is fitted on) must name feature sets of
    ``human.features`` and come with ``features_reason`` (the table's n/a says it); a row with
    ``not_run`` (shown with that reason, never fitted: OPML, which needs class labels) is
    exempt from the constraint-kind check and may not also restrict its feature sets."""
    wanted = list(block.get("features") or [])
    for method, mcfg in (block.get("methods") or {}).items():
        if method in ("Eucl", "chance", "ceiling"):
            raise ConfigError(
                f"config human.methods.{method}: a row of its own in every human table; "
                "give learners only"
            )
        if mcfg.get("not_run"):
            if "features" in mcfg:
                raise ConfigError(
                    f"config human.methods.{method}: not_run and features together; a row "
                    "that is not run has no feature sets"
                )
            continue
        if _is_ordinal(mcfg):  # a cblearn ordinal embedding: a feature-free row
            check_ordinal_embedding(
                f"human.methods.{method}", mcfg["algorithm"], mcfg, libraries=libraries
            )
            continue
        kind = constraint_kind_of(method, mcfg)
        if kind not in ("triplets", "pairs"):
            raise ConfigError(
                f"config human.methods.{method}: {algorithm_of(method, mcfg)} learns from "
                f"{kind}; the human sets give triplets only (a triplet or pair learner), or "
                "give the row not_run: <why> to show it as n/a"
            )
        if "features" in mcfg:
            unknown = [f for f in mcfg["features"] if f not in wanted]
            if unknown:
                raise ConfigError(
                    f"config human.methods.{method}.features: {', '.join(map(repr, unknown))} "
                    f"not in human.features {wanted}; a row can only be restricted to feature "
                    "sets the table computes"
                )
            if not mcfg.get("features_reason"):
                raise ConfigError(
                    f"config human.methods.{method}: features without features_reason; say "
                    "why the row is not run on the other feature sets (the table shows it)"
                )
        elif mcfg.get("features_reason"):
            raise ConfigError(f"config human.methods.{method}: features_reason without features")
    shown = (block.get("embedding_figure") or {}).get("set")
    if shown and block.get("sets") and shown not in block["sets"]:
        raise ConfigError(
            f"config human.embedding_figure.set: {shown} is not among human.sets "
            f"({', '.join(block['sets'])}); the figure's rows come from that set's table column"
        )
    from .experiment import check_published

    try:
        check_published(block)
    except ValueError as err:
        raise ConfigError(str(err)) from None
    mirror = block.get("mirror")
    if mirror:  # a scheme we cannot read is refused; a folder that is absent is not (CI)
        from tripletbench.datasets.base import DataError as _DataError
        from tripletbench.datasets.base import DataUnavailable as _DataUnavailable
        from tripletbench.datasets.base import mirror_location

        try:
            mirror_location(mirror)
        except _DataUnavailable:
            pass
        except _DataError as err:
            raise ConfigError(f"config human.mirror: {err}") from None


def _is_ordinal(mcfg) -> bool:
    from .experiment import is_feature_free

    return is_feature_free(mcfg)


#: Where a trial fit caps an ordinal embedding's iterations and restarts (a check of the
#: settings, not a fit worth keeping): milliseconds per row at start-up.
_TRIAL_CAPS = {"max_iter": 5, "n_init": 1}


def check_ordinal_embedding(place: str, algorithm: str, mcfg: dict, libraries: bool = True) -> None:
    """A human row whose ``algorithm`` is a cblearn ordinal embedding
    (:func:`tripletbench.studies.human.experiment.is_feature_free`), checked when the workflow starts
    instead of :func:`check_method` and :func:`_check_external` (which refuse an embedding: it
    has no metric on new points; here it is a feature-free row of its own). Raises
    :class:`ConfigError` naming ``<place>.algorithm`` for a class that cannot be imported or is
    not a triplet embedding able to place every item
    (:func:`tripletbench.studies.human.experiment.ordinal_class`), ``<place>.fixed.<key>`` for a
    hyperparameter the class does not have or one the harness sets (``random_state``: from the
    cell's seed), and ``<place>.fixed`` for settings that a trial fit refuses (the class's own
    checks, run by cblearn in ``fit``: 12 items on a line, 32 answers, iterations capped).

    ``libraries=False`` (a job's own process, :func:`check_config`): only what needs no import
    (``random_state``); the run's main process has checked the rest before any job started.
    Measured 2026-11-26: importing cblearn costs about 2.2 s of CPU, FORTE's trial fit 2 s more
    (it imports torch), the other trial fits 0.04 s each."""
    from .experiment import ordinal_class

    if "constraints" in mcfg:
        raise ConfigError(
            f"config {place}.constraints: an ordinal embedding learns from the answers' "
            "triplets only (fit(triplets, n_objects)); remove the key"
        )
    if "random_state" in (mcfg.get("fixed") or {}):
        raise ConfigError(
            f"config {place}.fixed.random_state: set by the harness from the cell's seed "
            "(one seed, one embedding); remove the key"
        )
    if not libraries:
        return
    try:
        cls = ordinal_class(algorithm)
    except (KeyError, TypeError) as err:
        msg = err.args[0] if isinstance(err, KeyError) and err.args else err
        raise ConfigError(f"config {place}.algorithm: {msg}") from None
    fixed = dict(mcfg.get("fixed") or {})
    known = cls().get_params()
    for key in fixed:
        if key not in known:
            raise ConfigError(
                f"config {place}.fixed.{key}: {algorithm} has no hyperparameter {key!r}"
                f"{did_you_mean(key, known)} (it has "
                f"{', '.join(sorted(k for k in known if k != 'random_state'))})"
            )
    key = tuple(sorted(fixed.items(), key=str))
    try:
        hash(key)
    except TypeError:  # a list value: checked, not cached
        _trial_embedding.__wrapped__(place, algorithm, key)
    else:
        _trial_embedding(place, algorithm, key)


@functools.lru_cache(maxsize=None)
def _trial_embedding(place: str, algorithm: str, fixed: tuple) -> None:
    """The trial fit of :func:`check_ordinal_embedding`, once per (row, settings) and process."""
    import numpy as np

    from .experiment import fit_ordinal_embedding, ordinal_class

    params = dict(fixed)
    defaults = ordinal_class(algorithm)().get_params()
    for key, cap in _TRIAL_CAPS.items():
        if key in defaults:
            value = params.get(key, defaults[key])
            params[key] = min(value, cap) if isinstance(value, int) else value
    # 12 items on a line, anchor closer to positive: every 20th of the ordered triplets
    x = np.arange(12)
    t = np.array(
        [
            (i, j, k)
            for i in x
            for j in x
            for k in x
            if len({i, j, k}) == 3 and abs(i - j) < abs(i - k)
        ]
    )[::20]
    try:
        fit_ordinal_embedding(algorithm, params, t, 12, 0)
    except Exception as err:  # noqa: BLE001 -- the library's own check of a setting
        raise ConfigError(
            f"config {place}.fixed: {algorithm} refuses these settings ({dict(fixed)}) in a "
            f"trial fit: {type(err).__name__}: {err}"
        ) from None


def check(config: dict, libraries: bool = True) -> None:
    """The human-judgment study's checks (Study.check): :func:`_check_human`."""
    _check_human(config.get("human") or {}, libraries=libraries)


def complete_schema(schema: dict) -> None:
    """Fill in the human block's name lists (Study.complete_schema) from the sets found in
    :mod:`tripletbench.datasets` (every module's ``HUMAN_SET``): ``definitions.human_set`` (and
    with null, ``human_set_or_null``: ``embedding_figure.set``) and
    ``definitions.human_feature_set`` (the image feature sets and every set's own)."""
    from .sets import SETS, all_feature_sets

    defs = schema["definitions"]
    defs["human_set"]["enum"] = list(SETS)
    defs["human_set_or_null"]["enum"] = [None, *SETS]
    defs["human_feature_set"]["enum"] = all_feature_sets()


def method_blocks(config: dict):
    """The rows of ``human.methods`` (Study.method_blocks); its sets are not feature tables
    (:data:`tripletbench.studies.human.sets.SETS`), so no dataset is looked up."""
    human = config.get("human") or {}
    if human.get("methods"):
        yield "human", human["methods"], []


def learner_row(place: str, row: dict) -> bool:
    """Whether a row is checked as a learner: a cblearn ordinal embedding is not (a feature-free
    row, :func:`check_ordinal_embedding` checks it)."""
    return not _is_ordinal(row)


def regression_skip(config: dict, blocks_on) -> dict:
    """The human table's stored files where this run cannot build them: the config has no human
    block, or human.mirror names a folder that is absent (a clone without ../shared/mirror)."""
    tables = ["tables/human_table.csv", "human/all_runs.csv"]  # table_human's outputs
    if "human" not in blocks_on:
        return {t: "the config has no human block" for t in tables}
    from .experiment import missing_reason

    why = missing_reason(config)
    return {t: why for t in tables} if why.startswith("not run") else {}
