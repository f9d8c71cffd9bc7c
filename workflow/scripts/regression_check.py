"""Rule regression_check: every stored number beside the new one and its tolerance (the log and
the report); fail naming every number that moved, with the command that accepts a deliberate
change (tripletbench.harness.regression)."""

from pathlib import Path

from tripletbench.harness.io import save_text, start_log
from tripletbench.harness.regression import ACCEPT_HINT, RegressionFailure, check_files, summary

start_log(snakemake.log[0])
# the run's results folder: where the report goes (the stored tables are named relative to it)
results, expected = str(Path(snakemake.output[0]).parent), snakemake.input.expected
n, problems, lines = check_files(results, expected, skip=snakemake.params.skip)
print("\n".join(lines))
if problems:
    raise RegressionFailure(
        f"regression check failed: {len(problems)} of {n} stored numbers moved:\n  "
        + "\n  ".join(problems)
        + "\n"
        + ACCEPT_HINT.format(results=results, expected=expected)
    )
save_text(snakemake.output[0], "\n".join(lines) + f"\n{summary(n, lines)}\n")
print(summary(n, lines))
