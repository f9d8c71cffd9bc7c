"""tripletbench: learning similarity and distance metrics from relative comparisons.

One distribution, five packages (folders at the top of the checkout, installed under this name so
that no top-level ``datasets`` or ``algorithms`` is ever installed beside Hugging Face's
``datasets`` or another ``algorithms``):

* :mod:`tripletbench.algorithms`: the learners (OASIS, SDCA, SVM-relative, COMET, OAHU, LEGO,
  RDML, OPML, online ITML, ...), scikit-learn / metric-learn style; ``from
  tripletbench.algorithms import SDCA`` imports that learner's module only;
* :mod:`tripletbench.evaluation`: mAP, precision@k, Recall@K, triplet accuracy, kNN, ROC;
* :mod:`tripletbench.datasets`: the benchmark's datasets (pinned downloads, splits, constraints);
* :mod:`tripletbench.harness`: the generic core of the Snakemake pipeline (config checks, settings
  hashes, atomic files, the table builder, plots, report, regression; runs from its checkout);
* :mod:`tripletbench.studies`: one package per study (a paper's protocol, captions, table rows,
  stated settings and config checks).

This module imports none of them; it puts a finder of old import paths on ``sys.meta_path``
(:mod:`tripletbench._moved`: code that moved into the studies' packages, with a warning).
"""

__version__ = "0.9.0"

from ._moved import install as _install_moved  # noqa: E402

_install_moved()
