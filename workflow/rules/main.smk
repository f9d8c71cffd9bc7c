# The whole workflow but its default target: both Snakefiles (the top-level one and the catalog
# layout's workflow/Snakefile) include this file and define `rule all` themselves (Snakemake
# takes a default target only from the main Snakefile, not from an included file).


report: "../report/workflow.rst"


include: "common.smk"
include: "data.smk"
include: "fit.smk"


# One rule file per experiment block; a block the config leaves out is not included, so a
# config with any subset of the blocks plans exactly those tables and figures (BLOCKS_ON).
if "performance" in BLOCKS_ON:

    include: "performance.smk"


if "figures" in BLOCKS_ON:

    include: "figures.smk"


if "svm" in BLOCKS_ON:

    include: "svm.smk"


if "oahu" in BLOCKS_ON:

    include: "oahu.smk"


if "images" in BLOCKS_ON:

    include: "images.smk"


if "sdca_table4" in BLOCKS_ON or "table4_scaling" in BLOCKS_ON:

    include: "table4.smk"


if "sdca_table2" in BLOCKS_ON:

    include: "tables.smk"


if "human" in BLOCKS_ON:

    include: "human.smk"


include: "report.smk"


# Old outputs survive a failed or killed rerun (harness/keep.py): kept under {results}/.previous
# when the run starts, put back where missing on error (or at the next run's start), dropped on
# success.
onstart:
    record_run_start()
    from tripletbench.harness.keep import keep_previous, without_rate_limiter_timers

    keep_previous(RESULTS, workflow.dag.needrun_jobs())
    # a local run's scheduler without the rate limiter's timer threads (issue 40; harness/keep.py)
    without_rate_limiter_timers(workflow)


onsuccess:
    record_run_end("success")
    from tripletbench.harness.keep import drop_previous

    drop_previous(RESULTS)


onerror:
    record_run_end("error")
    from tripletbench.harness.keep import put_back

    put_back(RESULTS)
