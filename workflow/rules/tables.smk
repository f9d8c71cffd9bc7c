# collect + tables (reproduce_all, which asks for every table and figure, is in report.smk).


localrules:
    table_sdca_2,
    regression_check,


rule table_sdca_2:
    input:
        runs=experiment_cells(config, "sdca_table2", RESULTS, ROUTE),
        other_route=table2_compare_with,
    output:
        runs=f"{RESULTS}/sdca_table2/all_runs.csv",
        csv=f"{RESULTS}/tables/sdca_table2.csv",
        md=f"{RESULTS}/tables/sdca_table2.md",
        tex=f"{RESULTS}/tables/sdca_table2.tex",
        cd=report_figure(f"{FIGURES}/sdca_table2_cd.png", "sdca_table2_cd"),
        cd_md=f"{FIGURES}/sdca_table2_cd.md",
    log:
        f"{LOGS}/tables/sdca_table2.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["table"],
        runtime=RUNTIME_MIN["table"],
    params:
        paper_rows=paper_numbers("sdca_relative_similarity", "table2"),
        block=config["sdca_table2"],  # rows, notes and captions follow the config
        code=script_code("workflow/scripts/table_sdca_2.py"),
    script:
        "../scripts/table_sdca_2.py"


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
    params:
        code=script_code("workflow/scripts/regression_check.py"),
    script:
        "../scripts/regression_check.py"


REPRODUCE_ALL.extend(rules.table_sdca_2.output)
REPORT_TABLES["sdca_table2"] = rules.table_sdca_2.output
REPORT_FIGURES["sdca_table2_cd"] = rules.table_sdca_2.output.cd_md  # drawn by the table rule
