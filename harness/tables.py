"""The pieces of the papers' tables: the paper's numbers (config/paper_results.csv), ranks and
the comparison over datasets (Friedman, Nemenyi), the settings provenance of each row, and
LaTeX that compiles. :mod:`tripletbench.harness.paper_table` puts them together into a table.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd


def remake_hint(path, rule: str | None = None) -> str:
    """How to remake result file ``path``, written by rule ``rule`` (if known)."""
    by = f"rule {rule}" if rule else "the rule that writes it"
    return (
        f"Remake it by rerunning {by}: snakemake --forcerun {path} (with your usual targets "
        "and options), or delete the file and run again."
    )


def read_result(path, rule: str | None = None, columns=(), dtype=None) -> pd.DataFrame:
    """One result CSV as its job wrote it, or :class:`tripletbench.harness.io.ResultFileError` naming the file,
    what is wrong and how to remake it (:func:`remake_hint`, ``rule``: the rule that writes it):

    * missing, empty (0 bytes), or with a header but no row;
    * without one of ``columns``;
    * not as its job wrote it: no ``<file>.sha256`` beside it, or one whose sha256 is not the
      file's (edited by hand, copied, or the job stopped half-way): :func:`tripletbench.harness.io.check_digest`.

    The bytes are read once: the digest is checked on exactly what is parsed."""
    import io as _io

    from pandas.errors import EmptyDataError, ParserError

    from .io import ResultFileError, check_digest

    remedy = remake_hint(path, rule)
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise ResultFileError(f"{path}: cannot be read ({err.strerror}). {remedy}") from None
    if not data.strip():
        size = "empty (0 bytes)" if not data else "blank (whitespace only)"
        raise ResultFileError(f"{path}: the file is {size}, not as its job wrote it. {remedy}")
    try:
        df = pd.read_csv(_io.BytesIO(data), dtype=dtype)
    except (EmptyDataError, ParserError, UnicodeDecodeError) as err:
        raise ResultFileError(f"{path}: not a readable CSV ({err}). {remedy}") from None
    if not len(df):
        raise ResultFileError(
            f"{path}: only a header line ({len(df.columns)} columns), no row: a job writes its "
            f"rows, so the file was cut or emptied. {remedy}"
        )
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ResultFileError(f"{path}: lacks the column(s) {missing}. {remedy}")
    check_digest(path, data, remedy)
    return df


def collect(paths, rule: str | None = None, columns=(), cell=None) -> pd.DataFrame:
    """Concatenate tidy result CSVs (``settings_hash`` read as text), every file checked first
    (:func:`read_result`): a file that is missing, empty, only a header, lacks one of
    ``columns``, or is not as its job wrote it (no digest, or a digest that does not match) is
    refused with :class:`tripletbench.harness.io.ResultFileError`, naming the file and how to remake it
    (``rule``: the rule that writes these files).

    ``cell``: the columns that name the one cell a file holds (e.g. ``("dataset", "seed",
    "algorithm")``): each file must have them, a value in each on every row and one cell only,
    and no two files may hold the same cell (a copy of another cell's file would count its seed
    twice and leave its own out); a file that breaks this is refused, named.

    Every file is checked before the error is raised: one bad file gives its own message; several
    give one error listing them all (the first five in full), so that one run names every file
    to remake."""
    from .io import ResultFileError

    cell = list(cell or ())
    frames, seen, refused = [], {}, []
    for p in paths:
        try:
            df = read_result(p, rule, [*cell, *columns], dtype={"settings_hash": str})
            if cell:
                keys = df[cell].drop_duplicates()
                if keys.isna().to_numpy().any() or len(keys) != 1:
                    raise ResultFileError(
                        f"{p}: its rows should hold one cell ({', '.join(cell)}), but they hold "
                        f"{len(keys)} or a row lacks a value there. {remake_hint(p, rule)}"
                    )
                key = tuple(map(str, keys.iloc[0]))
                if key in seen:
                    named = ", ".join(f"{c} {v}" for c, v in zip(cell, key))
                    raise ResultFileError(
                        f"{p}: holds the same cell ({named}) as {seen[key]}: one of them is not "
                        f"its own cell's file. {remake_hint(p, rule)}"
                    )
                seen[key] = p
        except ResultFileError as err:
            refused.append((p, err))
            continue
        frames.append(df)
    if len(refused) == 1:
        raise refused[0][1]
    if refused:
        lines = [str(err) for _, err in refused[:5]] + [f"{p}" for p, _ in refused[5:50]]
        more = [f"... and {len(refused) - 50} more"] if len(refused) > 50 else []
        raise ResultFileError(
            "\n  ".join(
                [
                    f"{len(refused)} result files refused (a table reads a result file only "
                    "whole and as its job wrote it):",
                    *lines,
                    *more,
                ]
            )
        )
    if not frames:
        raise ValueError("collect: no result file given")
    return pd.concat(frames, ignore_index=True)


PAPER_COLUMNS = ["paper", "artifact", "dataset", "method", "metric", "value", "std", "note"]
"""The columns of config/paper_results.csv (the papers' numbers as printed)."""


def paper_rows(paper_csv, paper: str, artifact: str) -> list[dict]:
    """The rows of ``paper_csv`` (config/paper_results.csv) of one paper's table or figure, as
    records of text (columns :data:`PAPER_COLUMNS`, empty text for an empty cell).

    A table rule takes them as a ``params`` value: Snakemake reruns a job whose params changed,
    so editing one of the paper's numbers reruns the tables that show it and no other (the file
    as an input would rerun every table on any edit; as a path in params, none)."""
    ref = pd.read_csv(paper_csv, dtype=str, keep_default_na=False)
    missing = set(PAPER_COLUMNS) - set(ref.columns)
    if missing:
        raise ValueError(f"{paper_csv}: missing column(s) {sorted(missing)}")
    ref = ref[(ref.paper == paper) & (ref.artifact == artifact)]
    return ref[PAPER_COLUMNS].to_dict("records")


def paper_frame(rows) -> pd.DataFrame:
    """:func:`paper_rows` records as a frame with ``value`` and ``std`` as floats (NaN for an
    empty ``std``); raises ``ValueError`` for a ``value`` that is not a number."""
    df = pd.DataFrame(list(rows), columns=PAPER_COLUMNS)
    df["value"] = pd.to_numeric(df["value"])
    df["std"] = pd.to_numeric(df["std"].replace("", np.nan))
    return df


def add_ranks(summary: pd.DataFrame, higher_is_better: bool = True) -> pd.DataFrame:
    """``summary`` (one row per dataset and algorithm, :func:`summarize`) with a ``rank`` column:
    within each dataset the rank of the row's mean among the rows with status "ok", 1 = best,
    ties sharing their average rank (``scipy.stats.rankdata``); NaN for rows without a number."""
    from scipy.stats import rankdata

    out = summary.copy()
    out["rank"] = np.nan
    have = out[(out.status == "ok") & out["mean"].notna()]
    for _, idx in have.groupby("dataset").groups.items():
        vals = out.loc[idx, "mean"].to_numpy(float)
        out.loc[idx, "rank"] = rankdata(-vals if higher_is_better else vals)
    return out


def friedman_nemenyi(block: pd.DataFrame, higher_is_better: bool = True) -> dict:
    """The Friedman test (``scipy.stats.friedmanchisquare``) and the Nemenyi post-hoc test of
    every pair (``scikit_posthocs.posthoc_nemenyi_friedman``) on ``block``: datasets x methods,
    a number in every cell. The degenerate blocks are decided here, before scipy is called:

    * fewer than 2 datasets or 3 methods: not computed (the Friedman statistic needs two blocks
      and scipy three groups); ``friedman_stat`` and ``friedman_p`` NaN, ``p_nemenyi`` empty and
      ``not_computed`` saying why;
    * every method tied on every dataset (each row constant): no difference, chi2 = 0 and p = 1,
      and every Nemenyi p = 1 (scipy's tie correction divides 0 by 0 and returns NaN here);
      ``note`` says so.

    Otherwise scipy's chi2 and p (with its tie correction) and scikit-posthocs' p-values, which
    are then finite. Returns {"friedman_stat", "friedman_p", "p_nemenyi" (method x method),
    "not_computed": "" or why, "note": "" or what was decided}. Raises ``ValueError`` for a
    NaN or infinite cell (:func:`rank_comparison` passes only complete blocks)."""
    import scikit_posthocs as sp
    from scipy.stats import friedmanchisquare

    n, k = block.shape
    out = {
        "friedman_stat": np.nan,
        "friedman_p": np.nan,
        "p_nemenyi": pd.DataFrame(),
        "not_computed": "",
        "note": "",
    }
    if n < 2 or k < 3:
        out["not_computed"] = (
            f"not computed: {n} dataset(s) with a number for every one of {k} method(s); "
            "the Friedman test needs at least 2 datasets and 3 methods"
        )
        return out
    values = block.to_numpy(float)
    if not np.isfinite(values).all():
        raise ValueError("friedman_nemenyi: a NaN or infinite cell in the block")
    methods = list(block.columns)
    if (values == values[:, :1]).all():
        out.update(
            friedman_stat=0.0,
            friedman_p=1.0,
            p_nemenyi=pd.DataFrame(1.0, index=methods, columns=methods),
            note="every method ties on every dataset: no difference (chi2 = 0, p = 1)",
        )
        return out
    stat, p = friedmanchisquare(*values.T)
    nemenyi = sp.posthoc_nemenyi_friedman(-values if higher_is_better else values)
    out.update(
        friedman_stat=float(stat),
        friedman_p=float(p),
        p_nemenyi=nemenyi.set_axis(methods, axis=0).set_axis(methods, axis=1),
    )
    return out


def rank_comparison(summary: pd.DataFrame, higher_is_better: bool = True) -> dict:
    """Methods compared over datasets as Demšar (JMLR 2006) recommends: average ranks, the
    Friedman test and the Nemenyi post-hoc test of every pair (:func:`friedman_nemenyi`: scipy
    and scikit-posthocs), on the mean per (dataset, method) of the methods that have a number on
    every dataset that has one for all of them (a complete block).

    Returns {"avg_rank": Series (method -> average rank, 1 = best, ascending), "p_nemenyi":
    DataFrame (method x method p-values), "friedman_stat", "friedman_p", "n_datasets",
    "datasets", "left_out": methods without a number on every dataset, "not_computed": "" or
    why the tests were not run, "note": "" or a degenerate case decided}; with fewer than 2
    datasets or 3 methods the tests are not computed: ``not_computed`` says so, their values
    are NaN and ``p_nemenyi`` empty; every method tied on every dataset gives chi2 = 0, p = 1.
    """
    ok = summary[summary.status == "ok"]
    table = ok.pivot(index="dataset", columns="algorithm", values="mean")
    order = list(dict.fromkeys(summary.algorithm))
    table = table.reindex(columns=[m for m in order if m in table.columns])
    complete = table.dropna(axis=1, how="any")
    left_out = [m for m in order if m not in complete.columns]
    ranks = add_ranks(
        complete.stack().rename("mean").reset_index().assign(status="ok"), higher_is_better
    )
    avg = ranks.groupby("algorithm")["rank"].mean().sort_values()
    return {
        "avg_rank": avg,
        "n_datasets": len(complete),
        "datasets": list(complete.index),
        "left_out": left_out,
        **friedman_nemenyi(complete, higher_is_better),
    }


def rank_frame(comparison: dict) -> pd.DataFrame:
    """The average ranks of :func:`rank_comparison` as a one-column frame (best first)."""
    return comparison["avg_rank"].round(2).rename("average rank").to_frame()


def rank_lines(comparison: dict, metric: str, diagram: bool = True) -> list[str]:
    """Caption lines and a Markdown table of :func:`rank_comparison`'s result (one line saying
    why where the tests were not computed; the decided case, e.g. all tied, named). The
    critical-difference diagram is named only where one is drawn (``diagram``)."""
    c = comparison
    if c["not_computed"]:
        return [f"Ranks over datasets ({metric}): {c['not_computed']}."]
    head = (
        f"Average rank over the {c['n_datasets']} datasets every ranked method ran on "
        f"({', '.join(c['datasets'])}; 1 = best {metric}): Friedman chi2 = "
        f"{c['friedman_stat']:.2f}, p = {c['friedman_p']:.3g}; Nemenyi post-hoc p-values of every "
        "pair (scikit-posthocs) below"
        + (
            ", and the critical-difference diagram (methods joined by a bar do not differ at 0.05)"
            if diagram
            else ""
        )
        + ". With this few datasets the tests have little power: read the ranks, not the "
        "significance."
    )
    if c.get("note"):
        head += f" Here {c['note']}."
    if c["left_out"]:
        head += f" Not ranked (a dataset without a number): {', '.join(c['left_out'])}."
    frame = rank_frame(c)
    order = list(c["avg_rank"].index)
    p = c["p_nemenyi"].reindex(index=order, columns=order).map(lambda v: f"{v:.3f}")
    return [head, "", frame.to_markdown(), "", "Nemenyi p-values:", "", p.to_markdown(), ""]


PROTOCOLS = {
    "paper": "the paper's protocol (settings it states; the rest listed as ours)",
    "ours": "our variant (tuned or bounded by us)",
    "reconstructed": "a cited method whose paper is not at hand, rebuilt by us (unverified)",
    "not-in-paper": "not in the paper's table",
    "unspecified": "the paper states none of its settings",
}
"""Values of a method's ``notes.protocol`` in the config, and what each means in a caption."""


def settings_table(methods: dict) -> pd.DataFrame:
    """Settings provenance of a table's rows, from a config ``methods`` block.

    ``methods``: row name -> method config; each may carry ``notes: {protocol, paper, ours}``
    (schema: ``definitions/notes``). Returns one row per method, in the block's order, with columns
    ``algorithm`` (the row name), ``protocol`` (one of :data:`PROTOCOLS`, "unmarked" when the config
    says nothing), ``paper_settings`` (what the paper states) and ``our_settings`` (what we chose).
    A row of an external learner (``algorithm`` a dotted path, :mod:`tripletbench.algorithms.external`) is
    "not-in-paper" unless its notes say otherwise, and ``our_settings`` names the library class and
    the constraint kind it was given.
    """
    from tripletbench.algorithms import learner_class
    from tripletbench.algorithms.external import is_external

    rows = []
    for name, mcfg in methods.items():
        mcfg = mcfg or {}
        notes = mcfg.get("notes") or {}
        algorithm = mcfg.get("algorithm", name)
        external = is_external(algorithm)
        ours = notes.get("ours", "")
        if external:
            kind = mcfg.get("constraints") or learner_class(algorithm).constraint_kind
            ours = "; ".join(s for s in (f"{algorithm} (constraints: {kind})", ours) if s)
        rows.append(
            {
                "algorithm": name,
                "protocol": notes.get("protocol", "not-in-paper" if external else "unmarked"),
                "paper_settings": notes.get("paper", ""),
                "our_settings": ours,
            }
        )
    return pd.DataFrame(rows, columns=["algorithm", "protocol", "paper_settings", "our_settings"])


def settings_caption(methods: dict) -> list[str]:
    """Caption lines that tell apart, per row, the settings the paper states and those we chose.

    One Markdown bullet per method of ``methods`` (a config ``methods`` block): ``name [protocol]:
    paper: ...; ours: ...``; rows without notes are listed as "unmarked"."""
    lines = ["Settings per row (paper = stated in the paper; ours = our choice):", ""]
    for r in settings_table(methods).itertuples(index=False):
        parts = []
        if r.paper_settings:
            parts.append(f"paper: {r.paper_settings}")
        if r.our_settings:
            parts.append(f"ours: {r.our_settings}")
        what = PROTOCOLS.get(r.protocol, "not marked in the config")
        lines.append(
            f"* **{r.algorithm}** [{r.protocol}: {what}]"
            + (": " + "; ".join(parts) if parts else "")
        )
    return lines


def reconstructed_notes(runs: pd.DataFrame, methods: dict, datasets: list[str]) -> list[str]:
    """Caption lines for the rows marked ``reconstructed`` (a method of a cited paper we do not
    have): what the label means and, where the cells recorded it (online ITML's
    ``zeroed_step_fraction``), the share of steps its unverified rate bound set to zero on each
    dataset, mean over the seeds' final fits."""
    from .experiment import test_rows

    final = test_rows(runs)
    zeroed = final[final.metric == "zeroed_step_fraction"]
    zeroed = zeroed.groupby(["algorithm", "dataset"]).value.mean()
    lines = []
    for r in settings_table(methods).itertuples(index=False):
        if r.protocol != "reconstructed":
            continue
        line = (
            f"{r.algorithm} [reconstructed]: a method of a cited paper we do not have, rebuilt "
            "from secondary sources; its settings are ours and unverified."
        )
        shares = [
            f"{d} {zeroed[(r.algorithm, d)]:.0%}"
            for d in datasets
            if (r.algorithm, d) in zeroed.index
        ]
        if shares:
            line += (
                " Its rate bound set the step to zero on a share of the final fit's pairs: "
                + ", ".join(shares)
                + " (mean over seeds)."
            )
        lines.append(line)
    return lines


def paper_values_for_rows(paper: pd.DataFrame, methods: dict) -> pd.DataFrame:
    """The paper's values (a ``paper_values`` frame: dataset, algorithm, paper, paper_method)
    re-keyed to the rows of a config ``methods`` block: a row whose notes mark it ``paper``,
    ``ours`` or ``unspecified`` carries the value of the paper's method named by the row's name up
    to its first "-" (ITML-online -> ITML, OASIS-authors-C -> OASIS, SDCA-random -> SDCA), so
    several rows can carry the same value, each with that method in ``paper_method``;
    ``not-in-paper`` rows carry none; rows without notes only their own name's."""
    in_paper = set(paper.paper_method)
    parts = []
    for r in settings_table(methods).itertuples(index=False):
        if r.protocol == "not-in-paper":
            continue
        base = r.algorithm if r.protocol == "unmarked" else r.algorithm.split("-")[0]
        if base in in_paper:
            parts.append(paper[paper.paper_method == base].assign(algorithm=r.algorithm))
    if not parts:
        return paper.iloc[:0]
    return pd.concat(parts, ignore_index=True)


#: What a table file needs in the preamble of the document that ``\input``s it (written at the top
#: of every ``.tex`` as a comment; the compile test uses exactly these).
LATEX_PREAMBLE = (
    r"\usepackage[utf8]{inputenc}",
    r"\usepackage{booktabs}",
    r"\usepackage{graphicx}",
    r"\usepackage{float}",  # [H]: each table where it stands, its notes after it
)

#: Symbols of our captions and cells that LaTeX's utf8 input encoding does not know, as LaTeX.
LATEX_SYMBOLS = {
    "±": r"$\pm$",
    "•": r"$\bullet$",
    "◦": r"$\circ$",
    "×": r"$\times$",
    "−": r"$-$",
    "≤": r"$\leq$",
    "≥": r"$\geq$",
    "≈": r"$\approx$",
    "→": r"$\rightarrow$",
    "…": r"\ldots{}",
    "·": r"$\cdot$",
    "–": "--",
    "—": "---",
    "<": r"$<$",  # the default OT1 font encoding prints < > | as other glyphs
    ">": r"$>$",
    "|": r"$|$",
    # more symbols a note may hold (settings provenance is free text): math, arrows, typography
    "≠": r"$\neq$",
    "≡": r"$\equiv$",
    "∼": r"$\sim$",
    "≃": r"$\simeq$",
    "≪": r"$\ll$",
    "≫": r"$\gg$",
    "∝": r"$\propto$",
    "∞": r"$\infty$",
    "∈": r"$\in$",
    "∉": r"$\notin$",
    "⊂": r"$\subset$",
    "⊆": r"$\subseteq$",
    "∩": r"$\cap$",
    "∪": r"$\cup$",
    "∅": r"$\emptyset$",
    "∀": r"$\forall$",
    "∃": r"$\exists$",
    "∂": r"$\partial$",
    "∇": r"$\nabla$",
    "∑": r"$\sum$",
    "∏": r"$\prod$",
    "∫": r"$\int$",
    "√": r"$\surd$",
    "∘": r"$\circ$",
    "⊕": r"$\oplus$",
    "⊗": r"$\otimes$",
    "⊤": r"$\top$",
    "⊥": r"$\perp$",
    "∗": r"$\ast$",
    "⋅": r"$\cdot$",
    "÷": r"$\div$",
    "¬": r"$\neg$",
    "∧": r"$\wedge$",
    "∨": r"$\vee$",
    "‖": r"$\|$",
    "ℓ": r"$\ell$",
    "′": r"$'$",
    "″": r"$''$",
    "←": r"$\leftarrow$",
    "↔": r"$\leftrightarrow$",
    "⇒": r"$\Rightarrow$",
    "⇐": r"$\Leftarrow$",
    "⇔": r"$\Leftrightarrow$",
    "↑": r"$\uparrow$",
    "↓": r"$\downarrow$",
    "°": r"$^{\circ}$",
    "¹": r"$^{1}$",
    "²": r"$^{2}$",
    "³": r"$^{3}$",
    "½": r"$\frac{1}{2}$",
    "µ": r"$\mu$",  # the micro sign (U+00B5), not Greek mu
    "‘": "`",
    "’": "'",
    "“": "``",
    "”": "''",
    "«": r"$\ll$",
    "»": r"$\gg$",
    "‐": "-",
    "‑": "-",
    "‒": "--",
    "\u00a0": "~",  # no-break space
    "\u2009": r"\,",  # thin space
    "\u202f": r"\,",  # narrow no-break space
    "\u00ad": r"\-",  # soft hyphen
    "\u200b": "",  # zero-width space
    "\ufeff": "",
    "ß": r"\ss{}",
    "æ": r"\ae{}",
    "Æ": r"\AE{}",
    "œ": r"\oe{}",
    "Œ": r"\OE{}",
    "ø": r"\o{}",
    "Ø": r"\O{}",
    "ł": r"\l{}",
    "Ł": r"\L{}",
    "ı": r"\i{}",
    "¡": "!`",
    "¿": "?`",
    "§": r"\S{}",
    "¶": r"\P{}",
    "©": r"\copyright{}",
    "£": r"\pounds{}",
    "€": "EUR",
    "†": r"\dag{}",
    "‡": r"\ddag{}",
}
#: Greek letters as math (λ: ``$\lambda$``); the capitals that look Latin are Latin letters.
_GREEK = (
    "alpha beta gamma delta varepsilon zeta eta theta iota kappa lambda mu nu xi o pi rho "
    "varsigma sigma tau upsilon varphi chi psi omega"
).split()
LATEX_SYMBOLS.update(
    {chr(0x3B1 + i): (r"$\%s$" % n if n != "o" else "o") for i, n in enumerate(_GREEK)}
)
LATEX_SYMBOLS.update(
    {
        chr(0x391 + i): (r"$\%s$" % n if n[0].isupper() else n)
        for i, n in enumerate(
            "A B Gamma Delta E Z H Theta I K Lambda M N Xi O Pi P _ Sigma T Upsilon Phi X Psi "
            "Omega".split()
        )
        if n != "_"
    }
)
LATEX_SYMBOLS.update({"ϵ": r"$\epsilon$", "ϑ": r"$\vartheta$", "ϕ": r"$\phi$", "ϖ": r"$\varpi$"})
#: Combining accents (after Unicode decomposition, NFD) as LaTeX accent commands (OT1 has them).
LATEX_ACCENTS = {
    "\u0300": r"\`",
    "\u0301": r"\'",
    "\u0302": r"\^",
    "\u0303": r"\~",
    "\u0304": r"\=",
    "\u0306": r"\u",
    "\u0307": r"\.",
    "\u0308": r"\"",
    "\u030a": r"\r",
    "\u030b": r"\H",
    "\u030c": r"\v",
    "\u0327": r"\c",
}
_LATEX_SPECIALS = {c: "\\" + c for c in "&%$#_{}"}
_LATEX_SPECIALS.update({"\\": r"\textbackslash{}", "^": r"\^{}", "~": r"\~{}"})


@functools.lru_cache(maxsize=None)
def latex_char(ch: str) -> str:
    """One non-ASCII character as LaTeX that pdflatex compiles with the preamble of
    :data:`LATEX_PREAMBLE`, whatever the character: :data:`LATEX_SYMBOLS` (λ, ≈, ±, •, ◦, –,
    ...), else a letter with accents as accent commands (é: ``\\'{e}``), else its compatibility
    form where that is ASCII (ﬁ: fi), else its Unicode name in brackets (``[check mark]``), so
    that no character can stop the compile and none vanishes without a trace."""
    import unicodedata

    if ch in LATEX_SYMBOLS:
        return LATEX_SYMBOLS[ch]
    if ch.isascii():
        return ch
    if unicodedata.combining(ch):
        return ""  # a lone combining mark (the text is composed first, NFC)
    base, *marks = unicodedata.normalize("NFD", ch)
    if marks and base.isascii() and base.isalpha() and all(m in LATEX_ACCENTS for m in marks):
        out = {"i": r"\i", "j": r"\j"}.get(base, base)
        for m in marks:
            out = LATEX_ACCENTS[m] + "{" + out + "}"
        return out
    compat = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    if compat and compat.isascii() and compat.isprintable():
        return "".join(_LATEX_SPECIALS.get(c, LATEX_SYMBOLS.get(c, c)) for c in compat)
    if compat and all(c in LATEX_SYMBOLS for c in compat):
        return "".join(LATEX_SYMBOLS[c] for c in compat)
    if unicodedata.category(ch) == "Cc":
        return " "  # a control character (C1)
    name = unicodedata.name(ch, "")
    return f"[{name.lower()}]" if name else f"[U+{ord(ch):04X}]"


def latex_symbols(tex: str) -> str:
    """``tex`` with every symbol of :data:`LATEX_SYMBOLS` and every other non-ASCII character
    written as LaTeX (:func:`latex_char`; the text is composed first, Unicode NFC): a note with
    λ or any other character compiles with pdflatex."""
    import unicodedata

    tex = unicodedata.normalize("NFC", tex)
    return "".join(latex_char(ch) if ch in LATEX_SYMBOLS or not ch.isascii() else ch for ch in tex)


def latex_text(text: str) -> str:
    """Plain text for LaTeX: Markdown emphasis (**) dropped, LaTeX's special characters
    (& % $ # _ { } \\ ^ ~) escaped and the symbols of :data:`LATEX_SYMBOLS` and every other
    non-ASCII character written as LaTeX (:func:`latex_symbols`)."""
    return latex_symbols("".join(_LATEX_SPECIALS.get(ch, ch) for ch in text.replace("**", "")))


def latex_notes(lines: list[str]) -> str:
    """Caption lines (the Markdown subset our captions use: paragraphs, ``* `` bullets,
    ``**bold**``, ``#`` headings; pipe tables are left out, the float shows the table) as LaTeX
    paragraphs and an ``itemize`` list, every text escaped (:func:`latex_text`)."""
    import re

    def inline(text):
        parts = re.split(r"\*\*(\S(?:.*?\S)?)\*\*", text)  # odd parts were bold
        return "".join(
            (r"\textbf{" + latex_text(p) + "}") if i % 2 else latex_text(p)
            for i, p in enumerate(parts)
        )

    out, in_list = [], False
    for line in lines:
        text = line.strip()
        if text.startswith("|"):
            continue
        bullet = text.startswith(("* ", "- "))
        if in_list and not bullet:
            out.append(r"\end{itemize}")
            in_list = False
        if not text:
            continue
        if bullet:
            if not in_list:
                out.append(r"\begin{itemize}\itemsep 0pt")
                in_list = True
            out.append(r"\item " + inline(text[2:]))
        elif text.startswith("#"):
            out.append(r"\textbf{" + inline(text.lstrip("#").strip()) + r"}\par")
        else:
            out.append(inline(text) + r"\par")
    if in_list:
        out.append(r"\end{itemize}")
    return "\n".join(out)


def latex_tabular(df) -> str:
    """``df`` (a frame, or a pandas Styler whose CSS ``font-weight: bold`` marks cells) as a
    booktabs ``tabular`` through pandas' Styler (cells, row and column labels escaped, missing
    cells "--", bold as ``\\bfseries``), its symbols written as LaTeX."""
    from pandas.io.formats.style import Styler

    sty = df if isinstance(df, Styler) else df.style
    sty = sty.format(escape="latex", na_rep="–").format_index(escape="latex", axis=0)
    sty = sty.format_index(escape="latex", axis=1)
    return latex_symbols(sty.to_latex(hrules=True, multicol_align="c", convert_css=True))


def latex_tables(name: str, floats: list, notes: list[str]) -> str:
    """A table's ``.tex`` file: the preamble it needs as a comment (:data:`LATEX_PREAMBLE`), one
    ``table`` float per ``(short caption, frame)`` of ``floats`` (label ``tab:NAME`` or
    ``tab:NAME-2``, ...; a tabular wider than the text is scaled down to ``\\linewidth``), and then
    ``notes`` (caption lines, :func:`latex_notes`) as a footnote-size paragraph outside the
    floats, so that a long provenance breaks across pages instead of overfilling a float. The
    floats are placed here (``[H]``, the float package), so the notes come after their tables,
    never on a page before them.

    Short captions are plain text (escaped here). Returns the file's text."""
    labels = [f"tab:{name}" + (f"-{i + 1}" if i else "") for i in range(len(floats))]
    out = [f"% {name}: generated by tripletbench. Preamble needed:"]
    out += [f"%   {p}" for p in LATEX_PREAMBLE]
    for label, (short, df) in zip(labels, floats):
        out += [
            r"\begin{table}[H]",
            r"\centering",
            r"\caption{" + latex_text(short) + r"}\label{" + label + "}",
            r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%",
            latex_tabular(df).rstrip() + "}",
            r"\end{table}",
        ]
    if notes:
        refs = ", ".join(r"\ref{" + lab + "}" for lab in labels)
        out += [
            r"\begin{footnotesize}\sloppy",
            r"\noindent\textbf{Notes to table"
            + ("s" if len(labels) > 1 else "")
            + "~"
            + refs
            + r".}\par",
            latex_notes(notes),
            r"\end{footnotesize}",
        ]
    return "\n".join(out) + "\n"


def mean_std(mean, std, n, digits=4) -> str:
    """ "mean ± std" with ``digits`` decimals; the spread is "n/a" over fewer than two seeds
    (``n``), where a standard deviation is undefined."""
    spread = f"{std:.{digits}f}" if n > 1 and not pd.isna(std) else "n/a"
    return f"{mean:.{digits}f} ± {spread}"


def win_tie_loss(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """Counts of "win", "tie" and "loss" in ``column`` of ``frame`` per algorithm (the three
    columns always present; rows with another value, e.g. "" for the reference itself or "n/a"
    where fewer than two runs were paired and no test ran, left out)."""
    got = frame[frame[column].isin(["win", "tie", "loss"])]
    out = got.groupby(["algorithm", column]).size().unstack(fill_value=0)
    return out.reindex(columns=["win", "tie", "loss"], fill_value=0)
