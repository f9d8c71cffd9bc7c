"""The settings the OAHU paper (Gao et al., WWW 2019) states for each table and figure we
reproduce, and OAHU's own hyperparameters (section 4.3.2) beside ours."""

from __future__ import annotations

from tripletbench.harness.paper_settings import PaperSettings, Stated, paper_method, show

OAHU = "Gao et al., WWW 2019"
_OAHU_CLASSIFY = f"{OAHU}, section 4.3.2"
_OAHU_NETWORK = {  # OAHU's own hyperparameters (the learner's names), section 4.3.2
    "beta": Stated(0.99, "0.99", _OAHU_CLASSIFY),
    "n_hidden_layers": Stated(5, "5", _OAHU_CLASSIFY),
    "n_hidden": Stated(100, "100", _OAHU_CLASSIFY),
    "s": Stated(0.1, "0.1", _OAHU_CLASSIFY),
    "eta": Stated(0.3, "0.3", _OAHU_CLASSIFY),
    "embedding_dim": Stated(50, "50", _OAHU_CLASSIFY),
    "n_epochs": Stated(1, "one pass", f"{OAHU}, section 3 (online, one pass over the stream)"),
}
_OAHU_K = Stated(None, "", f"{OAHU}, section 3.6.1 names k without a value")


PAPER = PaperSettings(
    {
        "oahu_table3": {
            "n_runs": Stated(10, "10 runs", _OAHU_CLASSIFY),
            "n_samples": Stated("all", "all samples", _OAHU_CLASSIFY),
            "n_constraints": Stated((5000, 5000), "5,000 + 5,000", _OAHU_CLASSIFY),
            "cv_folds": Stated(10, "10-fold cross-validation", _OAHU_CLASSIFY),
            "k": _OAHU_K,
            **_OAHU_NETWORK,
        },
        "figure_oahu_4": {
            "n_runs": Stated(10, "10 runs", _OAHU_CLASSIFY + " (all classification results)"),
            "n_samples": Stated("all", "all samples", _OAHU_CLASSIFY),
            "n_constraints": Stated(
                (5000, 5000), "5,000 + 5,000, subsampled", f"{OAHU}, section 4.3.4, footnote 7"
            ),
            "k": _OAHU_K,
            **_OAHU_NETWORK,
        },
        "figure_oahu_5": {
            "n_folds": Stated(10, "10", f"{OAHU}, section 4.4.1 (LFW View 2)"),
            "n_pairs": Stated(300, "300", f"{OAHU}, section 4.4.1 (LFW View 2)"),
            "n_constraints": Stated(
                (5000, 5000), "10,000 in total, made as in section 4.3.2", f"{OAHU}, section 4.4.2"
            ),
            **_OAHU_NETWORK,
        },
        "figure_oahu_7": {
            "n_runs": Stated(None, "", f"{OAHU}, section 4.5"),
            "n_constraints": Stated((25_000, 25_000), "25,000 + 25,000", f"{OAHU}, section 4.5.2"),
            **_OAHU_NETWORK,
        },
    }
)
"""artifact (the rule's table or figure name) -> setting -> what the paper states
(:class:`tripletbench.harness.paper_settings.PaperSettings`)."""

stated, note, vs_paper = PAPER.stated, PAPER.note, PAPER.vs_paper
differs, comparison_note = PAPER.differs, PAPER.comparison_note


#: OAHU's own hyperparameters (learner names) as a caption words them.
OAHU_WORDS = {
    "beta": lambda v: f"beta {show(v)}",
    "n_hidden_layers": lambda v: f"L {show(v)}",
    "n_hidden": lambda v: f"{show(v)} hidden units",
    "s": lambda v: f"s {show(v)}",
    "eta": lambda v: f"eta {show(v)}",
    "embedding_dim": lambda v: f"{show(v)}-d embeddings",
    "n_epochs": lambda v: "one pass" if v == 1 else f"{show(v)} passes",
}


def oahu_rows(methods: dict) -> list[str]:
    """The rows of ``methods`` that are the paper's OAHU (algorithm OAHU, not marked
    not-in-paper)."""
    return [
        m
        for m, c in methods.items()
        if (c or {}).get("algorithm", m) == "OAHU" and paper_method(m, c) == "OAHU"
    ]


def oahu_settings(artifact: str, fixed: dict) -> list[tuple]:
    """(key, ours, words) of OAHU's own settings: the row's fixed values, else the learner's
    defaults, which are the paper's values (checked by tests/test_captions.py)."""
    out = []
    for key, words in OAHU_WORDS.items():
        ours = fixed.get(key, stated(artifact, key).value)
        out.append((key, ours, words(ours)))
    return out


def oahu_own_settings(artifact: str, methods: dict) -> str:
    """Caption sentence (with a leading space; "" without an OAHU row): OAHU's own settings that
    the paper states (section 4.3.2), ours beside the paper's where they differ."""
    out = []
    for m in oahu_rows(methods):
        settings = oahu_settings(artifact, methods[m].get("fixed") or {})
        equal = [w for k, v, w in settings if not differs(artifact, k, v)]
        other = [vs_paper(artifact, k, v, w) for k, v, w in settings if differs(artifact, k, v)]
        out.append(
            f" {m}'s own settings: "
            + "; ".join(other + ([", ".join(equal) + " (as the paper)"] if equal else []))
            + "."
        )
    return "".join(out)
