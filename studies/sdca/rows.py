"""The rows behind the SDCA tables beyond the generic builder: which grid point each cell
selected, and a comparison with another data route's table. Kept apart from the modules the
fitting cells import, so that an edit here reruns the tables that use it and no cell."""

from __future__ import annotations

import pandas as pd

from tripletbench.harness.experiment import test_rows
from tripletbench.harness.io import read_csv_named


def cell_info(runs: pd.DataFrame, metric: str = "mAP") -> pd.DataFrame:
    """Per (dataset, algorithm) of collected runs (:func:`test_rows`): ``selected`` (the grid
    point chosen on validation, per seed, ";"-joined) and ``fit_wall_s`` (mean seconds of the
    final fit), the extra columns of a retrieval table's CSV."""
    final = test_rows(runs)
    sel = final[final.metric == metric].sort_values("seed").groupby(["dataset", "algorithm"])
    out = sel.params_label.agg(lambda v: ";".join(v.astype(str))).rename("selected").to_frame()
    fit = final[final.metric == "fit_wall_s"].groupby(["dataset", "algorithm"]).value.mean()
    return out.join(fit.rename("fit_wall_s")).reset_index()


def route_comparison(runs: pd.DataFrame, route: str, other_csv, metric: str = "mAP"):
    """(info, section) comparing each cell's mean ``metric`` with the same cell of another data
    route's table (``other_csv``, a table CSV with dataset, algorithm, mean, std, route):
    ``info`` has other_route_mean, other_route_std, other_route and route_diff (ours - other)
    per (dataset, algorithm); ``section`` is the difference as (heading, frame) for the
    Markdown."""
    other = read_csv_named(other_csv, "other route's table")
    other_route = str(other["route"].iloc[0]) if "route" in other else "other"
    final = test_rows(runs)
    ours = final[final.metric == metric].groupby(["dataset", "algorithm"]).value.mean()
    other = other[["dataset", "algorithm", "mean", "std"]].rename(
        columns={"mean": "other_route_mean", "std": "other_route_std"}
    )
    info = other.merge(ours.rename("ours").reset_index(), on=["dataset", "algorithm"], how="left")
    info["other_route"] = other_route
    info["route_diff"] = info.pop("ours") - info["other_route_mean"]
    diff = info.pivot(index="algorithm", columns="dataset", values="route_diff")
    diff = diff.map(lambda v: "–" if pd.isna(v) else f"{v:+.4f}")
    return info, (f"Difference, {route} route - {other_route} route ({metric}):", diff)
