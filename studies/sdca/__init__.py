"""Wu et al., "Learning Relative Similarity by Stochastic Dual Coordinate Ascent", AAAI 2014:
Table 2 (mAP on standard datasets), Table 3 (Caltech-256 image retrieval, on the cells of the
OASIS study's ``images`` block), Table 4 (ImageCLEF+Flickr), Figures 1-2 (average cumulative
loss and online mistake rate along training, the ``figures`` block).

Modules: ``config`` (checks), ``paper`` (the settings the paper states), ``captions``, ``rows``
(table rows beyond the generic builder), ``curves`` (the training curves of the ``figures``
block, also read by the OASIS study's Fig. 3). Rules: ``workflow/rules/sdca.smk``.
"""

from pathlib import Path

from tripletbench.harness.study import Study, lazy

CATEGORY = "Wu et al. 2014 (SDCA)"


STUDY = Study(
    name="sdca",
    schema=str(Path(__file__).with_name("schema.yaml")),
    category=CATEGORY,
    blocks=("sdca_table2", "sdca_table4", "figures"),
    items={
        "sdca_table2": ("Table 2: mAP", "table"),
        "figure_sdca_1": ("Figure 1: average cumulative loss", "figure"),
        "figure_sdca_2": ("Figure 2: online mistake rate", "figure"),
        "sdca_table2_cd": ("Table 2 rows: critical-difference diagram", "figure"),
        "sdca_table3": ("Table 3: mAP, image retrieval", "table"),
        "sdca_table3_cd": ("Table 3 rows: critical-difference diagram", "figure"),
        "sdca_table4": ("Table 4: mAP, ImageCLEF+Flickr", "table"),
    },
    paper_tables={
        ("sdca_relative_similarity", "table2"): ("sdca_table2", "mAP"),
        ("sdca_relative_similarity", "table3"): ("sdca_table3", "mAP"),
        ("sdca_relative_similarity", "table4"): ("sdca_table4", "mAP"),
    },
    cell_exclude={"sdca_table2": ("compare_with",)},  # another route's table, read by the table
    path_keys=("sdca_table2.compare_with",),
    # Table 3 reads the OASIS study's Caltech-256 cells; Table 4's rules serve table4_scaling
    reads=("images", "table4_scaling"),
    fit_blocks=("sdca_table2", "sdca_table4"),
    method_blocks=lazy(f"{__name__}.config", "method_blocks"),
    check=lazy(f"{__name__}.config", "check"),
    dataset=lazy(f"{__name__}.config", "dataset"),
)
