# tripletbench: learning similarity from relative comparisons, reproduced with one command.
#   snakemake reproduce_all --cores 2        every table and figure (default config: embedded data)
#   snakemake table_sdca_2 --cores 2         one table;  add -n for the plan only
#   snakemake --configfile config/paper.yaml ...   the papers' full settings (downloads)
#   snakemake --report report.html           the report of a finished reproduce_all
# The rules live in workflow/ (workflow/rules/main.smk includes them; workflow/Snakefile is the
# Snakemake catalog's entry point to the same workflow).
from snakemake.utils import min_version

min_version("9.0")


include: "workflow/rules/main.smk"


rule all:
    default_target: True
    input:
        rules.reproduce_all.input,
