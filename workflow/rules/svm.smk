# Schultz & Joachims SVM for relative comparisons (issue 5): table_svm_1, figure_svm_2, figure_svm_mds.
# Append this file's tables and figures to REPRODUCE_ALL (defined in common.smk).
