"""Result scripts on small hand-made inputs, run in-process: the OAHU and Schultz & Joachims
figure scripts draw each method in its tripletbench.harness.plots colour and marker (the same in every figure)
and clip error bars to the metric's range (a rate in [0, 1], a percentage in [0, 100]; the figure
is read back just before the script closes it); OAHU's Table 3 shows no spread for one run."""

from __future__ import annotations

import runpy
import types
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
import yaml
from matplotlib.colors import to_rgba
from snakemake.utils import validate

from tripletbench.harness.io import save_csv
from tripletbench.harness.plots import method_style
from tripletbench.harness.settings import expected_hashes, settings_hash
from tripletbench.harness.tables import paper_rows
from tripletbench.harness.config import schema_file

ROOT = Path(__file__).resolve().parents[1]


class _Named(list):
    def __init__(self, items=(), **named):
        super().__init__(items)
        self.__dict__.update(named)


def _config():
    cfg = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
    validate(cfg, schema_file())
    return cfg


def _run(script, monkeypatch, **snakemake):
    """Run ``workflow/scripts/<script>`` with a stand-in ``snakemake`` object; returns the
    figures it closed."""
    import matplotlib.pyplot as plt

    closed = []
    real_close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig=None: closed.append(fig) or real_close(fig))
    monkeypatch.setattr("tripletbench.harness.io.start_log", lambda path: None)  # keep pytest's capture
    sm = types.SimpleNamespace(**snakemake)
    runpy.run_path(str(next((ROOT / "workflow/scripts").rglob(script))), init_globals={"snakemake": sm})
    return [f for f in closed if isinstance(f, matplotlib.figure.Figure)]


def _outputs(tmp_path, names):
    return _Named(**{n: str(tmp_path / f"out.{n}") for n in names})


def _same_colour(a, b):
    return np.allclose(to_rgba(a), to_rgba(b))


def test_oahu_figure_4_draws_each_method_in_its_style_with_bars_inside_0_1(tmp_path, monkeypatch):
    cfg = _config()
    fig4 = cfg["oahu"]["figure4"]
    good = expected_hashes(cfg, "oahu.figure4", "workflow/scripts/oahu/oahu_fig4_cell.py")
    cells = []
    for m in fig4["methods"]:
        for n in fig4["n_constraints"]:
            for seed, err in ((0, 0.02), (1, 0.30)):  # mean 0.16, std 0.2: bar to -0.04
                path = tmp_path / f"{m}_{n}_{seed}.csv"
                save_csv(path, pd.DataFrame([{"dataset": fig4["dataset"], "seed": seed,
                                              "algorithm": m, "n_constraints": n,
                                              "error_rate": err, "settings_hash": good[m]}]))
                cells.append(str(path))
    alpha = tmp_path / "alpha.csv"
    t3_hash = expected_hashes(cfg, "oahu.table3", "workflow/scripts/oahu/oahu_cell.py")["OAHU"]
    trace = pd.DataFrame({"dataset": fig4["dataset"], "seed": 0, "algorithm": "OAHU",
                          "settings_hash": t3_hash, "step": [1, 1, 10, 10], "layer": [0, 1, 0, 1],
                          "alpha": [0.5, 0.5, 0.3, 0.7]})
    save_csv(alpha, trace.assign(settings_hash="s000000000000"))
    run = dict(
        config=cfg, rule="figure_oahu_4", input=_Named(cells=cells, alpha=[str(alpha)]),
        log=[str(tmp_path / "log")], output=_outputs(tmp_path, ["png", "pdf", "md", "csv"]),
        params=types.SimpleNamespace(),
    )
    with pytest.raises(ValueError, match="OAHU on vehicle, seed 0: settings s000000000000"):
        _run("oahu_figures.py", monkeypatch, **run)  # a stale alpha trace is refused
    save_csv(alpha, trace)
    figs = _run("oahu_figures.py", monkeypatch, **run)
    ax = figs[-1].axes[0]
    assert len(ax.containers) == len(fig4["methods"])
    for bars in ax.containers:
        line, _, (segments,) = bars.lines
        m = bars.get_label()
        assert _same_colour(line.get_color(), method_style(m)["color"]), m
        assert line.get_marker() == method_style(m)["marker"], m
        ends = np.concatenate([s[:, 1] for s in segments.get_segments()])
        assert ends.min() == pytest.approx(0.0) and ends.max() <= 1.0  # clipped, not -0.04


def test_svm_figure_2_draws_svm_relative_and_baselines_in_their_styles(tmp_path, monkeypatch):
    cfg = _config()
    notion = cfg["svm"]["datasets"][0]
    cfg["svm"]["figure2"] = {"notions": [notion]}
    run_settings = {"svm": {"C": 1.0}}
    rows = []
    for seed, acc in ((0, 0.90), (1, 0.999)):  # mean 94.95 %, std 7.0: the bar would pass 100 %
        for n in (30, 100):
            rows.append({"notion": notion, "method": "SVM-relative", "variant": "none",
                         "n_train_triplets": n, "triplet_accuracy": acc, "seed": seed})
        rows.append({"notion": notion, "method": "Eucl", "variant": "scaled",
                     "n_train_triplets": 0, "triplet_accuracy": 0.7, "seed": seed})
    runs = pd.DataFrame(rows).assign(n_test_triplets=500,
                                     settings_hash=settings_hash(run_settings))
    paths = []  # one file per (notion, seed) cell, as rule svm_run writes them
    for seed, part in runs.groupby("seed"):
        paths.append(str(tmp_path / f"seed{seed}.csv"))
        save_csv(paths[-1], part)
    figs = _run(
        "svm_figure_2.py", monkeypatch, config=cfg, input=_Named(runs=paths),
        log=[str(tmp_path / "log")], output=_outputs(tmp_path, ["png", "pdf", "md"]),
        params=types.SimpleNamespace(run_settings=run_settings, route="embedded"),
    )
    ax = figs[-1].axes[0]
    (bars,) = ax.containers
    line, _, (segments,) = bars.lines
    assert _same_colour(line.get_color(), method_style("SVM-relative")["color"])
    assert line.get_marker() == method_style("SVM-relative")["marker"]
    ends = np.concatenate([s[:, 1] for s in segments.get_segments()])
    assert ends.max() == pytest.approx(100.0)  # clipped at 100 %
    eucl = [x for x in ax.lines if x.get_label().startswith("Eucl")]
    assert len(eucl) == 1 and _same_colour(eucl[0].get_color(), method_style("Eucl")["color"])


def _oahu_cells(rows, tmp_path) -> list[str]:
    """Run ``rows`` written as rule oahu_cell writes them: one file per (dataset, seed, method),
    through tripletbench.harness.io.save_csv (its digest beside it)."""
    paths = []
    for (d, s, m), part in pd.DataFrame(rows).groupby(["dataset", "seed", "algorithm"]):
        path = tmp_path / "cells" / d / f"seed{s}" / f"{m}.csv"
        save_csv(path, part)
        paths.append(str(path))
    return paths


def _run_oahu_table3(rows, cfg, tmp_path, monkeypatch, paths=None):
    """Run oahu_table3.py on run ``rows`` (written as its input, one file per cell: paths
    ``paths`` if given) with config ``cfg``; outputs ``tmp_path/out.{csv,md,tex}``."""
    paths = _oahu_cells(rows, tmp_path) if paths is None else paths
    _run(
        "oahu_table3.py", monkeypatch, config=cfg, input=_Named(runs=paths),
        log=[str(tmp_path / "log")], output=_outputs(tmp_path, ["runs", "csv", "md", "tex"]),
        params=types.SimpleNamespace(
            paper_rows=paper_rows(ROOT / "config/paper_results.csv", "oahu", "table3"),
            missing=["emnist"],
        ),
    )


def test_oahu_table_3_gives_no_spread_for_a_single_run(tmp_path, monkeypatch):
    """One seed: the CSV's std is NaN and the Markdown and LaTeX cells read "± n/a"
    (tripletbench.harness.tables.mean_std), never "± 0.000"; the CSV carries the settings provenance
    columns and the LaTeX is one captioned float per metric (tripletbench.harness.tables.latex_tables)."""
    cfg = _config()
    t3 = cfg["oahu"]["table3"]
    t3["seeds"] = [0]
    good = expected_hashes(cfg, "oahu.table3", "workflow/scripts/oahu/oahu_cell.py")
    rows = [
        {"experiment": "table3", "dataset": "vehicle", "seed": 0, "algorithm": m,
         "params_label": "tau=0.2" if m == "OAHU" else "", "metric": metric, "value": value,
         "settings_hash": good[m]}
        for m in t3["methods"]
        for metric, value in (("error_rate", 0.3), ("macro_f1", 0.6),
                              ("constraint_utilization", 1.0))
    ]
    _run_oahu_table3(rows, cfg, tmp_path, monkeypatch)
    table = pd.read_csv(tmp_path / "out.csv")
    ok = table[table.status == "ok"]
    assert len(ok) == 3 * len(t3["methods"]) and ok["std"].isna().all() and (ok.n_seeds == 1).all()
    assert {"protocol", "paper_settings", "our_settings"} <= set(table.columns)
    md, tex = (tmp_path / "out.md").read_text(), (tmp_path / "out.tex").read_text()
    assert "0.300 ± n/a" in md and "± 0.000" not in md
    assert r"0.300 $\pm$ n/a" in tex and tex.count(r"\begin{table}") == 3
    assert tex.count(r"\caption{") == 3 and "Settings per row" in tex


def test_oahu_table_3_marks_as_the_paper_does(tmp_path, monkeypatch):
    """The paper marks, on the error rate, • where OAHU is significantly better than a
    method (◦ worse) and counts win/tie/loss from OAHU's side; ours (the method's side, error
    and F1) stays in vs_OAHU."""
    cfg = _config()
    t3 = cfg["oahu"]["table3"]
    t3["seeds"] = [0, 1, 2]
    good = expected_hashes(cfg, "oahu.table3", "workflow/scripts/oahu/oahu_cell.py")
    err = {"OAHU": [0.20, 0.21, 0.19]}  # every other method: clearly worse, varying
    rows = [
        {"experiment": "table3", "dataset": "vehicle", "seed": s, "algorithm": m,
         "params_label": "", "metric": metric, "settings_hash": good[m],
         "value": (err.get(m, [0.40, 0.43, 0.41])[s] if metric == "error_rate"
                   else 0.6 + 0.01 * s)}
        for m in t3["methods"] for s in (0, 1, 2)
        for metric in ("error_rate", "macro_f1", "constraint_utilization")
    ]
    _run_oahu_table3(rows, cfg, tmp_path, monkeypatch)
    table = pd.read_csv(tmp_path / "out.csv", keep_default_na=False)
    others = table[(table.status == "ok") & (table.algorithm != "OAHU")]
    err_rows = others[others.metric == "error_rate"]
    assert (err_rows.mark == "•").all() and (err_rows.vs_OAHU == "loss").all()
    assert (others[others.metric != "error_rate"].mark == "").all()
    md = (tmp_path / "out.md").read_text()
    counts = md.split("Win/tie/loss of OAHU against each method", 1)[1]
    assert "(win)" not in md and "•" in md
    first = counts.split("Ours:", 1)[0]
    assert all(f"| {m} " in first for m in t3["methods"] if m != "OAHU")


def test_oahu_table_3_refuses_a_cut_or_edited_cell_and_names_the_seeds_a_cell_averages(
    tmp_path, monkeypatch
):
    """Through the real table script: the cells as rule oahu_cell writes them (one
    file per cell, its digest beside it). A seed without a number (NaN error rate) is left out
    of the cell's mean and n_seeds and the cell names the seeds it averages; a cell file edited
    by hand, or cut to its header line, stops the table with a message naming the file and
    rule oahu_cell."""
    from tripletbench.harness.io import ResultFileError

    cfg = _config()
    t3 = cfg["oahu"]["table3"]
    t3["seeds"] = [0, 1, 2]
    good = expected_hashes(cfg, "oahu.table3", "workflow/scripts/oahu/oahu_cell.py")
    rows = [
        {"experiment": "table3", "dataset": "vehicle", "seed": s, "algorithm": m,
         "params_label": "", "metric": metric, "settings_hash": good[m],
         "value": (np.nan if (m, s, metric) == ("OAHU", 1, "error_rate")
                   else 0.2 + 0.01 * s + 0.1 * i)}
        for i, m in enumerate(t3["methods"]) for s in (0, 1, 2)
        for metric in ("error_rate", "macro_f1", "constraint_utilization")
    ]
    paths = _oahu_cells(rows, tmp_path)
    _run_oahu_table3(rows, cfg, tmp_path, monkeypatch, paths)
    table = pd.read_csv(tmp_path / "out.csv", keep_default_na=False, na_values=[""])
    t = table.set_index(["dataset", "algorithm", "metric"])
    assert t.loc[("vehicle", "OAHU", "error_rate"), "n_seeds"] == 2
    assert t.loc[("vehicle", "OAHU", "error_rate"), "seeds"] == "0;2"
    assert t.loc[("vehicle", "OAHU", "macro_f1"), "n_seeds"] == 3
    md = (tmp_path / "out.md").read_text()
    oahu = next(line for line in md.splitlines() if line.startswith("| OAHU "))
    assert "[seeds 0, 2]" in oahu, oahu
    edited = Path(paths[-1])
    lines = edited.read_text().splitlines()
    assert ",error_rate," in lines[1]
    lines[1] = lines[1].rsplit(",", 1)[0] + ",0.0"  # a hand edit: this error rate the best
    edited.write_text("\n".join(lines) + "\n")
    with pytest.raises(ResultFileError, match="does not match the digest") as err:
        _run_oahu_table3(rows, cfg, tmp_path, monkeypatch, paths)
    assert str(err.value).startswith(f"{edited}: ") and "rule oahu_cell" in str(err.value)
    edited.write_text(edited.read_text().splitlines()[0] + "\n")  # cut to its header line
    with pytest.raises(ResultFileError, match="only a header line") as err:
        _run_oahu_table3(rows, cfg, tmp_path, monkeypatch, paths)
    assert str(err.value).startswith(f"{edited}: ")
