"""People's relative comparisons: the crowd-sourced sets of :mod:`tripletbench.datasets` (each a
module declaring ``HUMAN_SET``: Food-100, Wilber et al. 2014; the 60 cars, Kleindessner & von
Luxburg 2017; material appearance, Lagunas et al. 2019): triplet accuracy of every learner
and of cblearn's ordinal embeddings on the answers, its learning curve and 2-D maps (the
``human`` block).

Modules: ``config`` (checks), ``captions``, ``experiment`` (the overview, re-exporting ``sets``
(which sets a run can build), ``folds`` (the protocols' splits), ``ordinal`` (cblearn's
embeddings), ``cells`` (one cell's rows) and ``rows`` (the table's rows and statuses)), ``maps``
(the embedding figure). Rules: ``workflow/rules/human.smk``.
"""

from pathlib import Path

from tripletbench.harness.study import Study, lazy

CATEGORY = (
    "People's relative comparisons (Wilber et al. 2014; Kleindessner & von Luxburg 2017; "
    "Lagunas et al. 2019)"
)


STUDY = Study(
    name="human",
    schema=str(Path(__file__).with_name("schema.yaml")),
    category=CATEGORY,
    blocks=("human",),
    items={
        "human_table": ("triplet accuracy on people's answers", "table"),
        "figure_human_curve": ("accuracy against human triplets used", "figure"),
        "figure_human_embedding": ("2-D maps of one set's items", "figure"),
    },
    method_blocks=lazy(f"{__name__}.config", "method_blocks"),
    learner_row=lazy(f"{__name__}.config", "learner_row"),
    check=lazy(f"{__name__}.config", "check"),
    regression_skip=lazy(f"{__name__}.config", "regression_skip"),
    complete_schema=lazy(f"{__name__}.config", "complete_schema"),
)
