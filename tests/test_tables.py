"""harness.tables: the paper's values beside the rows that implement its methods, LaTeX captions."""

from pathlib import Path

import pandas as pd
import pytest

from harness.tables import latex_text, paper_values_for_rows


def test_paper_values_follow_the_rows_protocol_and_base_name():
    paper = pd.DataFrame(
        {
            "dataset": ["vehicle"] * 3,
            "algorithm": ["ITML", "OASIS", "SDCA"],
            "paper": [0.41, 0.53, 0.60],
            "paper_method": ["ITML", "OASIS", "SDCA"],
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
    keys = paper_values_for_rows(paper, methods).set_index("algorithm").paper_method.to_dict()
    assert keys["ITML-online"] == "ITML" and keys["OASIS-authors-C"] == "OASIS"  # report's key
    assert paper_values_for_rows(paper, {"X": {}}).empty


def test_latex_text_escapes_specials_and_drops_markdown_emphasis():
    assert latex_text(r"**a_b** ||x||^2 {c} 5% & #1 $ \ ~") == (
        r"a\_b $|$$|$x$|$$|$\^{}2 \{c\} 5\% \& \#1 \$ \textbackslash{} \~{}"
    )


def test_single_seed_spread_is_na_and_latex_is_escaped():
    """One seed has no standard deviation: the table says n/a, the CSV holds NaN; cells, labels
    and captions with LaTeX's special characters come out escaped (pandas' Styler)."""
    import numpy as np
    import pandas as pd

    from harness.tables import latex_tables, mean_std

    assert mean_std(0.5, np.nan, 1) == "0.5000 ± n/a"
    assert mean_std(0.5, 0.0, 1) == "0.5000 ± n/a"
    assert mean_std(0.5, 0.01, 3) == "0.5000 ± 0.0100"
    df = pd.DataFrame({"a_b (50%)": ["x & y", "0.5 ± 0.1"]}, index=pd.Index(["m_1", "m#2"]))
    tex = latex_tables("t", [("caption_with 100% & **bold**", df)], [])
    assert r"a\_b (50\%)" in tex and r"x \& y" in tex and r"m\_1" in tex and r"m\#2" in tex
    assert r"\caption{caption\_with 100\% \& bold}\label{tab:t}" in tex
    assert r"0.5 $\pm$ 0.1" in tex
    assert tex.count(r"\begin{table}") == 1 and r"\toprule" in tex


def test_a_latex_table_file_names_its_preamble_keeps_the_float_short_and_compiles(tmp_path):
    """issue 24: a short caption in each float; the long provenance (paragraphs, Markdown bullets
    and bold as LaTeX lists and bold, no Markdown syntax left) as notes after the floats, which
    may break across pages; a wide tabular scaled to the text width; the preamble it needs named
    at the top; and it compiles (pdflatex) without a float or line too large."""
    import pandas as pd

    from harness.tables import LATEX_PREAMBLE, latex_tables
    from tests.pipeline import latex_failures

    wide = pd.DataFrame(
        {(f"dataset_{i}", k): ["0.5000 ± 0.1000 •", "–"] for i in range(9) for k in ("ours", "paper")},
        index=pd.Index(["OASIS-authors-C", "SDCA"], name="method"),
    )
    notes = ["A long paragraph, 50% of it ◦ symbols × and ≤ signs. " * 60, "",
             "Settings per row:", "", "* **Eucl** [paper]: a_b", "* **SDCA** [ours]: c"]
    tex = latex_tables("demo", [("Short caption", wide), ("Second", wide)], notes)
    for line in LATEX_PREAMBLE:
        assert f"%   {line}" in tex
    assert r"\caption{Short caption}\label{tab:demo}" in tex and r"\label{tab:demo-2}" in tex
    assert r"\item \textbf{Eucl} [paper]: a\_b" in tex and "**" not in tex and "* " not in tex
    assert tex.index(r"\end{table}") < tex.index("A long paragraph")  # notes outside the floats
    assert all(ord(ch) < 128 for ch in tex)  # symbols written as LaTeX
    (tmp_path / "demo.tex").write_text(tex)
    assert latex_failures(tmp_path) == []


def test_every_figure_draws_a_method_in_one_colour_and_bands_stay_in_range():
    import numpy as np

    from harness.plots import clipped_band, method_style

    assert method_style("OASIS") == method_style("OASIS")
    from harness.plots import _STYLE_ORDER

    colours = [method_style(m)["color"] for m in _STYLE_ORDER]
    assert len(set(colours)) == len(colours)  # every listed method and variant its own colour
    assert method_style("SomethingNew") == method_style("SomethingNew")
    low, high = clipped_band(np.array([0.05, 0.95]), np.array([0.1, 0.1]), (0.0, 1.0))
    np.testing.assert_allclose(low, [0.0, 0.85])
    np.testing.assert_allclose(high, [0.15, 1.0])


def test_a_tables_paper_numbers_are_its_params_and_change_with_its_own_rows_only(tmp_path):
    """issue 22: the tables took config/paper_results.csv as a path in params, so an edited
    paper number reran nothing; each table rule now takes its own rows (paper_rows) as params."""
    from harness.tables import paper_frame, paper_rows, paper_values

    src = Path(__file__).resolve().parents[1] / "config/paper_results.csv"
    before = {
        art: paper_rows(src, paper, art)
        for paper, art in (("sdca_relative_similarity", "table2"), ("oahu", "table3"))
    }
    assert len(before["table2"]) >= 30 and len(before["table3"]) >= 20
    edited = pd.read_csv(src, dtype=str, keep_default_na=False)
    row = (edited.paper == "oahu") & (edited.method == "RDML") & (edited.metric == "macro_f1")
    assert row.sum() >= 1
    edited.loc[row, "value"] = "0.5"
    edited.to_csv(tmp_path / "p.csv", index=False)
    after = {
        art: paper_rows(tmp_path / "p.csv", paper, art)
        for paper, art in (("sdca_relative_similarity", "table2"), ("oahu", "table3"))
    }
    assert after["table2"] == before["table2"]  # Table 2's rule sees no change
    assert after["table3"] != before["table3"]  # Table 3's reruns
    t3 = paper_frame(after["table3"])
    assert t3.value.dtype == float and t3["std"].notna().any()
    t2 = paper_values(before["table2"], "mAP")
    assert list(t2.columns) == ["dataset", "algorithm", "paper", "paper_method"]
    assert t2.set_index(["dataset", "paper_method"]).paper[("vehicle", "ITML")] == 0.4142


def test_a_reconstructed_row_says_so_and_how_often_its_bound_zeroed_the_step():
    """issue 23: ITML-online's rate bound is written from memory of a paper we do not have; the
    caption labels the row and gives the measured share of zeroed steps per dataset."""
    from harness.tables import reconstructed_notes

    runs = pd.DataFrame(
        {
            "stage": "test", "checkpoint": "final", "algorithm": "ITML-online",
            "dataset": ["vehicle", "vehicle", "letter"], "seed": [0, 1, 0],
            "metric": "zeroed_step_fraction", "value": [0.9, 0.8, 0.25],
        }
    )
    methods = {"ITML-online": {"notes": {"protocol": "reconstructed"}}, "LEGO": {}}
    (line,) = reconstructed_notes(runs, methods, ["vehicle", "letter", "vowel"])
    assert line.startswith("ITML-online [reconstructed]: a method of a cited paper we do not have")
    assert "vehicle 85%, letter 25% (mean over seeds)" in line
    assert reconstructed_notes(runs, {"LEGO": {}}, ["vehicle"]) == []


def test_ranks_within_datasets_and_the_friedman_nemenyi_comparison_over_them(tmp_path):
    """issue 24: ranks per dataset by hand (1 = best, ties share the mean rank, rows without a
    number unranked); average ranks, Friedman (scipy) and Nemenyi (scikit-posthocs) over the
    datasets every method ran on; a method missing a dataset is left out and named; the
    critical-difference diagram is written."""
    import numpy as np
    import pandas as pd
    import scikit_posthocs as sp
    from scipy.stats import friedmanchisquare

    from harness.plots import cd_diagram
    from harness.tables import add_ranks, rank_comparison, rank_lines

    means = {"d1": [0.9, 0.5, 0.5, 0.1], "d2": [0.8, 0.7, 0.2, 0.3], "d3": [0.6, 0.9, 0.3, 0.2]}
    rows = [
        {"dataset": d, "algorithm": m, "mean": v, "status": "ok"}
        for d, vs in means.items()
        for m, v in zip("ABCD", vs)
    ]
    rows.append({"dataset": "d3", "algorithm": "E", "mean": np.nan, "status": "failed"})
    rows += [{"dataset": d, "algorithm": "E", "mean": 0.99, "status": "ok"} for d in ("d1", "d2")]
    s = add_ranks(pd.DataFrame(rows))
    r = s.set_index(["dataset", "algorithm"])["rank"]
    assert r[("d1", "E")] == 1 and r[("d1", "A")] == 2 and r[("d1", "B")] == r[("d1", "C")] == 3.5
    assert np.isnan(r[("d3", "E")]) and r[("d3", "B")] == 1
    low = add_ranks(pd.DataFrame(rows), higher_is_better=False).set_index(["dataset", "algorithm"])
    assert low.loc[("d1", "D"), "rank"] == 1
    c = rank_comparison(s)
    assert c["left_out"] == ["E"] and c["n_datasets"] == 3
    ranks = {"A": [1, 1, 2], "B": [2.5, 2, 1], "C": [2.5, 4, 3], "D": [4, 3, 4]}
    for m, rs in ranks.items():
        assert c["avg_rank"][m] == pytest.approx(np.mean(rs))
    stat, p = friedmanchisquare(*[[means[d][i] for d in means] for i in range(4)])
    assert c["friedman_stat"] == pytest.approx(stat) and c["friedman_p"] == pytest.approx(p)
    block = -np.array([means[d] for d in means])
    expected = sp.posthoc_nemenyi_friedman(block).to_numpy()
    np.testing.assert_allclose(c["p_nemenyi"].loc[list("ABCD"), list("ABCD")], expected)
    assert "Friedman chi2" in rank_lines(c, "mAP")[0] and "Not ranked" in rank_lines(c, "mAP")[0]
    cd_diagram(c, tmp_path / "cd.png", "title")
    assert (tmp_path / "cd.png").stat().st_size > 1000
    one = rank_comparison(s[s.dataset == "d1"])  # one dataset: no test
    assert np.isnan(one["friedman_p"]) and one["p_nemenyi"].empty
    assert "not computed" in rank_lines(one, "mAP")[0]
    cd_diagram(one, tmp_path / "none.png", "title")
