"""Gao, Li, Chandra, Khan, Thuraisingham, "Towards Self-Adaptive Metric Learning On the Fly"
(OAHU, online adaptive metric learning), WWW 2019: Table 3 (kNN classification), Figures 4 (error against constraints), 5 (pair
verification ROC) and 7 (Recall@K), and our sensitivity table (the ``oahu`` block).

Modules: ``config`` (checks), ``paper`` (the settings the paper states), ``captions``, ``rows``,
``experiment`` (splits, streams, cells), ``order`` and ``speed`` (measurements of OAHU's steps).
Rules: ``workflow/rules/oahu.smk``.
"""

from pathlib import Path

from tripletbench.harness.study import Study, lazy

CATEGORY = "Gao et al. 2019 (OAHU)"


STUDY = Study(
    name="oahu",
    schema=str(Path(__file__).with_name("schema.yaml")),
    category=CATEGORY,
    blocks=("oahu",),
    items={
        "oahu_table3": ("Table 3: kNN classification", "table"),
        "figure_oahu_4": ("Figure 4: error rate against constraints", "figure"),
        "figure_oahu_5": ("Figure 5: pair verification ROC", "figure"),
        "figure_oahu_7": ("Figure 7: Recall@K", "figure"),
    },
    paper_tables={("oahu", "table3"): ("oahu_table3", None)},
    cell_exclude={
        "oahu.figure4": ("dataset", "n_constraints"),  # the cell's {dataset} and {n} wildcards
        "oahu.figure5": ("stand_in", "use_lfw"),  # they choose the cell's {dataset} wildcard
        "oahu.figure7": ("ks",),  # the figure's x axis; the cells compute recall_ks
    },
    method_blocks=lazy(f"{__name__}.config", "method_blocks"),
    check=lazy(f"{__name__}.config", "check"),
)
