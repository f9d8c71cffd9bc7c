"""The CI regression check: result numbers of every table and figure the CI config builds against
stored values with explicit tolerances.

The stored values (``config/ci_expected.csv``) are one row per guarded number::

    table,cell,column,value,abs_tol
    tables/<table>.csv,dataset=<name>;algorithm=<row>,mean,0.556787,0.0005

* ``table``: the result CSV, relative to the run's results folder (``results_dir``);
* ``cell``: ``key=value`` pairs joined by ``;`` that select exactly one row of it (values compared
  as the CSV writes them: ``seed=0``, ``checkpoint=final``);
* ``column``: the column of that row; ``value``: the stored value, a number or a text (a status
  such as ``needs download`` must be equal); ``abs_tol``: how far a number may move (0: equal).

Lines that start with ``#`` before the header are comments (how the tolerances were measured);
:func:`update` keeps them. Timing and memory columns (fit seconds, CPU time, peak memory, load)
differ from run to run by design and are never stored: :func:`update` refuses them
(:data:`UNGUARDED_COLUMNS`).

``python -m tripletbench.harness.regression RESULTS_DIR EXPECTED.csv`` checks a run's results
folder against the stored values; with ``--update`` it stores that run's numbers instead (the
value of every stored row, read from the same cell; a row added by hand with an empty value is
filled the same way) and prints the diff. Numbers are never typed in: every stored value comes
from a real run.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd


class RegressionFailure(AssertionError):
    pass


COLUMNS = ["table", "cell", "column", "value", "abs_tol"]

UNGUARDED_COLUMNS = re.compile(
    r"(^|_)(s|sec|seconds|time|cpu|wall|rss|mb|mem|memory|load|load1|per_s|rate_per_s)($|_)"
    r"|cpu_s|wall_s|fit_s|solve_s|peak_|triplets_per_s"
)
"""Column names that hold a timing, a rate or a memory size: not deterministic, never stored."""


def parse_cell(cell: str) -> dict[str, str]:
    """``"dataset=d1;algorithm=A"`` as ``{"dataset": "d1", "algorithm": "A"}``."""
    out = {}
    for part in str(cell).split(";"):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"stored cell {cell!r}: {part!r} is not key=value")
        out[key.strip()] = value.strip()
    return out


def _as_text(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return str(v)


def _number(v) -> float | None:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x


def lookup(table: pd.DataFrame, cell: str, column: str):
    """The value (as the CSV writes it, text) of ``column`` in the one row of ``table`` that
    ``cell`` selects; raises KeyError naming why (no such column, no row, several rows)."""
    keys = parse_cell(cell)
    missing = [k for k in [*keys, column] if k not in table.columns]
    if missing:
        raise KeyError(f"no column {missing[0]!r}")
    mask = pd.Series(True, index=table.index)
    for k, v in keys.items():
        mask &= table[k].map(_as_text) == v
    hits = table[mask]
    if len(hits) != 1:
        raise KeyError("no such row" if not len(hits) else f"{len(hits)} rows match")
    return _as_text(hits[column].iloc[0])


def _name(e) -> str:
    return f"{e.table}[{e.cell}].{e.column}"


def read_expected(expected_csv) -> tuple[list[str], pd.DataFrame]:
    """(comment lines, stored rows as text) of a stored-values file."""
    lines = Path(expected_csv).read_text().splitlines(keepends=True)
    head = []
    while lines and lines[0].startswith("#"):
        head.append(lines.pop(0))
    import io

    rows = pd.read_csv(io.StringIO("".join(lines)), dtype=str, keep_default_na=False)
    if list(rows.columns) != COLUMNS:
        raise ValueError(f"{expected_csv}: columns {list(rows.columns)}, expected {COLUMNS}")
    return head, rows


def stored_tables(expected_csv) -> list[str]:
    """The result tables (relative to the results folder) that the stored values name, sorted:
    the regression rule's inputs."""
    return sorted(set(read_expected(expected_csv)[1].table))


def _read_tables(results, names, skip=()) -> dict:
    from .tables import read_result

    return {
        t: read_result(Path(results) / t, dtype=str) for t in sorted(set(names)) if t not in skip
    }


def report(results, expected: pd.DataFrame, skip: dict | None = None, tables=None) -> pd.DataFrame:
    """Every stored number beside the new one: one row per row of ``expected`` with columns
    ``name`` (table[cell].column), ``stored``, ``new`` (None where the cell is gone; the reason
    in ``why``), ``tolerance``, ``ok`` and ``skipped`` (the reason a table was not built, from
    ``skip``: {table: reason}; such a row is neither ok nor moved). A text must be equal; a
    number within ``abs_tol`` of the stored one (NaN never is, unless NaN is stored)."""
    skip = skip or {}
    if tables is None:
        tables = _read_tables(results, expected.table, skip)
    rows = []
    for e in expected.itertuples(index=False):
        tol = float(e.abs_tol or 0)
        if e.table in skip:
            rows.append((_name(e), e.value, None, tol, True, skip[e.table], ""))
            continue
        try:
            new = lookup(tables[e.table], e.cell, e.column)
            why = ""
        except KeyError as err:
            new, why = None, err.args[0]
        if new is None:
            ok = False
        else:
            s, n = _number(e.value), _number(new)
            if s is None or n is None:
                ok = str(new) == str(e.value)
            elif math.isnan(s) or math.isnan(n):
                ok = math.isnan(s) and math.isnan(n)
            else:
                ok = abs(n - s) <= tol
        rows.append((_name(e), e.value, new, tol, ok, "", why))
    return pd.DataFrame(
        rows, columns=["name", "stored", "new", "tolerance", "ok", "skipped", "why"]
    )


def _fmt(v) -> str:
    x = _number(v)
    return repr(str(v)) if x is None else f"{x:.6g}" if abs(x) >= 1e4 else f"{x:.6f}"


def _line(r) -> str:
    if r.skipped:
        return f"{r.name}: stored {_fmt(r.stored)}, not checked: {r.skipped}"
    if r.why:
        return f"{r.name}: stored {_fmt(r.stored)}, now missing from the table ({r.why})"
    if _number(r.stored) is None or _number(r.new) is None:
        return f"{r.name}: stored {r.stored!r}, new {r.new!r}"
    stored, new = _fmt(r.stored), _fmt(r.new)
    if stored == new and str(r.stored) != str(r.new):  # a move below the printed digits
        stored, new = str(r.stored), str(r.new)
    return f"{r.name}: stored {stored}, new {new} (tolerance ±{r.tolerance:g})"


def report_lines(rows: pd.DataFrame) -> list[str]:
    """:func:`report`'s rows as text, one line per stored number, each marked ``ok``, ``MOVED``
    or ``skip`` (its table not built by this run, with the reason)."""
    mark = lambda r: "skip " if r.skipped else "ok   " if r.ok else "MOVED"  # noqa: E731
    return [f"{mark(r)} {_line(r)}" for r in rows.itertuples(index=False)]


def compare(results, expected: pd.DataFrame, skip=None, tables=None) -> list[str]:
    """One message per stored number that moved or vanished, naming the number (table, cell,
    column), the stored value and the new one."""
    return _problems(report(results, expected, skip, tables))


def _problems(rows: pd.DataFrame) -> list[str]:
    """:func:`report`'s rows that are not ok, as text."""
    return [_line(r) for r in rows.itertuples(index=False) if not r.ok]


ACCEPT_HINT = (
    "after an intended change of results, store the new numbers and see what moved with: "
    ".venv/bin/python -m tripletbench.harness.regression {results} {expected} --update "
    "(it rewrites {expected} and prints the diff; commit it with the change that moved them)"
)


def summary(n: int, lines: list[str]) -> str:
    """The last line of a passed check: how many stored numbers were checked (and skipped)."""
    skipped = sum(line.startswith("skip") for line in lines)
    out = f"{n - skipped} stored numbers checked: all within tolerance"
    return out + (f" ({skipped} not checked: their table was not built)" if skipped else "")


def check_files(results, expected_csv, skip=None) -> tuple[int, list[str], list[str]]:
    """(number of stored values, problems, every stored number beside the new one as
    :func:`report_lines`) of the results folder ``results`` against the stored values CSV."""
    _, expected = read_expected(expected_csv)
    rows = report(results, expected, skip)
    return len(expected), _problems(rows), report_lines(rows)


def update(results, expected_csv) -> str:
    """Store the numbers of the run in ``results`` in ``expected_csv``: every stored row's value
    read from the same cell (a row whose cell is gone is dropped: the diff shows it), tolerances
    and comment lines kept; returns the unified diff of the stored values, old against new
    ("" when nothing moved). Refuses a timing or memory column (:data:`UNGUARDED_COLUMNS`)."""
    import difflib
    import io

    from .io import save_text

    path = Path(expected_csv)
    head, expected = read_expected(path)
    bad = sorted({c for c in expected.column if UNGUARDED_COLUMNS.search(c)})
    if bad:
        raise ValueError(f"{path}: timing or memory columns {bad} vary from run to run; not stored")
    tables = _read_tables(results, expected.table)
    keep = []
    for i, e in enumerate(expected.itertuples(index=False)):
        try:
            # the value as the CSV writes it
            expected.loc[i, "value"] = lookup(tables[e.table], e.cell, e.column)
            keep.append(i)
        except KeyError as err:
            print(f"dropped {_name(e)}: {err.args[0]} in this run")
    buf = io.StringIO()
    expected.loc[keep].to_csv(buf, index=False, lineterminator="\n")
    old = path.read_text().splitlines(keepends=True)
    save_text(path, "".join(head) + buf.getvalue())  # stored values under config/: no digest
    new = path.read_text().splitlines(keepends=True)
    return "".join(difflib.unified_diff(old, new, f"{path} (stored)", f"{path} (new)"))


def main(argv=None) -> int:
    """``python -m tripletbench.harness.regression RESULTS_DIR EXPECTED.csv``: check the results
    folder's numbers against the stored ones (exit status 1 naming every number that moved);
    with ``--update``, store that run's numbers as the new expected values instead (after an
    intended change of results)."""
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m tripletbench.harness.regression",
        description="Check a run's result numbers against stored values (default), or store "
        "them (--update).",
    )
    ap.add_argument("results_dir", help="the results folder of a run (e.g. results/ci)")
    ap.add_argument("expected_csv", help="the stored values (e.g. config/ci_expected.csv)")
    ap.add_argument(
        "--update",
        action="store_true",
        help="overwrite EXPECTED_CSV's values with the run's numbers instead of checking them",
    )
    args = ap.parse_args(argv)
    if args.update:
        diff = update(args.results_dir, args.expected_csv)
        print(diff or "nothing moved: the stored values are unchanged")
        print(f"stored the numbers of {args.results_dir} in {args.expected_csv}")
        return 0
    n, problems, lines = check_files(args.results_dir, args.expected_csv)
    print("\n".join(lines))
    if problems:
        print(f"regression check failed: {len(problems)} of {n} stored numbers moved")
        print(ACCEPT_HINT.format(results=args.results_dir, expected=args.expected_csv))
        return 1
    print(summary(n, lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
