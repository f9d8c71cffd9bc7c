"""Schultz & Joachims, "Learning a Distance Metric from Relative Comparisons", NIPS 2003: Table 1
(test triplets satisfied on the WebKB notions), Figure 2 (learning curve), the MDS panels, and
our sweeps over page readings and C (the ``svm`` block).

Modules: ``config`` (checks), ``paper`` (the settings the paper states), ``captions``, ``rows``,
``experiment`` (the cells, the kernel width, MDS), ``notions`` (the notions, the document split,
the triplet rules), ``features`` (the text features), ``scaling`` (the solver's time against its
size), ``sweeps``. Rules: ``workflow/rules/svm.smk``.
"""

from pathlib import Path

from tripletbench.harness.study import Study, lazy

CATEGORY = "Schultz & Joachims 2003"


STUDY = Study(
    name="svm",
    schema=str(Path(__file__).with_name("schema.yaml")),
    category=CATEGORY,
    blocks=("svm",),
    items={
        "svm_table1": ("Table 1: test triplets satisfied", "table"),
        "figure_svm_2": ("Figure 2: learning curve", "figure"),
        "figure_svm_mds": ("MDS panels", "figure"),
        "svm_readings": ("Table 1 under each page reading and scale", "table"),
        "figure_svm_c_sweep": ("Figure 2 for several C and scales", "figure"),
    },
    paper_tables={
        ("schultz_joachims_2003", "table1"): ("svm_table1", "triplet_accuracy"),
    },
    check=lazy(f"{__name__}.config", "check"),
)
