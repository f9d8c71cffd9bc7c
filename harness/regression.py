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


if __name__ == "__main__":
    # python -m harness.regression TABLE.csv EXPECTED.csv: store TABLE's numbers as the expected ones
    import sys

    table_csv, expected_csv = sys.argv[1:3]
    expected_from_table(pd.read_csv(table_csv)).to_csv(expected_csv, index=False)
    print(f"wrote {expected_csv} from {table_csv}")
