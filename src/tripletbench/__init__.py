"""tripletbench: learning similarity and distance metrics from relative comparisons.

One distribution, four packages (folders at the top of the checkout, installed under this name so
that no top-level ``datasets`` or ``algorithms`` is ever installed beside Hugging Face's
``datasets`` or another ``algorithms``):

* :mod:`tripletbench.algorithms`: the learners (OASIS, SDCA, SVM-relative, COMET, OAHU, LEGO,
  RDML, OPML, online ITML, ...), scikit-learn / metric-learn style; ``from
  tripletbench.algorithms import SDCA`` imports that learner's module only;
* :mod:`tripletbench.evaluation`: mAP, precision@k, Recall@K, triplet accuracy, kNN, ROC;
* :mod:`tripletbench.datasets`: the benchmark's datasets (pinned downloads, splits, constraints);
* :mod:`tripletbench.harness`: the Snakemake pipeline's library (runs from its checkout).

This module imports none of them.
"""

__version__ = "0.9.0"
