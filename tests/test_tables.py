"""harness.tables: the paper's values beside the rows that implement its methods, LaTeX captions."""

import pandas as pd

from harness.tables import latex_text, paper_values_for_rows


def test_paper_values_follow_the_rows_protocol_and_base_name():
    paper = pd.DataFrame(
        {
            "dataset": ["vehicle"] * 3,
            "algorithm": ["ITML", "OASIS", "SDCA"],
            "paper": [0.41, 0.53, 0.60],
        }
    )
    methods = {
        "ITML": {"notes": {"protocol": "ours"}},
        "ITML-online": {"notes": {"protocol": "paper"}},
        "OASIS-authors-C": {"algorithm": "OASIS", "notes": {"protocol": "paper"}},
        "OASIS-sym": {"algorithm": "OASIS", "notes": {"protocol": "not-in-paper"}},
        "SDCA-random": {},  # no notes: only its own name, which the paper does not have
        "SDCA": {},
        "COMET": {"notes": {"protocol": "unspecified"}},  # not a paper method: nothing
    }
    got = paper_values_for_rows(paper, methods).set_index("algorithm").paper.to_dict()
    assert got == {"ITML": 0.41, "ITML-online": 0.41, "OASIS-authors-C": 0.53, "SDCA": 0.60}
    assert paper_values_for_rows(paper, {"X": {}}).empty


def test_latex_text_escapes_specials_and_drops_markdown_emphasis():
    assert latex_text(r"**a_b** ||x||^2 {c} 5% & #1 $ \ ~") == (
        r"a\_b ||x||\^{}2 \{c\} 5\% \& \#1 \$ \textbackslash{} \~{}"
    )
