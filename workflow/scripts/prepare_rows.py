"""Rule prepare_rows: a prepared dataset's X as a plain .npy (read row by row through a memory
map) and each row's CRC-32 (see tripletbench.datasets.base.write_rows and load_prepared_rows)."""

from tripletbench.datasets.rows import write_rows
from tripletbench.harness.io import now, start_log

start_log(snakemake.log[0])
shape = write_rows(snakemake.input[0], snakemake.output.rows, snakemake.output.check)
print(f"[{now()}] {snakemake.wildcards.dataset}: {shape[0]} rows x {shape[1]} -> {snakemake.output.rows}")
