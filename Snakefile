# tripletbench: learning similarity from relative comparisons, reproduced with one command.
#   snakemake reproduce_all --cores 2        every table and figure (default config: embedded data)
#   snakemake table_sdca_2 --cores 2         one table;  add -n for the plan only
#   snakemake --configfile config/paper.yaml ...   the papers' full settings (downloads)
from snakemake.utils import min_version

min_version("9.0")


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/fit.smk"
include: "workflow/rules/performance.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/svm.smk"
include: "workflow/rules/oahu.smk"
include: "workflow/rules/images.smk"
include: "workflow/rules/tables.smk"


rule all:
    default_target: True
    input:
        rules.reproduce_all.input,


onstart:
    record_run_start()


onsuccess:
    record_run_end("success")


onerror:
    record_run_end("error")
