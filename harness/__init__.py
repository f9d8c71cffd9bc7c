"""The experiment harness: config handling, fitting and evaluating one cell, tidy results,
tables and the regression check. Snakemake rule scripts are thin wrappers around these modules."""
