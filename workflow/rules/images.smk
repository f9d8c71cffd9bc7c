# Image retrieval (issue 6): Caltech-256 / stand-in bag of visual words, table_sdca_3, figure_oasis_2, table_oasis_2.
# Append this file's tables and figures to REPRODUCE_ALL (defined in common.smk).
