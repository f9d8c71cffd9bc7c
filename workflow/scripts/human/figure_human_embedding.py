"""Rule figure_human_embedding: a 2-D map of one human-judgment set's items under three distances,
each item drawn as its own thumbnail (tripletbench.studies.human.maps): the Euclidean distance on
the feature set of the table's best Euclidean row, the table's best learner row refitted on the
set's answers, and an ordinal embedding fitted in 2-D on the same answers. The rows follow
table_human's CSV (this rule's input); MDS maps the first two, an orthogonal Procrustes rotation
aligns every map to the Euclidean one. Illustrative (fitted on all answers, no held-out score);
every choice is in the caption. A set that did not run: every panel says why."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from tripletbench.studies.human import experiment as human  # noqa: E402
from tripletbench.studies.human import maps  # noqa: E402
from tripletbench.harness.io import now, save_text, start_log  # noqa: E402
from tripletbench.harness.plots import display_name, save_figure  # noqa: E402
from tripletbench.harness.tables import read_result  # noqa: E402

start_log(snakemake.log[0])
config = snakemake.config
cfg = snakemake.params.block
fig_cfg = cfg["embedding_figure"]
hset = fig_cfg["set"] or cfg["sets"][0]
seed = int(fig_cfg["seed"])
thumb_in = fig_cfg["thumbnail_in"]  # None: from the number of items (human_maps.thumbnail_size)
available = list(snakemake.params.available)
table = read_result(snakemake.input.table, "table_human")  # its digest checked
print(f"[{now()}] 2-D maps of {hset}, seed {seed}")

choices = maps.choose(table, hset, cfg)
HEADS = {"euclidean": "Euclidean distance", "learned": "learned distance",
         "ordinal": "ordinal embedding"}
panels, images, j, why_not = [None, None, None], None, None, {}
if hset in available:
    j = human.load(hset, snakemake.params.cache, snakemake.params.mirror,
                   snakemake.params.allow_unpinned)
    features = {}
    for path, kind in zip(snakemake.input.features, human.feature_sets(hset, cfg["features"])):
        with np.load(path) as f:
            if list(f["items"]) != list(np.asarray(j.items).astype(str)):
                raise ValueError(f"{path}: its items are not {hset}'s (remake rule human_features)")
            features[kind] = f["X"]
    panels = maps.build_panels(j, features, choices, cfg, seed)
    images = maps.thumbnails(j, side=int(fig_cfg["thumbnail_px"]))
    auto_size = thumb_in is None
    thumb_in = maps.thumbnail_size(images) if auto_size else float(thumb_in)
    if choices[1] is None:
        why_not[1] = "no learner row in human.methods"
else:
    reason = human.missing_reason(config)
    why_not = {k: reason if reason.startswith("not run") else f"not run: {reason}"
               for k in range(3)}


def title(k, p, ch):
    """A panel's title: the method, its protocol (a) accuracy, what the map keeps."""
    head = f"{'abc'[k]}) {HEADS[maps.PANELS[k]]}"
    if ch is None:
        return head
    acc = "not in the table" if ch.accuracy is None else f"{ch.accuracy:.3f}"
    fitted = "" if p is None or not p.n_train else f" (refitted on {p.n_train:,} answers)"
    if ch.kind == "ordinal" and p is not None:
        fitted = f" in 2-D, on {p.n_train:,} answers"
    lines = [f"{head}: {ch.label}{fitted}", f"held-out accuracy, protocol (a): {acc}"]
    if p is not None:
        if ch.kind == "ordinal":
            lines.append(f"all answers satisfied: 2-D embedding {p.kept_map:.3f}")
        elif ch.kind == "learned":
            lines.append(f"all answers satisfied: learner {p.kept_model:.3f}, "
                         f"distance {p.kept_distance:.3f}, 2-D map {p.kept_map:.3f}")
        else:
            lines.append(f"all answers satisfied: distance {p.kept_distance:.3f}, "
                         f"2-D map {p.kept_map:.3f}")
    return "\n".join(lines)


fig, axes = plt.subplots(1, 3, figsize=(16.0, 6.4), dpi=150)
for k, ax in enumerate(axes):
    ax.set_title(title(k, panels[k], choices[k]), fontsize=9)
fig.suptitle(f"{display_name(hset)}: the items mapped to 2-D under three distances "
             "(each item drawn as its image; illustrative, fitted on all answers)", fontsize=10)
fig.tight_layout(rect=(0, 0, 1, 0.975))
maps.draw_maps(axes, panels, images or [], thumb_in or 0.0, why_not)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)

# the caption: every choice, then the plotted values
bound = cfg.get("max_train_triplets")
where = ("" if j is None else
         f" It has {j.n_items} items and {j.n_answers:,} answers ({len(j.triplets):,} distinct "
         "rows).")
learned = choices[1]
text = (
    f"The items of {display_name(hset)}, the set that human.embedding_figure.set names, each "
    "drawn as its own image"
    + ("" if j is None else
       f" (longer side {thumb_in:.2f} in"
       + (", 2.2 in / sqrt(number of items) x sqrt(the images' median aspect): "
          "human.embedding_figure.thumbnail_in left to the figure" if auto_size else "")
       + "; centred at the item's position)")
    + ", placed by three distances." + where
    + " Illustrative: the learned distance and the ordinal embedding are fitted on all of the "
    "set's answers"
    + (f" (one triplet per answer, at most {bound:,}: human.max_train_triplets, the first of "
       f"one seeded order, seed {seed})" if bound else f" (one triplet per answer, seed {seed})")
    + ", so what the maps show is not a held-out score; the held-out accuracy in each title is "
    "the table's protocol (a) number (mean over folds and seeds, ties half), read from the human "
    "table, which also picks the rows. a) The Euclidean distance on the feature set of the "
    "table's best Euclidean row (no training). b) The table's best learner row (any feature "
    "set; ordinal embeddings excluded) refitted with that row's settings; its pair scores S "
    "(x_i^T W x_j, or -d_M^2 for a Mahalanobis learner) become squared distances d^2(i, j) = "
    "S_ii + S_jj - 2 S_ij of the symmetric part (S + S^T)/2, clipped at 0 (exact for a positive "
    "semi-definite W, an approximation of the learner's order otherwise: the table below gives "
    "the share of answers each satisfies). c) An ordinal embedding fitted in 2-D directly on "
    "the same answers: "
    + (f"{choices[2].method} ({choices[2].algorithm}), the first cblearn row of human.methods, "
       "with its settings"
       if any(maps.is_ordinal(m) for m in cfg["methods"].values())
       else "human.methods has no cblearn row, so SOE (cblearn.embedding.SOE, its defaults: "
       "margin 0.1, 10 random starts)")
    + ", n_components = 2. Maps a) and b): scikit-learn's metric MDS (SMACOF on the distances, "
    f"4 starts, random_state {seed}); every map centred and turned onto map a) by an "
    "orthogonal Procrustes rotation (scipy.linalg.orthogonal_procrustes: a rotation or "
    "reflection, no scaling), so the same item sits in a comparable place and the distances "
    "within each map are unchanged; axes in arbitrary units, each map scaled to its panel. "
    "Answers satisfied: the share of all the set's answers (each answer once, ties half) that "
    "the distance itself, and the 2-D map's Euclidean distance, put in the answer's order: "
    "how much of the distance's order the 2-D map keeps; Spearman: the rank correlation of the "
    "distance with the map's distance over all item pairs (1 for c, whose distance is the "
    "map's)."
    + ("" if learned is not None or j is None else " No learner row in human.methods: panel b "
       "is empty.")
    + (f" Not run: {hset} ({reason})." if j is None else "")
)
rows = []
for k, (p, ch) in enumerate(zip(panels, choices)):
    if ch is None:
        continue
    rows.append({
        "panel": "abc"[k], "row": ch.label, "chosen": ch.why,
        "algorithm": ch.algorithm or "", "settings": ", ".join(
            f"{a} = {b}" for a, b in ch.params.items()) or ("" if ch.kind == "euclidean"
                                                            else "defaults"),
        "held_out_a": "not in the table" if ch.accuracy is None else round(ch.accuracy, 4),
        "answers_distance": None if p is None else round(p.kept_distance, 4),
        "answers_map_2d": None if p is None else round(p.kept_map, 4),
        "answers_learner_scores": None if p is None or p.kept_model is None
        else round(p.kept_model, 4),
        "spearman_2d": None if p is None else round(p.spearman, 4),
        "n_train": None if p is None else p.n_train,
        "fit_s": None if p is None else round(p.fit_s, 2),
    })
plotted = pd.DataFrame(rows)
lines = [
    f"# People's relative comparisons: 2-D maps of the {display_name(hset)} items",
    "",
    text,
    "",
    "Each panel (held_out_a: protocol (a) of the table; answers_*: share of all answers "
    "satisfied, fitted on them; answers_learner_scores: the learner's own pair scores; fit_s: "
    "wall seconds of the fit):",
    "",
    plotted.astype(object).where(plotted.notna(), "").to_markdown(index=False)
    if len(plotted) else "(none)",
    "",
]
save_text(snakemake.output.md, "\n".join(lines))
print(plotted.to_string())
