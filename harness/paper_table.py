"""One builder for every paper table: tidy per-seed rows in; CSV, Markdown, LaTeX and the
critical-difference diagram out.

Statistics, chosen once for the whole project:

* a cell = mean and sample standard deviation (ddof = 1; "n/a" over one seed) over the seeds
  (or runs) of one (dataset, method, metric); ``diff`` = ours - paper;
* within a dataset: the cell's rank among the rows with a number (1 = best, ties share their
  average rank, ``scipy.stats.rankdata``), the best mean in bold, and a paired t-test over the
  shared seeds against the best row (``tripletbench.evaluation.classification.paired_ttest``, 0.05): a row
  not significantly different from the best is marked "≈" (no mark over fewer than two shared
  seeds with a number: outcome "n/a"; a row behind the best by the same amount on every seed
  is a loss, p = 0, never "≈"); optionally the same test against a reference method (the OAHU
  paper's marks);
* across datasets: average ranks, the Friedman test and the Nemenyi post-hoc test
  (:func:`tripletbench.harness.tables.rank_comparison`, scipy and scikit-posthocs) and a critical-difference
  diagram (:func:`tripletbench.harness.plots.cd_diagram`), for the metrics a table ranks.

A rule script gathers its rows (:func:`seed_values`), the paper's numbers
(:func:`tripletbench.harness.tables.paper_frame`) and its caption, and calls :func:`write_table` once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .io import save_csv, save_text
from .plots import display_name
from .tables import (
    add_ranks,
    latex_tables,
    mean_std,
    rank_comparison,
    rank_frame,
    rank_lines,
    settings_caption,
    settings_table,
)

ALPHA = 0.05
"""Significance level of every test of a table."""

TIE_MARK = "≈"
"""Appended to a cell whose paired test against the column's best row is not significant."""


@dataclass(frozen=True)
class Metric:
    """One measured quantity of a table.

    ``name``: the ``metric`` value in the tidy rows; ``label``: its name in captions and headings;
    ``higher_is_better``: the direction of ranks and tests; ``digits``: decimals shown;
    ``scale``: factor applied when shown (100 for a percentage; the CSV keeps the raw value);
    ``ranked``: whether ranks and tests are computed (False for a quantity such as U or a time
    whose order says nothing about quality); ``paper_digits``: decimals of the paper's numbers
    as the paper prints them (default ``digits``)."""

    name: str
    label: str
    higher_is_better: bool = True
    digits: int = 4
    scale: float = 1.0
    ranked: bool = True
    paper_digits: int | None = None


@dataclass
class PaperTable:
    """Everything one paper table shows.

    ``values``: tidy per-seed rows, columns dataset, algorithm, metric, seed, value.
    ``metrics``, ``datasets``, ``methods``: what the table shows, in order.
    ``paper``: the paper's numbers, columns dataset, algorithm (our row that shows it), metric,
    paper, paper_method and optionally paper_std (:func:`paper_for_rows`).
    ``status``: why a cell has no number, keyed by dataset or by (dataset, algorithm)
    (default "missing").
    ``methods_cfg``: the config's methods block (row provenance: ``notes.protocol``,
    :func:`tripletbench.harness.tables.settings_table`); rows show "[protocol]" after their name.
    ``caption``: the caption lines (Markdown subset: paragraphs, ``* `` bullets, ``**bold**``).
    ``info``: extra columns per cell, keyed by dataset and algorithm (and metric where it has
    that column); a ``mark`` column is appended to the cell text.
    ``reference``: a method every other row is tested against (paired over seeds), giving the
    CSV's ``p_vs_<reference>`` and ``vs_<reference>`` ("win"/"tie"/"loss", the row's side).
    ``reference_marks``: metric -> {outcome: mark}: the reference test's outcome shown as a mark
    in that metric's cells (e.g. the OAHU paper's "•" where the reference is significantly
    better, ``{"error_rate": {"loss": "•", "win": "◦"}}``), in the CSV's ``mark``.
    ``sections``: extra Markdown blocks after the table: (heading, frame), a list of lines, or a
    function of the summary (:func:`summarize`) returning either.
    ``diff_note``: a sentence printed under the "ours - paper" heading, e.g. which of our
    settings differ from the paper's (:func:`tripletbench.harness.paper_settings.comparison_note`).
    ``seeds``: the seeds every cell should average (the config's list, which the caption
    names); default: every seed that ``values`` holds for the metric. A cell whose seeds with a
    finite value are not exactly these shows the ones it averages ("[seeds 0, 1]").
    ``unranked``: rows shown with their numbers but never ranked, bold, tested or in the ranks
    over datasets (reference rows such as chance or a human ceiling).
    ``run_unit``: what one of ``values``' "seeds" is, in the legend and the cells ("seed"; the
    human table's "fold": each fold of each seed), and ``run_note``: what a reader must know of
    those runs (folds of one seed share training data, so a paired test over them is
    anti-conservative).
    """

    name: str
    title: str
    values: pd.DataFrame
    metrics: list[Metric]
    datasets: list[str]
    methods: list[str]
    paper: pd.DataFrame | None = None
    status: dict = field(default_factory=dict)
    methods_cfg: dict | None = None
    caption: list[str] = field(default_factory=list)
    info: pd.DataFrame | None = None
    reference: str | None = None
    reference_marks: dict = field(default_factory=dict)
    sections: list = field(default_factory=list)
    diff_note: str = ""
    seeds: list | None = None
    unranked: tuple = ()
    run_unit: str = "seed"
    run_note: str = ""


def seed_values(runs: pd.DataFrame, metrics, seed_col: str = "seed") -> pd.DataFrame:
    """The rows of ``runs`` (tidy: dataset, algorithm, metric, seed, value) of the given metric
    names, as the builder's per-seed values."""
    v = runs[runs.metric.isin(list(metrics))]
    return v.rename(columns={seed_col: "seed"})[["dataset", "algorithm", "metric", "seed", "value"]]


def paper_for_rows(ref: pd.DataFrame, methods_cfg: dict | None = None) -> pd.DataFrame:
    """The paper's numbers (a :func:`tripletbench.harness.tables.paper_frame`) keyed to our rows: columns
    dataset, algorithm, metric, paper, paper_std, paper_method. With ``methods_cfg`` (a config
    methods block) a row named after a paper method up to its first "-" carries that method's
    number (:func:`tripletbench.harness.tables.paper_values_for_rows`: ITML-online -> ITML); without it a
    row carries the number of the method of its own name."""
    from .tables import paper_values_for_rows

    out = ref.drop(columns=["paper"]).rename(columns={"value": "paper", "std": "paper_std"})
    out = out.assign(algorithm=out["method"], paper_method=out["method"])
    out = out[["dataset", "algorithm", "metric", "paper", "paper_std", "paper_method"]]
    if methods_cfg is None:
        return out
    parts = [
        paper_values_for_rows(g.drop(columns="metric"), methods_cfg).assign(metric=m)
        for m, g in out.groupby("metric")
    ]
    return pd.concat(parts, ignore_index=True) if parts else out.iloc[:0]


def _status(status: dict, d: str, m: str) -> str:
    return status.get((d, m), status.get(d, "missing"))


def summarize(t: PaperTable) -> pd.DataFrame:
    """One row per (dataset, algorithm, metric) of ``t``: mean, std, n_seeds, seeds, all_seeds,
    missing_seeds, paper, paper_std, paper_method, diff, status ("ok" or why there is no number),
    rank, best, p_vs_best, vs_best, the provenance columns and ``t.info``'s; in the table's order.

    A seed counts only where its value is finite: mean and std are over those seeds, ``n_seeds``
    and ``seeds`` name them, ``missing_seeds`` the expected seeds (``t.seeds``) without one, and
    ``all_seeds`` says whether they are exactly the expected seeds (else the cell shows its own,
    :func:`cell_text`). A NaN or infinite value is no number: it is left out of every mean and
    test.

    ``vs_best`` (and ``vs_<reference>``) is the row's side of :func:`_paired`'s test: "win",
    "tie" or "loss" with its p in ``p_vs_best``; "n/a" with p NaN where fewer than two seeds
    have a number on both rows (no test); "" with p NaN where no test applies (a best row
    against the best, the reference against itself, a row without a number)."""
    values = t.values.assign(value=pd.to_numeric(t.values.value, errors="coerce"))
    values.loc[~np.isfinite(values.value.astype(float)), "value"] = np.nan  # inf: no number
    per = {
        k: g.set_index("seed").value for k, g in values.groupby(["dataset", "algorithm", "metric"])
    }
    out = _with_paper(pd.DataFrame(_cell_rows(t, values, per)), t.paper)
    out["rank"], out["best"], out["p_vs_best"], out["vs_best"] = np.nan, False, np.nan, ""
    refcol = f"vs_{t.reference}" if t.reference else None
    if refcol:
        out["p_" + refcol], out[refcol] = np.nan, ""
    _rank_and_test(out, t, per, refcol)
    if refcol:
        marks = out.apply(lambda r: t.reference_marks.get(r.metric, {}).get(r[refcol], ""), axis=1)
        out["mark"] = marks if len(out) else ""
    if t.methods_cfg is not None:
        out = out.merge(settings_table(t.methods_cfg), on="algorithm", how="left")
    if t.info is not None and len(t.info):
        keys = [k for k in ("dataset", "algorithm", "metric") if k in t.info.columns]
        out = out.merge(t.info, on=keys, how="left")
    return out


def _cell_rows(t: PaperTable, values: pd.DataFrame, per: dict) -> list[dict]:
    """One row per (metric, dataset, method) of ``t``, in the table's order: the seeds with a
    number in ``per`` ((dataset, algorithm, metric) -> value per seed), their mean and std, or
    the cell's status where it has no row."""
    rows = []
    for metric in t.metrics:
        expected = _expected_seeds(t, values, metric.name)
        for d in t.datasets:
            for m in t.methods:
                v = per.get((d, m, metric.name))
                r = {"dataset": d, "algorithm": m, "metric": metric.name}
                if v is None or not len(v):
                    rows.append(
                        {
                            **r,
                            "n_seeds": 0,
                            "all_seeds": False,
                            "missing_seeds": ";".join(expected),
                            "status": _status(t.status, d, m),
                        }
                    )
                    continue
                v = v.sort_index().dropna()  # the seeds with a number
                have = [str(s) for s in v.index]
                rows.append(
                    {
                        **r,
                        "mean": v.mean() if len(v) else np.nan,
                        "std": v.std(ddof=1) if len(v) > 1 else np.nan,
                        "n_seeds": len(v),
                        "seeds": ";".join(have),
                        "all_seeds": sorted(have) == sorted(expected),
                        "missing_seeds": ";".join(s for s in expected if s not in have),
                        "status": "ok",
                    }
                )
    return rows


def _with_paper(out: pd.DataFrame, paper: pd.DataFrame | None) -> pd.DataFrame:
    """The cells ``out`` (:func:`_cell_rows`) with the paper's number beside each (paper,
    paper_std, paper_method) and ``diff`` = ours - paper."""
    for col in ("mean", "std", "seeds"):
        if col not in out:
            out[col] = np.nan
    paper = (
        paper
        if paper is not None
        else pd.DataFrame(
            columns=["dataset", "algorithm", "metric", "paper", "paper_std", "paper_method"]
        )
    )
    out = out.merge(paper, on=["dataset", "algorithm", "metric"], how="left")
    for col in ("paper", "paper_std"):
        out[col] = pd.to_numeric(out.get(col), errors="coerce")
    out["paper_method"] = out["paper_method"].fillna("")
    out["diff"] = out["mean"] - out["paper"]
    return out


def _rank_and_test(out: pd.DataFrame, t: PaperTable, per: dict, refcol: str | None) -> None:
    """Fill ``out``'s rank, best, p_vs_best and vs_best (and the reference's test, column
    ``refcol``) in place, per (dataset, ranked metric), over the rows with a number that are not
    ``t.unranked``."""
    higher = {mt.name: mt.higher_is_better for mt in t.metrics}
    ranked = {mt.name for mt in t.metrics if mt.ranked}
    for (d, metric), idx in out.groupby(["dataset", "metric"]).groups.items():
        g = out.loc[idx]
        have = g[(g.status == "ok") & g["mean"].notna() & ~g.algorithm.isin(list(t.unranked))]
        if refcol and metric in ranked:
            ref = per.get((d, t.reference, metric))
            for i, r in have.iterrows():
                if r.algorithm != t.reference and ref is not None:
                    out.loc[i, ["p_" + refcol, refcol]] = _paired(
                        per[(d, r.algorithm, metric)], ref, higher[metric]
                    )
        if metric not in ranked or have.empty:
            continue
        out.loc[have.index, "rank"] = add_ranks(have, higher[metric])["rank"]
        best = out.loc[have.index, "rank"].idxmin()
        best_v = per[(d, out.loc[best, "algorithm"], metric)]
        out.loc[have.index[out.loc[have.index, "rank"] == out.loc[best, "rank"]], "best"] = True
        for i in have.index:
            if not out.loc[i, "best"]:
                out.loc[i, ["p_vs_best", "vs_best"]] = _paired(
                    per[(d, out.loc[i, "algorithm"], metric)], best_v, higher[metric]
                )


def _expected_seeds(t: PaperTable, values: pd.DataFrame, metric: str) -> list[str]:
    """The seeds (as text) every cell of ``metric`` should average: ``t.seeds``, or else every
    seed with a row of that metric in ``values``."""
    if t.seeds is not None:
        return [str(s) for s in t.seeds]
    return [str(s) for s in sorted(values[values.metric == metric].seed.unique())]


def _paired(ours: pd.Series, ref: pd.Series, higher: bool) -> tuple[float, str]:
    """(p, outcome) of the paired t-test (``tripletbench.evaluation.classification.paired_ttest``, which
    decides the degenerate cases: a constant gap is a win or loss with p = 0, no gap a tie with
    p = 1) over the seeds where both series have a number (a seed with NaN on either side is
    not a pair and is dropped); (NaN, "n/a") with fewer than two such seeds."""
    from tripletbench.evaluation.classification import paired_ttest

    common = ours.index.intersection(ref.index)
    both = pd.concat([ours[common], ref[common]], axis=1).dropna()
    return paired_ttest(both.iloc[:, 0].to_numpy(), both.iloc[:, 1].to_numpy(), ALPHA, higher)


def _num(v, metric: Metric, digits: int | None = None) -> str:
    return f"{metric.scale * v:.{metric.digits if digits is None else digits}f}"


def cell_text(r, metric: Metric, unit: str = "seed") -> str:
    """Our cell: "mean ± std (rank)" (std "n/a" over one seed), then "≈" where the row does not
    differ significantly from the best, then the row's ``mark``, then "[seeds 0, 1]" where the
    cell does not average exactly the table's seeds (a seed without a finite value, or another
    seed); the status where it has no number, "n/a" where it ran but the metric is undefined
    (e.g. U of a method that learns nothing)."""
    if r["status"] != "ok":
        return str(r["status"])
    if pd.isna(r["mean"]):
        return "n/a"
    text = mean_std(metric.scale * r["mean"], metric.scale * r["std"], r["n_seeds"], metric.digits)
    if not pd.isna(r.get("rank", np.nan)):
        text += f" ({r['rank']:g})"
    if r.get("vs_best") == "tie":
        text += f" {TIE_MARK}"
    mark = r.get("mark")
    if isinstance(mark, str) and mark:
        text += f" {mark}"
    all_seeds = r.get("all_seeds", True)
    if not pd.isna(all_seeds) and not all_seeds:
        text += f" [{seed_words(r['seeds'], unit)}]"
    return text


def seed_words(seeds: str, unit: str = "seed") -> str:
    """ "seeds 0, 1" (or "seed 0") of ``summarize``'s ``seeds`` text "0;1" (``unit``: what a
    "seed" is, :attr:`PaperTable.run_unit`)."""
    got = [s for s in str(seeds).split(";") if s]
    return (f"{unit} " if len(got) == 1 else f"{unit}s ") + ", ".join(got)


def paper_text(r, metric: Metric) -> str:
    """The paper's cell: its value, "± std" where the paper gives one, "–" where it has none."""
    if pd.isna(r["paper"]):
        return "–"
    text = _num(r["paper"], metric, metric.paper_digits)
    if not pd.isna(r.get("paper_std", np.nan)):
        text += f" ± {_num(r['paper_std'], metric, metric.paper_digits)}"
    return text


def row_labels(t: PaperTable) -> dict[str, str]:
    """Row name -> shown label: "NAME [protocol]" where the config marks the row's provenance."""
    if t.methods_cfg is None:
        return {m: m for m in t.methods}
    prov = settings_table(t.methods_cfg).set_index("algorithm").protocol
    return {
        m: f"{m} [{prov[m]}]" if prov.get(m, "unmarked") != "unmarked" else m for m in t.methods
    }


def wide(summary: pd.DataFrame, t: PaperTable, metric: Metric) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(frame, bold) of one metric: methods x (human dataset name, ours | paper), the paper's
    column only for a dataset where the paper has a number; ``bold`` flags each column's best."""
    s = summary[summary.metric == metric.name].set_index(["dataset", "algorithm"])
    labels = row_labels(t)
    cols, bold = {}, {}
    for d in t.datasets:
        rows = [s.loc[(d, m)] for m in t.methods]
        name = display_name(d)
        cols[(name, "ours")] = [cell_text(r, metric, t.run_unit) for r in rows]
        bold[(name, "ours")] = [bool(r["best"]) for r in rows]
        if any(not pd.isna(r["paper"]) for r in rows):
            cols[(name, "paper")] = [paper_text(r, metric) for r in rows]
            bold[(name, "paper")] = [False] * len(rows)
    index = pd.Index([labels[m] for m in t.methods], name="method")
    return pd.DataFrame(cols, index=index), pd.DataFrame(bold, index=index)


def _markdown(frame: pd.DataFrame, bold: pd.DataFrame | None = None) -> str:
    flat = frame.copy()
    if bold is not None:
        flat = flat.where(~bold.to_numpy(), "**" + flat.astype(str) + "**")
    if isinstance(flat.columns, pd.MultiIndex):
        flat.columns = [f"{d} ({k})" for d, k in flat.columns]
    return flat.to_markdown()


def _pivot(summary, t, metric, column, fmt) -> pd.DataFrame:
    s = summary[summary.metric == metric.name]
    p = s.pivot(index="algorithm", columns="dataset", values=column)
    p = p.reindex(index=t.methods, columns=t.datasets).rename(index=row_labels(t))
    p.index.name = "method"
    p.columns = [display_name(d) for d in p.columns]
    return p.map(lambda v: "–" if pd.isna(v) else fmt(v))


def rank_numbers(comparison: dict, metric: str, labels: dict | None = None) -> pd.DataFrame:
    """The numbers of a critical-difference diagram
    (:func:`tripletbench.harness.tables.rank_comparison`) as a table, one row per ranked method,
    best first: ``metric``, ``algorithm``, ``label`` (its row label in the table, from
    ``labels``; the name where none), ``average_rank`` (1 = best), the Friedman test's
    ``friedman_chi2`` and ``friedman_p`` (NaN where it was not computed; ``not_computed`` then
    says why), ``n_datasets`` and ``datasets`` (";"-joined) of the complete block, and
    ``p_nemenyi_<method>``: the Nemenyi post-hoc p-value against each ranked method (NaN where not
    computed)."""
    c = comparison
    names = list(c["avg_rank"].index)
    out = pd.DataFrame({"metric": metric, "algorithm": names,
                        "label": [(labels or {}).get(m, m) for m in names],
                        "average_rank": c["avg_rank"].to_numpy(float)})  # fmt: skip
    out["friedman_chi2"], out["friedman_p"] = c["friedman_stat"], c["friedman_p"]
    out["n_datasets"], out["datasets"] = c["n_datasets"], ";".join(map(str, c["datasets"]))
    out["not_computed"] = c["not_computed"]
    p = c["p_nemenyi"].reindex(index=names)  # rows in the ranks' order (empty: not computed)
    for m in names:
        out[f"p_nemenyi_{m}"] = p[m].to_numpy(float) if m in p else np.nan
    return out


def write_table(t: PaperTable, csv, md, tex, cd=None, cd_md=None, cd_csv=None) -> pd.DataFrame:
    """Write table ``t`` as CSV (:func:`summarize`'s rows), Markdown (heading, caption, the
    settings provenance per row, one table per metric with the paper's column beside ours and
    the best cell in bold, ours - paper, ``t.sections``, the ranks over datasets) and LaTeX (one
    float per metric and one of the average ranks, the caption as notes below:
    :func:`tripletbench.harness.tables.latex_tables`). With ``cd`` and ``cd_md`` the first ranked metric's
    critical-difference diagram (PNG) and its caption (Markdown); with ``cd_csv`` also its numbers
    (:func:`rank_numbers`). Returns the summary."""
    from .plots import cd_diagram

    summary = summarize(t)
    save_csv(csv, summary)
    provenance = settings_caption(t.methods_cfg) if t.methods_cfg else []
    notes = [*t.caption, "", *_legend(t)]
    # the table first, after one short paragraph (the caption's first line); the rest of the
    # caption, the legend and the settings provenance in a notes section below the tables
    lead, rest = (t.caption[:1], t.caption[1:]) if t.caption else ([], [])
    parts = [f"# {t.title}", "", *lead, ""]
    sections = [s(summary) if callable(s) else s for s in t.sections]
    floats, rank_parts = [], []
    for metric in t.metrics:
        frame, bold = wide(summary, t, metric)
        if len(t.metrics) > 1:
            parts += [f"## {metric.label}", ""]
        parts += [_markdown(frame, bold), ""]
        s = summary[summary.metric == metric.name]
        if s["diff"].notna().any():
            diff = _pivot(
                summary, t, metric, "diff", lambda v: f"{metric.scale * v:+.{metric.digits}f}"
            )
            heading = f"Difference, ours - paper ({metric.label}):"
            note = [t.diff_note, ""] if t.diff_note else []
            parts += [heading, "", *note, diff.to_markdown(), ""]
        short = f"{t.title}: {metric.label}, ours (mean ± std over {t.run_unit}s)" + (
            " beside the paper's" if s["paper"].notna().any() else ""
        )
        floats.append((short, _styled(frame, bold)))
    if "fit_wall_s" in summary:
        times = _pivot(summary, t, t.metrics[0], "fit_wall_s", lambda v: f"{v:.2f}")
        parts += [
            "Mean fit wall time per seed on the full training set (s):",
            "",
            times.to_markdown(),
            "",
        ]
    parts += _section_parts(sections)
    ranked = [mt for mt in t.metrics if mt.ranked]
    if ranked:
        metric = ranked[0]
        s = summary[(summary.metric == metric.name) & ~summary.algorithm.isin(list(t.unranked))]
        comparison = rank_comparison(s, metric.higher_is_better)
        labels = row_labels(t)
        if cd_csv:
            save_csv(cd_csv, rank_numbers(comparison, metric.name, labels))
        comparison["avg_rank"] = comparison["avg_rank"].rename(index=labels)
        comparison["p_nemenyi"] = comparison["p_nemenyi"].rename(index=labels, columns=labels)
        lines = rank_lines(comparison, metric.label, diagram=bool(cd))
        rank_parts = ["", *lines]
        if cd:
            cd_diagram(comparison, cd, f"{t.title}: critical difference ({metric.label})")
            save_text(
                cd_md,
                "\n".join(
                    [f"# {t.title}: critical-difference diagram ({metric.label})", "", *lines]
                ),
            )
        if len(comparison["avg_rank"]) and comparison["n_datasets"] >= 2:
            floats.append(
                (
                    f"{t.title}: average rank over datasets (1 = best {metric.label})",
                    rank_frame(comparison),
                )
            )
    below = ["", "## Notes", "", *rest, "", *_legend(t), "", *provenance]
    save_text(md, "\n".join(parts + rank_parts + below) + "\n")
    # every section in the .tex too: a table as a float of its own, lines among the notes
    floats += [(f"{t.title}: {s[0].rstrip(':')}", s[1]) for s in sections if isinstance(s, tuple)]
    lines = [line for s in sections if not isinstance(s, tuple) for line in [*s, ""]]
    save_text(tex, latex_tables(t.name, floats, [*notes, "", *lines, *provenance]))
    return summary


def _section_parts(sections: list) -> list[str]:
    """The Markdown lines of a table's sections (``PaperTable.sections``, each already called
    with the summary where it is a function): a (heading, frame) as a heading and a table, a list
    of lines as they are."""
    parts = []
    for section in sections:
        if isinstance(section, tuple):
            heading, frame = section
            plain = isinstance(frame.index, pd.RangeIndex)  # no row labels to show
            parts += [heading, "", frame.to_markdown(index=not plain), ""]
        else:
            parts += [*section, ""]
    return parts


def _legend(t: PaperTable) -> list[str]:
    """The caption line that says how to read the cells (the same words in every table)."""
    ranked = [mt.label for mt in t.metrics if mt.ranked]
    u = t.run_unit
    line = (
        f"Cells: ours = mean ± std over {u}s (n/a over one {u}; a {u} without a finite value "
        f"is left out, and a cell not over exactly the {u}s this caption names lists its own, "
        f"e.g. [{u}s 0, 1])"
        + (f" {t.run_note}" if t.run_note else "")
        + (
            f"; in brackets the row's rank on that dataset ({', '.join(ranked)}; 1 = best, ties "
            f"share the mean rank), the best in bold, {TIE_MARK} = not significantly different "
            f"from the best (paired t-test over the shared {u}s, {ALPHA}; no mark over fewer "
            f"than two; a gap the same on every {u} counts as significant); ranks, bold and this "
            "test are ours, the papers print none of them"
            if ranked
            else ""
        )
        + "; paper = the paper's number where it has one."
    )
    return [line]


def _styled(frame: pd.DataFrame, bold: pd.DataFrame):
    """``frame`` with the ``bold`` cells in bold, as a pandas Styler for
    :func:`tripletbench.harness.tables.latex_tabular` (``\\bfseries`` through ``convert_css``)."""
    return frame.style.apply(
        lambda col: ["font-weight: bold" if b else "" for b in bold[col.name]], axis=0
    )
