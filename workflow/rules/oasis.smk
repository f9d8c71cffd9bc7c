# The OASIS study (Chechik et al.; tripletbench.studies.oasis): one part per config block.
#   oasis/images.smk   the image features, Figure 2 and the runtime table (block images)
#   oasis/figures.smk  Fig. 3 and Fig. 1(b), from the SDCA study's figures block (block figures;
#                      included after sdca/figures.smk, whose plot rule they reuse)
# A block the config leaves out plans nothing here; the parts' functions are in
# oasis/functions.smk.


include: "oasis/functions.smk"


if "images" in BLOCKS_ON:

    include: "oasis/images.smk"


if "figures" in BLOCKS_ON:

    include: "oasis/figures.smk"
