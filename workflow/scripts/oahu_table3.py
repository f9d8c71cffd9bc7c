"""Rule table_oahu_3: the OAHU paper's Table 3 (kNN error rate, macro F1, constraint utilization
U over runs; the paper's marks from a paired t-test against OAHU at 0.05, win/tie/loss), the
paper's value beside ours, built by harness.paper_table."""

from harness import captions
from harness.io import save_csv, start_log
from harness.paper_table import Metric, PaperTable, paper_for_rows, seed_values, write_table
from harness.settings import check_fresh
from harness.tables import collect, paper_frame, win_tie_loss

start_log(snakemake.log[0])
config = snakemake.config
cfg = config["oahu"]["table3"]
runs = collect(snakemake.input.runs)
# rows made under other settings than the config's are refused (harness.settings)
check_fresh(runs, config, "oahu.table3", "workflow/scripts/oahu_cell.py", "oahu_cell")
save_csv(snakemake.output.runs, runs)
metrics = [
    Metric("error_rate", "kNN error rate", higher_is_better=False, digits=3, paper_digits=2),
    Metric("macro_f1", "macro F1", digits=3, paper_digits=2),
    Metric("constraint_utilization", "constraint utilization U", 1, 3, ranked=False, paper_digits=2),
]
SWAP = {"win": "loss", "loss": "win", "tie": "tie"}  # the method's side -> OAHU's side


def counts(summary):
    """The paper's win/tie/loss (OAHU's side, error rate, over datasets), then ours."""
    err = summary[summary.metric == "error_rate"].assign(oahu=lambda f: f.vs_OAHU.map(SWAP))
    return [
        "Win/tie/loss of OAHU against each method (error rate, over datasets; as the paper's):",
        "", win_tie_loss(err, "oahu").to_markdown(), "",
        "Ours: win/tie/loss of each method against OAHU (error rate and macro F1, over datasets):",
        "", win_tie_loss(summary, "vs_OAHU").to_markdown(),
    ]


out = snakemake.output
table = PaperTable(
    name="oahu_table3",
    title="OAHU paper, Table 3: kNN classification",
    values=seed_values(runs, [m.name for m in metrics]),
    metrics=metrics,
    datasets=cfg["datasets"],
    methods=list(cfg["methods"]),
    paper=paper_for_rows(paper_frame(snakemake.params.paper_rows)),
    status={d: "needs download" for d in snakemake.params.missing},
    methods_cfg=cfg["methods"],
    caption=captions.oahu_table3(config, runs, snakemake.params.missing),
    reference="OAHU",
    reference_marks={"error_rate": {"loss": "•", "win": "◦"}},  # the paper's Table 3 marks
    sections=[counts],
)
print(write_table(table, out.csv, out.md, out.tex).to_string())
