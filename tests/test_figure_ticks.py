"""No saved figure has overlapping tick labels: ``harness.plots.save_figure`` (the one way every
figure is saved) renders the figure at its size, finds neighbouring tick labels whose boxes meet
and spreads them (fewer ticks where a locator chooses them, rotated or smaller labels where the
figure places them), or refuses to save."""

from __future__ import annotations

import ast
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest

from tripletbench.harness.plots import (
    TickLabelsOverlap,
    log_axes,
    save_figure,
    separate_tick_labels,
    tick_label_overlaps,
)

ROOT = Path(__file__).resolve().parents[1]


def test_a_crowded_linear_axis_is_thinned():
    fig, ax = plt.subplots(figsize=(2.0, 1.5))
    ax.plot([0, 1_000_000], [0, 1])
    ax.set_xticks(np.linspace(0, 1_000_000, 21))  # a fixed locator: 21 long labels
    ax.xaxis.set_major_locator(plt.MaxNLocator(nbins=20))  # a chosen one, too dense for 2 in
    assert tick_label_overlaps(fig)
    separate_tick_labels(fig)
    assert not tick_label_overlaps(fig)
    plt.close(fig)


def test_a_log_axis_from_one_to_100k_in_a_narrow_figure_is_readable(tmp_path):
    fig, ax = plt.subplots(figsize=(2.5, 1.8))
    ax.plot([1, 100_000], [0.2, 1.0])
    log_axes(ax, "x")
    save_figure(fig, tmp_path / "f.png")  # spread before saving
    fig2, ax2 = plt.subplots(figsize=(6.0, 3.0))
    ax2.plot([1, 100_000], [0.2, 1.0])
    log_axes(ax2, "x")
    assert not tick_label_overlaps(fig2)  # the paper-width figure: "1k", "2k" no longer meet
    labels = [t.get_text() for t in ax2.xaxis.get_majorticklabels()]
    assert "1k" in labels and "2k" in labels, labels
    plt.close(fig2)


def test_overlapping_category_labels_are_rotated_not_dropped():
    fig, ax = plt.subplots(figsize=(2.5, 1.5))
    names = ["OASIS-psd-1000", "SVM-relative-RBF", "OAHU-combined", "ITML-online"]
    ax.bar(range(4), [1, 2, 3, 4])
    ax.set_xticks(range(4), names)
    assert tick_label_overlaps(fig)
    separate_tick_labels(fig)
    assert not tick_label_overlaps(fig)
    assert [t.get_text() for t in ax.get_xticklabels()] == names  # every category kept
    plt.close(fig)


def test_labels_that_cannot_be_separated_are_refused():
    fig, ax = plt.subplots(figsize=(2.0, 0.6))  # 20 category labels on a 0.6 in y axis
    ax.set_yticks(range(20), [f"method {i}" for i in range(20)])
    ax.set_ylim(-0.5, 19.5)
    with pytest.raises(TickLabelsOverlap, match="overlap"):
        separate_tick_labels(fig)
    plt.close(fig)


def test_every_figure_is_saved_through_save_figure():
    """The guarantee holds for every figure only if every figure goes through save_figure."""
    found = []
    for folder in ("algorithms", "datasets", "evaluation", "harness", "studies", "workflow"):
        for path in (ROOT / folder).rglob("*.py"):
            if path == ROOT / "harness/plots.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Attribute) and node.attr == "savefig":
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"save these through harness.plots.save_figure: {found}"


def test_the_methods_figures_show_together_have_colours_a_reader_tells_apart():
    """The methods of the papers' figures (and our baselines beside them), pairwise at a
    CIEDE2000 colour distance of 15 or more (COMET's teal and LEGO's green were 14.7 apart in
    OAHU's Figure 7)."""
    from matplotlib.colors import to_rgb
    from skimage.color import deltaE_ciede2000, rgb2lab

    from tripletbench.harness.plots import method_style

    core = ["OASIS", "SDCA", "LEGO", "OAHU", "ITML", "LMNN", "RCA", "Eucl", "OPML", "RDML",
            "COMET", "OAHU-init", "OAHU-combined", "SVM-relative"]  # fmt: skip
    styles = {m: method_style(m) for m in core}
    lab = {m: rgb2lab(np.array([[to_rgb(s["color"])]]))[0, 0] for m, s in styles.items()}
    close = [
        (a, b, round(float(deltaE_ciede2000(lab[a], lab[b])), 1))
        for i, a in enumerate(core)
        for b in core[i + 1 :]
        if deltaE_ciede2000(lab[a], lab[b]) < 15
    ]
    assert not close, close
