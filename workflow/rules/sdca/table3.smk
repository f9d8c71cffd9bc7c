# SDCA paper Table 3: mAP on Caltech-256 (or its stand-ins), from the cells of the OASIS study's
# images block (oasis/images.smk: image features, then the generic fit_evaluate).

from tripletbench.studies.oasis.images import (
    image_cells,
    image_features_files,
    images_on,
)  # noqa: E402


localrules:
    table_sdca_3,


rule table_sdca_3:
    """SDCA paper, Table 3: mAP on Caltech-256 (or its stand-ins) with 100K triplets.

    Rows Eucl, RCA, ITML, LEGO, OASIS, SDCA with 100K triplets on Caltech-256 (50 classes, 1000-word
    bag of visual words; download route); offline, Fashion-MNIST as raw pixels and through the same
    bag-of-words pipeline stands in. Also a critical-difference diagram (`sdca_table3_cd`, its
    numbers: `tables/sdca_table3_ranks.csv`) and `results/tables/images_features.csv` (non-zeros,
    extraction time per image). Cells: the `images` block of the OASIS study.
    """
    input:
        runs=image_cells(config, RESULTS, ROUTE),
        features=image_features_files(config, RESULTS, ROUTE),
    output:
        runs=f"{RESULTS}/images/all_runs.csv",
        csv=f"{RESULTS}/tables/sdca_table3.csv",
        md=f"{RESULTS}/tables/sdca_table3.md",
        tex=f"{RESULTS}/tables/sdca_table3.tex",
        cd=report_figure(f"{FIGURES}/sdca_table3_cd.png", "sdca_table3_cd"),
        cd_md=f"{FIGURES}/sdca_table3_cd.md",
        cd_csv=f"{RESULTS}/tables/sdca_table3_ranks.csv",
        features=f"{RESULTS}/tables/images_features.csv",
    log:
        f"{LOGS}/tables/sdca_table3.log",
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=MEM_MB["table"],
        runtime=RUNTIME_MIN["table"],
    params:
        paper_rows=paper_numbers("sdca_relative_similarity", "table3"),
        block=config["images"],  # rows, notes and captions follow the config
        code=script_code("workflow/scripts/sdca/images_table_sdca_3.py"),
    script:
        "../../scripts/sdca/images_table_sdca_3.py"


if images_on(config):
    REPRODUCE_ALL.extend(rules.table_sdca_3.output)
    REPORT_TABLES["sdca_table3"] = rules.table_sdca_3.output
    REPORT_FIGURES["sdca_table3_cd"] = rules.table_sdca_3.output.cd_md
