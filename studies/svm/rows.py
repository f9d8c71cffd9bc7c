"""The rows behind Table 1 of Schultz & Joachims and the page-reading sweep: which runs make a
cell, the rows' notes and the sweep's Markdown. Kept apart from the modules the svm cells import
(:mod:`tripletbench.studies.svm.experiment`), so that an edit here reruns the tables and no cell."""

from __future__ import annotations

import numpy as np
import pandas as pd


from .experiment import method_applies, notion_available

TABLE1_METHODS = ("SVM-relative", "SVM-relative-RBF", "Binary", "TFIDF", "Eucl")
"""The rows of Table 1: the paper's three and our kernel and class-labelled-set rows."""


def table1_cells(runs: pd.DataFrame, config: dict) -> dict:
    """Table 1's cells from the svm runs (rule svm_run's rows): for each notion and method the
    per-seed test triplet accuracy of the largest training set (SVM-relative) or of the
    preprocessing variant with the best mean test accuracy (Binary, TFIDF: the paper reports the
    static metric best on the test set).

    Returns {"values": tidy rows (dataset = notion, algorithm = method, metric
    "triplet_accuracy", seed, value), "status": why a cell has no number ("n/a" where the method
    does not apply to the notion or the kernel row is off; the data route's reason where the
    notion cannot be served), "info": per cell variant, n_train_triplets, n_test_triplets,
    n_ties_mean and solve_s_mean, "methods": the rows that apply to some notion, "notions",
    "n_max": the largest training set}. Raises ``ValueError`` for a cell of a notion that ran but
    has no rows (a wiring error: rerun svm_run)."""
    from tripletbench.harness.config import missing_reason

    cfg, route = config["svm"], config["data"]["route"]
    notions = list(cfg["text_notions"]) + list(cfg["datasets"])
    n_max = max(cfg["n_train_triplets"])
    kernel_off = not cfg["kernel"].get("n_train_triplets")
    values, status, info = [], {}, []
    for d in notions:
        for m in TABLE1_METHODS:
            v = runs[(runs.notion == d) & (runs.method == m)]
            if m == "SVM-relative":
                v = v[v.n_train_triplets == n_max]
            if m in ("Binary", "TFIDF") and len(v):
                v = v[v.variant == v.groupby("variant").triplet_accuracy.mean().idxmax()]
            if not len(v):
                if not method_applies(d, m) or (m == "SVM-relative-RBF" and kernel_off):
                    status[(d, m)] = "n/a"
                elif not notion_available(d, route, config["data"].get("mirror")):
                    status[(d, m)] = missing_reason(config)
                else:
                    raise ValueError(f"no rows of {m} on {d}, which ran: rerun svm_run")
                continue
            values.append(
                v.assign(
                    dataset=d, algorithm=m, metric="triplet_accuracy", value=v.triplet_accuracy
                )
            )
            info.append(
                {
                    "dataset": d,
                    "algorithm": m,
                    "variant": ";".join(sorted(set(v.variant.astype(str)))),
                    "n_train_triplets": int(v.n_train_triplets.max()),
                    "n_test_triplets": int(v.n_test_triplets.max()),
                    "n_ties_mean": v.n_ties.mean(),
                    "solve_s_mean": v.solve_s.mean() if "solve_s" in v else np.nan,
                }
            )
    cols = ["dataset", "algorithm", "metric", "seed", "value"]
    values = pd.concat(values, ignore_index=True)[cols] if values else pd.DataFrame(columns=cols)
    applies = [m for m in TABLE1_METHODS if any(status.get((d, m)) != "n/a" for d in notions)]
    return {
        "values": values,
        "status": status,
        "info": pd.DataFrame(info),
        "methods": applies,
        "notions": notions,
        "n_max": n_max,
    }


def table1_notes(config: dict, methods: list[str]) -> dict:
    """The svm block's ``notes`` (settings provenance per row) as a methods block for
    :func:`tripletbench.harness.tables.settings_table`, the training sizes of the "ours" settings taken from
    the config (so that an overlay, e.g. up to 200,000 triplets, cannot leave a stale size)."""
    cfg = config["svm"]
    n_max = max(cfg["n_train_triplets"])
    notes = {name: {"notes": dict(n)} for name, n in (cfg.get("notes") or {}).items()}
    sizes = {
        "SVM-relative": f"{n_max:,} training triplets for Table 1 (the paper states no size"
        + (
            "; bounded for run time, its Figure 2 levels off past 150,000"
            if n_max < 150_000
            else ""
        )
        + ")",
    }
    if cfg["kernel"].get("n_train_triplets"):
        sizes["SVM-relative-RBF"] = f"{cfg['kernel']['n_train_triplets']:,} training triplets"
    for name, size in sizes.items():
        if name in notes:
            ours = notes[name]["notes"].get("ours", "")
            notes[name]["notes"]["ours"] = size + ("; " + ours if ours else "")
    return {m: notes.get(m, {}) for m in methods}


READING_NOTIONS = {
    "webkb_university": "University",
    "webkb_topic": "Topic",
    "webkb_topic_facultystudent": "Topic+FS",
}


def _reading_cell(row: dict, m: str, n: str, full: bool) -> str:
    """Method ``m``'s cell on notion ``n`` of one row of the sweep's table, in %, and in the full
    version the preprocessing variant shown (a static baseline's)."""
    v = row.get(f"{n}:{m}", np.nan)
    if pd.isna(v):
        return "–"
    pre = row.get(f"{n}:{m}:variant")
    return f"{100 * v:.2f}" + (f" [{pre}]" if full and isinstance(pre, str) else "")


def _readings_rows(table: pd.DataFrame, paper: pd.DataFrame, cols: list, full: bool) -> list:
    """The Markdown table's rows (lists of cells): one per reading variant, then the paper's."""
    rows = []
    for r in table.to_dict("records"):
        rows.append(
            [
                str(r["rank"]),
                r["reading"],
                "lower" if r["lowercase"] else "kept",
                r["scale"],
                f"{r['n_features']:,}",
                f"{r['n_train_triplets']:,}",
                f"{r['solve_s']:.0f}",
            ]
            + [_reading_cell(r, m, n, full) for m, n in cols]
            + [f"{r['paper_distance']:.2f}" + (" (default)" if r.get("default") else "")]
        )
    ref = {(p.notion, p.method): p.value for p in paper.itertuples()}
    rows.append(
        ["", "paper", "", "", "63,949", "not stated", ""]
        + [f"{100 * ref[(n, m)]:.2f}" if (n, m) in ref else "–" for m, n in cols]
        + [""]
    )
    return rows


def _readings_text(table: pd.DataFrame, sweep: dict, cfg: dict, c_words: str, full: bool) -> list:
    """The sweep's two caption paragraphs: what a cell is, then the rule and what it picks
    (``sweep``: ``cfg["readings"]``; ``c_words``: our C beside the paper's)."""
    from .captions import VECTOR_SCALE_WORDS

    from .paper import vs_paper

    best = table.iloc[0]
    default = table[table["default"]] if "default" in table else table.iloc[:0]
    pick = f"{best.reading}, {'lower-cased' if best.lowercase else 'case kept'}, scale {best.scale}"
    return [
        (
            f"Test triplets satisfied (%), mean over seeds {sweep['seeds']}, SVM-relative (eq. 8, "
            f"A = I, {c_words}) learned from n training triplets ("
            + ", ".join(f"{k} scale: {v:,}" for k, v in sweep["n_train_triplets"].items())
            + (
                "; fewer on unscaled vectors is a bound of ours: eq. 8 is far slower to solve on "
                "them (mean seconds per solve in column 'solve s'); at C = 1 their learning curve "
                "falls past about 20,000 triplets (figure figure_svm_c_sweep), so the bound "
                "favours them"
                if len(set(sweep["n_train_triplets"].values())) > 1
                else ""
            )
            + f"), {vs_paper('svm_table1', 'n_test_triplets', cfg['n_test_triplets'])} test "
            "triplets; Binary / TFIDF: the "
            "preprocessing variant best on the test set"
            + (" (named in brackets)" if full else "")
            + ". Each row is one reading of a page file (visible_text: what a browser shows; "
            "text_and_header: plus the MIME header; text_and_attributes: plus the tags' "
            "attribute values, i.e. link URLs; whole_page: every byte as served), lower-cased "
            "or case kept, and a scale of each document's binary vector "
            f"({VECTOR_SCALE_WORDS['unit']} or none; the Binary baseline has the same scale; "
            "TFIDF rows are unit length in "
            "every row). V = vocabulary size (the paper: 63,949 words)."
        ),
        (
            "distance = mean |ours - paper| in points over the six cells learned and Binary of "
            "University, Topic and Topic+FacultyStudent; rank 1 is the closest. This rule, not "
            "the paper's text, chose the default text features of Table 1 (svm.text_features): "
            "the paper states none of reading, case or scale. The rule picks: "
            + pick
            + "."
            + (
                " The configuration's default is rank "
                + ", ".join(str(x) for x in default["rank"])
                + (", not the rule's pick." if int(default["rank"].iloc[0]) != 1 else ".")
                if len(default)
                else " The configuration's default (svm.text_features) is not among the rows."
            )
        ),
    ]


def readings_markdown(table: pd.DataFrame, paper: pd.DataFrame, cfg: dict, full: bool) -> list:
    """Markdown lines of the page-reading sweep (rule table_svm_readings: ``table`` is
    :func:`tripletbench.studies.svm.sweeps.summarise_readings` with a ``default`` column; ``paper``: Table 1's
    paper rows with columns notion, method, value; ``cfg``: the ``svm`` block). ``full``: the
    table's own page (heading, caption, every column, the paper's row); else the compact
    version for Table 1's notes (learned and Binary cells, vocabulary, distance)."""
    from .paper import vs_paper

    sweep = cfg["readings"]
    c_words = vs_paper("svm_table1", "C", float(cfg["C"]), f"C = {float(cfg['C']):g}")
    methods = ("SVM-relative", "Binary", "TFIDF") if full else ("SVM-relative", "Binary")
    short = {"SVM-relative": "learned", "Binary": "Binary", "TFIDF": "TFIDF"}
    cols = [(m, n) for m in methods for n in READING_NOTIONS]
    out = []
    if full:
        out += ["# Schultz & Joachims (2003), Table 1 under each reading of a WebKB page", ""]
    if not len(table):
        out.append(
            "Not run: the sweep needs the WebKB pages (download route or a data mirror holding "
            "webkb/webkb-data.gtar.gz); this run's route has none."
        )
        return out
    head = (
        ["rank", "reading", "case", "scale", "V", "n", "solve s"]
        + [f"{short[m]} {READING_NOTIONS[n]}" for m, n in cols]
        + ["distance"]
    )
    rows = _readings_rows(table, paper, cols, full)
    lines = _readings_text(table, sweep, cfg, c_words, full)
    if full:
        out += [*lines, ""]
    else:
        out += [
            "Page reading, case and scale measured (table_svm_readings; " + lines[1] + ") "
            "Learned and Binary cells (%) per reading:",
            "",
        ]
    out += [
        "| " + " | ".join(head) + " |",
        "|" + "|".join("---" for _ in head) + "|",
        *("| " + " | ".join(map(str, r)) + " |" for r in rows),
        "",
    ]
    return out


def server_headers(archive, universities) -> dict:
    """For the WebKB ``archive`` (path of ``webkb-data.gtar.gz``): university domain -> (the most
    common ``Server:`` value of the MIME headers of its pages of the four topics, how many pages
    carry it, how many pages it has), for each domain of ``universities``. What the University
    notion can learn from the header under a reading that keeps it (Table 1's caption)."""
    import collections
    import re
    import tarfile
    from pathlib import PurePosixPath

    from tripletbench.datasets.webkb import TOPICS, page_university

    want = set(universities)
    servers = {u: collections.Counter() for u in want}
    with tarfile.open(archive, mode="r:*") as tar:
        for member in tar:
            parts = PurePosixPath(member.name).parts
            if not member.isfile() or len(parts) < 4 or parts[1] not in TOPICS:
                continue
            univ = page_university(parts[2], parts[-1])
            if univ not in want:
                continue
            head = tar.extractfile(member).read(4096).decode("latin-1")
            m = re.search(r"(?im)^server:[ \t]*([^\r\n]*)", re.split(r"\r?\n[ \t]*\r?\n", head)[0])
            servers[univ][m.group(1).strip() if m else "(none)"] += 1
    out = {}
    for u, c in servers.items():
        if c:
            name, k = c.most_common(1)[0]
            out[u] = (name, k, sum(c.values()))
    return out
