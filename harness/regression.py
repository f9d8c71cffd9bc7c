"""The CI regression check: a table's numbers against stored values with explicit tolerances."""

from __future__ import annotations

import pandas as pd


class RegressionFailure(AssertionError):
    pass


def report(table: pd.DataFrame, expected: pd.DataFrame) -> pd.DataFrame:
    """Every stored number beside the new one: one row per row of ``expected`` (dataset,
    algorithm, column, value, abs_tol) against ``table`` (dataset, algorithm, mean, status), with
    columns ``name`` (dataset/algorithm/column), ``stored``, ``new`` (None where the cell is gone),
    ``tolerance`` and ``ok``. A status must be equal; a number within ``abs_tol`` of the stored
    one (NaN never is)."""
    t = table.set_index(["dataset", "algorithm"])
    rows = []
    for e in expected.itertuples(index=False):
        name = f"{e.dataset}/{e.algorithm}/{e.column}"
        new = (
            t.loc[(e.dataset, e.algorithm), e.column] if (e.dataset, e.algorithm) in t.index else None
        )
        if new is None:
            ok = False
        elif e.column == "status":
            ok = str(new) == str(e.value)
        else:
            ok = not pd.isna(new) and abs(float(new) - float(e.value)) <= float(e.abs_tol)
        rows.append((name, e.column, e.value, new, float(e.abs_tol), ok))
    return pd.DataFrame(rows, columns=["name", "column", "stored", "new", "tolerance", "ok"])


def _line(r) -> str:
    if r.new is None:
        return f"{r.name}: stored {r.stored!r}, now missing from the table"
    if r.column == "status":
        return f"{r.name}: stored {r.stored!r}, new {r.new!r}"
    return f"{r.name}: stored {float(r.stored):.6f}, new {float(r.new):.6f} (tolerance ±{r.tolerance:g})"


def report_lines(rows: pd.DataFrame) -> list[str]:
    """:func:`report`'s rows as text, one line per stored number, each marked ``ok`` or
    ``MOVED``."""
    return [f"{'ok   ' if r.ok else 'MOVED'} {_line(r)}" for r in rows.itertuples(index=False)]


def compare(table: pd.DataFrame, expected: pd.DataFrame) -> list[str]:
    """Compare ``table`` (dataset, algorithm, mean, status) with ``expected`` rows
    (dataset, algorithm, column, value, abs_tol). Returns one message per number that moved or
    vanished, naming the number, the stored value and the new one."""
    rows = report(table, expected)
    return [_line(r) for r in rows.itertuples(index=False) if not r.ok]


ACCEPT_HINT = (
    "after an intended change of results, store the new numbers and see what moved with: "
    ".venv/bin/python -m tripletbench.harness.regression {table} {expected} --update "
    "(it rewrites {expected} and prints the diff; commit it with the change that moved them)"
)


MAP_TOLERANCE = (
    5e-4  # absolute, on mAP: far above float noise across BLAS builds, far below any real change
)


def expected_from_table(table: pd.DataFrame) -> pd.DataFrame:
    """Stored values from a table computed by a real run: mAP (mean) of every cell that ran, and
    the status of every cell that did not."""
    rows = []
    for r in table.itertuples(index=False):
        if r.status == "ok":
            rows.append((r.dataset, r.algorithm, "mean", f"{r.mean:.6f}", MAP_TOLERANCE))
        else:
            rows.append((r.dataset, r.algorithm, "status", r.status, 0))
    return pd.DataFrame(rows, columns=["dataset", "algorithm", "column", "value", "abs_tol"])


def check_files(table_csv, expected_csv) -> tuple[int, list[str], list[str]]:
    """(number of stored values, problems, every stored number beside the new one as
    :func:`report_lines`) of the table CSV against the stored values CSV."""
    table = pd.read_csv(table_csv)
    expected = pd.read_csv(expected_csv, dtype={"value": str})
    rows = report(table, expected)
    problems = [_line(r) for r in rows.itertuples(index=False) if not r.ok]
    return len(expected), problems, report_lines(rows)


def update(table_csv, expected_csv) -> str:
    """Store ``table_csv``'s numbers in ``expected_csv`` (:func:`expected_from_table`); returns
    the unified diff of the stored values, old against new ("" when nothing moved)."""
    import difflib
    from pathlib import Path

    from .io import save_csv

    path = Path(expected_csv)
    old = path.read_text().splitlines(keepends=True) if path.exists() else []
    # stored values under config/, not a result: no digest beside them
    save_csv(path, expected_from_table(pd.read_csv(table_csv)), digest=False)
    new = path.read_text().splitlines(keepends=True)
    return "".join(difflib.unified_diff(old, new, f"{path} (stored)", f"{path} (new)"))


def main(argv=None) -> int:
    """``python -m tripletbench.harness.regression TABLE.csv EXPECTED.csv``: check TABLE's numbers against the
    stored ones (exit status 1 naming every number that moved); with ``--update``, store TABLE's
    numbers as the new expected values instead (after an intended change of results)."""
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m tripletbench.harness.regression",
        description="Check a table's numbers against stored values (default), or store them "
        "(--update).",
    )
    ap.add_argument("table_csv", help="the table computed by a run (e.g. results/ci/tables/...)")
    ap.add_argument("expected_csv", help="the stored values (e.g. config/ci_expected.csv)")
    ap.add_argument(
        "--update",
        action="store_true",
        help="overwrite EXPECTED_CSV with TABLE_CSV's numbers instead of checking them",
    )
    args = ap.parse_args(argv)
    if args.update:
        diff = update(args.table_csv, args.expected_csv)
        print(diff or "nothing moved: the stored values are unchanged")
        print(f"stored {args.table_csv}'s numbers in {args.expected_csv}")
        return 0
    n, problems, lines = check_files(args.table_csv, args.expected_csv)
    print("\n".join(lines))
    if problems:
        print(f"regression check failed: {len(problems)} of {n} stored numbers moved")
        print(ACCEPT_HINT.format(table=args.table_csv, expected=args.expected_csv))
        return 1
    print(f"{n} stored numbers checked: all within tolerance")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
