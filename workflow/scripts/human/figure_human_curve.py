"""Rule figure_human_curve: protocol (c), the learning curve on people's relative comparisons
(tripletbench.studies.human.experiment): test triplet accuracy (ties as half) of each learner row on each feature set
against the number of human triplets it was trained on, one panel per set of the config (each
cited for its data, as its module declares: HUMAN_SET of tripletbench.datasets; no paper number
is drawn).
The curve and its protocol are ours.

Our choices, all stated in the caption: the curve's points are nested subsets of each (a) fold's
training answers (the first n of the one seeded permutation that also bounds (a),
tripletbench.studies.human.experiment.training_triplets), each scored on that whole (a) test fold; the last point of
each line is (a) itself (its training set, the x value the mean over folds and seeds of its
size); mean over the folds of every seed, a band of ± one standard deviation (clipped to
[0, 1]); a log x axis; the Euclidean distance on each feature set, chance and (a set with
counted answers, material) the human ceiling as horizontal lines from the (a) rows of the same folds (they use no training
answers). Lines drawn: per panel at most ``human.curve_figure.lines`` (default 6) learner rows,
each at its feature set best on protocol (a), the best by (a) (null: every row on every feature
set); the caption names the rest, and every line is in the plotted values."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from tripletbench.studies.human.captions import grouping_words  # noqa: E402
from tripletbench.studies.human.experiment import (  # noqa: E402
    EUCLIDEAN,
    human_set,
    is_feature_free,
    missing_reason,
    row_name,
    row_settings,
)
from tripletbench.harness.io import save_text, start_log  # noqa: E402
from tripletbench.harness.plots import (  # noqa: E402
    clipped_band,
    display_name,
    log_axes,
    method_style,
    one_seed_na,
    save_figure,
)
from tripletbench.harness.settings import check_cells_fresh  # noqa: E402
from tripletbench.harness.tables import collect  # noqa: E402

CELL = ("set", "job", "seed")  # the cell each run file holds (tripletbench.harness.tables.collect)
COLUMNS = ["protocol", "fold", "scoring", "method", "features", "metric", "value", "n_train"]
REFERENCES = (EUCLIDEAN, "chance", "ceiling")

start_log(snakemake.log[0])
config = snakemake.config
cfg = snakemake.params.block
# one line style per feature set of the config, in its order (ours)
LINESTYLES = dict(zip(cfg["features"], ["-", "--", ":", (0, (5, 1, 1, 1, 1, 1))]))
STYLE_WORDS = {"-": "solid", "--": "dashed", ":": "dotted"}
available = list(snakemake.params.available)
paths = list(snakemake.input.runs)
if paths:
    runs = collect(paths, "human_cell", COLUMNS, CELL)
    check_cells_fresh(runs, snakemake.params.run_settings, "human cells", "human_cell")
else:  # no set could run: every panel says why
    runs = pd.DataFrame(columns=["set", "job", "seed", *COLUMNS])
runs = runs.assign(features=runs.features.fillna("").astype(str))
sets = list(cfg["sets"])
reason = missing_reason(config)
on = "curve" in cfg["protocols"]

# the curve's points: (c) rows, and (a)'s learner rows as each line's last point
a = runs[(runs.protocol == "triplets") & (runs.scoring == "answers")]
learned_a = a[~a.method.isin(REFERENCES)].copy()
learned_a["n_train"] = learned_a.groupby("set").n_train.transform("mean").round()
points = pd.concat([runs[runs.protocol == "curve"], learned_a], ignore_index=True)
points["n_train"] = points.n_train.astype(float)
# a curve point a learner refused (no value; its error in the cell's rows): left out, named below
refused = points[points.value.isna()]
points = points[points.value.notna()]
summary = (
    points.groupby(["set", "method", "features", "n_train"], sort=False)
    .value.agg(["mean", "std", "count"])
    .reset_index()
    .rename(columns={"count": "n_seeds"})  # folds x seeds
    .sort_values(["set", "method", "features", "n_train"])
)
summary["std"] = summary["std"].fillna(0.0)
# the lines drawn (human.curve_figure.lines; ours, for legibility): per set, each row at its
# feature set best on (a), then the best rows by (a); every line stays in the plotted values
n_lines = (cfg.get("curve_figure") or {}).get("lines", 6)
last = (  # each line's (a) point: its mean accuracy on protocol (a)
    learned_a.groupby(["set", "method", "features"]).value.mean().rename("a").reset_index()
)
summary["drawn"] = True
if n_lines is not None and len(last):
    best = (
        last.sort_values("a", ascending=False, kind="stable")
        .drop_duplicates(["set", "method"])
        .groupby("set", sort=False)
        .head(n_lines)
    )
    chosen = set(zip(best.set, best.method, best.features))
    summary["drawn"] = [k in chosen for k in zip(summary.set, summary.method, summary.features)]
refs = (
    a[a.method.isin(REFERENCES)]
    .groupby(["set", "method", "features"], sort=False)
    .value.agg(["mean", "std", "count"])
    .reset_index()
    .rename(columns={"count": "n_seeds"})
)
refs["std"] = refs["std"].fillna(0.0)

n = max(len(sets), 1)
fig, axes = plt.subplots(1, n, figsize=(3.6 * n, 3.4), dpi=150, squeeze=False)
handles = {}
for ax, s in zip(axes.ravel(), sets):
    ax.set_title(display_name(s), fontsize=9)
    if s not in available or not on or not (summary.set == s).any():
        why = reason if s not in available else "protocol (c) not run (human.protocols)"
        ax.text(0.5, 0.5, why, ha="center", va="center", wrap=True, fontsize=7,
                transform=ax.transAxes)
        ax.set_xticks([])
        ax.set_yticks([])
        continue
    drawn = summary[(summary.set == s) & summary.drawn]
    for (method, feats), g in drawn.groupby(["method", "features"], sort=False):
        style = method_style(method)
        label = row_name(method, feats)
        (line,) = ax.plot(g.n_train, g["mean"], ls=LINESTYLES.get(feats, "-"), lw=1.4, ms=3.5,
                          label=label, **style)
        low, high = clipped_band(g["mean"], g["std"], (0.0, 1.0))  # an accuracy
        ax.fill_between(g.n_train, low, high, color=line.get_color(), alpha=0.15, lw=0)
        handles.setdefault(label, line)
    for r in refs[refs.set == s].itertuples():
        if r.method == EUCLIDEAN:
            label = f"{row_name(EUCLIDEAN, r.features)} (no training)"
            h = ax.axhline(r.mean, color=method_style(EUCLIDEAN)["color"],
                           ls=LINESTYLES.get(r.features, "-"), lw=1.0)
        elif r.method == "chance":
            label = "chance (0.5)"
            # a wide pale line: the dotted style is a feature set's (ingredients)
            h = ax.axhline(r.mean, color="0.8", ls="-", lw=3.0, zorder=0)
        else:
            label = f"human ceiling ({human_set(s).title})"
            h = ax.axhline(r.mean, color="black", ls="-.", lw=1.0)
        handles.setdefault(label, h)
    # the horizontal lines inside the axes (axhline does not widen the y range by itself)
    levels = [*refs[refs.set == s]["mean"], *ax.get_ylim()]
    pad = 0.04 * (max(levels) - min(levels))
    ax.set_ylim(max(min(levels) - pad, 0.0), min(max(levels) + pad, 1.0))
    log_axes(ax, "x")
    ax.set_xlabel("human triplets used for training")
    ax.set_ylabel("test triplet accuracy (ties ½)")
    ax.grid(alpha=0.3)
if handles:
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=min(len(handles), 4),
               fontsize=7, frameon=False, bbox_to_anchor=(0.5, -0.02))
fig.suptitle("Learning from people's relative comparisons: accuracy against human triplets used",
             fontsize=10)
fig.tight_layout(rect=(0, 0.05 + 0.035 * ((len(handles) + 3) // 4), 1, 1))
save_figure(fig, snakemake.output.png, snakemake.output.pdf)

# the caption: every choice that is ours, then the plotted values
bound = cfg.get("max_train_triplets")
sizes = ", ".join(f"{v:,}" for v in sorted(cfg.get("curve_sizes") or []))
seeds = ", ".join(str(v) for v in cfg["seeds"])
learners = "; ".join(  # a row with not_run has no line (the table says why)
    f"{m}: {row_settings(m, mc)}" for m, mc in cfg["methods"].items()
    if not mc.get("not_run") and not is_feature_free(mc)
)
embeddings = "; ".join(
    f"{m}: {row_settings(m, mc, algorithm=False)}" for m, mc in cfg["methods"].items()
    if is_feature_free(mc)
)
not_run = [s for s in sets if s not in available]
counted = [human_set(s).in_text for s in sets if human_set(s).counted]  # a ceiling line
refusals = [
    f"{row_name(m, f)} on {s} at n = {int(n):,} ({err})"
    for (s, m, f, n), err in refused.assign(error=refused.get("error", "refused"))
    .groupby(["set", "method", "features", "n_train"], sort=False)
    .error.first()
    .items()
]
hidden = {  # set -> the (method, features) lines not drawn
    s: list(zip(g.method, g.features))
    for s, g in summary[~summary.drawn]
    .drop_duplicates(["set", "method", "features"])
    .groupby("set", sort=False)
}
text = (
    "Protocol (c), the learning curve: test triplet accuracy (a test answer is right when "
    "d(i, j) < d(i, k), half when the two tie"
    + (f"; {', '.join(counted)} rows weighted by their answer counts" if counted else "")
    + ") against the number of human triplets a learner was trained on (one triplet per answer), "
    "on people's relative comparisons: "
    + "; ".join(human_set(s).words for s in sets)
    + ", cited for the data; no paper's curve is drawn beside ours: the figure and every choice "
    "below are ours. "
    f"Folds: protocol (a), {cfg['n_splits']}-fold over the answers"
    + f" ({grouping_words(cfg)})"
    + f", seed(s) {seeds}, the same folds for every method. For each fold the training answers "
    "are put in one seeded order (numpy default_rng(seed).permutation) and the curve's point n "
    f"is trained on the first n of them (sizes {sizes}, each below the fold's training set), "
    "so the subsets are nested; every point is scored on the whole test fold. The last point "
    "of each line is protocol (a) itself"
    + (f" (at most {bound:,} training answers, the table's bound)" if bound else "")
    + "; its x value is the mean over folds of its training set's size. Points: mean over the "
    "folds of every seed; bands: ± one standard deviation over them (clipped to [0, 1]). "
    + (f"Learners (not tuned): {learners}; " if learners else "")
    + "item features "
    + ", ".join(cfg["features"])
    + f" ({'each vector at unit length' if cfg['normalize'] == 'l2' else 'as computed'}), "
    "line style by feature set ("
    + ", ".join(f"{STYLE_WORDS.get(v, 'dash-dotted')} {k}" for k, v in LINESTYLES.items())
    + "). "
    + (
        f"Ordinal embeddings (cblearn; not tuned, their dimension ours): {embeddings}; they use "
        "no item features (a position per item fitted from the training answers; solid line). "
        if embeddings
        else ""
    )
    + "Horizontal "
    "lines, from protocol (a) on the same folds (they use no training answers): the Euclidean "
    "distance on each feature set, chance (a distance that ties every pair: 0.5)"
    + (
        f" and, on {', '.join(counted)}, the human ceiling (the share of test answers that "
        "agree with their question's majority, ties half: the best any distance can score)"
        if counted else ""
    )
    + "."
    + (f" Not run: {', '.join(not_run)} ({reason})." if not_run else "")
    + (" Points not drawn (the learner refused that training set): " + "; ".join(refusals) + "."
       if refusals else "")
    + ("" if on else " Protocol (c) is not in human.protocols: no curve is drawn.")
    + (
        " Lines drawn (ours, for legibility): per panel the "
        + (f"{n_lines} learner rows best" if n_lines > 1 else "learner row best")
        + " on protocol (a), each at its feature set best there; not drawn: " + "; ".join(
            f"{display_name(s)}: " + ", ".join(sorted(row_name(m, f) for m, f in g))
            for s, g in hidden.items()
        ) + " (every line is in the plotted values below, and every row in the table)."
        if n_lines is not None and hidden else ""
    )
)
plotted = pd.concat(
    [summary.assign(kind=summary.drawn.map({True: "curve", False: "curve, not drawn"})),
     refs.assign(kind="reference", n_train=float("nan"))], ignore_index=True
)[["set", "kind", "method", "features", "n_train", "mean", "std", "n_seeds"]]
plotted["mean"] = plotted["mean"].round(4)
plotted["std"] = plotted["std"].round(4)
lines = [
    "# People's relative comparisons: learning curve (protocol c)",
    "",
    text,
    "",
    "Plotted values (n_seeds: folds x seeds; n_train: training answers, empty for the "
    "horizontal lines):",
    "",
    one_seed_na(plotted).to_markdown(index=False) if len(plotted) else "(none)",
    "",
]
save_text(snakemake.output.md, "\n".join(lines))
print(plotted.to_string())
