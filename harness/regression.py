"""The CI regression check: a table's numbers against stored values with explicit tolerances."""

from __future__ import annotations

import pandas as pd


class RegressionFailure(AssertionError):
    pass


def compare(table: pd.DataFrame, expected: pd.DataFrame) -> list[str]:
    """Compare ``table`` (dataset, algorithm, mean, status) with ``expected`` rows
    (dataset, algorithm, column, value, abs_tol). Returns one message per number that moved or
    vanished, naming the number, the stored value and the new one."""
    t = table.set_index(["dataset", "algorithm"])
    problems = []
    for e in expected.itertuples(index=False):
        name = f"{e.dataset}/{e.algorithm}/{e.column}"
        if (e.dataset, e.algorithm) not in t.index:
            problems.append(f"{name}: stored {e.value!r}, now missing from the table")
            continue
        new = t.loc[(e.dataset, e.algorithm), e.column]
        if e.column == "status":
            if str(new) != str(e.value):
                problems.append(f"{name}: stored {e.value!r}, new {new!r}")
        elif pd.isna(new) or abs(float(new) - float(e.value)) > float(e.abs_tol):
            problems.append(
                f"{name}: stored {float(e.value):.6f}, new {float(new):.6f} "
                f"(tolerance ±{float(e.abs_tol):g})"
            )
    return problems


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


def check_files(table_csv, expected_csv) -> tuple[int, list[str]]:
    """(number of stored values, problems) of the table CSV against the stored values CSV."""
    table = pd.read_csv(table_csv)
    expected = pd.read_csv(expected_csv, dtype={"value": str})
    return len(expected), compare(table, expected)


def main(argv=None) -> int:
    """``python -m tripletbench.harness.regression TABLE.csv EXPECTED.csv``: check TABLE's numbers against the
    stored ones (exit status 1 naming every number that moved); with ``--update``, store TABLE's
    numbers as the new expected values instead (after an intended change of results)."""
    import argparse

    from .io import save_csv

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
        # stored values under config/, not a result: no digest beside them
        expected = expected_from_table(pd.read_csv(args.table_csv))
        save_csv(args.expected_csv, expected, digest=False)
        print(f"stored {args.table_csv}'s numbers in {args.expected_csv}")
        return 0
    n, problems = check_files(args.table_csv, args.expected_csv)
    if problems:
        print("regression check failed:\n  " + "\n  ".join(problems))
        print("(after an intended change of results: add --update to store the new numbers)")
        return 1
    print(f"{n} stored numbers checked: all within tolerance")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
