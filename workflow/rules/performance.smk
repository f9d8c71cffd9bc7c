# The performance study (measurements of our own; tripletbench.studies.performance): one part
# per config block.
#   performance/engine.smk          speed and memory of the online engine (block performance)
#   performance/table4_scaling.smk  Table 4's code path at the paper's sizes (block
#                                   table4_scaling; after the SDCA study's sdca/table4.smk)


if "performance" in BLOCKS_ON:

    include: "performance/engine.smk"


if "table4_scaling" in BLOCKS_ON:

    include: "performance/table4_scaling.smk"
