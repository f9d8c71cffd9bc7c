"""The settings Schultz & Joachims (NIPS 2003, section 5) state for each table and figure we
reproduce."""

from __future__ import annotations

from tripletbench.harness.paper_settings import PaperSettings, Stated

SJ = "Schultz & Joachims, NIPS 2003"

PAPER = PaperSettings(
    {
        "svm_table1": {
            "n_runs": Stated(None, "", f"{SJ}, section 5"),
            "train_fraction": Stated(0.7, "70/30", f"{SJ}, section 5"),
            "C": Stated(1.0, "C = 1", f"{SJ}, section 5 (Table 1: C = 1, A = I)"),
            "n_test_triplets": Stated(
                85_907, "85,907", f"{SJ}, section 5, Figure 2", scope="for Figure 2"
            ),
            "n_train_triplets": Stated(None, "", f"{SJ}, section 5 (Table 1)"),
            "n_universities": Stated(7, "seven, not named", f"{SJ}, section 5"),
            "n_documents": Stated(4183, "4,183", f"{SJ}, section 5"),
            "n_features": Stated(63_949, "63,949", f"{SJ}, section 5"),
        },
        "figure_svm_2": {
            "n_runs": Stated(None, "", f"{SJ}, section 5"),
            "C": Stated(1.0, "C = 1", f"{SJ}, section 5"),
            "n_test_triplets": Stated(85_907, "85,907", f"{SJ}, section 5, Figure 2"),
            "plateau": Stated(150_000, "flat past 150,000", f"{SJ}, section 5, Figure 2"),
        },
        "figure_svm_mds": {
            "C": Stated(1.0, "C = 1", f"{SJ}, section 5"),
            "n_items": Stated("all", "all of X_test", f"{SJ}, section 5 (MDS plots)"),
        },
    }
)
"""artifact (the rule's table or figure name) -> setting -> what the paper states
(:class:`tripletbench.harness.paper_settings.PaperSettings`)."""

stated, note, vs_paper = PAPER.stated, PAPER.note, PAPER.vs_paper
differs, comparison_note = PAPER.differs, PAPER.comparison_note
