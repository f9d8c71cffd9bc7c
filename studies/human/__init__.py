"""People's relative comparisons: Food-100 (Wilber et al. 2014), the 60 cars (Kleindessner & von
Luxburg 2017) and material appearance (Lagunas et al. 2019): triplet accuracy of every learner
and of cblearn's ordinal embeddings on the answers, its learning curve and 2-D maps (the
``human`` block).

Modules: ``config`` (checks), ``captions``, ``experiment`` (the sets, folds, cells and table
rows), ``maps`` (the embedding figure). Rules: ``workflow/rules/human.smk``.
"""

from pathlib import Path

from tripletbench.harness.study import Study

CATEGORY = (
    "People's relative comparisons (Wilber et al. 2014; Kleindessner & von Luxburg 2017; "
    "Lagunas et al. 2019)"
)


def _check(config: dict, libraries: bool = True) -> None:
    from .config import check

    check(config, libraries)


def _method_blocks(config: dict):
    from .config import method_blocks

    return method_blocks(config)


def _regression_skip(config: dict, blocks_on) -> dict:
    """The human table's stored files where this run cannot build them: the config has no human
    block, or human.mirror names a folder that is absent (a clone without ../shared/mirror)."""
    tables = ["tables/human_table.csv", "human/all_runs.csv"]  # table_human's outputs
    if "human" not in blocks_on:
        return {t: "the config has no human block" for t in tables}
    from .experiment import missing_reason

    why = missing_reason(config)
    return {t: why for t in tables} if why.startswith("not run") else {}


def _learner_row(place: str, row: dict) -> bool:
    from .config import learner_row

    return learner_row(place, row)


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
    method_blocks=_method_blocks,
    learner_row=_learner_row,
    check=_check,
    regression_skip=_regression_skip,
)
