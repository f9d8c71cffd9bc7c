"""Rules figure_sdca_1, figure_sdca_2, figure_oasis_3: plot the curves of all seeds."""

from tripletbench.harness.io import start_log
from tripletbench.harness.paper_settings import PaperSettings
from tripletbench.harness.plots import curves, one_seed_na
from tripletbench.studies.oasis import paper as oasis_paper
from tripletbench.studies.oasis.scaling import plot_scaling as scaling
from tripletbench.studies.sdca import paper as sdca_paper
from tripletbench.studies.sdca.captions import curve_ends
from tripletbench.harness.settings import check_block_fresh
from tripletbench.harness.tables import collect

start_log(snakemake.log[0])
# the figures block serves the SDCA paper's Figures 1-2 and the OASIS paper's Fig. 3 and 1(b)
PAPER = PaperSettings({**sdca_paper.PAPER.settings, **oasis_paper.PAPER.settings})
comparison_note, note, vs_paper = PAPER.comparison_note, PAPER.note, PAPER.vs_paper
cfg = snakemake.config["figures"]
route = snakemake.config["data"]["route"]
name = snakemake.rule
# each seed's file whole and as its job wrote it (digest), one seed each (tripletbench.harness.tables.collect)
rows = collect(snakemake.input, snakemake.params.producer, cell=("seed",))
# rows made under other settings than the config's are refused (tripletbench.harness.settings)
check_block_fresh(rows, snakemake.params.settings, name, snakemake.params.producer)
seeds = sorted(int(s) for s in rows.seed.unique())
data = f"{cfg['dataset']} ({route} route)"
if "metric" not in rows:  # the scaling rows are not curves
    rows = rows.assign(metric="fit_wall_s")
if cfg["dataset"].startswith("caltech256_"):
    img = snakemake.config["images"]
    stand_in = (
        f" Caltech-256, {cfg['dataset'].split('_')[1]} classes (the SDCA paper's Figures 1-2 used "
        "50 classes and a 1000-word bag of local descriptors, after Chechik et al. 2010; the "
        "OASIS paper's Figure 3 its 20-class subset); ours: each seed's bag-of-visual-words "
        "features of the images experiment "
        f"({img['n_train_per_class']} + {img['n_test_per_class']} images per class; its "
        "visual words are not the paper's descriptors), split again 70/30 per class here."
    )
elif cfg["dataset"] in ("fashion_mnist_pixels", "fashion_mnist_bovw"):
    stand_in = (
        f" The papers used Caltech-256; the image features {cfg['dataset']} of the images "
        "experiment (each seed's own) stand in for it here."
    )
else:
    stand_in = f" The papers used Caltech-256; {cfg['dataset']} stands in for it here."
norm = cfg.get("normalize", "l2")
scale = (
    " Every feature vector scaled to unit Euclidean length first (our choice: neither paper's "
    "text states a normalisation)."
    if norm == "l2"
    else " Features as prepared (not normalised)."
)
# the paper's settings beside ours (the studies' paper modules): Figures 1-2 of the SDCA paper share
# one set of runs; Figure 3 of the OASIS paper has its own
art = "figure_oasis_3" if name == "figure_oasis_3" else "figure_sdca_1"
n = cfg["n_triplets"]
lam = (  # SDCA's lambda: Figures 1-2 only
    f"; SDCA lambda = {cfg['sdca_lam']} {note(art, 'sdca_lam', cfg['sdca_lam'])}"
    if art == "figure_sdca_1"
    else ""
)
common = "".join(
    [
        f"{data}, ",
        vs_paper(art, "n_triplets", n, f"{n:,} class-based random triplets"),
        " from a 70% per-class training split; ",
        vs_paper(art, "n_steps", n, f"{n:,} online steps"),
        ", each on a triplet drawn uniformly at random with replacement (Algorithm 1; OASIS), so "
        "not every triplet is seen; mean ± std over ",
        vs_paper(art, "n_runs", len(seeds), f"seeds {seeds}"),
        f".{scale}{stand_in} OASIS C = {cfg['oasis_C']} {note(art, 'oasis_C', cfg['oasis_C'])}",
        lam,
        ".",
    ]
)
if name == "figure_sdca_1":
    from tripletbench.harness.io import save_text

    title = f"OASIS (C={cfg['oasis_C']}) vs SDCA (lambda={cfg['sdca_lam']})"
    loss_note = (
        " Loss: the paper's text plots the 'accumulative loss divided by the number of "
        "iterations' with 'the same bilinear loss function' without naming it; the only loss "
        "it defines is eq. (3), the squared hinge SDCA minimizes (OASIS minimizes the hinge). "
        "We record both for each step's triplet before its update: the squared hinge here "
        "(figure_sdca_1.png), the hinge in figure_sdca_1_hinge.png. The paper reports about "
        "0.58 (OASIS) and 0.46 (SDCA) after 100K iterations on Caltech-256 (stars on both "
        "plots, as the loss they measure is not stated)."
    )
    differ = comparison_note(
        art, [("n_steps", n, f"{n:,} online steps")], against="the paper's losses (the stars)"
    )
    loss_note += f" {differ}" if differ else ""
    loss_note += " " + curve_ends(
        rows,
        {"avg_cumulative_squared_hinge": "squared hinge", "avg_cumulative_hinge": "hinge"},
        "The paper: SDCA lower (about 0.46 against OASIS's 0.58 after 100K iterations on "
        f"Caltech-256); a star marks the paper's value, not a point of this run on {data}.",
    )
    refs = {"OASIS": (100_000, 0.58), "SDCA": (100_000, 0.46)}
    out = snakemake.output
    sq = curves(
        rows,
        "avg_cumulative_squared_hinge",
        "average cumulative squared hinge loss",
        f"SDCA paper, Fig. 1: squared hinge (eq. 3), on {cfg['dataset']}",
        out.png,
        out.pdf,
        out.md,
        caption=common + loss_note,
        logy=norm != "l2",
        references=refs,
        limits=(0.0, None),
    )
    hinge = curves(
        rows,
        "avg_cumulative_hinge",
        "average cumulative hinge loss",
        f"SDCA paper, Fig. 1: hinge, on {cfg['dataset']}",
        out.png_hinge,
        out.pdf_hinge,
        out.md,  # rewritten below with both losses
        caption="",
        logy=norm != "l2",
        references=refs,
        limits=(0.0, None),
    )

    def last(summary):
        return one_seed_na(
            summary.sort_values("step")
            .groupby("method")
            .tail(1)[["method", "step", "mean", "std", "n_seeds"]]
        ).to_markdown(index=False)

    save_text(
        out.md,
        "\n".join(
            [
                f"# SDCA paper, Figure 1: average cumulative loss, {title}",
                "",
                common + loss_note,
                "",
                "Squared hinge (eq. 3) at the last step (mean ± std over seeds):",
                "",
                last(sq),
                "",
                "Hinge at the last step (mean ± std over seeds):",
                "",
                last(hinge),
                "",
            ]
        ),
    )
elif name == "figure_sdca_2":
    curves(
        rows,
        "mistake_rate",
        "online mistake rate",
        f"SDCA paper, Fig. 2: mistakes, OASIS (C={cfg['oasis_C']}) vs SDCA "
        f"(lambda={cfg['sdca_lam']}), on {cfg['dataset']}",
        *snakemake.output,
        caption=common + " A mistake: the positive not scored above the negative before the step."
        " Bands: ± one standard deviation over seeds, clipped to [0, 1]. "
        + curve_ends(
            rows,
            {"mistake_rate": "online mistake rate"},
            "The paper: SDCA has the lower online mistake rate (its Figure 2, on Caltech-256).",
        ),
        limits=(0.0, 1.0),
    )
elif name == "figure_scaling":
    scaling(
        rows,
        *snakemake.output,
        caption=f"{cfg['scaling_dataset']} ({route} route), 70% per-class training split. Left: "
        "OASIS and SDCA, n online steps on n class-based random triplets (each step draws one "
        "uniformly at random with replacement). Right: n training "
        f"samples; OASIS and SDCA with {cfg['scaling_triplets_per_sample']} triplets per "
        f"sample, LMNN ({cfg['scaling_lmnn']}) on the samples and their labels. One BLAS "
        f"thread; the rule asks Snakemake for every core, so it starts no other job of this "
        f"run beside it (other processes of the machine are not controlled: see the load); "
        f"seeds {seeds}. OASIS and SDCA are fitted once on 10 triplets and metric-learn (LMNN) "
        "is imported before any timing, so that no size carries the compilation of the loops "
        "(or the load of its cache) or the library's import.",
    )
else:
    curves(
        rows,
        "mAP",
        "test mAP",
        f"OASIS paper, Fig. 3: variants (C={cfg['oasis_C']}), on {cfg['dataset']}",
        *snakemake.output,
        caption=common
        + " mAP of "
        + vs_paper(art, "n_queries", cfg["n_queries"], f"{cfg['n_queries']:,} test queries")
        + f" against {cfg['n_database']:,} training samples; variants that project only at the "
        "end are evaluated with the projection applied at each checkpoint. Bands: ± one standard "
        "deviation over seeds, clipped to [0, 1].",
        limits=(0.0, 1.0),
    )
