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
        cd_csv=f"{RESULTS}/tables/sdca_table2_ranks.csv",
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
        mirror=MIRROR if ROUTE == "download" else None,  # named in the caption
    script:
        "../scripts/table_sdca_2.py"


REGRESSION_EXPECTED = ROOT / "config/ci_expected.csv"
REGRESSION_SKIP = regression_skip()


# inputs: exactly the result tables that the stored values name (a change reruns only what the
# checked numbers depend on)
rule regression_check:
    input:
        tables=[
            f"{RESULTS}/{t}"
            for t in stored_tables(REGRESSION_EXPECTED)
            if t not in REGRESSION_SKIP
        ],
        expected=REGRESSION_EXPECTED,
    output:
        f"{RESULTS}/regression_report.txt",
    log:
        f"{LOGS}/regression_check.log",
    conda:
        "../../environment.yml"
    params:
        skip=REGRESSION_SKIP,
        code=script_code("workflow/scripts/regression_check.py"),
    script:
        "../scripts/regression_check.py"


REPRODUCE_ALL.extend(rules.table_sdca_2.output)
REPORT_TABLES["sdca_table2"] = rules.table_sdca_2.output
REPORT_FIGURES["sdca_table2_cd"] = rules.table_sdca_2.output.cd_md  # drawn by the table rule
