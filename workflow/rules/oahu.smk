# OAHU (issue 4): table_oahu_3, figure_oahu_4, figure_oahu_5, figure_oahu_7.
# Append this file's tables and figures to REPRODUCE_ALL (defined in common.smk).
