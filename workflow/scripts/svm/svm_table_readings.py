"""Rule table_svm_readings: Schultz & Joachims (2003), Table 1's six learned and Binary cells on
WebKB under every page reading x lower-casing x vector scale of ``svm.readings``
(tripletbench.studies.svm.sweeps), ranked by the mean distance to the paper's cells: the measurement behind
the default ``svm.text_features``. Offline (no WebKB), the table says so."""

import pandas as pd

from tripletbench.harness.io import save_csv, save_text, start_log
from tripletbench.harness.settings import settings_hash
from tripletbench.studies.svm.sweeps import PAPER_CELLS, summarise_readings
from tripletbench.studies.svm.rows import readings_markdown
from tripletbench.harness.tables import collect, paper_frame

start_log(snakemake.log[0])
cfg = snakemake.config["svm"]
sweep = cfg["readings"]
paper = paper_frame(snakemake.params.paper_rows).rename(columns={"dataset": "notion"})
paper = paper[paper.method.isin(PAPER_CELLS + ("TFIDF",))]
if snakemake.input.runs:
    cell = ("sweep_variant", "notion", "seed")
    runs = collect(snakemake.input.runs, "svm_sweep_run", cell=cell)
    want = snakemake.params.run_hashes  # variant -> the settings hash its cells must carry
    bad = runs[runs.settings_hash.astype(str) != runs.sweep_variant.map(want)]
    if len(bad):
        cells = sorted(set(zip(bad.sweep_variant, bad.notion, bad.seed)))
        raise ValueError(
            f"svm readings: {len(cells)} cell(s) were made under other settings than the "
            "config's; refused. Rerun rule svm_sweep_run (Snakemake's default rerun triggers "
            "do): " + "; ".join(f"{v} {n} seed {s}" for v, n, s in cells[:10])
        )
    table = summarise_readings(runs, paper)
    table["default"] = [
        (r.reading, r.lowercase, r.scale)
        == tuple(cfg["text_features"][k] for k in ("reading", "lowercase", "scale"))
        for r in table.itertuples()
    ]
else:
    table = pd.DataFrame(columns=["variant", "reading", "lowercase", "scale", "paper_distance"])
table["route"] = snakemake.params.route
table["settings_hash"] = settings_hash(snakemake.params.settings)
save_csv(snakemake.output.csv, table)
save_text(snakemake.output.md, "\n".join(readings_markdown(table, paper, cfg, full=True)) + "\n")
print(table.to_string())
