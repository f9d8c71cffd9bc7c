# The whole workflow but its default target: both Snakefiles (the top-level one and the catalog
# layout's workflow/Snakefile) include this file and define `rule all` themselves (Snakemake
# takes a default target only from the main Snakefile, not from an included file).


report: "../report/workflow.rst"


include: "common.smk"
include: "data.smk"
include: "fit.smk"
include: "performance.smk"
include: "figures.smk"
include: "svm.smk"
include: "oahu.smk"
include: "images.smk"
include: "tables.smk"
include: "report.smk"


onstart:
    record_run_start()


onsuccess:
    record_run_end("success")


onerror:
    record_run_end("error")
