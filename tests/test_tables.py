"""tripletbench.harness.tables: the paper's values beside the rows that implement its methods, LaTeX captions."""

import re
from pathlib import Path

import pandas as pd
import pytest

from tripletbench.harness.tables import latex_text, paper_values_for_rows


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

    from tripletbench.harness.tables import latex_tables, mean_std

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
    """A short caption in each float; the long provenance (paragraphs, Markdown bullets
    and bold as LaTeX lists and bold, no Markdown syntax left) as notes after the floats, which
    may break across pages; a wide tabular scaled to the text width; the preamble it needs named
    at the top; and it compiles (pdflatex) without a float or line too large."""
    import pandas as pd

    from tripletbench.harness.tables import LATEX_PREAMBLE, latex_tables
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

    from tripletbench.harness.plots import clipped_band, method_style

    assert method_style("OASIS") == method_style("OASIS")
    from tripletbench.harness.plots import _STYLE_ORDER

    colours = [method_style(m)["color"] for m in _STYLE_ORDER]
    assert len(set(colours)) == len(colours)  # every listed method and variant its own colour
    assert method_style("SomethingNew") == method_style("SomethingNew")
    low, high = clipped_band(np.array([0.05, 0.95]), np.array([0.1, 0.1]), (0.0, 1.0))
    np.testing.assert_allclose(low, [0.0, 0.85])
    np.testing.assert_allclose(high, [0.15, 1.0])


def test_a_tables_paper_numbers_are_its_params_and_change_with_its_own_rows_only(tmp_path):
    """The tables took config/paper_results.csv as a path in params, so an edited
    paper number reran nothing; each table rule now takes its own rows (paper_rows) as params."""
    from tripletbench.harness.paper_table import paper_for_rows
    from tripletbench.harness.tables import paper_frame, paper_rows

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
    t2 = paper_for_rows(paper_frame(before["table2"]))
    assert list(t2.columns) == ["dataset", "algorithm", "metric", "paper", "paper_std", "paper_method"]
    assert t2.set_index(["dataset", "paper_method"]).paper[("vehicle", "ITML")] == 0.4142


def test_a_reconstructed_row_says_so_and_how_often_its_bound_zeroed_the_step():
    """ITML-online's rate bound is written from memory of a paper we do not have; the
    caption labels the row and gives the measured share of zeroed steps per dataset."""
    from tripletbench.harness.tables import reconstructed_notes

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
    """Ranks per dataset by hand (1 = best, ties share the mean rank, rows without a
    number unranked); average ranks, Friedman (scipy) and Nemenyi (scikit-posthocs) over the
    datasets every method ran on; a method missing a dataset is left out and named; the
    critical-difference diagram is written."""
    import numpy as np
    import pandas as pd
    import scikit_posthocs as sp
    from scipy.stats import friedmanchisquare

    from tripletbench.harness.plots import cd_diagram
    from tripletbench.harness.tables import add_ranks, rank_comparison, rank_lines

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
    # the diagram's numbers as a table (tables/<table>_ranks.csv): the same ranks, test and
    # p-values, one row per ranked method, best first, labels beside the names
    from tripletbench.harness.paper_table import rank_numbers

    f = rank_numbers(c, "mAP", {"A": "A [paper]"})
    assert list(f.algorithm) == list(c["avg_rank"].index) and f.average_rank.is_monotonic_increasing
    assert f.label.tolist() == [{"A": "A [paper]"}.get(m, m) for m in f.algorithm]
    assert (f.friedman_chi2 == c["friedman_stat"]).all() and (f.n_datasets == 3).all()
    assert (f.datasets == "d1;d2;d3").all() and (f.not_computed == "").all()
    np.testing.assert_allclose(
        f.set_index("algorithm")[[f"p_nemenyi_{m}" for m in "ABCD"]].loc[list("ABCD")], expected
    )
    none = rank_numbers(one, "mAP")
    assert none.friedman_chi2.isna().all()
    assert none.not_computed.str.startswith("not computed").all()
    assert none[[c for c in none if c.startswith("p_nemenyi_")]].isna().all().all()
    # a hand-computed Friedman statistic: A > B > C on both of 2 datasets, rank sums 2, 4, 6:
    # chi2 = 12 / (n k (k + 1)) sum R^2 - 3 n (k + 1) = 0.5 * 56 - 24 = 4
    two = [{"dataset": d, "algorithm": m, "mean": v, "status": "ok"}
           for d in ("d1", "d2") for m, v in zip("ABC", (0.9, 0.5, 0.1))]  # fmt: skip
    hand = rank_numbers(rank_comparison(pd.DataFrame(two)), "mAP")
    assert list(hand.average_rank) == [1.0, 2.0, 3.0]
    assert hand.friedman_chi2.iloc[0] == pytest.approx(4)


def _builder_rows():
    """Three methods on two datasets, three seeds; C is missing on d2 (needs download)."""
    vals = {
        ("d1", "A"): [0.90, 0.91, 0.92],
        ("d1", "B"): [0.80, 0.95, 0.86],  # close to A, noisy: not significantly worse
        ("d1", "C"): [0.50, 0.53, 0.51],  # clearly worse
        ("d2", "A"): [0.40, 0.42, 0.41],
        ("d2", "B"): [0.70, 0.71, 0.73],
    }
    return pd.DataFrame(
        [
            {"dataset": d, "algorithm": m, "metric": "mAP", "seed": s, "value": v}
            for (d, m), vs in vals.items()
            for s, v in enumerate(vs)
        ]
    )


def test_the_table_builder_ranks_marks_the_best_and_tests_against_it(tmp_path):
    """One builder for every table. Per (dataset, method): mean and std over seeds,
    the rank (1 = best), the best in bold, a paired t-test over the shared seeds against the
    best row (scipy's ttest_rel, the same numbers), ≈ where not significant; the paper's value
    and ours - paper; a status where there is no number; a reference method's test and its
    marks; the Markdown, CSV and LaTeX (compiled) agree."""
    import numpy as np
    from scipy.stats import ttest_rel

    from tripletbench.harness.paper_table import Metric, PaperTable, summarize, write_table
    from tests.pipeline import latex_failures

    values = _builder_rows()
    paper = pd.DataFrame(
        {"dataset": ["d1"], "algorithm": ["A"], "metric": ["mAP"], "paper": [0.95],
         "paper_std": [np.nan], "paper_method": ["A"]}
    )
    methods_cfg = {"A": {"notes": {"protocol": "paper"}}, "B": {"notes": {"protocol": "ours"}},
                   "C": {}}
    t = PaperTable(
        "demo", "Demo table", values, [Metric("mAP", "mAP")], ["d1", "d2"], ["A", "B", "C"],
        paper=paper, status={"d2": "needs download"}, methods_cfg=methods_cfg,
        caption=["A caption."], reference="A", reference_marks={"mAP": {"loss": "•"}},
    )
    s = summarize(t).set_index(["dataset", "algorithm"])
    assert s.loc[("d1", "A"), "mean"] == pytest.approx(0.91)
    assert s.loc[("d1", "A"), "std"] == pytest.approx(0.01)
    assert s.loc[("d1", "A"), "diff"] == pytest.approx(0.91 - 0.95)
    assert list(s.loc["d1", "rank"]) == [1.0, 2.0, 3.0] and list(s.loc["d2", "rank"][:2]) == [2.0, 1.0]
    assert s.loc[("d1", "A"), "best"] and s.loc[("d2", "B"), "best"]
    assert s.loc[("d2", "C"), "status"] == "needs download" and np.isnan(s.loc[("d2", "C"), "rank"])
    p_b = ttest_rel([0.80, 0.95, 0.86], [0.90, 0.91, 0.92]).pvalue
    p_c = ttest_rel([0.50, 0.53, 0.51], [0.90, 0.91, 0.92]).pvalue
    assert s.loc[("d1", "B"), "p_vs_best"] == pytest.approx(p_b) and p_b > 0.05
    assert s.loc[("d1", "B"), "vs_best"] == "tie" and s.loc[("d1", "C"), "vs_best"] == "loss"
    assert s.loc[("d1", "C"), "p_vs_best"] == pytest.approx(p_c) and p_c < 0.05
    assert s.loc[("d1", "C"), "vs_A"] == "loss" and s.loc[("d1", "C"), "mark"] == "•"
    assert s.loc[("d2", "B"), "vs_A"] == "win" and s.loc[("d2", "B"), "mark"] == ""
    out = {k: tmp_path / f"demo.{k}" for k in ("csv", "md", "tex")}
    write_table(t, out["csv"], out["md"], out["tex"], tmp_path / "cd.png", tmp_path / "cd.md")
    md, tex = out["md"].read_text(), out["tex"].read_text()
    flat = re.sub(r" +", " ", md)
    assert "| A [paper] | **0.9100 ± 0.0100 (1)** | 0.9500 |" in flat
    assert "0.8700 ± 0.0755 (2) ≈" in md and "0.5133 ± 0.0153 (3) •" in md
    assert "| needs download |" in flat
    assert "d2 (paper)" not in md  # no paper number on d2: no paper column
    assert "Difference, ours - paper (mAP)" in md and "-0.0400" in md
    assert r"\bfseries 0.9100 $\pm$ 0.0100 (1)" in tex and "Average rank" not in tex.split("%")[0]
    csv = pd.read_csv(out["csv"])
    assert {"rank", "best", "p_vs_best", "vs_best", "protocol", "paper_method"} <= set(csv.columns)
    assert (tmp_path / "cd.png").stat().st_size > 1000
    assert latex_failures(tmp_path) == []


def _block(means: dict) -> pd.DataFrame:
    """A summary (dataset, algorithm, mean, status) of {dataset: {method: mean}}."""
    return pd.DataFrame(
        [
            {"dataset": d, "algorithm": m, "mean": v, "status": "ok"}
            for d, row in means.items()
            for m, v in row.items()
        ]
    )


def test_friedman_and_nemenyi_when_every_method_ties_on_every_dataset(tmp_path):
    """All methods tied on every dataset gave Friedman chi2 = p = NaN (scipy's tie
    correction is 0 / 0) and "chi2 = nan" in the caption; now no difference: chi2 = 0, p = 1,
    every Nemenyi p = 1 (one bar over all in the CD diagram), said in the caption, in both
    directions and whether the datasets' common values differ or not. One dataset not tied
    is scipy's test again (finite)."""
    import warnings

    import numpy as np

    from tripletbench.harness.plots import cd_diagram
    from tripletbench.harness.tables import friedman_nemenyi, rank_comparison, rank_lines

    for means in (
        {d: dict.fromkeys("ABC", 0.5) for d in ("d1", "d2", "d3")},
        {"d1": dict.fromkeys("ABCD", 0.2), "d2": dict.fromkeys("ABCD", 0.9)},
    ):
        for higher in (True, False):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                c = rank_comparison(_block(means), higher)
            assert c["friedman_stat"] == 0.0 and c["friedman_p"] == 1.0 and not c["not_computed"]
            methods = list(next(iter(means.values())))
            assert (c["p_nemenyi"].loc[methods, methods].to_numpy() == 1.0).all()
            assert (c["avg_rank"] == (len(methods) + 1) / 2).all()
            head = rank_lines(c, "mAP")[0]
            assert "chi2 = 0.00, p = 1" in head and "every method ties on every dataset" in head
            assert "nan" not in "\n".join(rank_lines(c, "mAP")).lower()
    cd_diagram(c, tmp_path / "tied.png", "title")
    assert (tmp_path / "tied.png").stat().st_size > 1000
    means = {"d1": dict.fromkeys("ABC", 0.5), "d2": {"A": 0.9, "B": 0.5, "C": 0.1}}
    c = rank_comparison(_block(means))
    assert 0 < c["friedman_stat"] and 0 < c["friedman_p"] < 1 and c["note"] == ""
    assert np.isfinite(c["p_nemenyi"].to_numpy()).all()
    with pytest.raises(ValueError, match="NaN or infinite"):
        friedman_nemenyi(pd.DataFrame({"A": [0.1, np.nan], "B": [0.2, 0.3], "C": [0.3, 0.4]}))
    bad = {**c, "p_nemenyi": c["p_nemenyi"].where(c["p_nemenyi"] < 0.99)}  # NaN diagonal
    with pytest.raises(ValueError, match="NaN in the Nemenyi"):
        cd_diagram(bad, tmp_path / "bad.png", "title")


def test_ranks_over_one_dataset_or_too_few_methods_are_not_computed(tmp_path):
    """One dataset, one or two methods, or no method with a number: the Friedman and
    Nemenyi tests are "not computed" (the reason in ``not_computed`` and the caption), never an
    exception or a NaN shown; the CD figure says there is none."""
    import numpy as np

    from tripletbench.harness.plots import cd_diagram
    from tripletbench.harness.tables import rank_comparison, rank_lines

    cases = {
        "one dataset": _block({"d1": {"A": 0.9, "B": 0.5, "C": 0.1}}),
        "one method": _block({"d1": {"A": 0.9}, "d2": {"A": 0.4}, "d3": {"A": 0.5}}),
        "two methods": _block({d: {"A": 0.9, "B": 0.1} for d in ("d1", "d2", "d3")}),
        "no number": pd.DataFrame(
            [{"dataset": "d1", "algorithm": "A", "mean": np.nan, "status": "failed"}]
        ),
    }
    for name, summary in cases.items():
        c = rank_comparison(summary)
        assert c["not_computed"].startswith("not computed"), name
        assert "needs at least 2 datasets and 3 methods" in c["not_computed"]
        assert np.isnan(c["friedman_stat"]) and np.isnan(c["friedman_p"]) and c["p_nemenyi"].empty
        (line,) = rank_lines(c, "mAP")
        assert line.startswith("Ranks over datasets (mAP): not computed") and "nan" not in line
        cd_diagram(c, tmp_path / f"{name}.png", "title")
        assert (tmp_path / f"{name}.png").stat().st_size > 1000
    assert rank_comparison(cases["one method"])["avg_rank"].to_dict() == {"A": 1.0}


def test_the_table_builder_never_marks_a_row_behind_the_best_on_every_seed_as_tied(tmp_path):
    """A row 0.2 below the best on every seed (mAP) was "tie" with p NaN and printed
    "≈"; now a loss with p = 0 in the CSV (vs the best and vs the reference, whose loss mark it
    gets) and no "≈" in the Markdown or LaTeX. A seed with NaN on one side is not a pair (the
    same gap on the remaining two seeds: still a loss); a single shared seed is "n/a": no mark
    and no p; a row with a real spread close to the best keeps its "≈"."""
    import numpy as np

    from tripletbench.harness.paper_table import Metric, PaperTable, write_table

    vals = {
        ("d1", "A"): [0.90, 0.91, 0.95],
        ("d1", "B"): [0.70, 0.71, 0.75],  # A - 0.2 on every seed
        ("d1", "C"): [0.80, 0.97, 0.86],  # noisy, near A: not significantly worse
        ("d2", "A"): [0.60, 0.70, 0.80],
        ("d2", "B"): [0.40, np.nan, 0.60],  # a seed without a number; A - 0.2 on the others
        ("d2", "C"): [0.50, 0.90, 0.30],
        ("d3", "A"): [0.50],  # one seed: no test
        ("d3", "B"): [0.30],
        ("d3", "C"): [0.40],
    }
    values = pd.DataFrame(
        [
            {"dataset": d, "algorithm": m, "metric": "mAP", "seed": s, "value": v}
            for (d, m), vs in vals.items()
            for s, v in enumerate(vs)
        ]
    )
    t = PaperTable(
        "gap", "Gap table", values, [Metric("mAP", "mAP")], ["d1", "d2", "d3"], ["A", "B", "C"],
        reference="A", reference_marks={"mAP": {"loss": "•", "win": "◦"}},
    )
    out = {k: tmp_path / f"gap.{k}" for k in ("csv", "md", "tex")}
    write_table(t, out["csv"], out["md"], out["tex"])
    csv = pd.read_csv(out["csv"], keep_default_na=False, na_values=[""])
    s = csv.set_index(["dataset", "algorithm"])
    for d in ("d1", "d2"):
        assert s.loc[(d, "A"), "best"] and s.loc[(d, "B"), "rank"] == 3
        assert s.loc[(d, "B"), "vs_best"] == "loss" and s.loc[(d, "B"), "p_vs_best"] == 0.0
        assert s.loc[(d, "B"), "vs_A"] == "loss" and s.loc[(d, "B"), "p_vs_A"] == 0.0
        assert s.loc[(d, "B"), "mark"] == "•"
        assert s.loc[(d, "C"), "vs_best"] == "tie" and s.loc[(d, "C"), "p_vs_best"] > 0.05
    assert s.loc[("d3", "B"), "vs_best"] == "n/a" and np.isnan(s.loc[("d3", "B"), "p_vs_best"])
    assert s.loc[("d3", "C"), "vs_A"] == "n/a" and pd.isna(s.loc[("d3", "C"), "mark"])
    assert pd.isna(s.loc[("d1", "A"), "vs_best"])  # the best is not tested against itself
    md, tex = out["md"].read_text(), out["tex"].read_text()
    b_row = next(line for line in md.splitlines() if line.startswith("| B "))
    assert "≈" not in b_row and b_row.count("•") == 2, b_row
    c_row = next(line for line in md.splitlines() if line.startswith("| C "))
    # d3 has one seed of the table's three: the cell names it (tripletbench.harness.paper_table.cell_text)
    assert c_row.count("≈") == 2, c_row
    assert re.search(r"0\.4000 ± n/a \(2\) \[seed 0\] +\|$", c_row), c_row
    assert "[seeds 0, 2]" in b_row and s.loc[("d2", "B"), "n_seeds"] == 2  # the NaN seed
    assert "a gap the same on every seed counts as significant" in md
    b_tex = next(line for line in tex.splitlines() if line.lstrip().startswith("B &"))
    assert "≈" not in b_tex and "approx" not in b_tex, b_tex


def test_figures_use_human_names_and_timings_state_the_measured_load(tmp_path):
    """One mapping of dataset names for every figure; the fit-time figure draws the
    median and the min-max range over seeds (positive, so visible on a log axis) and its caption
    states the load average recorded with each timing instead of assuming an idle machine."""
    from tripletbench.harness.plots import display_name
    from tripletbench.studies.oasis.scaling import plot_scaling as scaling

    assert display_name("fashion_mnist_pixels") == "Fashion-MNIST, pixels"
    assert display_name("caltech256_50") == "Caltech-256, 50 classes"
    assert display_name("OASIS") == "OASIS"
    rows = pd.DataFrame(
        [
            {"axis": ax, "method": "OASIS", "size": n, "seed": s, "fit_wall_s": t,
             "load_1min": load, "n_cpus": 2}
            for ax in ("n_triplets", "n_samples")
            for n, times in ((100, (0.001, 0.09)), (1000, (0.02, 0.03)))
            for s, (t, load) in enumerate(zip(times, (0.5, 1.25)))
        ]
    )
    paths = [tmp_path / f"f.{e}" for e in ("png", "pdf", "md")]
    summary = scaling(rows, *paths, caption="Demo.")
    first = summary[(summary["size"] == 100)].iloc[0]
    assert first["min"] == 0.001 and first["max"] == 0.09 and first["median"] == pytest.approx(0.0455)
    text = paths[2].read_text()
    assert "load average during the timings 0.50-1.25 on 2 CPUs" in text
    assert "no other job" not in text
    import matplotlib.pyplot as plt

    from tripletbench.harness.plots import log_axes

    fig, ax = plt.subplots()
    ax.plot([100, 1000], [0.002, 0.009])
    log_axes(ax)
    fig.canvas.draw()
    labels = {t.get_text() for t in ax.yaxis.get_majorticklabels() if t.get_visible()}
    assert {"0.002", "0.005"} <= labels  # a range shorter than a decade still has labels
    assert all(t.get_text() == "" for t in ax.yaxis.get_minorticklabels())
    plt.close(fig)
    fig, ax = plt.subplots()  # from 1,000 on in thousands (1000 and 2000 ran together)
    ax.plot([100, 200_000], [0.5, 0.8])
    log_axes(ax, "x")
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.xaxis.get_majorticklabels() if t.get_visible()]
    assert {"100", "1k", "5k", "10k", "20k", "200k"} <= set(labels), labels
    plt.close(fig)


def test_progress_bars_go_to_the_job_log_only_one_line_per_redraw(tmp_path, monkeypatch):
    """Inside a rule job the learners on the shared loops report progress and time
    left (tqdm) into the job's log, one line per redraw, and not onto the console, where
    Snakemake's progress stays as it is; library learners keep theirs off."""
    import io

    import numpy as np

    import tripletbench.harness.io as hio
    from tripletbench.harness.experiment import fit_learner

    console, log = io.StringIO(), io.StringIO()
    tee = hio._Tee(console, log)
    tee.write("plain line\n")
    tee.write("\rOASIS:  50%|#####     | 5/10 [00:01<00:01]\rOASIS: 100%|##########| 10/10\r")
    assert console.getvalue() == "plain line\n"
    assert log.getvalue().splitlines() == [
        "plain line", "OASIS:  50%|#####     | 5/10 [00:01<00:01]", "OASIS: 100%|##########| 10/10"
    ]
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 4)), np.repeat([0, 1, 2], 20)
    t = np.array([[0, 1, 20], [21, 22, 40], [41, 42, 0]] * 10)
    monkeypatch.setattr(hio, "_IN_JOB", True)
    assert fit_learner("OASIS", {"C": 0.1}, t, X, y, 0)[0].verbose is True
    assert fit_learner("LEGO", {}, t, X, y, 0)[0].verbose is True
    assert fit_learner("ITML", {"max_iter": 2}, t, X, y, 0)[0].verbose is False  # metric-learn
    monkeypatch.setattr(hio, "_IN_JOB", False)
    assert fit_learner("OASIS", {"C": 0.1}, t, X, y, 0)[0].verbose is False


def test_a_cell_counts_only_the_seeds_it_averages_and_names_them_when_not_the_captions(tmp_path):
    """Summarize counted in n_seeds and seeds a seed whose value is NaN (the mean
    skipped it), so a cell said 3 seeds when it was computed from 2. Now a seed counts where its
    value is finite (NaN and inf are no number: left out of the mean, the std and the tests);
    a cell whose seeds are not exactly the table's (the config's list, which the caption names)
    lists the ones it averages, so that "over seeds [0, 1, 2]" is true of every number shown:
    a seed with NaN, a seed without a row, an infinite value. A cell with no number at all
    stays "n/a"."""
    import numpy as np

    from tripletbench.harness.paper_table import Metric, PaperTable, summarize, write_table

    vals = {
        "A": [0.50, np.nan, 0.70],  # seed 1 without a number
        "B": [0.40, 0.41, 0.42],
        "C": [0.30, 0.31],  # seed 2 without a row
        "D": [np.inf, 0.20, 0.22],
        "E": [np.nan, np.nan, np.nan],
    }
    values = pd.DataFrame(
        [
            {"dataset": "d1", "algorithm": m, "metric": "mAP", "seed": s, "value": v}
            for m, vs in vals.items()
            for s, v in enumerate(vs)
        ]
    )
    t = PaperTable("seeds", "Seeds table", values, [Metric("mAP", "mAP")], ["d1"], list(vals),
                   caption=["Test mAP over seeds [0, 1, 2]."], seeds=[0, 1, 2])
    s = summarize(t).set_index("algorithm")
    assert s.loc["A", "n_seeds"] == 2 and s.loc["A", "seeds"] == "0;2"
    assert s.loc["A", "mean"] == pytest.approx(0.6) and s.loc["A", "missing_seeds"] == "1"
    assert not s.loc["A", "all_seeds"] and s.loc["B", "all_seeds"]
    assert s.loc["B", "n_seeds"] == 3 and s.loc["B", "missing_seeds"] == ""
    assert s.loc["C", "n_seeds"] == 2 and s.loc["C", "missing_seeds"] == "2"
    assert s.loc["D", "n_seeds"] == 2 and s.loc["D", "mean"] == pytest.approx(0.21)
    assert s.loc["E", "n_seeds"] == 0 and np.isnan(s.loc["E", "mean"])
    assert s.loc["A", "best"] and s.loc["A", "vs_best"] == ""  # ranked on the mean it shows
    out = {k: tmp_path / f"seeds.{k}" for k in ("csv", "md", "tex")}
    write_table(t, out["csv"], out["md"], out["tex"])
    md = out["md"].read_text()
    rows = {line.split("|")[1].strip(): line for line in md.splitlines() if line.startswith("| ")}
    assert "0.6000 ± 0.1414 (1) [seeds 0, 2]" in rows["A"]
    assert "[seeds" not in rows["B"] and "[seeds 0, 1]" in rows["C"] and "[seeds 1, 2]" in rows["D"]
    assert "| n/a" in rows["E"] and "[seed" not in rows["E"]
    assert "a cell not over exactly the seeds this caption names lists its own" in md
    assert "[seeds 0, 2]" in out["tex"].read_text()
    csv = pd.read_csv(out["csv"], keep_default_na=False)
    assert csv.set_index("algorithm").loc["A", "seeds"] == "0;2"
    # the caption's seeds are the table's: a fourth seed no cell has marks every cell
    t.seeds = [0, 1, 2, 3]
    s = summarize(t).set_index("algorithm")
    assert not s.loc[["A", "B", "C", "D"], "all_seeds"].any()
    assert s.loc["B", "missing_seeds"] == "3"
    # without a list, the seeds the table holds (B's three): the same cells are marked
    t.seeds = None
    s = summarize(t).set_index("algorithm")
    assert s.all_seeds.tolist() == [False, True, False, False, False]


NON_ASCII_NOTES = (
    "λ = 0.1 (the paper's λ ≈ 0.1 ± 0.05) • ◦ – — é ü ß ø Å ç ñ ą ł µ° ² ‘a’ “b” « c » € £ § "
    "Λ Ω α ω ς ϵ ∞ ≠ → ⇒ ∈ ≤ ≥ × · … ﬁ ＆ ％ 漢 ✓ 😀 \u00a0 \u2009 \u00ad x\u0301 e\u0301"
)


def test_latex_writes_every_non_ascii_character_as_latex():
    """Notes with λ or other non-ASCII text made a .tex that pdflatex could not
    compile. Every non-ASCII character becomes LaTeX: a symbol of LATEX_SYMBOLS, accent commands,
    its ASCII compatibility form, or its Unicode name in brackets."""
    from tripletbench.harness.tables import latex_char

    out = latex_text(NON_ASCII_NOTES)
    assert out.isascii()
    assert out.startswith(r"$\lambda$ = 0.1 (the paper's $\lambda$ $\approx$ 0.1 $\pm$ 0.05)")
    assert latex_char("é") == r"\'{e}" and latex_char("ï") == r"\"{\i}"
    assert latex_char("ﬁ") == "fi" and latex_char("＆") == r"\&"
    assert latex_char("漢") == "[cjk unified ideograph-6f22]" and latex_char("✓") == "[check mark]"
    assert latex_text("e\u0301") == r"\'{e}"  # decomposed text is composed first


def test_a_table_whose_notes_hold_non_ascii_text_compiles_with_pdflatex(tmp_path):
    """The .tex of a table with λ and other non-ASCII characters in its notes, its short caption,
    its cells and its labels compiles with pdflatex (tests/pipeline.py latex_failures: the
    preamble the file names; skipped, with setup.sh's reason, where pdflatex is unavailable)."""
    from tripletbench.harness.tables import latex_tables
    from tests.pipeline import latex_failures

    df = pd.DataFrame(
        {"λ (ours) ≈": ["0.5 ± 0.1", "ﬁt – 漢"], "mAP": ["0.40", "—"]},
        index=pd.Index(["OASIS λ=0.1", "Müller ✓"]),
    )
    notes = ["# Notes λ", "", "* **λ** ≈ 0.1: " + NON_ASCII_NOTES, "* ◦ second – é", "", "end"]
    tex = latex_tables("nonascii", [("Table with λ ≈ 0.1 ± 0.05 and é", df)], notes)
    assert tex.isascii()
    (tmp_path / "nonascii.tex").write_text(tex)
    assert latex_failures(tmp_path) == []


def test_the_runtime_table_reads_each_cells_own_job_cpu_time():
    from tripletbench.studies.oasis.rows import job_cpu_values

    runs = pd.DataFrame(
        {
            "dataset": ["a", "a", "a", "b"],
            "algorithm": ["OASIS", "OASIS", "SDCA", "OASIS"],
            "seed": [0, 0, 0, 1],
            "metric": ["mAP", "fit_cpu_s", "mAP", "mAP"],
            "job_cpu_s": [3.5, 3.5, 7.0, 2.0],
        }
    )
    v = job_cpu_values(runs)
    assert v.values.tolist() == [
        ["a", "OASIS", "job_cpu_s", 0, 3.5],
        ["a", "SDCA", "job_cpu_s", 0, 7.0],
        ["b", "OASIS", "job_cpu_s", 1, 2.0],
    ]
    with pytest.raises(ValueError, match="a/SDCA/0"):
        job_cpu_values(runs.assign(job_cpu_s=[3.5, 3.5, None, 2.0]))
    with pytest.raises(ValueError, match="predate it"):
        job_cpu_values(runs.drop(columns="job_cpu_s"))


def test_the_ranks_name_a_critical_difference_diagram_only_where_one_is_drawn():
    """A table written without a diagram (the human table, OAHU Table 3) must not promise one;
    with one (SDCA Tables 2 and 3) the caption names it."""
    from tripletbench.harness.tables import rank_comparison, rank_lines

    rows = [
        {"dataset": d, "algorithm": m, "metric": "mAP", "mean": v, "status": "ok"}
        for d, vals in (("a", (0.9, 0.5, 0.2)), ("b", (0.8, 0.6, 0.1)), ("c", (0.7, 0.4, 0.3)))
        for m, v in zip(("X", "Y", "Z"), vals)
    ]
    c = rank_comparison(pd.DataFrame(rows), True)
    assert "critical-difference diagram" in " ".join(rank_lines(c, "mAP"))
    assert "critical-difference" not in " ".join(rank_lines(c, "mAP", diagram=False))
