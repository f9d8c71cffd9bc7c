# SDCA paper Table 2: mAP on the standard datasets, from the generic fit_evaluate cells (fit.smk).


localrules:
    table_sdca_2,


def table2_compare_with(wildcards):
    """sdca_table2.compare_with, another route's Table 2 CSV, once it exists (made by another
    run; the table says so while it is missing, and is remade when it appears or changes)."""
    path = config["sdca_table2"].get("compare_with")
    return [path] if path and Path(path).is_file() else []


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
        "../../../environment.yml"
    resources:
        mem_mb=MEM_MB["table"],
        runtime=RUNTIME_MIN["table"],
    params:
        paper_rows=paper_numbers("sdca_relative_similarity", "table2"),
        block=config["sdca_table2"],  # rows, notes and captions follow the config
        code=script_code("workflow/scripts/sdca/table_sdca_2.py"),
        mirror=MIRROR if ROUTE == "download" else None,  # named in the caption
    script:
        "../../scripts/sdca/table_sdca_2.py"


REPRODUCE_ALL.extend(rules.table_sdca_2.output)
REPORT_TABLES["sdca_table2"] = rules.table_sdca_2.output
REPORT_FIGURES["sdca_table2_cd"] = rules.table_sdca_2.output.cd_md  # drawn by the table rule
