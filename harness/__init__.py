"""The experiment harness: config handling, fitting and evaluating one cell, tidy results,
tables and the regression check. Snakemake rule scripts are thin wrappers around these modules."""

from tripletbench.optional import PIPELINE_MODULES, require_installed

require_installed(PIPELINE_MODULES, "the benchmark pipeline (tripletbench.harness)", "pipeline")
