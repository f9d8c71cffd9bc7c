# Human judgments (tripletbench.studies.human): metric learners on people's relative comparisons (the
# crowd-sourced sets of datasets/, each a module declaring HUMAN_SET: Food-100, the 60 cars, the
# material appearance answers; studies/human/experiment.py). The sets' and feature sets' names
# below come from those declarations. Download route only: on the embedded
# route every set shows "needs download", unless the block names its own mirror (human.mirror:
# the CI config's ../shared/mirror; a folder that is absent leaves the sets out, the run goes
# on). One fetch per set (local rule), one features job per (set, feature set), one cell per
# (set, method, seed) holding every fold, curve size and feature set, then table_human,
# figure_human_curve and figure_human_embedding (2-D maps of one set's items, rows from the table).


include: "human/functions.smk"


HUMAN = config["human"]
# each figure's own keys: a change of one reruns that figure alone
HUMAN_FIGURE_KEYS = ("embedding_figure", "curve_figure")


from tripletbench.studies.human import experiment as human_mod  # noqa: E402

# the human sets' route and mirror: human.mirror (download layout) where given, else data's
HUMAN_ROUTE, HUMAN_MIRROR = human_mod.route_and_mirror(config)
HUMAN_UNPINNED_FROM = (
    (HUMAN_MIRROR or "publishers") if config["data"]["allow_unpinned_downloads"] else False
)

# what every human_cell reads besides its own row (a change reruns every cell; common.smk:
# human_cell_block, human_cell_settings)
HUMAN_CELL_KEYS = [
    "features",
    "normalize",
    "protocols",
    "n_splits",
    "group_by",
    "max_train_triplets",
    "curve_sizes",
]
# the cells build their learner by name (fit_learner; an external one by its dotted path, e.g.
# metric_learn.SCML: its wrapper's code and the library's version); rows with not_run build none;
# the ordinal embeddings (cblearn classes, feature-free rows) are fitted by studies/human/experiment.py, in
# the cell script's code, and enter the settings with cblearn's version (human_cell_settings,
# one per row)
HUMAN_CELL_HASHES = human_cell_hashes()


localrules:
    human_fetch,
    table_human,
    figure_human_curve,


rule human_fetch:
    output:
        f"{CACHE}/fetched/human_{{hset}}.txt",
    log:
        f"{LOGS}/human/fetch_{{hset}}.log",
    wildcard_constraints:
        hset="|".join(human_mod.SETS),
    params:
        # the data cache: output = {cache}/fetched/human_<set>.txt
        cache=lambda wildcards, output: str(Path(output[0]).parents[1]),
        mirror=HUMAN_MIRROR,
        allow_unpinned=HUMAN_UNPINNED_FROM,
    run:
        from tripletbench.harness.io import save_text

        j = human_mod.load(wildcards.hset, params.cache, params.mirror, params.allow_unpinned)
        save_text(output[0], "".join(f"{line}\n" for line in j.provenance))


# what every item feature file is made under (rule human_features); each cell checks its files
HUMAN_FEATURES_SETTINGS = block_settings(
    config, "human", [], "workflow/scripts/human/human_features.py"
)


rule human_features:
    input:
        f"{CACHE}/fetched/human_{{hset}}.txt",
        settings_check=settings_check("human_features"),  # harness/keep.py
    output:
        f"{RESULTS}/human/features/{{hset}}/{{features}}.npz",
    log:
        f"{LOGS}/human/features_{{hset}}_{{features}}.log",
    wildcard_constraints:
        hset="|".join(human_mod.SETS),
        features="|".join(human_mod.all_feature_sets()),
    group:
        "cells"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["human_features"],
        runtime=RUNTIME_MIN["human_features"],
    params:
        # the data cache: input = {cache}/fetched/human_<set>.txt
        cache=lambda wildcards, input: str(Path(input[0]).parents[1]),
        mirror=HUMAN_MIRROR,
        allow_unpinned=HUMAN_UNPINNED_FROM,
        settings=HUMAN_FEATURES_SETTINGS,
    script:
        "../scripts/human/human_features.py"


rule human_cell:
    input:
        fetched=f"{CACHE}/fetched/human_{{hset}}.txt",
        features=human_feature_files,
        settings_check=settings_check("human_cell"),  # harness/keep.py
    output:
        rows=f"{RESULTS}/human/cells/{{hset}}/{{method}}/seed{{seed}}.csv",
    log:
        f"{LOGS}/human/cell_{{hset}}_{{method}}_seed{{seed}}.log",
    benchmark:
        f"{RESULTS}/human/benchmarks/{{hset}}_{{method}}_seed{{seed}}.tsv"
    wildcard_constraints:
        hset="|".join(human_mod.SETS),
    group:
        "cells"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=human_cell_resource("mem_mb"),
        runtime=human_cell_resource("runtime"),
    params:
        # the data cache: input = {cache}/fetched/human_<set>.txt
        cache=lambda wildcards, input: str(Path(input[0]).parents[1]),
        mirror=HUMAN_MIRROR,
        allow_unpinned=HUMAN_UNPINNED_FROM,
        human=lambda wc: human_cell_block(wc.method),
        route=HUMAN_ROUTE,
        settings=lambda wc: human_cell_settings(wc.method),
        # the settings hash each feature file must record (rule human_features)
        inputs=settings_hash(HUMAN_FEATURES_SETTINGS),
    script:
        "../scripts/human/human_cell.py"


rule table_human:
    """Triplet accuracy (ties counted half) on people's relative comparisons.

    The sets: Food-100 (Wilber et al. 2014), the 60 cars (Kleindessner & von Luxburg 2017), material
    appearance (Lagunas et al. 2019). Rows: the Euclidean distance on each item feature set
    (`global`, `hog`, Food-100's `ingredients`), every triplet learner of the project learned from
    the answers with the settings of its rows in the other tables, not tuned (OASIS and its
    symmetric, PSD-at-the-end and Dissim variants, SDCA, SVM-relative, COMET, OAHU, the pair
    learners LEGO and RDML on the two pairs of each triplet, metric-learn's SCML; OPML is one n/a
    row: it builds its triplets from class labels, which these sets do not have), a row restricted
    to some feature sets (`features`, `features_reason`: COMET, RDML and SCML on `global` only, LEGO
    and OASIS-psd-end without `hog`, for their measured fit times or memory, or, for OASIS-psd-end
    on `hog` and COMET on `ingredients`, the table's CPU budget) n/a elsewhere with its reason,
    chance and cblearn's ordinal embeddings (SOE, Terada & von Luxburg 2014; STE and t-STE, van der
    Maaten & Weinberger 2012; CKL, Tamuz et al. 2011; GNMDS, Agarwal et al. 2007; FORTE, Jain et al.
    2016; 2-d, our choice) as rows that use no features (a position per item fitted from the
    training answers, scored by squared Euclidean distance; n/a on (b)), chance and the material
    human ceiling as reference rows (not ranked). About 2.8 CPU-hours at the default config
    (measured on the mirror, 2026-11-27: the command in docs/mirrors.md).

    Protocols: (a) k-fold over the answers grouped by question as the table, below it protocol (b)
    held-out items (k-fold over the items: trained on answers among training items, scored on every
    answer that involves a held-out item; a row without a feature map, such as an ordinal embedding,
    says n/a) and material's publisher split (d) scored against every answer and against the
    majority; every method on the same folds (each row records its seed and its protocol's folds
    digest). A number others published under one of these protocols (`human.published`: Lagunas et
    al.'s network against the test questions' majority, 0.8199, from the authors' repository) is its
    own unranked row in a "published" column, never rerun.

    Download route only (offline every set "needs download"; in `reproduce_all` on the download
    route, e.g. `config/mirror.yaml` with a data mirror, or with `human.mirror`).
    """
    input:
        runs=human_cells(),
    output:
        runs=f"{RESULTS}/human/all_runs.csv",
        csv=f"{RESULTS}/tables/human_table.csv",
        md=f"{RESULTS}/tables/human_table.md",
        tex=f"{RESULTS}/tables/human_table.tex",
    log:
        f"{LOGS}/tables/human_table.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["table"],
        runtime=RUNTIME_MIN["table"],
    params:
        block=human_block(),  # rows (in the config's order), notes and caption follow it
        route=HUMAN_ROUTE,
        mirror=HUMAN_MIRROR,  # named in the caption
        available=human_sets(),
        run_settings=HUMAN_CELL_HASHES,
        code=script_code("workflow/scripts/human/table_human.py"),
    script:
        "../scripts/human/table_human.py"


rule figure_human_curve:
    """Protocol (c): test triplet accuracy against the number of human triplets used for training.

    One panel per set: nested subsets of each (a) fold's training answers (`human.curve_sizes`, the
    first n of one seeded order), (a) itself as each line's last point, mean ± std over folds and
    seeds; the Euclidean distance per feature set, chance and the material ceiling as horizontal
    lines; the plotted values in the `.md`. Download route only, as `table_human`.
    """
    input:
        runs=human_cells(),
    output:
        png=report_figure(f"{FIGURES}/figure_human_curve.png", "figure_human_curve"),
        pdf=f"{FIGURES}/figure_human_curve.pdf",
        md=f"{FIGURES}/figure_human_curve.md",
    log:
        f"{LOGS}/figures/figure_human_curve.log",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["figure"],
        runtime=RUNTIME_MIN["figure"],
    params:
        block=human_block("curve_figure"),  # panels, lines and caption follow the config
        route=HUMAN_ROUTE,
        available=human_sets(),
        run_settings=HUMAN_CELL_HASHES,
        code=script_code("workflow/scripts/human/figure_human_curve.py"),
    script:
        "../scripts/human/figure_human_curve.py"


rule figure_human_embedding:
    """One set's items mapped to 2-D, each drawn as its own thumbnail, in three panels.

    The set is `human.embedding_figure.set` (default material). Panels: a) the Euclidean distance on
    the feature set of the table's best Euclidean row, b) the table's best learner row (protocol (a)
    of `table_human`'s CSV, the rule's input) refitted on all the set's answers (at most
    `human.max_train_triplets`), its similarity turned into a distance (S_ii + S_jj - 2 S_ij,
    clipped at 0), c) an ordinal embedding fitted in 2-D on the same answers (the first `cblearn.`
    row of `human.methods`, else SOE); a) and b) by scikit-learn's metric MDS, every map turned onto
    a) by an orthogonal Procrustes rotation; each title gives the held-out protocol (a) accuracy and
    the share of all answers the distance and its 2-D map satisfy. Illustrative (fitted on all
    answers, not a held-out score); offline every panel says why it did not run.
    """
    input:
        table=rules.table_human.output.csv,  # picks the rows: the figure follows the table
        fetched=human_embedding_inputs("fetched"),
        features=human_embedding_inputs("features"),
    output:
        png=report_figure(f"{FIGURES}/figure_human_embedding.png", "figure_human_embedding"),
        pdf=f"{FIGURES}/figure_human_embedding.pdf",
        md=f"{FIGURES}/figure_human_embedding.md",
    log:
        f"{LOGS}/figures/figure_human_embedding.log",
    benchmark:
        f"{RESULTS}/human/benchmarks/figure_human_embedding.tsv"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=MEM_MB["figure_human_embedding"],
        runtime=RUNTIME_MIN["figure_human_embedding"],
    params:
        block=human_block("embedding_figure"),  # the rows' settings, the bound, its own keys
        available=human_sets(),
        # the data cache: input.fetched = {cache}/fetched/human_<set>.txt (none: the set not run)
        cache=lambda wildcards, input: (
            str(Path(input.fetched[0]).parents[1]) if len(input.fetched) else ""
        ),
        mirror=HUMAN_MIRROR,
        allow_unpinned=HUMAN_UNPINNED_FROM,
        code=script_code("workflow/scripts/human/figure_human_embedding.py"),
    script:
        "../scripts/human/figure_human_embedding.py"


# in reproduce_all (and the report) where the sets can be fetched (the download route, with or
# without a data mirror), or where the block names its own mirror (the CI config: built from
# ../shared/mirror, or saying "not run" where a clone lacks it); offline without one the table
# would only say "needs download" for every set
if human_sets() or HUMAN.get("mirror"):
    REPRODUCE_ALL.extend(rules.table_human.output)
    REPORT_TABLES["human_table"] = rules.table_human.output
    if "curve" in HUMAN["protocols"]:
        REPRODUCE_ALL.extend(rules.figure_human_curve.output)
        REPORT_FIGURES["figure_human_curve"] = rules.figure_human_curve.output.md
    REPRODUCE_ALL.extend(rules.figure_human_embedding.output)
    REPORT_FIGURES["figure_human_embedding"] = rules.figure_human_embedding.output.md
