# Table 4's code path at the paper's sizes on synthetic features (a scale measurement, not
# results): the rows and protocol of the SDCA study's sdca_table4 block.


rule table4_scaling:
    """Table 4's code path at the paper's sizes on synthetic 297-d features: a scale measurement.

    500K triplets, 25,000 labelled items, 1M background items in the database, exact mAP: time and
    peak memory per stage; a scale measurement, not results (in `reproduce_all` of
    `config/paper.yaml`; `snakemake table4_scaling` with any config that has `sdca_table4`).
    """
    output:
        csv=f"{RESULTS}/tables/table4_scaling.csv",
        md=f"{RESULTS}/tables/table4_scaling.md",
    log:
        f"{LOGS}/table4_scaling.log",
    benchmark:
        f"{RESULTS}/benchmarks/table4_scaling.tsv"
    conda:
        "../../../environment.yml"
    threads: WHOLE_NODE_THREADS
    resources:
        mem_mb=MEM_MB["table4_scaling"],
        runtime=RUNTIME_MIN["table4_scaling"],
        whole_node=1,
    params:
        settings=block_settings(
            config,
            "table4_scaling",
            None,
            "workflow/scripts/performance/table4_scaling.py",
            learners=table4_learners(),
        ),
        # the protocol and rows it runs: sdca_table4's (their notes are descriptions)
        table4=canonical(table4_block()),
        order=key_order(table4_block()),  # rows follow the config's order (settings sort keys)
    script:
        "../../scripts/performance/table4_scaling.py"


REPRODUCE_ALL.extend(rules.table4_scaling.output)
REPORT_TABLES["table4_scaling"] = rules.table4_scaling.output
