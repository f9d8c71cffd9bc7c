# The whole workflow but its default target: both Snakefiles (the top-level one and the catalog
# layout's workflow/Snakefile) include this file and define `rule all` themselves (Snakemake
# takes a default target only from the main Snakefile, not from an included file).


report: "../report/workflow.rst"


include: "common.smk"
include: "data.smk"


# One rule file per study, named as the study (workflow/rules/<study>.smk), included when the
# config gives a block the study owns or reads; a config with any subset of the blocks plans
# exactly those tables and figures (BLOCKS_ON). In the studies' order (tripletbench.studies).
for _study in STUDIES.values():
    if set(_study.blocks + _study.reads) & set(BLOCKS_ON):

        include: f"{_study.name}.smk"


include: "fit.smk"
include: "regression.smk"
include: "report.smk"


# One run per results folder (harness/run_lock.py): the lock is taken before anything under the
# folder is touched, and dropped when the run ends. Old outputs survive a failed or killed rerun
# (harness/keep.py): kept under {results}/.previous when the run starts, put back where missing
# on error (or at the next run's start), dropped on success.
onstart:
    from tripletbench.harness.run_lock import RunLocked, acquire

    try:
        acquire(RESULTS)
    except RunLocked as err:
        raise WorkflowError(str(err)) from None
    record_run_start()
    from tripletbench.harness.keep import keep_previous, without_rate_limiter_timers

    keep_previous(RESULTS, snakemake_internals.needrun_jobs(workflow))
    # a local run's scheduler without the rate limiter's timer threads (harness/keep.py)
    without_rate_limiter_timers(workflow)


onsuccess:
    from tripletbench.harness.run_lock import holds, release

    if holds(RESULTS):
        record_run_end("success")
        from tripletbench.harness.keep import drop_previous

        drop_previous(RESULTS)
        release(RESULTS)


onerror:
    from tripletbench.harness.run_lock import holds, release

    if holds(RESULTS):
        record_run_end("error")
        from tripletbench.harness.keep import put_back

        put_back(RESULTS)
        release(RESULTS)
