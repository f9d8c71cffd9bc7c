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
        if isinstance(e.value, str) or isinstance(new, str):
            if str(new) != str(e.value):
                problems.append(f"{name}: stored {e.value!r}, new {new!r}")
        elif pd.isna(new) or abs(float(new) - float(e.value)) > float(e.abs_tol):
            problems.append(f"{name}: stored {float(e.value):.6f}, new {float(new):.6f} "
                            f"(tolerance ±{float(e.abs_tol):g})")
    return problems
