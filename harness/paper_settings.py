"""The settings each paper states for each of its tables and figures that we reproduce, in one
place, and the words a caption uses to set ours beside them.

A caption that states one of our settings which the paper states too (a split fraction, a number
of triplets, of runs, a grid, k, a size, C, ...) names it with :func:`vs_paper` (or
:func:`note`): "2,000 class-based random triplets per seed (the paper: 10K per standard data
set)" where ours differs, "... (as the paper)" where it is the paper's, "... (the paper states
none)" where the paper is silent. A config value is never labelled as the paper's: the paper's
value comes from :data:`PAPER_SETTINGS` only. Where a caption compares our numbers with the
paper's, :func:`comparison_note` says which of the settings behind them differ.

OAHU's own hyperparameters (section 4.3.2) are compared through :func:`oahu_own_settings`: a
config row's fixed values, else the learner's defaults (the paper's values; a test holds them
equal).

No project imports here: the table and figure scripts import this module, and its code hash
(:mod:`tripletbench.harness.settings`) should cover this file alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SDCA = "Wu et al., AAAI 2014"
OASIS = "Chechik et al., OASIS"
OAHU = "Gao et al., WWW 2019"
SJ = "Schultz & Joachims, NIPS 2003"


@dataclass(frozen=True)
class Stated:
    """One setting as a paper states it. ``value``: compared with ours (None: the paper states
    none); ``text``: the paper's value as a caption names it (for None, optional words on what
    the paper gives instead); ``source``: the paper and the section that says it; ``paper``: who
    states it, as a caption names it; ``scope``: where the paper says it, when that is not the
    artifact itself ("for Figure 2"), named in either case."""

    value: object
    text: str = ""
    source: str = ""
    paper: str = "the paper"
    scope: str = ""


_SDCA_SETUP = f"{SDCA}, section 'Experimental Testbed and Setup'"
_SDCA_GRIDS = f"{_SDCA_SETUP}: the parameters set by cross-validation"
_SDCA_LARGE = f"{SDCA}, section 'Evaluation on the Large-scale Dataset'"
_SDCA_CALTECH = f"{SDCA}, section 'Evaluation on the Caltech256 Dataset'"
_OASIS_CALTECH = f"{OASIS}, section 4.2 (Caltech256 dataset)"
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

PAPER_SETTINGS: dict[str, dict[str, Stated]] = {
    # SDCA paper (Wu et al., AAAI 2014)
    "sdca_table2": {
        "n_runs": Stated(
            5, "5 runs", f"{SDCA}, section 'Evaluation on the Standard Datasets': 5 random seeds"
        ),
        "train_fraction": Stated(0.7, "70/30 per class", _SDCA_SETUP),
        "fit_fraction": Stated(0.8, "80% of the training set", _SDCA_SETUP),
        "n_triplets": Stated(10_000, "10K per standard data set", _SDCA_SETUP),
        "grid.SDCA": Stated([0.0025, 0.005, 0.01], "lambda in {0.0025, 0.005, 0.01}", _SDCA_GRIDS),
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
    "table4_scaling": {  # Table 4's code path at configured sizes (synthetic features)
        "n_triplets": Stated(500_000, "500K", _SDCA_LARGE),
        "n_background": Stated(1_000_000, "about one million", _SDCA_LARGE),
        "d": Stated(297, "297", _SDCA_LARGE),
        "n_ground_truth": Stated(None, "", _SDCA_LARGE + " (ImageCLEF's size not given)"),
    },
    "figure_sdca_1": {  # and Figure 2 (the same runs)
        "n_triplets": Stated(100_000, "100K on Caltech-256", _SDCA_CALTECH),
        "n_steps": Stated(100_000, "about 100K iterations", _SDCA_CALTECH + ", Figure 1's text"),
        "oasis_C": Stated(None, "", _SDCA_CALTECH),
        "sdca_lam": Stated(None, "", _SDCA_CALTECH),
        "n_runs": Stated(None, "", _SDCA_CALTECH),
    },
    # OASIS paper (Chechik et al.)
    "figure_oasis_2": {
        "n_train_per_class": Stated(40, "40", _OASIS_CALTECH),
        "n_test_per_class": Stated(None, "", _OASIS_CALTECH + " (the text at hand)"),
        "n_triplets": Stated(None, "", _OASIS_CALTECH),
        "n_runs": Stated(None, "", _OASIS_CALTECH + ": error bars are s.e.m."),
        "class_subsets": Stated([10, 20, 50], "10, 20 and 50 classes", _OASIS_CALTECH),
    },
    "figure_oasis_3": {
        "n_triplets": Stated(None, "", f"{OASIS}, section 4.3"),
        "n_steps": Stated(None, "", f"{OASIS}, section 4.3"),
        "oasis_C": Stated(None, "", f"{OASIS}, section 4.3"),
        "n_queries": Stated(None, "", f"{OASIS}, section 4.3"),
        "n_runs": Stated(None, "", f"{OASIS}, section 4.3"),
        "class_subset": Stated(20, "its 20-class subset", f"{OASIS}, section 4.3.1, Figure 3"),
    },
    "oasis_table2": {
        "n_triplets": Stated(None, "", _OASIS_CALTECH + " (runtime table)", "the OASIS paper"),
        "n_runs": Stated(None, "", _OASIS_CALTECH + " (runtime table)", "the OASIS paper"),
        "class_subsets": Stated(
            [10, 20, 50, 249], "10, 20, 50 and 249 classes", _OASIS_CALTECH, "the OASIS paper"
        ),
    },
    # OAHU paper (Gao et al., WWW 2019)
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
    # Schultz & Joachims (NIPS 2003), section 5
    "svm_table1": {
        "n_runs": Stated(None, "", f"{SJ}, section 5"),
        "train_fraction": Stated(0.7, "70/30", f"{SJ}, section 5"),
        "C": Stated(1.0, "C = 1", f"{SJ}, section 5 (Table 1: C = 1, A = I)"),
        "n_test_triplets": Stated(
            85_907, "85,907", f"{SJ}, section 5, Figure 2", scope="for Figure 2"
        ),
        "n_train_triplets": Stated(None, "", f"{SJ}, section 5 (Table 1)"),
        "n_universities": Stated(7, "seven, not named", f"{SJ}, section 5"),
        "n_documents": Stated(4183, "4,183", f"{SJ}, section 5"),
        "n_features": Stated(63_949, "63,949", f"{SJ}, section 5"),
    },
    "figure_svm_2": {
        "n_runs": Stated(None, "", f"{SJ}, section 5"),
        "C": Stated(1.0, "C = 1", f"{SJ}, section 5"),
        "n_test_triplets": Stated(85_907, "85,907", f"{SJ}, section 5, Figure 2"),
        "plateau": Stated(150_000, "flat past 150,000", f"{SJ}, section 5, Figure 2"),
    },
    "figure_svm_mds": {
        "C": Stated(1.0, "C = 1", f"{SJ}, section 5"),
        "n_items": Stated("all", "all of X_test", f"{SJ}, section 5 (MDS plots)"),
    },
}
"""artifact (the rule's table or figure name) -> setting -> what the paper states. Keys name
our settings (config keys where there is one; ``n_runs`` = number of seeds, ``grid.<method>`` =
the method's validation grid, OAHU's learner hyperparameters by their learner names)."""


def stated(artifact: str, key: str) -> Stated:
    """What the paper states for ``key`` of ``artifact`` (:data:`PAPER_SETTINGS`)."""
    return PAPER_SETTINGS[artifact][key]


def show(value) -> str:
    """Our value as a caption prints it: integers with thousands separators, floats short."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.0f}" if value.is_integer() and abs(value) >= 1000 else f"{value:g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show(v) for v in value) + "]"
    return str(value)


def same(ours, paper) -> bool:
    """Whether our value is the paper's: numbers to rounding, sequences element by element (a
    list in any order: a grid), anything else by equality."""
    if isinstance(ours, (list, tuple)) and isinstance(paper, (list, tuple)):
        if len(ours) != len(paper):
            return False
        a, b = (sorted(ours), sorted(paper)) if isinstance(paper, list) else (ours, paper)
        return all(same(x, y) for x, y in zip(a, b))
    number = (int, float)
    if isinstance(ours, number) and isinstance(paper, number):
        return math.isclose(float(ours), float(paper), rel_tol=1e-9, abs_tol=1e-12)
    return ours == paper


def note(artifact: str, key: str, ours) -> str:
    """The words after our value: "(as the paper)" where ``ours`` is the paper's value, "(the
    paper: X)" where it differs, "(the paper states none)" where the paper is silent."""
    s = stated(artifact, key)
    if s.value is None:
        return f"({s.paper} states none" + (f": {s.text})" if s.text else ")")
    scope = f", {s.scope}" if s.scope else ""
    if same(ours, s.value):
        return f"(as {s.paper}{scope})"
    return f"({s.paper}: {s.text}{scope})"


def vs_paper(artifact: str, key: str, ours, shown: str | None = None) -> str:
    """``shown`` (default: ``ours`` as :func:`show` prints it) followed by :func:`note`."""
    return f"{show(ours) if shown is None else shown} {note(artifact, key, ours)}"


def differs(artifact: str, key: str, ours) -> bool:
    """Whether the paper states ``key`` and ours is not its value."""
    s = stated(artifact, key)
    return s.value is not None and not same(ours, s.value)


def comparison_note(artifact: str, settings, against: str = "the paper's numbers") -> str:
    """The sentence that goes beside a comparison of our numbers with the paper's: "" where
    every setting of ``settings`` (triples (key, ours, caption words)) is the paper's or one the
    paper does not state, else which of ours differ, each with the paper's value beside it."""
    diffs = [vs_paper(artifact, k, v, shown) for k, v, shown in settings if differs(artifact, k, v)]
    if not diffs:
        return ""
    return (
        f"Ours - paper compares a run under other settings than the paper's with {against}: "
        + "; ".join(diffs)
        + "."
    )


def paper_method(name: str, mcfg) -> str | None:
    """The paper's method a config row implements, as :func:`tripletbench.harness.tables.paper_values_for_rows`
    reads it (ITML-online -> ITML, SDCA-random -> SDCA); None for a row not in the paper."""
    protocol = ((mcfg or {}).get("notes") or {}).get("protocol")
    if protocol == "not-in-paper":
        return None
    return name if protocol is None else name.split("-")[0]


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
