"""Rule regression_check: fail naming every number that moved beyond its stored tolerance."""

from tripletbench.harness.io import save_text, start_log
from tripletbench.harness.regression import RegressionFailure, check_files

start_log(snakemake.log[0])
n, problems = check_files(snakemake.input.table, snakemake.input.expected)
if problems:
    raise RegressionFailure("regression check failed:\n  " + "\n  ".join(problems))
save_text(snakemake.output[0], f"{n} stored numbers checked: all within tolerance\n")
print(f"{n} stored numbers checked: all within tolerance")
