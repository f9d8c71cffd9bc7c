# performance: speed and memory of the bilinear online learners, and OAHU's online step (NumPy
# backend, torch reference, bare NumPy pass), ratios measured in one run.
# It reserves the whole machine (threads: WHOLE_NODE_THREADS, common.smk) so that no other job
# disturbs the timings; the measurement itself is single-threaded (OMP_NUM_THREADS=1, as every job).


from tripletbench.studies.performance.measure import (
    other_methods,
    performance_learners,
)  # noqa: E402


rule performance:
    """Triplets per CPU second of OASIS and SDCA, and OAHU's online step, measured in one run.

    Dense input against the one-core matrix-multiply rate, sparse (CSR) input against a compiled
    loop over the non-zeros, the OASIS paper's 2.7M-image run extrapolated from the measured sparse
    rate, and OAHU's online step on its NumPy backend against the torch reference and the bare NumPy
    forward/backward pass (`results/tables/performance_oahu.csv`; CPU time per step and their
    ratios, one process), and the dense engine's time per step for each block size K beside the
    automatic K = 64 (`results/tables/performance_block_sizes.csv`, `performance.block_sizes`). It
    reserves the whole machine so that no other job disturbs the timings.
    """
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
