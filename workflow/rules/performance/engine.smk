# performance: speed and memory of the bilinear online learners, and OAHU's online step (NumPy
# backend, torch reference, bare NumPy pass), ratios measured in one run.
# It reserves the whole machine (threads: WHOLE_NODE_THREADS, common.smk) so that no other job
# disturbs the timings; the measurement itself is single-threaded (OMP_NUM_THREADS=1, as every job).


from tripletbench.studies.performance.measure import other_methods, performance_learners  # noqa: E402


rule performance:
    output:
        csv=f"{RESULTS}/tables/performance.csv",
        others=f"{RESULTS}/tables/performance_other_learners.csv",
        oahu=f"{RESULTS}/tables/performance_oahu.csv",
        blocks=f"{RESULTS}/tables/performance_block_sizes.csv",
        md=f"{RESULTS}/tables/performance.md",
    log:
        f"{LOGS}/performance.log",
    benchmark:
        f"{RESULTS}/benchmarks/performance.tsv"
    conda:
        "../../../environment.yml"
    threads: WHOLE_NODE_THREADS
    resources:
        mem_mb=MEM_MB["performance"],
        runtime=RUNTIME_MIN["performance"],
        whole_node=1,
    params:
        settings=block_settings(
            config,
            "performance",
            None,  # the whole block: the script reads every key of it
            "workflow/scripts/performance/performance.py",
            learners=performance_learners(config),
        ),
        # the SDCA Table 2 rows timed beside OASIS and SDCA (settings and notes)
        others=canonical(other_methods(config)),
        others_order=key_order(other_methods(config)),  # their rows' order
    script:
        "../../scripts/performance/performance.py"


REPRODUCE_ALL.extend(rules.performance.output)
REPORT_TABLES["performance"] = rules.performance.output
