# The Snakemake report: `snakemake --report report.html` (or report.zip) after
# reproduce_all. Each figure's PNG is a report() output of its own rule (report_figure,
# common.smk); each table is shown through a page of report_pages, which also writes every
# caption (from the Markdown the table and figure rules write) and the paper-vs-ours page
# (harness/report.py). This file comes last: reproduce_all asks for every table, figure and page.


from tripletbench.harness.report import ITEMS as _ITEMS  # noqa: E402

# The tables (name -> (csv, md)) and figures (name -> md) that the included rule files added, in
# the report's order (tripletbench.harness.report.ITEMS).
REPORT_TABLES = {
    n: (REPORT_TABLES[n].csv, REPORT_TABLES[n].md) for n in _ITEMS if n in REPORT_TABLES
}
REPORT_FIGURES = {n: REPORT_FIGURES[n] for n in _ITEMS if n in REPORT_FIGURES}
# `--report` runs no job: refuse to build it from results that the config, the reference numbers
# or the code have outdated (harness/freshness.py: a dry run of the same command line).
if workflow.is_main_process and is_report_run(sys.argv[1:]):
    check_report_fresh(sys.argv[1:], os.getcwd())


localrules:
    report_pages,
    reproduce_all,


rule report_pages:
    """The Snakemake report's pages: one page per table, every caption, and "Paper vs ours".

    Each table as a page (its caption, the table as the paper lays it out, every row and column of
    its CSV), each figure's caption with its plotted values (from the Markdown the table and figure
    rules write), and a "Paper vs ours" page that sets every number of `config/paper_results.csv`
    beside the rows of ours that carry it (`harness/report.py`). `snakemake --report report.html`
    after `reproduce_all` shows them, one category per paper (docs/cluster.md).
    """
    input:
        tables=[f for pair in REPORT_TABLES.values() for f in pair],
        figures=list(REPORT_FIGURES.values()),
        paper_results=PAPER_RESULTS,
    output:
        pages=[report_table(f"{REPORT_DIR}/{name}.html", name) for name in REPORT_TABLES],
        captions=[
            f"{REPORT_DIR}/captions/{name}.rst"
            for name in [*REPORT_TABLES, *REPORT_FIGURES, "paper_vs_ours"]
        ],
        paper_vs_ours=report_table(f"{REPORT_DIR}/paper_vs_ours.html", "paper_vs_ours"),
        paper_vs_ours_csv=f"{REPORT_DIR}/paper_vs_ours.csv",
    log:
        f"{LOGS}/report_pages.log",
    resources:
        mem_mb=MEM_MB["table"],
        runtime=RUNTIME_MIN["table"],
    params:
        code=code_hash(["tripletbench.harness.report"]),  # the pages' and the paper-vs-ours join's code
    run:
        from tripletbench.harness.report import write_pages

        write_pages(REPORT_TABLES, REPORT_FIGURES, input.paper_results, REPORT_DIR)


# ... and from pages that are not there yet (its captions: a raw FileNotFoundError otherwise)
if workflow.is_main_process and is_report_run(sys.argv[1:]):
    check_report_pages([*rules.report_pages.output])


rule reproduce_all:
    """The default target: every table and figure the config's blocks switch on, and the report.

    The report's pages (`report_pages`) and every output each study's rule file adds to
    `REPRODUCE_ALL`: the outputs of its tables and figures; a config runs exactly the blocks it
    gives. Not in it: `oahu_sensitivity`, `svm_scaling` and `regression_check`; `table_svm_readings`
    and `figure_svm_c_sweep` only where the config has `svm.readings` / `svm.c_sweep`; the
    human-judgment targets only where their sets can be fetched (the download route) or the config
    names `human.mirror`.
    """
    input:
        REPRODUCE_ALL,
        rules.report_pages.output,
