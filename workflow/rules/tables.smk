# collect + tables. reproduce_all asks for every table (and, later, every figure).

PAPER_RESULTS = ROOT / "config/paper_results.csv"  # copy of ../shared/reference/paper_results.csv


rule table_sdca_2:
    input:
        runs=experiment_cells(config, "sdca_table2", RESULTS, ROUTE),
    output:
        runs=f"{RESULTS}/sdca_table2/all_runs.csv",
        csv=f"{RESULTS}/tables/sdca_table2.csv",
        md=f"{RESULTS}/tables/sdca_table2.md",
        tex=f"{RESULTS}/tables/sdca_table2.tex",
    log:
        f"{LOGS}/tables/sdca_table2.log",
    params:
        paper_results=str(PAPER_RESULTS),
        block=config["sdca_table2"],  # rows, notes and captions follow the config
    conda:
        "../../environment.yml"
    script:
        "../scripts/table_sdca_2.py"


rule reproduce_all:
    input:
        rules.table_sdca_2.output,
        rules.performance.output,
        rules.figure_sdca_1.output,
        rules.figure_sdca_2.output,
        rules.figure_oasis_3.output,
        rules.figure_scaling.output,
        REPRODUCE_ALL,


rule regression_check:
    input:
        table=f"{RESULTS}/tables/sdca_table2.csv",
        expected=ROOT / "config/ci_expected.csv",
    output:
        f"{RESULTS}/regression_report.txt",
    log:
        f"{LOGS}/regression_check.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/regression_check.py"
