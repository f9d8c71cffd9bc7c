"""The rows behind OAHU's Table 3 beyond the generic builder: the win/tie/loss counts."""

from __future__ import annotations

import pandas as pd


def win_tie_loss_lines(summary: pd.DataFrame) -> list[str]:
    """Table 3's win/tie/loss counts from a :func:`tripletbench.harness.paper_table.summarize` with reference
    OAHU: the paper's (OAHU against each method, error rate, over datasets), then ours (each
    method against OAHU, error rate and macro F1), as Markdown lines."""
    from tripletbench.harness.tables import win_tie_loss

    swap = {"win": "loss", "loss": "win", "tie": "tie"}  # the method's side -> OAHU's side
    err = summary[summary.metric == "error_rate"].assign(oahu=lambda f: f.vs_OAHU.map(swap))
    return [
        "Win/tie/loss of OAHU against each method (error rate, over datasets; as the paper's):",
        "",
        win_tie_loss(err, "oahu").to_markdown(),
        "",
        "Ours: win/tie/loss of each method against OAHU (error rate and macro F1, over datasets):",
        "",
        win_tie_loss(summary, "vs_OAHU").to_markdown(),
    ]
