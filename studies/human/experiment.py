"""The human-judgment experiment: which sets a config can run, their item features, and one
cell's tidy rows (rules ``human_fetch``, ``human_features``, ``human_cell`` and ``table_human``,
``workflow/rules/human.smk``). The names live in the modules beside this one and are imported
here, where every rule and script finds them: :mod:`.sets` (the sets and their availability),
:mod:`.folds` (the protocols and their splits), :mod:`.ordinal` (the ordinal embeddings),
:mod:`.cells` (one cell's rows) and :mod:`.rows` (the table's rows, columns and statuses).

Everything about the data is in the sets' own modules (each declares a ``HUMAN_SET``,
:class:`tripletbench.datasets.human_set.HumanSet`: :mod:`tripletbench.datasets.food100`,
:mod:`tripletbench.datasets.cars60`, :mod:`tripletbench.datasets.material_similarity`),
:mod:`tripletbench.datasets.human_features` (the image features) and
:mod:`tripletbench.evaluation.human_protocols` (folds, scoring with ties as half, the human ceiling); the
learners are fitted by :func:`tripletbench.harness.experiment.fit_learner`, as every other experiment fits
them; the ordinal embeddings by :func:`fit_ordinal_embedding` (cblearn).

Rows (``human.methods``): a **learner** (ours by name, or another library's by dotted path) learns a metric on each
feature set's item vectors, one row per (learner, feature set); an **ordinal embedding** (a
cblearn class by its dotted path, ``algorithm: cblearn.embedding.SOE``, :func:`is_feature_free`)
uses no features at all: it fits a position per item from the training answers alone
(``n_objects`` = every item of the set, so an item that no training answer names still gets
one), once per fold, and is scored by the squared Euclidean distances of those positions: one
row of its own, with ``features`` ``""``. Its dimension (``n_components``) is the row's setting
(ours). The embeddings the default config runs: SOE (Terada & von Luxburg 2014), STE and t-STE
(van der Maaten & Weinberger 2012), CKL (Tamuz et al. 2011), GNMDS (Agarwal et al. 2007), FORTE
(Jain et al. 2016). cblearn 0.4.0 declares numpy~=1.26, which excludes our numpy; it is
installed without its declared dependencies because its own tests pass on our pins (measured
2026-11-26 on numpy 2.4.6 and scipy 1.17.1: 167 passed, 1 skipped; the one failure, an unseeded
dimension estimate, and the 30 failing scikit-learn estimator checks fail the same way on
numpy 1.26.4 and scipy 1.13.1; ``requirements-nodeps.txt`` has the details). :func:`tripletbench.harness.config.check_config`
refuses, before any job, a class that cannot be imported or cannot place every item, a
hyperparameter the class lacks and settings that cblearn's own fit refuses (a trial fit).

The learner rows: every triplet learner of the project (``human.methods``: OASIS and its variants, SDCA,
SVM-relative, COMET, OAHU, metric-learn's SCML through :mod:`tripletbench.algorithms.external`)
on the training triplets, the pair learners (LEGO, RDML) on the two pairs of each triplet, (a, p)
similar and (a, n) dissimilar (:func:`tripletbench.datasets.constraints.triplets_to_pairs`, the rule
every experiment uses). The sets have no class labels: a learner that needs them (OPML builds
its own triplets from a labelled stream) is a row with ``not_run`` (one n/a row, no cell). A row
may be fitted on some feature sets only (``features``, with ``features_reason``: a learner whose
d x d steps are too slow at 1,764-d), n/a on the others (:func:`not_run_status`); a
learning-curve point a learner refuses (SCML: fewer answers than features) is a row without a
value. This module only puts them together:

* protocol **(a)** (``"triplets"``): k-fold over the answers
  (:func:`tripletbench.evaluation.human_protocols.triplet_folds`, ``human.n_splits`` folds, one seed per
  ``human.seeds`` entry), grouped by each set's unit of collection where ``human.group_by``
  is ``unit`` (the default: one cars answer with its two triplets, one Food-100 grid screen,
  one material question; :attr:`tripletbench.datasets.human_set.HumanSet.unit`), by question
  ``(i, {j, k})`` where it is ``question``. A learner is trained on **one triplet per training
  answer** (a material row with answer count c is repeated c times), at most
  ``human.max_train_triplets`` of them (the first of one seeded permutation,
  :func:`tripletbench.evaluation.human_protocols.learning_curve`); every method is scored on the same whole
  test fold, each answer counting once (material: rows weighted by their counts);
* protocol **(b)** (``"items"``): held-out items (:func:`tripletbench.evaluation.human_protocols.item_folds`):
  the items split ``human.n_splits``-fold (``KFold(shuffle=True, random_state=seed)`` over the
  item indices, the same ``n_splits`` as (a): ours), a fold's learner trained on the answers
  whose three items are all training items (one triplet per answer, at most
  ``human.max_train_triplets`` as above) and scored on every answer that involves at least one
  held-out item (our rule, stated in :mod:`tripletbench.evaluation.human_protocols`). Only a method that maps
  item features can place an item it never saw: a row without a feature map (an ordinal
  embedding, :func:`feature_free_rows`) is not fitted there and the table says "n/a"
  (:func:`table_status`). The sets' papers
  (Wilber et al. 2014; Kleindessner & von Luxburg 2017; Lagunas et al. 2019) are cited for the
  data only: their text is not in ``../shared/papers``, and this protocol, its folds and its
  test rule are ours;
* protocol **(c)** (``"curve"``): a learning curve on (a)'s folds: for every (a) fold and every
  size ``n`` of ``human.curve_sizes`` below that fold's training answers, the learner is
  trained on the first ``n`` answers of the **same seeded permutation** that bounds (a)
  (:func:`training_triplets`), so the subsets are nested and (a)'s own training set is the
  curve's last point; scored on the whole (a) test fold. The Euclidean, chance and ceiling
  rows do not depend on the training answers: the (a) rows are the curve's flat references
  (no curve rows of their own);
* protocol **(d)** (``"publisher"``, a set that declares a ``publisher_split``: material): the
  publisher's training questions (Lagunas et al. 2019 for material), one triplet per answer as above, scored on the test questions against
  every individual answer (``"answers"``, comparable to the ceiling) and against each
  question's majority answer (``"majority"``, ties left out; the authors' measure).

Every method of a set is scored on the same splits: a cell's seed fixes (a)'s and (b)'s folds
and the training permutation, and each row records its ``seed`` and its protocol's
``folds_digest`` (:meth:`tripletbench.evaluation.human_protocols.Protocol.digest`; (c) carries (a)'s, (d)
the digest of the publisher's split), so a table can check that every method saw the same folds.

Reference rows: ``chance`` (a distance that ties every pair: 0.5 exactly under ties-as-half,
the expected accuracy of a coin flip) and, on a set that declares ``counted`` (several answers
per question: material), ``ceiling``
(:func:`tripletbench.evaluation.human_protocols.human_ceiling` of the test answers: the share of answers
that agree with their question's majority, ties half; the best any distance can score against
the answers). On Food-100 and the cars a question is mostly asked once, so their "ceiling"
would be 1 and is not shown.
"""

from __future__ import annotations

from .cells import _accuracy, _scored, cell_rows, item_scores  # noqa: F401 -- re-exported
from .folds import PROTOCOL_LETTERS, PROTOCOLS, answers, splits, training_triplets
from .ordinal import (
    EMBEDDING_PAPERS,
    ORDINAL_PREFIX,
    embedding_versions,
    feature_free_rows,
    fit_ordinal_embedding,
    is_feature_free,
    ordinal_class,
)
from .rows import (
    EUCLIDEAN,
    PUBLISHED_STATUS,  # noqa: F401 -- re-exported
    all_columns,
    check_published,
    fitted_rows,
    not_run_status,
    published,
    row_features,
    row_name,
    row_settings,
    table_column,
    table_status,
)
from .sets import (
    SETS,
    all_feature_sets,
    available,
    feature_sets,
    human_set,
    item_features,
    load,
    missing_reason,
    normalize,
    route_and_mirror,
)

__all__ = [
    "EMBEDDING_PAPERS",
    "EUCLIDEAN",
    "ORDINAL_PREFIX",
    "PROTOCOLS",
    "PROTOCOL_LETTERS",
    "SETS",
    "all_feature_sets",
    "answers",
    "available",
    "item_scores",
    "cell_rows",
    "all_columns",
    "check_published",
    "embedding_versions",
    "feature_free_rows",
    "feature_sets",
    "fit_ordinal_embedding",
    "is_feature_free",
    "fitted_rows",
    "human_set",
    "item_features",
    "load",
    "missing_reason",
    "normalize",
    "published",
    "ordinal_class",
    "not_run_status",
    "route_and_mirror",
    "row_features",
    "row_name",
    "row_settings",
    "splits",
    "table_column",
    "table_status",
    "training_triplets",
]
