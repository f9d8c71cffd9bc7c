# tripletbench: learning similarity from relative comparisons, reproduced with one command.
#   snakemake reproduce_all --cores 2        every table and figure (default config: embedded data)
#   snakemake table_sdca_2 --cores 2         one table;  add -n for the plan only
#   snakemake --configfile config/paper.yaml ...   the papers' full settings (downloads)
#   snakemake --report report.html           the report of a finished reproduce_all
# The rules live in workflow/ (workflow/Snakefile, the Snakemake catalog's layout).


include: "workflow/Snakefile"
