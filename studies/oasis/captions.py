"""The OASIS study's captions: the runtime table (Table 2)."""

from __future__ import annotations


from .paper import PAPER, vs_paper


def oasis_table2(config: dict, missing) -> list[str]:
    """Caption of the OASIS paper's runtime table (rule table_oasis_2)."""
    cfg, route = config["images"], config["data"]["route"]
    return [
        (
            "CPU seconds to train each method: the final fit (refit on all training images, the "
            "run's own timer) and the whole cell (its process CPU time, stamped when it writes "
            "its rows: loading, validation grid if any, refit, evaluation, plus an equal share of "
            "its job's start-up, the imports, since one job runs every seed of a method on a set; "
            f"not Snakemake's sampled benchmark) over {PAPER.runs('oasis_table2', cfg['seeds'])}; {route} data "
            "route, one BLAS thread per job; "
            + vs_paper(
                "oasis_table2", "n_triplets", cfg["n_triplets"], f"{cfg['n_triplets']:,} triplets"
            )
            + "; bounds per method as in the table_sdca_3 caption. Times are not ranked (a time "
            "says nothing about quality)."
        ),
        (
            "The OASIS paper reports wall-clock training times on its own hardware (not in "
            "config/paper_results.csv): compare orders of magnitude only."
        ),
        *([f"Not run ({route} route): {', '.join(missing)} (needs download)."] if missing else []),
    ]
