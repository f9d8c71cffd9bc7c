"""The settings the SDCA paper (Wu et al., AAAI 2014) states for each table and figure we
reproduce, with the section that says each."""

from __future__ import annotations

from tripletbench.harness.paper_settings import PaperSettings, Stated

SDCA = "Wu et al., AAAI 2014"
_SDCA_SETUP = f"{SDCA}, section 'Experimental Testbed and Setup'"
_SDCA_GRIDS = f"{_SDCA_SETUP}: the parameters set by cross-validation"
_SDCA_LARGE = f"{SDCA}, section 'Evaluation on the Large-scale Dataset'"
_SDCA_CALTECH = f"{SDCA}, section 'Evaluation on the Caltech256 Dataset'"
_OASIS_CALTECH = "Chechik et al., OASIS, section 4.2 (Caltech256 dataset)"

PAPER = PaperSettings(
    {
        "sdca_table2": {
            "n_runs": Stated(
                5,
                "5 runs",
                f"{SDCA}, section 'Evaluation on the Standard Datasets': 5 random seeds",
            ),
            "train_fraction": Stated(0.7, "70/30 per class", _SDCA_SETUP),
            "fit_fraction": Stated(0.8, "80% of the training set", _SDCA_SETUP),
            "n_triplets": Stated(10_000, "10K per standard data set", _SDCA_SETUP),
            "grid.SDCA": Stated(
                [0.0025, 0.005, 0.01], "lambda in {0.0025, 0.005, 0.01}", _SDCA_GRIDS
            ),
            "grid.ITML": Stated([0.01, 0.125, 0.5], "eta in {0.01, 0.125, 0.5}", _SDCA_GRIDS),
            "grid.LEGO": Stated([0.01, 0.125, 0.5], "eta in {0.01, 0.125, 0.5}", _SDCA_GRIDS),
            "grid.OASIS": Stated(None, "", _SDCA_GRIDS + " (OASIS's not named)"),
        },
        "sdca_table3": {
            "n_runs": Stated(None, "", _SDCA_CALTECH),
            "n_triplets": Stated(100_000, "100K", _SDCA_SETUP + " and " + _SDCA_CALTECH),
            "n_classes": Stated(50, "50 classes", _SDCA_CALTECH),
            "n_words": Stated(1000, "1000 words", _SDCA_CALTECH + ", after the OASIS paper"),
            "n_train_per_class": Stated(40, "40", _OASIS_CALTECH, "the OASIS paper"),
            "n_test_per_class": Stated(None, "", _OASIS_CALTECH, "the OASIS paper's text at hand"),
        },
        "sdca_table4": {
            "n_runs": Stated(None, "one number per method, no deviation", _SDCA_LARGE),
            "train_fraction": Stated(0.6, "60/40", _SDCA_LARGE),
            "fit_fraction": Stated(0.8, "20% of the training set", _SDCA_LARGE),
            "query_fraction": Stated(0.1, "10% of the test set", _SDCA_LARGE),
            "n_triplets": Stated(500_000, "500K", _SDCA_LARGE),
            "n_background": Stated(1_000_000, "about one million Flickr images", _SDCA_LARGE),
            "d": Stated(297, "297", _SDCA_LARGE),
        },
        "figure_sdca_1": {  # and Figure 2 (the same runs)
            "n_triplets": Stated(100_000, "100K on Caltech-256", _SDCA_CALTECH),
            "n_steps": Stated(
                100_000, "about 100K iterations", _SDCA_CALTECH + ", Figure 1's text"
            ),
            "oasis_C": Stated(None, "", _SDCA_CALTECH),
            "sdca_lam": Stated(None, "", _SDCA_CALTECH),
            "n_runs": Stated(None, "", _SDCA_CALTECH),
        },
    }
)
"""artifact (the rule's table or figure name) -> setting -> what the paper states
(:class:`tripletbench.harness.paper_settings.PaperSettings`)."""

stated, note, vs_paper = PAPER.stated, PAPER.note, PAPER.vs_paper
differs, comparison_note = PAPER.differs, PAPER.comparison_note
