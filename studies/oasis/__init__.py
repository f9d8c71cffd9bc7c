"""Chechik, Sharma, Shalit, Bengio, OASIS ("An Online Algorithm for Large Scale Image Similarity
Learning"; the report's "Chechik et al. 2010"): Table 2's runtime comparison and Figure 2 (precision at top k) on Caltech-256 (the
``images`` block, whose cells SDCA's Table 3 also reads), Fig. 3 (OASIS variants along
training) and Fig. 1(b) (fit time against problem size), both from the SDCA study's ``figures``
block.

Modules: ``config`` (checks), ``paper`` (the settings the paper states), ``captions``, ``rows``,
``images`` (the image sets' cells and features), ``scaling`` (Fig. 1(b)'s timings and figure). Rules:
``workflow/rules/oasis.smk``.
"""

from pathlib import Path

from tripletbench.harness.study import Study, lazy

CATEGORY = "Chechik et al. 2010 (OASIS)"


STUDY = Study(
    name="oasis",
    schema=str(Path(__file__).with_name("schema.yaml")),
    category=CATEGORY,
    blocks=("images",),
    items={
        "figure_oasis_2": ("Figure 2: precision at top k", "figure"),
        "figure_oasis_3": ("Fig. 3: OASIS variants, mAP along training", "figure"),
        "figure_scaling": ("fit time against problem size (as Fig. 1(b))", "figure"),
        "oasis_table2": ("runtime table: CPU time per method", "table"),
    },
    cell_exclude={"images": ("sdca_table3_datasets",)},  # the columns of SDCA's Table 3 only
    reads=("figures",),  # Fig. 3 and Fig. 1(b) are plotted from the SDCA study's figures block
    fit_blocks=("images",),
    method_blocks=lazy(f"{__name__}.config", "method_blocks"),
    check=lazy(f"{__name__}.config", "check"),
    dataset=lazy(f"{__name__}.config", "dataset"),
)
