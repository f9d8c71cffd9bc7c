"""Rule regression_check: fail naming every number that moved beyond its stored tolerance."""

import pandas as pd

from harness.io import save_text, start_log
from harness.regression import RegressionFailure, compare

start_log(snakemake.log[0])
table = pd.read_csv(snakemake.input.table)
expected = pd.read_csv(snakemake.input.expected, dtype={"value": str})
problems = compare(table, expected)
if problems:
    raise RegressionFailure("regression check failed:\n  " + "\n  ".join(problems))
save_text(snakemake.output[0], f"{len(expected)} stored numbers checked: all within tolerance\n")
print(f"{len(expected)} stored numbers checked: all within tolerance")
