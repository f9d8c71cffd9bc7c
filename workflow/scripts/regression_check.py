"""Rule regression_check: every stored number beside the new one and its tolerance (the log and
the report); fail naming every number that moved, with the command that accepts a deliberate
change (tripletbench.harness.regression)."""

from tripletbench.harness.io import save_text, start_log
from tripletbench.harness.regression import ACCEPT_HINT, RegressionFailure, check_files

start_log(snakemake.log[0])
table, expected = snakemake.input.table, snakemake.input.expected
n, problems, lines = check_files(table, expected)
print("\n".join(lines))
if problems:
    raise RegressionFailure(
        f"regression check failed: {len(problems)} of {n} stored numbers moved:\n  "
        + "\n  ".join(problems)
        + "\n"
        + ACCEPT_HINT.format(table=table, expected=expected)
    )
save_text(
    snakemake.output[0], "\n".join(lines) + f"\n{n} stored numbers checked: all within tolerance\n"
)
print(f"{n} stored numbers checked: all within tolerance")
