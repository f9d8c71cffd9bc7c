"""The two measured sweeps around Schultz & Joachims (2003), Table 1 and Figure 2, on WebKB.

The paper states its features only as "a binary feature vector without stemming or stop word
removal (63,949 features)" and C = 1 (section 5). What of a page file becomes words, whether
words are lower-cased and whether a document's vector is scaled are not stated; they move the
numbers by up to 15 points. Two sweeps measure that, each through the same cell script as
Table 1 (``workflow/scripts/svm/svm_run.py``), with the settings of the ``svm`` block and a few
overrides:

* ``readings`` (``svm.readings``; target ``table_svm_readings``): every combination of a page
  reading (:data:`tripletbench.datasets.webkb.PAGE_READINGS`), lower-casing and a vector scale
  (:data:`tripletbench.studies.svm.experiment.VECTOR_SCALES`) on the three WebKB notions, at one training
  size per scale (``n_train_triplets``: {scale: size}; a bound: eq. 8 on unscaled binary
  vectors of whole pages took 973 s to solve at 200,000 triplets against 16 s on unit-length
  ones, measured on one Topic cell), no kernel row. The table ranks the combinations by
  :func:`paper_distance`, the rule that chose the default ``svm.text_features`` (our rule, not
  the paper's text).
* ``c_sweep`` (``svm.c_sweep``; target ``figure_svm_c_sweep``): Figure 2's learning curve for
  several C and both scales, the ``svm.text_features`` reading otherwise: where the curve's fall
  at C = 1 on unscaled vectors comes from (eq. 8's sum of slacks grows with the number of
  triplets at a fixed C).

A variant is named by its overrides (:func:`variants`); its cells are
``{results}/svm/{sweep}/{variant}/{notion}/seed{seed}.csv``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SWEEPS = ("readings", "c_sweep")
PAPER_CELLS = ("SVM-relative", "Binary")
"""The rows of Table 1 whose paper values :func:`paper_distance` compares with: the learned
distance and the Binary baseline, on each of the three notions (six cells). TFIDF is left out:
its vector (counts times idf, unit length) does not depend on the binary vector's scale."""


def _label(v) -> str:
    return f"{v:g}".replace("+", "")


def variants(cfg: dict, sweep: str) -> dict[str, dict]:
    """Variant name -> overrides of the ``svm`` block ``cfg`` for ``sweep`` ("readings" or
    "c_sweep"); ``{}`` when the block has no such sweep. Raises ``ValueError`` for another
    sweep."""
    if sweep not in SWEEPS:
        raise ValueError(f"unknown svm sweep {sweep!r}; expected one of {SWEEPS}")
    s = cfg.get(sweep)
    if not s:
        return {}
    off = {"kernel": {**cfg["kernel"], "n_train_triplets": None}}
    out = {}
    if sweep == "readings":
        for reading in s["readings"]:
            for lower in s["lowercase"]:
                for scale in s["scales"]:
                    name = f"{reading}-{'lower' if lower else 'case'}-{scale}"
                    out[name] = {
                        **off,
                        "text_features": {"reading": reading, "lowercase": lower, "scale": scale},
                        "n_train_triplets": [int(s["n_train_triplets"][scale])],
                    }
    else:
        for scale, Cs in s["C"].items():
            for C in Cs:
                out[f"C{_label(C)}-{scale}"] = {
                    **off,
                    "C": float(C),
                    "text_features": {**cfg["text_features"], "scale": scale},
                    "static_preprocessing": ["none"],
                }
    return out


def variant_config(cfg: dict, sweep: str, name: str) -> dict:
    """The ``svm`` block of one variant's cells: ``cfg`` with the variant's overrides, no MDS
    material (the sweeps draw no MDS panel). Raises ``KeyError`` naming the known variants."""
    table = variants(cfg, sweep)
    if name not in table:
        raise KeyError(f"no variant {name!r} in svm.{sweep}; known: {sorted(table)}")
    return {**cfg, **table[name], "mds": {**cfg["mds"], "notion": None, "notion_c": None}}


def cells(cfg: dict, sweep: str) -> list[tuple[str, str, int]]:
    """(variant, notion, seed) of every cell of ``sweep``."""
    s = cfg.get(sweep) or {}
    notions = s.get("notions") or ([s["notion"]] if s.get("notion") else [])
    return [(v, n, int(seed)) for v in variants(cfg, sweep) for n in notions for seed in s["seeds"]]


def summarise_readings(runs: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """One row per reading variant of the collected cells ``runs`` (rule svm_sweep_run rows with
    a ``sweep_variant`` column): its settings, the vocabulary size (``n_features``), the training
    size (``n_train_triplets``), per notion the mean and std over seeds of SVM-relative and of
    the best Binary and
    TFIDF preprocessing variant (best mean on the test set, named), and the mean absolute
    distance in points to the paper (``paper``: rows of notion, method, value in [0, 1]) over
    the cells of :data:`PAPER_CELLS` (:func:`paper_distance`), ranked (1 = closest)."""
    rows = []
    for variant, r in runs.groupby("sweep_variant", sort=False):
        row = {
            "variant": variant,
            "reading": r.reading.iloc[0],
            "lowercase": bool(r.lowercase.iloc[0]),
            "scale": r.scale.iloc[0],
            "n_features": int(r.n_features.iloc[0]),
            "n_train_triplets": int(r[r.method == "SVM-relative"].n_train_triplets.max()),
            "solve_s": float(r[r.method == "SVM-relative"].solve_s.mean()),
            "n_seeds": int(r.seed.nunique()),
        }
        for notion, g in r.groupby("notion"):
            svm = g[g.method == "SVM-relative"]
            row[f"{notion}:SVM-relative"] = svm.triplet_accuracy.mean()
            row[f"{notion}:SVM-relative:std"] = svm.triplet_accuracy.std()
            for m in ("Binary", "TFIDF"):
                s = g[g.method == m]
                if not len(s):
                    continue
                means = s.groupby("variant").triplet_accuracy.mean()  # preprocessing variant
                best = means.idxmax()
                row[f"{notion}:{m}"] = means[best]
                row[f"{notion}:{m}:std"] = s[s.variant == best].triplet_accuracy.std()
                row[f"{notion}:{m}:variant"] = best
        row["paper_distance"] = paper_distance(row, paper)
        rows.append(row)
    out = pd.DataFrame(rows)
    out["rank"] = out.paper_distance.rank(method="min").astype("Int64")
    return out.sort_values(["rank", "variant"]).reset_index(drop=True)


def paper_distance(row: dict, paper: pd.DataFrame) -> float:
    """Mean of |ours - paper| in percentage points over the cells (notion, method) of
    :data:`PAPER_CELLS` that have a paper value and a number of ours (``row[f"{notion}:{method}"]``);
    NaN when none has both. The rule that picks the default page reading: ours, not the
    paper's text."""
    diffs = []
    for p in paper.itertuples():
        if p.method in PAPER_CELLS:
            ours = row.get(f"{p.notion}:{p.method}", np.nan)
            if not pd.isna(ours):
                diffs.append(abs(100 * (ours - p.value)))
    return float(np.mean(diffs)) if diffs else float("nan")
