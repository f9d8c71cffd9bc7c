"""The SDCA study's captions: Tables 2, 3 and 4, the settings the paper states beside ours,
and Table 2's measured gaps to the paper."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tripletbench.harness.captions import fmt_params, grid_values, scaling_words

from .paper import PAPER, comparison_note, note, stated, vs_paper


def sdca_table2_settings(config: dict) -> list[tuple]:
    """Our settings of SDCA's Table 2 that the paper states, as (key, ours, caption words) for
    :func:`tripletbench.harness.paper_settings.comparison_note`."""
    cfg = config["sdca_table2"]
    tf, ff, n = cfg["train_fraction"], cfg["fit_fraction"], cfg["n_triplets"]
    out = [
        ("n_runs", len(cfg["seeds"]), f"seeds {list(cfg['seeds'])}"),
        ("train_fraction", tf, f"{tf:.0%} of each class for training"),
        ("fit_fraction", ff, f"models fitted on {ff:.0%} of the training set for validation"),
        ("n_triplets", n, f"{n:,} class-based triplets per seed"),
    ]
    for m, c in cfg["methods"].items():
        key = PAPER.grid_key("sdca_table2", m, c)
        if key is None or stated("sdca_table2", key).value is None:
            continue
        if c.get("grid"):
            out.append((key, grid_values(c["grid"]), f"{m}'s grid {fmt_params(c['grid'])}"))
        else:
            fixed = c.get("fixed", {})
            out.append(
                (key, fixed, f"{m} not tuned" + (f" ({fmt_params(fixed)})" if fixed else ""))
            )
    return out


def _sdca_table3_settings(config: dict) -> list[tuple]:
    cfg = config["images"]
    n_words = cfg["bovw"]["caltech256"]["n_words"]
    return [
        (
            "n_train_per_class",
            cfg["n_train_per_class"],
            f"{cfg['n_train_per_class']} training images per class",
        ),
        ("n_triplets", cfg["n_triplets"], f"{cfg['n_triplets']:,} triplets per seed"),
        ("n_words", n_words, f"a Caltech-256 codebook of {n_words:,} words"),
    ]


def _sdca_table4_settings(config: dict) -> list[tuple]:
    cfg = config["sdca_table4"]
    tf, ff, qf = cfg["train_fraction"], cfg["fit_fraction"], cfg["query_fraction"]
    n_background = 100_000 * len(cfg["background_shards"])
    return [
        ("train_fraction", tf, f"{100 * tf:.0f}/{100 * (1 - tf):.0f} train/test"),
        ("fit_fraction", ff, f"{100 * (1 - ff):.0f}% of the training set for validation"),
        ("query_fraction", qf, f"{100 * qf:.0f}% of the test set as queries"),
        ("n_triplets", cfg["n_triplets"], f"{cfg['n_triplets']:,} triplets"),
        ("n_background", n_background, f"{n_background:,} background images"),
    ]


_SETTINGS = {
    "sdca_table2": sdca_table2_settings,
    "sdca_table3": _sdca_table3_settings,
    "sdca_table4": _sdca_table4_settings,
}


def difference_note(artifact: str, config: dict) -> str:
    """The sentence beside table ``artifact``'s ours - paper comparison: which of our settings
    that the paper states differ from its values ("" where none does)."""
    return comparison_note(artifact, _SETTINGS[artifact](config))


def _t2_grid_row(art: str, m: str, c: dict) -> str:
    """A row's grid, the paper's beside it where it states one."""
    key = PAPER.grid_key(art, m, c)
    return f"{m}: {fmt_params(c['grid'])}" + (
        f" {note(art, key, grid_values(c['grid']))}" if key else ""
    )


def _t2_fixed_row(art: str, m: str, c: dict) -> str:
    """A row's fixed settings; a row the paper tunes but we fix says so."""
    key = PAPER.grid_key(art, m, c)
    untuned = key and not c.get("grid") and stated(art, key).value is not None
    return f"{m}: {fmt_params(c['fixed'])}" + (
        f" (not tuned; the paper: {stated(art, key).text})" if untuned else ""
    )


def _t2_route_lines(cfg: dict, other_file) -> list[str]:
    """The line on the other route's table: the difference shown, or how to make it."""
    compare = cfg.get("compare_with")
    if other_file:
        from tripletbench.harness.io import read_csv_named

        other = read_csv_named(other_file, "other route's table", nrows=1)
        other_route = str(other["route"].iloc[0]) if "route" in other else "other"
        return [
            f"Route difference: each cell minus the same cell of the {other_route} route's table "
            f"({other_file}; same seeds and settings; each route's per-class splits and triplets "
            "are drawn from its own row order and class names, so they differ where the routes "
            "order rows or name classes differently), in the CSV's route_diff and below."
        ]
    if compare:
        return [
            f"Route comparison: {compare} (sdca_table2.compare_with) does not exist yet; make it "
            "with the other route's run, and this table is remade."
        ]
    return []


def _t2_protocol(art: str, cfg: dict) -> str:
    """Table 2's protocol line, each of our settings beside the paper's."""
    return (
        "Protocol: per class "
        + vs_paper(
            art,
            "train_fraction",
            cfg["train_fraction"],
            f"{cfg['train_fraction']:.0%} train / rest test",
        )
        + "; "
        + vs_paper(
            art,
            "n_triplets",
            cfg["n_triplets"],
            f"{cfg['n_triplets']:,} class-based random triplets per seed",
        )
        + ", drawn from the training set. The paper chooses the parameters of all algorithms "
        "by cross-validation and names SDCA's lambda and ITML's and LEGO's eta among them, "
        "with their grids. Ours: a row with a grid is validated with models "
        + vs_paper(
            art,
            "fit_fraction",
            cfg["fit_fraction"],
            f"learned on {cfg['fit_fraction']:.0%} of the training set",
        )
        + " and scored on the rest; the grid point with the best validation mAP is refitted "
        "on the whole training set."
    )


def _t2_data_line(config: dict, datasets, missing) -> str:
    """Table 2's data line: each dataset's scaling on this route, and the mirror it came from."""
    from tripletbench.datasets import get_dataset

    route, mirror = config["data"]["route"], config["data"].get("mirror")

    def size(spec) -> str:  # where the paper lists another number of rows than the files'
        listed = spec.paper_lists
        if not listed or listed[0] == spec.shape[0]:
            return ""
        return f", all {spec.shape[0]:,} rows of the files (the paper lists {listed[0]:,})"

    return (
        "Data: "
        + "; ".join(
            f"{d}: {scaling_words(get_dataset(d), route)}{size(get_dataset(d))}"
            for d in datasets
            if d not in missing
        )
        + "."
        + (f" Downloads from the data mirror {mirror}." if mirror and route == "download" else "")
    )


def sdca_table2(config: dict, runs: pd.DataFrame, missing, other_file) -> list[str]:
    """Caption of the SDCA paper's Table 2 (rule table_sdca_2)."""
    from tripletbench.harness.config import missing_reason
    from tripletbench.harness.tables import reconstructed_notes

    cfg, route = config["sdca_table2"], config["data"]["route"]
    methods, datasets = cfg["methods"], cfg["datasets"]
    art = "sdca_table2"
    fixed = "; ".join(_t2_fixed_row(art, m, c) for m, c in methods.items() if c.get("fixed"))
    grids = "; ".join(_t2_grid_row(art, m, c) for m, c in methods.items() if c.get("grid"))
    differ = difference_note(art, config)
    compare_line = _t2_route_lines(cfg, other_file)
    return [
        (
            f"Test mAP over {PAPER.runs(art, cfg['seeds'])}, {route} data route; paper = SDCA paper, "
            "Table 2, shown beside every row that implements one of the paper's methods (marked "
            "[paper], [ours], [reconstructed] or [unspecified]; several rows can carry the same "
            "paper value)."
        ),
        _t2_protocol(art, cfg),
        *([differ] if differ else []),
        (
            "mAP (our choice; the paper does not say which set is searched): each test instance "
            "queries the training set (the database the metric was learned on), relevance = same "
            "class, full ranking, ties count as the end of their group."
        ),
        f"Grids (validation mAP): {grids}. Fixed: {fixed}.",
        "Rows marked [not-in-paper] are our extra rows (no number in the paper).",
        *reconstructed_notes(runs, methods, datasets),
        *(
            [f"Not run ({route} route): {', '.join(missing)} ({missing_reason(config)})."]
            if missing
            else []
        ),
        _t2_data_line(config, datasets, missing),
        *compare_line,
    ]


def sdca_table4(config: dict, missing) -> list[str]:
    """Caption of the SDCA paper's Table 4 (ImageCLEF+Flickr; our MIRFLICKR route)."""
    cfg, route = config["sdca_table4"], config["data"]["route"]
    shards, art = cfg["background_shards"], "sdca_table4"
    differ = difference_note(art, config)
    n_background = 100_000 * len(shards)
    tf, ff, qf, n = (
        cfg["train_fraction"],
        cfg["fit_fraction"],
        cfg["query_fraction"],
        cfg["n_triplets"],
    )
    why = (
        [
            "**needs download**: the collection has no packaged copy; run config/paper.yaml "
            "(download route, `--config allow_unpinned_downloads=true`: LIACS publishes no "
            "checksums), from LIACS or a data mirror holding `mirflickr/` (whose SHA256SUMS "
            "then checks the transfer; it cannot vouch for the files). "
            "The paper's numbers are shown alone."
        ]
        if missing
        else []
    )
    return [
        (
            f"Test mAP over {PAPER.runs(art, cfg['seeds'])}, {route} data route; paper = SDCA paper, "
            "Table 4 (ImageCLEF ground truth + about one million Flickr images as background, "
            "297-d global descriptors, 500K training triplets)."
        ),
        *why,
        (
            "Data (ours: the paper names neither collection): ground truth = the MIRFLICKR-25000 "
            "images (the collection behind the ImageCLEF 2009-2011 photo-annotation tasks) that "
            f"carry exactly one of {len(cfg['concepts'])} MIRFLICKR concepts, that concept being "
            f"the class; background = MIRFLICKR-1M archives {shards} (100,000 images each as "
            "published; label: relevant to no query): "
            + vs_paper(art, "n_background", n_background, f"{n_background:,} images")
            + ", copies of ground-truth images (same bytes) dropped."
        ),
        (
            "Descriptor: the paper's four parts and lengths (colour histogram and moments 81, "
            "edge direction histogram 37, Gabor 120, LBP 59); every parameter inside them is ours "
            f"(tripletbench.datasets.global_descriptor), on images shrunk to {cfg['max_side']} px."
        ),
        (
            "Protocol: per class "
            + vs_paper(art, "train_fraction", tf, f"{100 * tf:.0f}/{100 * (1 - tf):.0f} train/test")
            + ", "
            + vs_paper(
                art, "fit_fraction", ff, f"{100 * (1 - ff):.0f}% of the training set for validation"
            )
            + ", "
            + vs_paper(art, "query_fraction", qf, f"{100 * qf:.0f}% of the test set as queries")
            + "; "
            + vs_paper(art, "n_triplets", n, f"{n:,} class-based random triplets")
            + ". Ours: the splits are drawn among the ground-truth images; the database searched "
            "by the queries is the rest of the test set plus every background image (full "
            "ranking, relevance = same class); validation queries search the fit part."
        ),
        *([differ] if differ else []),
    ]


def _t3_bound(m: str, c: dict) -> str:
    """A Table 3 row's settings as run: its parameters and its bound on the triplets."""
    parts = [fmt_params({**c.get("fixed", {}), **c.get("grid", {})})]
    if c.get("max_triplets"):
        parts.append(f"first {c['max_triplets']} triplets")
    return f"{m}: " + ("; ".join(p for p in parts if p) or "no hyperparameter")


def _t3_bag_of_words(feat: pd.DataFrame, datasets) -> str:
    """The bag-of-words features per dataset: mean non-zeros, features, time per image."""
    bovw = feat[feat.dataset.isin(datasets) & feat.dataset.str.contains("bovw|caltech")]
    return ", ".join(
        f"{d}: {g.mean_nnz.mean():.1f} non-zeros of {int(g.n_features.iloc[0])}, "
        f"{1000 * g.descriptor_s_per_image.mean():.2f} ms per image"
        for d, g in bovw.groupby("dataset")
    )


def _t3_protocol(art: str, cfg: dict) -> str:
    """Table 3's protocol line, each of our settings beside the paper's."""
    return (
        "Protocol: per class "
        + vs_paper(
            art,
            "n_train_per_class",
            cfg["n_train_per_class"],
            f"{cfg['n_train_per_class']} training images",
        )
        + " and "
        + vs_paper(
            art,
            "n_test_per_class",
            cfg["n_test_per_class"],
            f"{cfg['n_test_per_class']} test images",
        )
        + "; "
        + vs_paper(
            art,
            "n_triplets",
            cfg["n_triplets"],
            f"{cfg['n_triplets']:,} class-based random triplets on the training " "images per seed",
        )
        + "; each test image queries the training images, relevance = same class, full "
        "ranking (our choice: neither text says which set is searched)."
    )


def sdca_table3(config: dict, feat: pd.DataFrame, failed: pd.DataFrame, missing) -> list[str]:
    """Caption of the SDCA paper's Table 3 on Caltech-256 and its offline stand-in."""
    from tripletbench.datasets.caltech256 import image_set

    cfg, route = config["images"], config["data"]["route"]
    datasets, art = cfg["sdca_table3_datasets"], "sdca_table3"
    differ = difference_note(art, config)
    n_words = cfg["bovw"]["caltech256"]["n_words"]
    nnz = _t3_bag_of_words(feat, datasets)
    stand_in = [d for d in datasets if image_set(d).source != "caltech256" and d not in missing]
    fails = sorted(set(zip(failed.algorithm, failed.dataset)))
    return [
        (
            f"Test mAP over {PAPER.runs(art, cfg['seeds'])}, {route} data route; paper = SDCA paper, "
            "Table 3 (Caltech-256, 50 classes, 1000-word bag of visual words, 100K triplets)."
        ),
        _t3_protocol(art, cfg),
        *([differ] if differ else []),
        *(
            [
                f"Stand-in: {', '.join(stand_in)} = Fashion-MNIST (10 classes only: the 50-class "
                "set needs Caltech-256, a download) as raw pixels and through the same "
                "bag-of-words pipeline on its 28 x 28 images. Its numbers are not comparable "
                "with the paper's."
            ]
            if stand_in
            else []
        ),
        (
            f"Bag of words: {nnz or 'none run'} (codebook and idf from each seed's training "
            "images). Caltech-256 codebook: "
            + vs_paper(art, "n_words", n_words, f"{n_words:,} words")
            + "."
        ),
        "Settings (bounded in the default config to fit the time budget; full settings in "
        "config/paper.yaml): "
        + " | ".join(_t3_bound(m, c) for m, c in cfg["methods"].items())
        + ".",
        (
            "LMNN is not a row, as in the paper. RCA: with fewer chunklet degrees of freedom "
            "than features (fewer training images than pixels or words) it first projects by "
            "PCA onto the rank of the within-chunklet covariance, as the RCA paper advises."
        ),
        *(
            [
                "failed = the learner raised an error on every seed: "
                + "; ".join(f"{m} on {d}" for m, d in fails)
                + " (the error is in the run logs)."
            ]
            if fails
            else []
        ),
        *([f"Not run ({route} route): {', '.join(missing)} (needs download)."] if missing else []),
    ]


# What was measured about why SDCA Table 2's cells on a dataset are far from the paper's,
# printed under the table wherever that dataset is a column. Each statement names its
# measurement (seeds, files, date); none is the paper's. Kept here, read only by the table, so that
# editing a sentence remakes the table and no cell.
SDCA_TABLE2_GAPS = [  # (the columns it concerns, the rows it concerns, the statement)
    (
        {"svmguide4"},
        {"Eucl", "RCA", "LEGO", "LMNN", "OASIS", "SDCA", "SVM-relative"},
        "svmguide4, measured on the mirror's files (2026-11-26, seeds 0-2): the files have 10 "
        "features where the paper's Table 1 lists 6, and unscaled, column 8 (almost no class "
        "information) makes up 96% of the squared Euclidean distances; Eucl (0.201; paper 0.209) "
        "and the learners that stay near it (LMNN, OASIS, SDCA) rank near it, while learners that "
        "reweight the features pass the paper (RCA 0.48, LEGO 0.39, SVM-relative 0.33). RCA is "
        "invariant to any invertible linear map of the features, so no scaling of these files "
        "moves its 0.48, and its chunklets do not either (metric-learn's RCA_Supervised with "
        "100x2, 50x3, 20x5 or 10x10 chunklets drawn from the labels: 0.46-0.53). Of the 210 "
        "six-column subsets, RCA nears the paper's 0.218 only without columns 1-2 (the first two "
        "Hu moments; e.g. columns 3 and 6-10: RCA 0.219, Eucl 0.186 against the paper's 0.209); "
        "none matches Eucl and RCA together. Our reading: the paper's features are not these "
        "files' 10 columns; the paper names no subset.",
    ),
    (
        {"vehicle", "vowel"},
        {"RCA"},
        "vehicle and vowel, RCA (embedded route, seeds 0-2, measured 2026-11-26): above the paper "
        "(vehicle 0.52 against 0.40) under every chunklet construction tried: connected "
        "components of the triplets' similar pairs (the table's) or metric-learn's "
        "RCA_Supervised chunklets of 100x2, 50x3, 20x5 or 10x10 points from the labels (vehicle "
        "0.50-0.52, vowel 0.33-0.35; the paper's vowel 0.32); the paper states no RCA setting, "
        "so the gap is not in how the chunklets are formed.",
    ),
    (
        {"vehicle", "vowel", "letter", "segment"},
        {"LEGO"},
        "LEGO above the paper (this table's ours - paper column): an independent replay "
        "(2026-11, the 2-core development machine, embedded route, not this run) found it above "
        "the paper on the four embedded sets under every variant it tried (a fixed eta, an "
        "update on violation only, 1,000 or 200 triplets); the cause is not found.",
    ),
    (
        {"vehicle", "vowel"},
        {"ITML"},
        "ITML (metric-learn, gamma 0.125, embedded route, seeds 0-1, measured 2026-11-26): "
        "vehicle 0.449 / 0.504 / 0.575 / 0.625 and vowel 0.375 / 0.393 / 0.408 / 0.419 after "
        "1 / 3 / 10 / 50 passes (the paper: 0.414, 0.307): more passes widen the gap, but one "
        "pass is already above the paper; the cause is not found.",
    ),
]


def sdca_table2_gaps(datasets, methods) -> list[str]:
    """The measured reasons of :data:`SDCA_TABLE2_GAPS` that concern this table's columns
    (``datasets``) and rows (``methods``), as one caption line ([] when none does)."""
    keep = [
        text
        for columns, rows, text in SDCA_TABLE2_GAPS
        if columns & set(datasets) and rows & set(methods)
    ]
    return ["What we measured about the gaps to the paper: " + " ".join(keep)] if keep else []


def paper_ranking(values: pd.DataFrame, paper: pd.DataFrame, focus: str, tol: float) -> list:
    """Whether our numbers reproduce the paper's ranking of its own methods, in caption words.

    ``values``: tidy per-seed rows (dataset, algorithm, metric, seed, value) of one metric;
    ``paper``: :func:`tripletbench.harness.paper_table.paper_for_rows` (only the rows named after the paper's
    method itself count, one per method); ``focus``: the method whose rank is followed (the
    paper's own, e.g. "SDCA"); ``tol``: the distance from the paper's number that counts as
    reproduced. Higher is better. Returns [] when no dataset has two such methods with numbers."""
    ours = values.groupby(["dataset", "algorithm"]).value.mean()
    own = paper[paper.algorithm == paper.paper_method]
    rows, ranks, cells, above, below, diffs = [], [], 0, 0, 0, {}
    for d, g in own.groupby("dataset", sort=False):
        g = g[[(d, m) in ours.index for m in g.algorithm]]
        if len(g) < 2 or focus not in set(g.algorithm):
            continue
        ours_d = pd.Series({m: ours[(d, m)] for m in g.algorithm})
        paper_d = g.set_index("algorithm").paper
        rank = {
            "ours": int(ours_d.rank(ascending=False, method="min")[focus]),
            "paper": int(paper_d.rank(ascending=False, method="min")[focus]),
        }
        rows.append(f"{d} {rank['paper']} -> {rank['ours']} of {len(g)}")
        ranks.append((rank["paper"], rank["ours"]))
        for m in g.algorithm:
            diff = ours_d[m] - paper_d[m]
            diffs.setdefault(m, []).append(diff)
            cells += 1
            above += diff > tol
            below += diff < -tol
    if not rows:
        return []
    mean = ", ".join(f"{m} {np.mean(v):+.3f}" for m, v in diffs.items())
    return [
        (
            f"Ranking of the paper's own methods (ours beside the paper's): {focus}'s rank on "
            f"each set, paper -> ours: {'; '.join(rows)}. Of {cells} cells, "
            f"{cells - above - below} are within {tol} of the paper, {above} above it and "
            f"{below} below it; mean ours - paper per method: {mean}."
            + (
                f" The paper's rank of {focus} is not reproduced on "
                f"{sum(p != o for p, o in ranks)} of {len(ranks)} sets."
                if any(p != o for p, o in ranks)
                else f" The paper's rank of {focus} is reproduced on every set."
            )
        )
    ]


def curve_ends(rows: pd.DataFrame, metrics: dict, paper: str) -> str:
    """One sentence from this run's curves (tidy rows: method, seed, step, metric, value): for
    each metric of ``metrics`` (metric -> words), OASIS's and SDCA's mean over seeds at the last
    step, and which ends lower, then ``paper`` (what the paper reports). "" without both
    methods. Computed when the figure is built: it follows the run's files."""
    parts = []
    for metric, words in metrics.items():
        r = rows[rows.metric == metric]
        last = r[r.step == r.groupby("method").step.transform("max")]
        end = last.groupby("method").value.mean()
        if not {"OASIS", "SDCA"} <= set(end.index):
            continue
        o, s = float(end["OASIS"]), float(end["SDCA"])
        lower = "OASIS" if o < s else "SDCA" if s < o else "neither"
        parts.append(f"{words} OASIS {o:.3f}, SDCA {s:.3f} ({lower} lower)")
    if not parts:
        return ""
    return f"At the last step of this run (mean over seeds): {'; '.join(parts)}. {paper}"
