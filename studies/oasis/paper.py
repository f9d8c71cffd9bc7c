"""The settings the OASIS paper (Chechik et al.) states for each table and figure we reproduce,
with the section that says each."""

from __future__ import annotations

from tripletbench.harness.paper_settings import PaperSettings, Stated

OASIS = "Chechik et al., OASIS"
_OASIS_CALTECH = f"{OASIS}, section 4.2 (Caltech256 dataset)"

PAPER = PaperSettings(
    {
        "figure_oasis_2": {
            "n_train_per_class": Stated(40, "40", _OASIS_CALTECH),
            "n_test_per_class": Stated(None, "", _OASIS_CALTECH + " (the text at hand)"),
            "n_triplets": Stated(None, "", _OASIS_CALTECH),
            "n_runs": Stated(None, "", _OASIS_CALTECH + ": error bars are s.e.m."),
            "class_subsets": Stated([10, 20, 50], "10, 20 and 50 classes", _OASIS_CALTECH),
        },
        "figure_oasis_3": {
            "n_triplets": Stated(None, "", f"{OASIS}, section 4.3"),
            "n_steps": Stated(None, "", f"{OASIS}, section 4.3"),
            "oasis_C": Stated(None, "", f"{OASIS}, section 4.3"),
            "n_queries": Stated(None, "", f"{OASIS}, section 4.3"),
            "n_runs": Stated(None, "", f"{OASIS}, section 4.3"),
            "class_subset": Stated(20, "its 20-class subset", f"{OASIS}, section 4.3.1, Figure 3"),
        },
        "oasis_table2": {
            "n_triplets": Stated(None, "", _OASIS_CALTECH + " (runtime table)", "the OASIS paper"),
            "n_runs": Stated(None, "", _OASIS_CALTECH + " (runtime table)", "the OASIS paper"),
            "class_subsets": Stated(
                [10, 20, 50, 249], "10, 20, 50 and 249 classes", _OASIS_CALTECH, "the OASIS paper"
            ),
        },
    }
)
"""artifact (the rule's table or figure name) -> setting -> what the paper states
(:class:`tripletbench.harness.paper_settings.PaperSettings`)."""

stated, note, vs_paper = PAPER.stated, PAPER.note, PAPER.vs_paper
differs, comparison_note = PAPER.differs, PAPER.comparison_note
