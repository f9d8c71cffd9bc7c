# The SDCA study (Wu et al., AAAI 2014; tripletbench.studies.sdca): one part per config block.
#   sdca/table2.smk   Table 2 (block sdca_table2)
#   sdca/table4.smk   Table 4 on ImageCLEF+Flickr (block sdca_table4; also under table4_scaling,
#                     the performance study's run of its code path)
#   sdca/figures.smk  Figures 1-2, the training curves (block figures)
#   sdca/table3.smk   Table 3 on Caltech-256, from the OASIS study's images cells (block images)
# A block the config leaves out plans nothing here; the parts' functions are in
# sdca/functions.smk.


include: "sdca/functions.smk"


if "sdca_table2" in BLOCKS_ON:

    include: "sdca/table2.smk"


if "sdca_table4" in BLOCKS_ON or "table4_scaling" in BLOCKS_ON:

    include: "sdca/table4.smk"


if "figures" in BLOCKS_ON:

    include: "sdca/figures.smk"


if "images" in BLOCKS_ON:

    include: "sdca/table3.smk"
