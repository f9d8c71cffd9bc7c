"""The human-judgment table's rows, columns and statuses: a row's name and settings, the
feature sets a learner row is fitted on, the rows that are not run, the columns of each set and
protocol, the published rows shown beside ours, and why a cell has no number."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .folds import PROTOCOL_LETTERS, PROTOCOLS
from .sets import SETS, feature_owners

EUCLIDEAN = "Eucl"  # the cell "method" of the Euclidean distance on each feature set, and of
# the reference rows (chance, ceiling): none of them fits anything


def row_settings(name: str, mcfg: dict, algorithm: bool = True) -> str:
    """A ``human.methods`` row's settings as the table's and the curve's captions print them:
    (with ``algorithm``) its algorithm where that is not its name, then its ``fixed`` values
    (``"defaults"`` without any), then the feature sets a restricted row runs on with its
    reason; a ``not_run`` row: ``"not run (<why>)"``."""
    if mcfg.get("not_run"):
        return f"not run ({mcfg['not_run']})"
    algo = mcfg.get("algorithm", name)
    parts = ([algo] if algorithm and algo != name else []) + [
        f"{k} = {v}" for k, v in (mcfg.get("fixed") or {}).items()
    ]
    text = ", ".join(parts) or "defaults"
    if mcfg.get("features"):
        text += f"; on {', '.join(mcfg['features'])} only ({mcfg.get('features_reason', '')})"
    return text


def row_features(mcfg: dict, wanted) -> list[str]:
    """The feature sets of ``wanted`` that a learner row is fitted on: its ``features`` where the
    row restricts them (a learner too slow on a high-dimensional set; the reason in
    ``features_reason``), else all."""
    only = mcfg.get("features")
    return [f for f in wanted if only is None or f in only]


def fitted_rows(methods: dict) -> list[str]:
    """The learner rows that are fitted (one cell each): every row of ``methods`` but those
    with ``not_run`` (shown as n/a with their reason, :func:`not_run_status`)."""
    return [m for m, mcfg in methods.items() if not mcfg.get("not_run")]


def not_run_status(methods: dict, features) -> dict:
    """Table row name -> status of the learner rows that have no number by configuration: a
    row with ``not_run`` (one row, ``"n/a (<not_run>)"``: it is never fitted) and, for a row
    restricted to some feature sets (``features``, ``features_reason``), each other feature set
    of ``features``: ``"n/a (not run on this feature set: <features_reason>)"``."""
    out = {}
    for m, mcfg in methods.items():
        if mcfg.get("not_run"):
            out[m] = f"n/a ({mcfg['not_run']})"
            continue
        kept = row_features(mcfg, features)
        for f in features:
            if f not in kept:
                out[row_name(m, f)] = (
                    f"n/a (not run on this feature set: {mcfg.get('features_reason', 'features')})"
                )
    return out


def table_column(name: str, protocol: str, scoring: str) -> str:
    """The table's column of a row: ``"material (a)"``, ``"cars60 (b)"``, ``"material (d)
    answers"`` ... (protocol (c) has no table column: its figure, ``figure_human_curve``)."""
    letter = PROTOCOL_LETTERS[protocol]
    if protocol == "publisher":
        return f"{name} (d) {scoring}"
    return f"{name} ({letter})"


def all_columns(sets=tuple(SETS), protocols=PROTOCOLS) -> list[str]:
    """Every table column of ``sets`` under ``protocols`` (:func:`table_column`): (a) and (b)
    per set, (d) ``answers`` and ``majority`` for a set with a publisher split (material); (c)
    has none."""
    out = []
    for name in sets:
        for p in protocols:
            if p in ("triplets", "items"):
                out.append(table_column(name, p, "answers"))
            elif p == "publisher" and SETS[name].publisher_split:
                out += [table_column(name, p, c) for c in ("answers", "majority")]
    return out


def check_published(block: dict) -> None:
    """Raise ``ValueError`` naming a ``human.published`` row whose ``column`` is no column any
    human table has (:func:`all_columns`: e.g. ``"material (d) majority"``) or that has the name
    of a row of ours (a learner, ``Eucl``, ``chance``, ``ceiling``)."""
    ours = {*(block.get("methods") or {}), EUCLIDEAN, "chance", "ceiling"}
    for name, row in (block.get("published") or {}).items():
        if row.get("column") not in all_columns():
            raise ValueError(
                f"config human.published.{name}: column {row.get('column')!r} is no column of "
                f"the human table; one of {all_columns()}"
            )
        if name in ours or name.split(" · ")[0] in ours:
            raise ValueError(
                f"config human.published.{name}: the name of one of our rows; give the "
                "published method a name of its own"
            )


def published(block: dict, columns) -> tuple[list[str], pd.DataFrame]:
    """``(rows, paper)``: the ``human.published`` rows that have a number in one of ``columns``
    (in the config's order) and their numbers as a
    :class:`tripletbench.harness.paper_table.PaperTable` ``paper`` frame (columns dataset,
    algorithm, metric, paper, paper_std, paper_method): shown beside ours, never rerun or
    ranked (:func:`table_status` gives their own cells' reason)."""
    rows = {name: r for name, r in (block.get("published") or {}).items() if r["column"] in columns}
    paper = pd.DataFrame(
        [
            {
                "dataset": r["column"],
                "algorithm": name,
                "metric": "triplet_accuracy",
                "paper": float(r["value"]),
                "paper_std": np.nan,
                "paper_method": name,
            }
            for name, r in rows.items()
        ],
        columns=["dataset", "algorithm", "metric", "paper", "paper_std", "paper_method"],
    )
    return list(rows), paper


PUBLISHED_STATUS = "n/a (published number only)"


def table_status(
    columns, methods, missing: dict, feature_free=(), not_run=None, published_rows=()
) -> dict:
    """Why a table cell has no number (:class:`tripletbench.harness.paper_table.PaperTable`'s ``status``):
    a whole column whose set did not run (``missing``: set -> reason), a feature set the
    column's set does not have ("n/a (Food-100 only)": the sets that have it,
    :attr:`~tripletbench.datasets.human_set.HumanSet.feature_sets`), no ceiling on a set whose
    answers are not counted per question (not ``counted``: Food-100, the cars) or where the
    majority is the reference (d, majority),
    on protocol (b) every row of ``feature_free`` (:func:`feature_free_rows` of the config's
    methods: a method with no feature map cannot place an item it never saw: "n/a (no feature
    map)"), in every column the rows of ``not_run`` (row -> status, :func:`not_run_status`: a
    learner row not run at all or not on that feature set), and every cell of a
    ``published_rows`` row (:func:`published`: the number is another's, shown in the paper
    column) says :data:`PUBLISHED_STATUS`."""
    out = {}
    not_run = not_run or {}
    for col in columns:
        s = col.split(" ", 1)[0]
        if s in missing:
            out[col] = missing[s]
            continue
        for m in methods:
            feats = m.split(" · ", 1)[1] if " · " in m else ""
            if feats and feats not in SETS[s].feature_sets:
                owners = ", ".join(SETS[o].title for o in feature_owners(feats))
                out[(col, m)] = f"n/a ({owners} only)"
            elif m in not_run:
                out[(col, m)] = not_run[m]
            if col.endswith("(b)") and m in feature_free:
                out[(col, m)] = "n/a (no feature map: cannot place a held-out item)"
        if not SETS[s].counted:
            out[(col, "ceiling")] = "n/a (answers not counted per question)"
        if col.endswith("majority"):
            out[(col, "ceiling")] = "n/a (1 by definition)"
        for m in published_rows:
            out[(col, m)] = PUBLISHED_STATUS
    return out


def row_name(method: str, features: str) -> str:
    """The table's row of a cell row: ``"OASIS · hog"``; ``chance`` and ``ceiling`` alone."""
    return f"{method} · {features}" if features else method
