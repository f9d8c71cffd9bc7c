"""The Snakemake report's pages: captions, table pages and paper-vs-ours.

``snakemake --report report.html`` (after ``reproduce_all``) shows every table and figure of the
run. Each figure's PNG is a ``report()`` output of its own rule; each table is shown through an
HTML page made here (Snakemake's report shows HTML and images inline, a CSV only as a download).
Captions come from the Markdown each table or figure rule writes beside its output (the same
caption text as the CSV/LaTeX/PDF carry), converted here to reStructuredText, the format of
Snakemake's report captions. One more page sets every number the papers state
(``config/paper_results.csv``) beside ours.

Nothing here computes a result: the pages only lay out what the table and figure rules wrote.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd

from tripletbench.harness.io import read_csv_named, save_csv, save_text
from tripletbench.harness.study import ReportItem, paper_tables, report_items

COMPARE = "Paper vs ours"


def _items() -> dict[str, ReportItem]:
    return {
        **report_items(),
        "paper_vs_ours": ReportItem(COMPARE, "every stated number beside ours", "table"),
    }


def __getattr__(name: str):
    """``ITEMS``: every table and figure that ``reproduce_all`` can build, by output name (the
    file stem), in the report's order (the studies' items, then the paper-vs-ours page);
    ``PAPER_TABLES``: (paper, artifact) of config/paper_results.csv -> our table that compares
    with it, and the metric of that table's rows when the table has no ``metric`` column. Both
    are read from the registered studies (:mod:`tripletbench.harness.study`) when asked for."""
    if name == "ITEMS":
        return _items()
    if name == "PAPER_TABLES":
        return paper_tables()
    from tripletbench._moved import moved_name

    return moved_name(__name__, name)


def report_labels(name: str, variant: str | None = None) -> dict:
    """The ``labels=`` of item ``name`` in the report (columns of its category's list).

    Raises KeyError for a name not in :data:`ITEMS`."""
    item = _items()[name]
    label = item.label if variant is None else f"{item.label} ({variant})"
    return {"item": label, "kind": item.kind}


# --- Markdown captions -> reStructuredText ----------------------------------------------------

_RST_SPECIAL = re.compile(r"([\\`*_|\[\]<>:])")


def rst_escape(text: str) -> str:
    """``text`` with every character reStructuredText could read as markup backslash-escaped
    (it then renders as itself); Markdown's ``**bold**`` is kept as bold."""
    out = _RST_SPECIAL.sub(r"\\\1", text)
    return re.sub(r"\\\*\\\*(\S(?:.*?\S)?)\\\*\\\*", r"**\1**", out)


def _is_pipe_table(lines: list[str]) -> bool:
    return bool(lines) and all(line.lstrip().startswith("|") for line in lines)


def _is_bullet(line: str) -> bool:
    return line.strip().startswith(("* ", "- "))


def md_blocks(md: str) -> list[list[str]]:
    """The blank-line separated blocks of a Markdown text, each as its list of lines."""
    return [b.splitlines() for b in re.split(r"\n[ \t]*\n", md.strip()) if b.strip()]


def md_to_rst(md: str, keep_tables: bool = True) -> str:
    """A table or figure rule's Markdown caption as a Snakemake report caption.

    Headings become bold lines, a block of ``* `` bullets a bullet list, every other line is kept
    as a line (reST line blocks, text escaped so that nothing in it reads as markup), pipe tables become literal blocks
    (``keep_tables``) or are left out (a table's page shows the table itself). The result is
    wrapped in Jinja ``raw`` tags: Snakemake renders captions as Jinja templates, and a caption's
    own braces must reach the page as text."""
    parts = []
    for lines in md_blocks(md):
        if _is_pipe_table(lines):
            if keep_tables:
                # a literal block shows ** as text: bold cells lose their marks there
                parts.append(
                    "::\n\n" + "\n".join("    " + line.replace("**", "") for line in lines)
                )
            continue
        if all(_is_bullet(line) for line in lines):  # a Markdown list: a reST bullet list
            parts.append("\n".join(f"- {rst_escape(line.strip()[2:])}" for line in lines))
            continue
        rows = []
        for line in lines:
            text = line.strip()
            if text.startswith("#"):
                rows.append(f"**{rst_escape(text.lstrip('#').strip())}**")
            elif text:
                rows.append(rst_escape(text))
        parts.append("\n".join(f"| {row}" for row in rows))
    return "{% raw %}\n" + "\n\n".join(parts) + "\n\n{% endraw %}\n"


# --- table pages ------------------------------------------------------------------------------

_CSS = """
body { font-family: sans-serif; margin: 1.5em; max-width: 80em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.8em 0 1.6em 0; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #eee; }
p.caption { margin: 0.3em 0; }
"""


def parse_pipe_table(lines: list[str]) -> pd.DataFrame:
    """A Markdown pipe table (as pandas' ``to_markdown`` writes it) as a frame of strings.

    Raises ValueError when the lines are not a header, a ``---`` rule and rows of equal width."""
    cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines]
    if len(cells) < 2 or not all(re.fullmatch(r":?-+:?", c) for c in cells[1]):
        raise ValueError("not a pipe table: no header rule")
    width = len(cells[0])
    if any(len(r) != width for r in cells):
        raise ValueError("not a pipe table: rows of different widths")
    return pd.DataFrame(cells[2:], columns=cells[0])


def _bold(text: str) -> str:
    return re.sub(r"\*\*(\S(?:.*?\S)?)\*\*", r"<strong>\1</strong>", text)


def md_to_html(md: str) -> str:
    """A Markdown caption as HTML: headings, paragraphs line by line (escaped), a block of ``* ``
    bullets as a list, ``**bold**`` as bold, pipe tables as tables (as preformatted text when they
    do not parse)."""
    out = []
    for lines in md_blocks(md):
        if _is_pipe_table(lines):
            try:
                # a table builder's best cell is **bold** (tripletbench.harness.paper_table): bold here too
                out.append(_bold(parse_pipe_table(lines).to_html(index=False, escape=True)))
            except ValueError:
                out.append("<pre>" + html.escape("\n".join(lines)) + "</pre>")
            continue
        if all(_is_bullet(line) for line in lines):  # a Markdown list
            items = (f"<li>{_bold(html.escape(line.strip()[2:]))}</li>" for line in lines)
            out.append('<ul class="caption">' + "".join(items) + "</ul>")
            continue
        for line in lines:
            text = line.strip()
            if text.startswith("#"):
                level = min(len(text) - len(text.lstrip("#")), 4)
                out.append(f"<h{level}>{html.escape(text.lstrip('#').strip())}</h{level}>")
            elif text:
                out.append(f'<p class="caption">{_bold(html.escape(text))}</p>')
    return "\n".join(out)


def table_page(md: str, csv: pd.DataFrame, csv_name: str, summary=None) -> str:
    """One table's report page: its Markdown (title, caption, the table as the paper lays it
    out), the frame ``summary`` if given, and then every row and column of its CSV
    ``csv_name``."""
    first = (
        ""
        if summary is None
        else summary.to_html(index=False, na_rep="", escape=True, float_format=_number)
    )
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<style>{_CSS}</style></head><body>\n"
        + md_to_html(md)
        + first
        + f"\n<h3>All rows and columns ({html.escape(csv_name)})</h3>\n"
        + csv.to_html(index=False, na_rep="n/a", escape=True, float_format=_number)
        + "\n</body></html>\n"
    )


# --- paper vs ours ----------------------------------------------------------------------------

PVO_COLUMNS = [
    "paper",
    "artifact",
    "dataset",
    "method",
    "metric",
    "paper_value",
    "our_algorithm",
    "our_mean",
    "our_std",
    "diff",
    "n_seeds",
    "status",
    "protocol",
    "our_table",
    "paper_settings",
    "our_settings",
]


def paper_vs_ours(paper_results: pd.DataFrame, tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Every number of ``paper_results`` (config/paper_results.csv: paper, artifact, dataset,
    method, metric, value) beside our rows that carry it.

    ``tables`` maps a table name of :data:`PAPER_TABLES` to its CSV as a frame (columns dataset,
    algorithm, paper, mean, std, status, protocol, ...; a ``metric`` column where the table has
    several; ``paper_method``: the paper's method whose number the row shows). A table row
    carries a paper number when its dataset, ``paper_method`` (and metric) are the number's keys:
    never matched by value, since two methods can share one (several of our rows can carry one
    number: e.g. ITML and ITML-online). Raises ``ValueError`` for a table without
    ``paper_method``. A paper number that no row of ours
    carries stays, with ``our_table`` empty and ``status`` saying why: its table was not built
    in this run, or no table of ours compares with it (a figure's number, named in that
    figure's caption, or an artifact we do not reproduce). Columns :data:`PVO_COLUMNS`."""
    rows = []
    for _, ref in paper_results.iterrows():
        base = {
            "paper": ref["paper"],
            "artifact": ref["artifact"],
            "dataset": ref["dataset"],
            "method": ref["method"],
            "metric": ref["metric"],
            "paper_value": ref["value"],
        }
        where = paper_tables().get((ref["paper"], ref["artifact"]))
        if where is None:
            rows.append({**base, "status": "no table of ours compares with it"})
            continue
        name, metric = where
        table = tables.get(name)
        if table is None:
            rows.append({**base, "our_table": name, "status": "table not built in this run"})
            continue
        if "paper_method" not in table.columns:
            raise ValueError(
                f"table {name} has no paper_method column (made by an older version): rerun its "
                "rule; the paper's numbers are matched to our rows by method, never by value"
            )
        match = table[
            (table["dataset"] == ref["dataset"]) & (table["paper_method"] == ref["method"])
        ]
        if "metric" in table.columns:
            match = match[match["metric"] == ref["metric"]]
        elif metric != ref["metric"]:
            match = match.iloc[0:0]
        if match.empty:
            rows.append({**base, "our_table": name, "status": "no row of ours carries it"})
            continue
        for _, ours in match.iterrows():
            n = ours.get("n_seeds", ours.get("n_runs"))
            mean = ours.get("mean")
            rows.append(
                {
                    **base,
                    "our_table": name,
                    "our_algorithm": ours["algorithm"],
                    "our_mean": mean,
                    "our_std": ours.get("std"),
                    "n_seeds": n,
                    "diff": (mean - ref["value"]) if pd.notna(mean) else None,
                    "status": ours.get("status", "ok"),
                    "protocol": ours.get("protocol"),
                    "paper_settings": ours.get("paper_settings"),
                    "our_settings": ours.get("our_settings"),
                }
            )
    return pd.DataFrame(rows).reindex(columns=PVO_COLUMNS)


#: The columns of the paper-vs-ours page's first table (all of them follow, and are in the CSV).
PVO_SUMMARY = [
    "artifact",
    "dataset",
    "method",
    "paper_value",
    "our_algorithm",
    "our_mean",
    "diff",
    "status",
    "protocol",
]


def _number(x: float) -> str:
    return f"{x:.4g}"


PVO_CAPTION = (
    "# Paper vs ours: every number the papers state, beside our rows\n\n"
    "Each row is one number of config/paper_results.csv (the papers' tables and figures as "
    "printed) and the row of our table that carries it: our mean and standard deviation over "
    "seeds, their difference (ours - paper), the row's status and its settings provenance "
    "(protocol: paper = the paper's stated protocol, ours = our tuned or bounded variant, "
    "reconstructed = a cited method rebuilt without its paper, unspecified = the paper states no "
    "settings; the settings the paper states and the ones we "
    "chose). Several of our rows can carry one paper number (e.g. batch ITML and online ITML "
    "beside the paper's ITML). A paper number with no row of ours says why: its table was not "
    "built in this run, the data needs the download route (status 'needs download'), or no "
    "table compares with it (a figure's number is named in that figure's caption)."
)


def write_pages(tables: dict, figures: dict, paper_results, out_dir) -> None:
    """Write the report's pages into ``out_dir``: ``{table}.html`` and
    ``captions/{name}.rst`` for every table of ``tables`` (name -> (csv path, md path)),
    ``captions/{name}.rst`` for every figure (the figures argument: name -> md path), and
    ``paper_vs_ours.{csv,html}`` with its caption. Every write is atomic (tripletbench.harness.io).

    Raises KeyError for a name not in :data:`ITEMS`."""
    out_dir = Path(out_dir)
    frames = {}
    for name, (csv_path, md_path) in tables.items():
        _items()[name]  # noqa: B018 -- an unknown name is a wiring error
        md = Path(md_path).read_text()
        # a table may have no row on purpose (a sweep not run on this route: its caption says
        # why); a missing, empty or unreadable one is refused by name
        df = read_csv_named(csv_path, "table", allow_no_rows=True)
        frames[name] = df
        save_text(out_dir / f"{name}.html", table_page(md, df, Path(csv_path).name))
        save_text(out_dir / "captions" / f"{name}.rst", md_to_rst(md, keep_tables=False))
    for name, md_path in figures.items():
        _items()[name]  # noqa: B018
        save_text(out_dir / "captions" / f"{name}.rst", md_to_rst(Path(md_path).read_text()))
    pvo = paper_vs_ours(pd.read_csv(paper_results), frames)
    save_csv(out_dir / "paper_vs_ours.csv", pvo)
    summary = pvo[PVO_SUMMARY]
    save_text(
        out_dir / "paper_vs_ours.html",
        table_page(PVO_CAPTION, pvo, "paper_vs_ours.csv", summary=summary),
    )
    save_text(out_dir / "captions" / "paper_vs_ours.rst", md_to_rst(PVO_CAPTION))
