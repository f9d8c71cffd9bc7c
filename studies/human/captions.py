"""The human-judgment study's captions: the table, the published row, the item feature sets
in words."""

from __future__ import annotations

import pandas as pd

from .sets import SETS, feature_owners

FEATURE_SET_WORDS = {
    "global": (
        "global: the project's 297-d global descriptor (colour 81, edge directions 37, Gabor "
        "120, LBP 59; tripletbench.datasets.global_descriptor) on images shrunk to {max_side} px"
    ),
    "hog": (
        "HOG: skimage.feature.hog on the grey image resized to {size} x {size} px (bicubic, "
        "aspect not kept), 9 unsigned orientation bins, 8 x 8-px cells, 2 x 2-cell blocks, "
        "L2-Hys (Dalal & Triggs 2005), {dims} dimensions"
    ),
}
"""Each image feature set of :mod:`tripletbench.datasets.human_features` in words (a set's own
feature sets say it in their declaration, :class:`tripletbench.datasets.human_set.ItemFeatureSet`)."""


def _own_feature(kind: str):
    """The declaration of feature set ``kind`` where a set provides it (None: an image one)."""
    for name in feature_owners(kind):
        if kind in SETS[name].features:
            return SETS[name].features[kind]
    return None


def feature_set_words(kind: str, dims: int | None = None, **params) -> str:
    """One line saying what feature set ``kind`` is (an image one of
    :mod:`tripletbench.datasets.human_features`, or a set's own), for a table's or figure's
    caption. Raises ``ValueError`` for a feature set no set has."""
    from tripletbench.datasets.human_features import DEFAULT_MAX_SIDE, HOG_SIZE, hog_dims

    from .sets import all_feature_sets

    own = _own_feature(kind)
    if kind not in FEATURE_SET_WORDS and own is None:
        raise ValueError(f"unknown feature set {kind!r}; expected one of {all_feature_sets()}")
    size = params.get("size", HOG_SIZE)
    return (own.words if own is not None else FEATURE_SET_WORDS[kind]).format(
        max_side=params.get("max_side", DEFAULT_MAX_SIDE),
        size=size,
        dims=dims if dims is not None else (hog_dims(size) if kind == "hog" else "?"),
    )


def human_table(config: dict, cfg: dict, missing, runs: pd.DataFrame) -> list[str]:
    """Caption of the human-judgment table (:mod:`tripletbench.studies.human.experiment`): protocol, features,
    scoring, the reference rows, the learners' settings and that no paper number is shown."""
    runs = runs[runs.protocol != "curve"] if len(runs) else runs  # the table's rows
    times = _fit_times(runs)
    learners = _learners(cfg)
    return [
        _header(config),
        *_missing(config, missing),
        *_shortfall(runs),
        _protocol_a(cfg),
        *_protocol_b(cfg),
        *_protocol_d(cfg),
        _features(cfg),
        *([learners] if learners else []),
        *_embeddings(cfg),
        *([f"Mean fit time per fold (wall clock): {times}."] if times else []),
        _references(cfg["sets"]),
        *human_published(cfg),
        ("The learning curve (protocol c) is figure_human_curve."),
    ]


def _header(config: dict) -> str:
    """The human table caption's first paragraph: the sets, the data route, the scoring."""
    from .experiment import route_and_mirror

    route, mirror = route_and_mirror(config)
    sets = "; ".join(SETS[n].words for n in config["human"]["sets"])  # the config's only
    counted = [n for n in config["human"]["sets"] if SETS[n].counted]  # as the columns name it
    return (
        f"Triplet accuracy on people's relative comparisons ({sets}), "
        f"{route} data route{f' (mirror {mirror})' if mirror else ''}. "
        'A test triplet (i, j, k), "i is closer to j than to '
        'k", is right when d(i, j) < d(i, k) and counts **half when the two distances tie** '
        "(equal within 1e-12 of the larger: rounding does not decide); each answer counts once"
        + (f" ({', '.join(counted)}: a row weighted by its answer count)." if counted else ".")
    )


def _missing(config: dict, missing) -> list[str]:
    """Why the ``missing`` sets did not run and what would build them (none: no paragraph)."""
    from .experiment import missing_reason

    if not missing:
        return []
    return [
        f"**{', '.join(missing)}: {missing_reason(config)}**"
        ": these collections have no packaged copy; the download route (the publishers' "
        "archives, pinned as cblearn pins them) or a data mirror holding "
        + " and ".join(f"`{SETS[n].source}/`" for n in missing if n in SETS)
        + " builds them (config/mirror.yaml; `human.mirror` for these sets alone)."
    ]


def _shortfall(runs: pd.DataFrame) -> list[str]:
    """The sets whose cells were computed on fewer (or more) answers than their publishers'
    (their ``data_shortfall`` column: files taken under the unpinned opt-in that parsed to
    other counts, :func:`tripletbench.datasets.human_judgments.compare_with_published`)."""
    if not len(runs) or "data_shortfall" not in runs:
        return []
    lines = sorted({x for x in runs.data_shortfall.fillna("").astype(str) if x})
    if not lines:
        return []
    return [
        "**Not the published collections: "
        + "; ".join(lines)
        + ". These numbers are over the answers the files held, not comparable with a "
        "complete set's.**"
    ]


def _fit_times(runs: pd.DataFrame) -> str:
    """Each method's mean fit time per fold over the rows of ``runs`` that fitted anything."""
    fit = runs[(runs.fit_s.astype(float) > 0)] if len(runs) else runs
    if not len(fit):
        return ""
    return ", ".join(
        f"{m} {g.fit_s.astype(float).mean():.2f} s" for m, g in fit.groupby("method", sort=False)
    )


def grouping_words(cfg: dict) -> str:
    """How protocol (a)'s folds group the answers (``human.group_by``), in words: per set its
    unit of collection (the set's declaration, ``unit_words``), by question, or not grouped."""
    how = cfg.get("group_by", "unit")
    if how == "none":
        return "answers (not grouped: the triplets of one answer or question may be split)"
    if how == "question":
        return (
            "answers grouped by question (every answer to one question, an anchor with an "
            "unordered pair, in one fold; not each set's unit of collection)"
        )
    units = "; ".join(f"{n}: {SETS[n].unit_words}" for n in cfg["sets"])
    return f"answers grouped by each set's unit of collection, kept in one fold ({units})"


def _protocol_a(cfg: dict) -> str:
    """Protocol (a), the table's columns: the folds over the answers, the seeds, the bound."""
    seeds = ", ".join(str(s) for s in cfg["seeds"])
    bound = cfg.get("max_train_triplets")
    return (
        f"Protocol (a), the columns: {cfg['n_splits']}-fold cross-validation over the "
        + grouping_words(cfg)
        + f", seed(s) {seeds}: a cell is the mean ± std over the {cfg['n_splits']} test folds "
        "of every seed, every method on the same folds. A learner (or an ordinal embedding) "
        "is trained on one triplet per training answer"
        + (
            f", at most {bound:,} of them per fold (the first of one seeded permutation; "
            "ours: a bound)"
            if bound
            else ""
        )
        + "."
    )


def _protocol_b(cfg: dict) -> list[str]:
    """Protocol (b), held-out items, where the block runs it."""
    if "items" not in cfg.get("protocols", []):
        return []
    return [
        f"Protocol (b), the first section below the table: held-out items. The items "
        f"are split {cfg['n_splits']}-fold (KFold over the item indices, shuffled with "
        "the seed; ours: the same number of folds as (a)); a learner is trained on the "
        "answers whose three items are all training items (bounded as in (a)) and "
        "scored on every answer that involves at least one held-out item, in any role "
        "(ours: the rule that uses every answer). Only a method that maps item features "
        "can answer: a row without a feature map (an ordinal embedding) is n/a there."
    ]


def _protocol_d(cfg: dict) -> list[str]:
    """Protocol (d), the publisher's split, where the block runs it on a set that has one."""
    split = {n: SETS[n] for n in cfg["sets"] if SETS[n].publisher_split}
    if not (split and "publisher" in cfg.get("protocols", [])):
        return []
    return [
        f"Protocol (d), the last section ({', '.join(split)} only): "
        + "; ".join(f"{n}: {s.publisher_split}" for n, s in split.items())
        + "; scored against every test answer (comparable to the ceiling) and against each "
        "test question's majority answer (ties left out; the authors' measure)."
    ]


def _features(cfg: dict) -> str:
    """The feature sets of the block in a few words, and their normalisation."""
    images = {
        "global": "the project's 297-d global image descriptor",
        "hog": "HOG (Dalal & Triggs' parameters) on the 64 x 64 grey image, 1,764-d",
    }

    def words(f):
        own = _own_feature(f)
        if own is None:
            return f"{f} = {images[f]}"
        owners = [SETS[n].title for n in feature_owners(f)]
        return f"{f} = {own.short} ({', '.join(owners)} only)"

    return (
        "Features (tripletbench.datasets.human_features and the sets' own modules): "
        + ", ".join(words(f) for f in cfg["features"])
        + f"; normalisation: {'each vector at unit length' if cfg['normalize'] == 'l2' else 'none'} "
        "(ours). Eucl = the Euclidean distance on a feature set."
    )


def _learners(cfg: dict) -> str:
    """The learner rows' settings and how each is fitted (``""``: the block has none)."""
    from tripletbench.harness.experiment import constraint_kind_of

    from .experiment import is_feature_free, row_settings

    learners = "; ".join(
        f"{m}: {row_settings(m, mc)}" for m, mc in cfg["methods"].items() if not is_feature_free(mc)
    )
    if not learners:
        return ""
    fitted = {
        m: mc
        for m, mc in cfg["methods"].items()
        if not mc.get("not_run") and not is_feature_free(mc)
    }
    pair_rows = [m for m, mc in fitted.items() if constraint_kind_of(m, mc) == "pairs"]
    external = [m for m, mc in fitted.items() if "." in mc.get("algorithm", m)]
    return (
        "Learners (ours, not tuned: each with the settings of its rows in the project's "
        f"other tables): {learners}; fitted on the training triplets over the item "
        "features"
        + (
            f", the pair learners ({', '.join(pair_rows)}) on the two pairs of each "
            "triplet, (a, p) similar and (a, n) dissimilar (tripletbench.datasets."
            "constraints.triplets_to_pairs)"
            if pair_rows
            else ""
        )
        + (
            f"; {', '.join(external)}: another library's learner "
            "(tripletbench.algorithms.external)"
            if external
            else ""
        )
        + "."
    )


def _embeddings(cfg: dict) -> list[str]:
    """The ordinal-embedding rows: their cblearn version, papers, settings and what they use."""
    from .experiment import EMBEDDING_PAPERS, embedding_versions, is_feature_free, row_settings

    embeddings = {m: mc for m, mc in cfg["methods"].items() if is_feature_free(mc)}
    if not embeddings:
        return []
    versions = sorted(set(embedding_versions(embeddings).values()))
    return [
        f"Ordinal embeddings ({', '.join(versions)}; one row each): "
        + "; ".join(
            f"{m} ({EMBEDDING_PAPERS.get(mc['algorithm'].rsplit('.', 1)[1], mc['algorithm'])}"
            f"): {row_settings(m, mc, algorithm=False)}"
            for m, mc in embeddings.items()
        )
        + ". They **use no item features**: each fits a position per item from the training "
        "answers alone (every item of the set, also one that no training answer names) and "
        "is scored by the squared Euclidean distances of those positions. Their dimension "
        "(n_components) is **ours**, not tuned, cblearn's defaults otherwise. With no "
        "feature map they cannot place an item they never saw: **n/a on protocol (b)**."
    ]


def _references(sets) -> str:
    """The reference rows: chance and, where the sets include a ``counted`` one (several
    answers per question: material), its ceiling."""
    chance = (
        "Reference rows: chance = a distance that ties every pair (0.5 exactly under "
        "ties-as-half, the expectation of a coin flip)"
    )
    counted = [n for n in sets if SETS[n].counted]  # named as the table's columns are
    if not counted:
        return chance + "."
    others = [n for n in sets if not SETS[n].counted]
    return (
        chance + f"; ceiling ({', '.join(counted)} only) = the share "
        "of the test answers that agree with their question's majority answer, ties half "
        "(tripletbench.evaluation.human_protocols.human_ceiling): the best any distance can "
        "score against the answers."
        + (
            f" {' and '.join(others)}: no answer counts per question (each row is one "
            "answer), so no ceiling is shown for them."
            if others
            else ""
        )
    )


def human_published(cfg: dict) -> list[str]:
    """The human table's paragraph on published numbers (``human.published``): each row's
    number, column and source, and what else was looked for and not found."""
    from .experiment import all_columns, published

    rows, paper = published(cfg, all_columns(cfg["sets"], cfg.get("protocols", [])))
    # what the sets' declarations say others published and the table does not show
    found = list(dict.fromkeys(SETS[n].literature for n in cfg["sets"] if SETS[n].literature))
    shown = "; ".join(
        f"**{name}** ({r.dataset}, {r.paper:.4f}): {cfg['published'][name]['source']}"
        for name, r in zip(rows, paper.itertuples())
    )
    return [
        (
            (
                f'Published numbers (their own rows, in a "published" column; never rerun, '
                f"never ranked): {shown}. "
                if rows
                else "No published number is shown. "
            )
            + (
                f"No other number under these protocols was found: {'; '.join(found)}."
                if found
                else ""
            )
        ).strip()
    ]
