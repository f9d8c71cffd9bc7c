"""The sizes the SDCA paper (Wu et al., AAAI 2014) states for Table 4, which the
``table4_scaling`` measurement runs at."""

from __future__ import annotations

from tripletbench.harness.paper_settings import PaperSettings, Stated

SDCA = "Wu et al., AAAI 2014"
_SDCA_LARGE = f"{SDCA}, section 'Evaluation on the Large-scale Dataset'"

PAPER = PaperSettings(
    {
        "table4_scaling": {  # Table 4's code path at configured sizes (synthetic features)
            "n_triplets": Stated(500_000, "500K", _SDCA_LARGE),
            "n_background": Stated(1_000_000, "about one million", _SDCA_LARGE),
            "d": Stated(297, "297", _SDCA_LARGE),
            "n_ground_truth": Stated(None, "", _SDCA_LARGE + " (ImageCLEF's size not given)"),
        },
    }
)
"""artifact (the rule's table or figure name) -> setting -> what the paper states
(:class:`tripletbench.harness.paper_settings.PaperSettings`)."""

stated, note, vs_paper = PAPER.stated, PAPER.note, PAPER.vs_paper
differs, comparison_note = PAPER.differs, PAPER.comparison_note
