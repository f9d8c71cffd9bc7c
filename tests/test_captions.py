"""A caption never presents our values as the paper's: every setting that a caption states and the
paper states too is named with ours and the paper's side by side where they differ ("2,000 ...
(the paper: 10K ...)"), "(as the paper)" where they agree, and a comparison of our numbers with
the paper's under other settings says which (tripletbench.harness.paper_settings, each study's
captions and paper modules, and the figure scripts). Captions are built directly from small hand-made inputs; no Snakemake run."""

from __future__ import annotations

import copy
import runpy
import types
from pathlib import Path

import pandas as pd
import pytest
import yaml
from snakemake.utils import validate

from tripletbench.harness.config import schema_file
from tripletbench.harness.paper_settings import PaperSettings
from tripletbench.studies.oahu import captions as oahu_captions
from tripletbench.studies.oahu import paper as oahu_paper
from tripletbench.studies.oasis import captions as oasis_captions
from tripletbench.studies.oasis import paper as oasis_paper
from tripletbench.studies.performance import paper as performance_paper
from tripletbench.studies.sdca import captions as sdca_captions
from tripletbench.studies.sdca import paper as sdca_paper
from tripletbench.studies.svm import captions as svm_captions
from tripletbench.studies.svm import paper as svm_paper
from tripletbench.harness.io import save_csv
from tripletbench.harness.paper_table import Metric, PaperTable, write_table
from tripletbench.harness.settings import expected_hashes, settings_hash

ROOT = Path(__file__).resolve().parents[1]
# every study's stated settings and captions, under the names these tests use
_PAPERS = (sdca_paper, oasis_paper, oahu_paper, svm_paper, performance_paper)
PAPER = PaperSettings({a: s for m in _PAPERS for a, s in m.PAPER.settings.items()})
PAPER_SETTINGS = PAPER.settings
comparison_note, note, vs_paper = PAPER.comparison_note, PAPER.note, PAPER.vs_paper
SDCA, OASIS, OAHU, SJ = sdca_paper.SDCA, oasis_paper.OASIS, oahu_paper.OAHU, svm_paper.SJ
_DIFFERENCE = {"oahu_table3": oahu_captions, "svm_table1": svm_captions}
captions = types.SimpleNamespace(
    sdca_table2=sdca_captions.sdca_table2,
    sdca_table3=sdca_captions.sdca_table3,
    sdca_table4=sdca_captions.sdca_table4,
    oasis_table2=oasis_captions.oasis_table2,
    oahu_table3=oahu_captions.oahu_table3,
    svm_table1=svm_captions.svm_table1,
    difference_note=lambda artifact, cfg: _DIFFERENCE.get(artifact, sdca_captions).difference_note(
        artifact, cfg
    ),
)
AS_PAPER, STATES_NONE, COMPARES = "(as the paper)", "states none", "Ours - paper compares"


def _load(name: str) -> dict:
    """A shipped config as the workflow sees it: validated, schema defaults filled in."""
    cfg = yaml.safe_load((ROOT / name).read_text())
    validate(cfg, str(schema_file()))
    return cfg


@pytest.fixture(scope="module")
def default():
    return _load("config/default.yaml")


@pytest.fixture(scope="module")
def ci():
    return _load("config/ci.yaml")


def _text(lines) -> str:
    return "\n".join(lines)


# --- the paper's settings, in one place --------------------------------------------------------


def test_every_stated_setting_cites_its_paper_and_section():
    papers = (SDCA, OASIS, OAHU, SJ)
    for artifact, settings in PAPER_SETTINGS.items():
        for key, s in settings.items():
            assert any(s.source.startswith(p) for p in papers), (artifact, key, s.source)
            assert "/work" not in s.source and ".txt" not in s.source, (artifact, key)
            assert s.value is None or s.text, (artifact, key)  # a stated value has its words


def test_the_helper_names_ours_and_the_papers_side_by_side():
    assert vs_paper("sdca_table2", "n_triplets", 2000, "2,000 triplets") == (
        "2,000 triplets (the paper: 10K per standard data set)"
    )
    assert vs_paper("sdca_table2", "n_triplets", 10_000, "10,000 triplets") == (
        "10,000 triplets (as the paper)"
    )
    assert note("oahu_table3", "k", 5) == "(the paper states none)"
    assert note("sdca_table3", "n_train_per_class", 40) == "(as the OASIS paper)"
    assert note("svm_table1", "n_test_triplets", 500) == "(the paper: 85,907, for Figure 2)"
    assert note("sdca_table2", "grid.SDCA", [0.01, 0.005, 0.0025]) == AS_PAPER  # any order
    assert note("oahu_table3", "n_constraints", (2500, 2500)) == "(the paper: 5,000 + 5,000)"
    assert comparison_note("sdca_table2", [("n_triplets", 10_000, "10,000")]) == ""
    assert comparison_note("oahu_table3", [("k", 3, "k = 3")]) == ""  # the paper states none
    differ = comparison_note("sdca_table2", [("n_triplets", 2000, "2,000 triplets")])
    assert differ.startswith(COMPARES) and "2,000 triplets (the paper: 10K" in differ


def test_oahus_learner_defaults_are_the_papers_settings():
    """Captions take OAHU's unset hyperparameters as the paper's: the learner's defaults must be
    the values the paper states (section 4.3.2)."""
    from tripletbench.algorithms.oahu import OAHU as Learner

    params = Learner().get_params()
    for key in ("beta", "n_hidden_layers", "n_hidden", "s", "eta", "embedding_dim", "n_epochs"):
        assert params[key] == PAPER_SETTINGS["oahu_table3"][key].value, key


# --- SDCA paper, Table 2 -----------------------------------------------------------------------


def _sdca_table2(cfg) -> str:
    runs = pd.DataFrame(columns=["stage", "checkpoint", "metric", "algorithm", "dataset", "value"])
    return _text(captions.sdca_table2(cfg, runs, [], None))


def test_sdca_table2_caption_sets_other_settings_beside_the_papers(default):
    cfg = copy.deepcopy(default)
    t2 = cfg["sdca_table2"]
    t2.update(seeds=[0, 1], train_fraction=0.6, fit_fraction=0.7, n_triplets=3000)
    t2["methods"]["SDCA"]["grid"] = {"lam": [0.001, 0.01]}
    text = _sdca_table2(cfg)
    assert "Protocol (paper)" not in text
    assert "seeds [0, 1] (the paper: 5 runs)" in text
    assert "60% train / rest test (the paper: 70/30 per class)" in text
    assert "3,000 class-based random triplets per seed (the paper: 10K per standard data set)" in (
        text
    )
    assert "learned on 70% of the training set (the paper: 80% of the training set)" in text
    assert "SDCA: lam=[0.001, 0.01] (the paper: lambda in {0.0025, 0.005, 0.01})" in text
    differ = next(line for line in text.splitlines() if line.startswith(COMPARES))
    assert "3,000 class-based triplets per seed (the paper: 10K" in differ
    assert "seeds [0, 1] (the paper: 5 runs)" in differ and "SDCA's grid" in differ
    assert captions.difference_note("sdca_table2", cfg) == differ


def test_sdca_table2_caption_says_the_papers_settings_are_the_papers(default):
    text = _sdca_table2(default)
    assert "seeds [0, 1, 2, 3, 4] (as the paper)" in text
    assert "70% train / rest test (as the paper)" in text
    assert "10,000 class-based random triplets per seed (as the paper)" in text
    assert "learned on 80% of the training set (as the paper)" in text
    assert "SDCA: lam=[0.0025, 0.005, 0.01] (as the paper)" in text
    assert "LEGO: eta=[0.01, 0.125, 0.5] (as the paper)" in text
    assert "OASIS: C=[0.001, 0.01, 0.1] (the paper states none)" in text
    assert COMPARES not in text and captions.difference_note("sdca_table2", default) == ""


def test_the_minimal_configs_table2_caption_says_2000_beside_the_papers_10k():
    cfg = _load("config/examples/minimal.yaml")
    text = _sdca_table2(cfg)
    assert "2,000 class-based random triplets per seed (the paper: 10K per standard data set)" in (
        text
    )
    differ = captions.difference_note("sdca_table2", cfg)
    assert differ in text and "2,000 class-based triplets per seed (the paper: 10K" in differ


def test_the_difference_table_carries_the_note_beside_it(tmp_path):
    values = pd.DataFrame(
        {"dataset": "vehicle", "algorithm": "SDCA", "metric": "mAP", "seed": [0, 1],
         "value": [0.5, 0.6]}
    )
    paper = pd.DataFrame(
        {"dataset": ["vehicle"], "algorithm": ["SDCA"], "metric": ["mAP"], "paper": [0.5955],
         "paper_std": [float("nan")], "paper_method": ["SDCA"]}
    )
    note_text = "Ours - paper compares a run under other settings than the paper's: test."
    table = PaperTable(
        name="t", title="T", values=values, metrics=[Metric("mAP", "mAP")], datasets=["vehicle"],
        methods=["SDCA"], paper=paper, caption=["A caption."], diff_note=note_text,
    )
    write_table(table, *(tmp_path / f"t.{e}" for e in ("csv", "md", "tex")))
    md = (tmp_path / "t.md").read_text()
    assert f"Difference, ours - paper (mAP):\n\n{note_text}\n\n|" in md


# --- SDCA paper, Tables 3 and 4; OASIS runtime table -----------------------------------------


def _sdca_table3(cfg) -> str:
    feat = pd.DataFrame(columns=["dataset", "mean_nnz", "n_features", "descriptor_s_per_image"])
    failed = pd.DataFrame(columns=["algorithm", "dataset"])
    return _text(captions.sdca_table3(cfg, feat, failed, []))


def test_sdca_table3_caption(default, ci):
    text = _sdca_table3(ci)  # 8 + 5 images per class, 500 triplets, 50 words, one seed
    assert "8 training images (the OASIS paper: 40)" in text
    assert "5 test images (the OASIS paper's text at hand states none)" in text
    assert "500 class-based random triplets on the training images per seed (the paper: 100K)" in (
        text
    )
    assert "Caltech-256 codebook: 50 words (the paper: 1000 words)." in text
    assert COMPARES in text and captions.difference_note("sdca_table3", ci) in text
    text = _sdca_table3(default)
    assert "40 training images (as the OASIS paper)" in text
    assert "100,000 class-based random triplets on the training images per seed (as the paper)" in (
        text
    )
    assert "Caltech-256 codebook: 1,000 words (as the paper)." in text and COMPARES not in text


def test_sdca_table4_caption(default):
    text = _text(captions.sdca_table4(default, []))
    for words in ("60/40 train/test (as the paper)", "20% of the training set for validation (as",
                  "10% of the test set as queries (as the paper)",
                  "500,000 class-based random triplets (as the paper)",
                  "1,000,000 images (as the paper)",
                  "seeds [0] (the paper states none: one number per method"):
        assert words in text, words
    assert COMPARES not in text
    cfg = copy.deepcopy(default)
    cfg["sdca_table4"].update(
        train_fraction=0.7, fit_fraction=0.9, query_fraction=0.2, n_triplets=2000,
        background_shards=[0],
    )
    text = _text(captions.sdca_table4(cfg, []))
    for words in ("70/30 train/test (the paper: 60/40)",
                  "10% of the training set for validation (the paper: 20% of the training set)",
                  "20% of the test set as queries (the paper: 10% of the test set)",
                  "2,000 class-based random triplets (the paper: 500K)",
                  "100,000 images (the paper: about one million Flickr images)"):
        assert words in text, words
    assert COMPARES in text


def test_oasis_runtime_table_caption(ci):
    text = _text(captions.oasis_table2(ci, []))
    assert "500 triplets (the OASIS paper states none)" in text
    assert "seeds [0] (the OASIS paper states none)" in text


# --- OAHU paper, Table 3 -----------------------------------------------------------------------


def _oahu_runs():
    return pd.DataFrame(
        columns=["stage", "checkpoint", "metric", "algorithm", "dataset", "value", "seed",
                 "params_label"]
    )


def test_oahu_table3_caption_sets_other_settings_beside_the_papers(ci):
    text = _text(captions.oahu_table3(ci, _oahu_runs(), []))
    for words in ("k = 3 (the paper states none)", "seeds [0, 1] (the paper: 10 runs)",
                  "class-stratified subsample of 300 samples (the paper: all samples)",
                  "150 class-based seed triplets + 150 transitive-closure triplets (the paper: "
                  "5,000 + 5,000)",
                  "chosen by 2-fold cross-validation on the development half (the paper: 10-fold "
                  "cross-validation)",
                  "L 2 (the paper: 5)", "16 hidden units (the paper: 100)",
                  "8-d embeddings (the paper: 50)", "beta 0.99, s 0.1, eta 0.3, one pass (as the"):
        assert words in text, words
    assert "(as the paper, 10-fold)" not in text
    differ = captions.difference_note("oahu_table3", ci)
    assert differ in text and "OAHU 16 hidden units (the paper: 100)" in differ


def test_oahu_table3_caption_with_the_papers_settings(default):
    cfg = copy.deepcopy(default)
    t3 = cfg["oahu"]["table3"]
    t3.update(seeds=list(range(10)), n_seeds=5000, n_closure=5000, cv_folds=10)
    t3.pop("n_samples", None)
    text = _text(captions.oahu_table3(cfg, _oahu_runs(), []))
    for words in ("seeds [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] (as the paper)", "all samples (as the",
                  "5,000 transitive-closure triplets (as the paper)",
                  "10-fold cross-validation on the development half (as the paper)",
                  "beta 0.99, L 5, 100 hidden units, s 0.1, eta 0.3, 50-d embeddings, one pass "
                  "(as the paper)"):
        assert words in text, words
    assert COMPARES not in text


# --- Schultz & Joachims, Table 1 ---------------------------------------------------------------


def _svm_runs():
    return pd.DataFrame(
        {"notion": ["webkb_university", "webkb_topic"], "rule_fraction_test": [0.3, 0.5],
         "groups": ["cornell.edu;texas.edu", ""], "corpus": "webkb", "n_train_items": 2928,
         "n_test_items": 1255, "n_features": 63949, "data_source": "test archive"}
    )


def test_svm_table1_caption(default):
    text = _text(captions.svm_table1(default, _svm_runs(), "none", 150_000))
    for words in ("70%/30% split of the documents (as the paper)", "C = 1.0 (as the paper)",
                  "85,907 test triplets among the test documents (as the paper, for Figure 2)",
                  "7 universities (as the paper)", "4,183 pages of the four topics (as the paper)",
                  "63,949 words (as the paper)"):
        assert words in text, words
    assert COMPARES not in text
    cfg = copy.deepcopy(default)
    cfg["svm"].update(train_fraction=0.5, C=10.0, n_test_triplets=500, n_universities=5)
    runs = _svm_runs().assign(n_test_items=1000, n_features=60000)
    text = _text(captions.svm_table1(cfg, runs, "none", 150_000))
    for words in ("50%/50% split of the documents (the paper: 70/30)",
                  "C = 10.0 (the paper: C = 1)",
                  "500 test triplets among the test documents (the paper: 85,907, for Figure 2)",
                  "5 universities (the paper: seven, not named)",
                  "3,928 pages of the four topics (the paper: 4,183)",
                  "60,000 words (the paper: 63,949)"):
        assert words in text, words
    assert COMPARES in text


# --- figure scripts, run in-process on hand-made inputs ---------------------------------------


class _Named(list):
    def __init__(self, items=(), **named):
        super().__init__(items)
        self.__dict__.update(named)


def _run(script, monkeypatch, **snakemake):
    """Run ``workflow/scripts/<script>`` with a stand-in ``snakemake`` object."""
    import matplotlib.pyplot as plt

    monkeypatch.setattr("tripletbench.harness.io.start_log", lambda path: None)  # keep pytest's capture
    runpy.run_path(
        str(next((ROOT / "workflow/scripts").rglob(script))),
        init_globals={"snakemake": types.SimpleNamespace(**snakemake)},
    )
    plt.close("all")


def _outputs(tmp_path, names):
    return _Named(**{n: str(tmp_path / f"out.{n}") for n in names})


def _sdca_figure(cfg, name, tmp_path, monkeypatch) -> str:
    cfg = copy.deepcopy(cfg)
    settings = {"figures": "any"}
    rows = pd.DataFrame(
        [{"method": m, "step": step, "seed": seed, "metric": metric, "value": 0.5,
          "settings_hash": settings_hash(settings)}
         for m in ("OASIS", "SDCA") for step in (10, 100) for seed in (0, 1)
         for metric in ("avg_cumulative_squared_hinge", "avg_cumulative_hinge", "mistake_rate",
                        "mAP")]
    )
    seeds = []  # one file per seed, as rule curves writes them (tripletbench.harness.tables.collect)
    for seed, part in rows.groupby("seed"):
        save_csv(tmp_path / f"seed{seed}.csv", part)
        seeds.append(str(tmp_path / f"seed{seed}.csv"))
    paths = {n: str(tmp_path / f"out.{n}") for n in ("png", "pdf", "md")}
    if name == "figure_sdca_1":
        paths.update(png_hinge=str(tmp_path / "hinge.png"), pdf_hinge=str(tmp_path / "hinge.pdf"))
    out = _Named(list(paths.values()), **paths)
    _run("plot_figure.py", monkeypatch, config=cfg, rule=name, input=seeds,
         log=[str(tmp_path / "log")], output=out,
         params=types.SimpleNamespace(settings=settings, producer="curves"))
    return (tmp_path / "out.md").read_text()


@pytest.mark.slow
def test_sdca_figure_captions_set_the_iterations_beside_the_papers(default, tmp_path, monkeypatch):
    text = _sdca_figure(default, "figure_sdca_1", tmp_path, monkeypatch)
    assert "100,000 class-based random triplets (as the paper)" in text
    assert "100,000 online steps (as the paper)" in text
    assert "OASIS C = 0.1 (the paper states none); SDCA lambda = 0.005 (the paper states none)" in (
        text
    )
    assert COMPARES not in text
    cfg = copy.deepcopy(default)
    cfg["figures"]["n_triplets"] = 20_000
    text = _sdca_figure(cfg, "figure_sdca_1", tmp_path, monkeypatch)
    assert "20,000 class-based random triplets (the paper: 100K on Caltech-256)" in text
    assert "20,000 online steps (the paper: about 100K iterations)" in text
    assert "with the paper's losses (the stars): 20,000 online steps (the paper: about 100K" in text
    text = _sdca_figure(cfg, "figure_sdca_2", tmp_path, monkeypatch)
    assert "20,000 online steps (the paper: about 100K iterations)" in text


def test_oasis_figure_3_caption_says_the_paper_states_no_iterations(default, tmp_path,
                                                                    monkeypatch):
    text = _sdca_figure(default, "figure_oasis_3", tmp_path, monkeypatch)
    assert "100,000 online steps (the paper states none)" in text
    assert "1,000 test queries (the paper states none)" in text
    assert "(as the paper)" not in text


def _oasis_figure_2(cfg, tmp_path, monkeypatch) -> str:
    rows = pd.DataFrame(
        [{"stage": "test", "checkpoint": "final", "dataset": "fashion_mnist_pixels",
          "algorithm": m, "seed": seed, "metric": f"precision@{k}", "value": 0.3}
         for m in ("Eucl", "OASIS") for seed in (0, 1) for k in (1, 2, 3)]
    )
    save_csv(tmp_path / "runs.csv", rows)
    _run("images_figure_oasis_2.py", monkeypatch, config=cfg,
         input=types.SimpleNamespace(runs=str(tmp_path / "runs.csv")), log=[str(tmp_path / "log")],
         output=_outputs(tmp_path, ["png", "pdf", "md", "csv"]))
    return (tmp_path / "out.md").read_text()


def test_oasis_figure_2_caption(default, ci, tmp_path, monkeypatch):
    text = _oasis_figure_2(default, tmp_path, monkeypatch)
    assert "40 training images (as the paper)" in text
    assert "25 test images (the paper states none)" in text
    assert "100,000 triplets (the paper states none)" in text
    text = _oasis_figure_2(ci, tmp_path, monkeypatch)
    assert "8 training images (the paper: 40)" in text


def test_oahu_figure_4_caption(ci, tmp_path, monkeypatch):
    cfg = copy.deepcopy(ci)
    fig4 = cfg["oahu"]["figure4"]
    good = expected_hashes(cfg, "oahu.figure4", "workflow/scripts/oahu/oahu_fig4_cell.py")
    cells = []
    for m in fig4["methods"]:
        for n in fig4["n_constraints"]:
            path = tmp_path / f"{m}_{n}.csv"
            save_csv(path, pd.DataFrame([{"dataset": fig4["dataset"], "seed": 0, "algorithm": m,
                                          "n_constraints": n, "error_rate": 0.2,
                                          "settings_hash": good[m]}]))
            cells.append(str(path))
    t3_hash = expected_hashes(cfg, "oahu.table3", "workflow/scripts/oahu/oahu_cell.py")["OAHU"]
    alpha = tmp_path / "alpha.csv"
    save_csv(alpha, pd.DataFrame({"dataset": fig4["dataset"], "seed": 0, "algorithm": "OAHU",
                                  "settings_hash": t3_hash, "step": [1, 1], "layer": [0, 1],
                                  "alpha": [0.5, 0.5]}))
    _run("oahu_figures.py", monkeypatch, config=cfg, rule="figure_oahu_4",
         input=_Named(cells=cells, alpha=[str(alpha)]), log=[str(tmp_path / "log")],
         output=_outputs(tmp_path, ["png", "pdf", "md", "csv"]),
         params=types.SimpleNamespace())
    text = (tmp_path / "out.md").read_text()
    n_s, n_c = fig4["n_seeds"], fig4["n_closure"]
    assert f"k = {fig4['k']} (the paper states none)" in text
    assert (f"{n_s:,} + {n_c:,} seed + closure constraints (the paper: 5,000 + 5,000, "
            "subsampled)") in text
    assert f"seeds {fig4['seeds']} (the paper: 10 runs)" in text
    t3 = cfg["oahu"]["table3"]
    assert f"{t3['n_seeds']:,} + {t3['n_closure']:,} constraints (the paper: 5,000 + 5,000)" in text


def test_oahu_figure_5_caption(ci, tmp_path, monkeypatch):
    cfg = copy.deepcopy(ci)
    fig5 = cfg["oahu"]["figure5"]
    good = expected_hashes(cfg, "oahu.figure5", "workflow/scripts/oahu/oahu_fig5_cell.py")
    auc, roc = [], []
    for m in fig5["methods"]:
        a, r = tmp_path / f"{m}.auc.csv", tmp_path / f"{m}.roc.csv"
        save_csv(a, pd.DataFrame({"dataset": "vehicle", "seed": 0, "algorithm": m,
                                  "fold": [0, 1], "auc": [0.7, 0.8], "settings_hash": good[m]}))
        save_csv(r, pd.DataFrame({"algorithm": m, "seed": 0, "fold": 0, "fpr": [0.0, 0.5, 1.0],
                                  "tpr": [0.0, 0.7, 1.0]}))
        auc.append(str(a))
        roc.append(str(r))
    _run("oahu_figures.py", monkeypatch, config=cfg, rule="figure_oahu_5",
         input=_Named(auc=auc, roc=roc), log=[str(tmp_path / "log")],
         output=_outputs(tmp_path, ["png", "pdf", "md", "csv"]),
         params=types.SimpleNamespace(dataset="vehicle"))
    text = (tmp_path / "out.md").read_text()
    assert f"{fig5['n_folds']} folds (the paper: 10)" in text
    assert f"{fig5['n_pairs']} mismatched pairs (the paper: 300)" in text
    assert (f"{fig5['n_seeds']:,} seeds + {fig5['n_closure']:,} closure (the paper: 10,000 in "
            "total") in text


def test_oahu_figure_7_caption(ci, tmp_path, monkeypatch):
    cfg = copy.deepcopy(ci)
    fig7, t3 = cfg["oahu"]["figure7"], cfg["oahu"]["table3"]
    paths = []
    for experiment, dataset in (("table3", "vehicle"), ("figure7", "vowel")):
        good = expected_hashes(cfg, f"oahu.{experiment}", "workflow/scripts/oahu/oahu_cell.py")
        for m in fig7["methods"]:
            if m not in good:
                continue
            path = tmp_path / f"{experiment}_{m}.csv"
            save_csv(path, pd.DataFrame({"experiment": experiment, "dataset": dataset, "seed": 0,
                                         "algorithm": m,
                                         "metric": [f"recall@{k}" for k in fig7["ks"]],
                                         "value": [0.5, 0.6, 0.7][: len(fig7["ks"])],
                                         "settings_hash": good[m]}))
            paths.append(str(path))
    _run("oahu_figures.py", monkeypatch, config=cfg, rule="figure_oahu_7",
         input=_Named(runs=paths), log=[str(tmp_path / "log")],
         output=_outputs(tmp_path, ["png", "pdf", "md", "csv"]),
         params=types.SimpleNamespace(cache_dir=str(tmp_path / "cache")))
    text = (tmp_path / "out.md").read_text()
    assert (f"vehicle: Table 3's cells, {t3['n_seeds']:,} + {t3['n_closure']:,} constraints "
            "(the paper: 25,000 + 25,000)") in text
    assert f"vowel: {fig7['n_seeds']:,} + {fig7['n_closure']:,} constraints (the paper: 25,000" in (
        text
    )
    assert "seeds [0] (vehicle); [0] (vowel) (the paper states none)" in text  # each panel's


# --- Table 4's code path at configured sizes ------------------------------------------------


def test_table4_scaling_never_calls_configured_sizes_the_papers(ci, tmp_path, monkeypatch):
    cfg = copy.deepcopy(ci)
    cfg["table4_scaling"]["methods"] = ["Eucl"]
    _run("table4_scaling.py", monkeypatch, config=cfg, log=[str(tmp_path / "log")],
         output=_outputs(tmp_path, ["csv", "md"]),
         params=types.SimpleNamespace(table4=cfg["sdca_table4"]))
    text = (tmp_path / "out.md").read_text()
    assert "at the paper's sizes" not in text
    assert "2,000 training triplets (the paper: 500K)" in text
    assert "500 background items (the paper: about one million)" in text
    assert "8-d features (the paper: 297)" in text


def test_the_paper_ranking_line_counts_ranks_and_cells_against_the_paper():
    from tripletbench.studies.sdca.captions import paper_ranking

    paper = pd.DataFrame(
        [(d, m, m, v) for d, row in {"a": {"SDCA": 0.5, "LEGO": 0.4, "Eucl": 0.3},
                                     "b": {"SDCA": 0.6, "LEGO": 0.2, "Eucl": 0.1}}.items()
         for m, v in row.items()]
        + [("a", "SDCA-random", "SDCA", 0.5)],  # a row carrying SDCA's number: not counted
        columns=["dataset", "algorithm", "paper_method", "paper"],
    )  # fmt: skip
    ours = {("a", "SDCA"): 0.51, ("a", "LEGO"): 0.55, ("a", "Eucl"): 0.30,
            ("b", "SDCA"): 0.60, ("b", "LEGO"): 0.25, ("b", "Eucl"): 0.10,
            ("a", "SDCA-random"): 0.9}  # fmt: skip
    values = pd.DataFrame(
        [(d, m, "mAP", s, v) for (d, m), v in ours.items() for s in (0, 1)],
        columns=["dataset", "algorithm", "metric", "seed", "value"],
    )
    (line,) = paper_ranking(values, paper, "SDCA", tol=0.02)
    assert "paper -> ours: a 1 -> 2 of 3; b 1 -> 1 of 3" in line
    assert "Of 6 cells, 4 are within 0.02 of the paper, 2 above it and 0 below it" in line
    assert "LEGO +0.100" in line and "not reproduced on 1 of 2 sets" in line
    assert paper_ranking(values[values.dataset == "b"], paper, "SDCA", 0.02)[0].endswith(
        "The paper's rank of SDCA is reproduced on every set."
    )
    assert paper_ranking(values.iloc[:0], paper, "SDCA", 0.02) == []


def test_the_measured_gap_lines_follow_the_tables_columns_and_rows():
    from tripletbench.studies.sdca.captions import sdca_table2_gaps

    every = ["Eucl", "RCA", "LEGO", "SDCA"]
    (line,) = sdca_table2_gaps(["vehicle", "svmguide4"], every)
    assert line.startswith("What we measured about the gaps to the paper: ")
    assert "svmguide4, measured on the mirror's files" in line  # its column is shown
    assert "vehicle and vowel, RCA" in line and "LEGO above the paper" in line
    (line,) = sdca_table2_gaps(["letter"], every)  # the RCA statement concerns vehicle and vowel
    assert "svmguide4" not in line and "vehicle and vowel, RCA" not in line and "LEGO" in line
    assert sdca_table2_gaps(["letter"], ["Eucl", "SDCA"]) == []  # no row it concerns
    (line,) = sdca_table2_gaps(["vowel"], ["ITML"])
    assert "ITML (metric-learn" in line and "LEGO" not in line
    assert sdca_table2_gaps([], every) == []  # svmguide4 "needs download" offline: not a column


def _cell_scripts() -> list[str]:
    """The scripts of the rules in Snakemake group "cells" (workflow/rules/**/*.smk), as paths
    under workflow/scripts/."""
    import re

    scripts = set()
    for smk in sorted((ROOT / "workflow/rules").rglob("*.smk")):
        for rule in re.split(r"\n(?=rule |checkpoint )", smk.read_text()):
            if re.search(r'group:\s*\n\s*"cells"', rule):
                scripts |= set(
                    re.findall(r'script:\s*\n\s*"(?:\.\./)+scripts/((?:\w+/)?\w+\.py)"', rule)
                )
    return sorted(scripts)


def test_no_cell_hashes_caption_text():
    """A cell's settings hash the code its script imports (harness.settings.cell_settings) and
    its learner's module closure (learner_code_hash), so caption wording kept in such a module
    would rerun every cell when a caption's words change. Rule: caption wording (module-level
    ``*_WORDS`` / ``*CAPTION*`` constants, ``*caption*`` functions and ``*_words`` ones returning
    ``str``) lives in
    the captions modules (harness.captions, each study's captions), which no script of the
    cells group imports, and in no module of any cell's or learner's code closure."""
    import ast
    import re

    from tripletbench.algorithms import _algorithms
    from tripletbench.studies.oahu.captions import OAHU_CHOICES, OAHU_ORDER_SPREAD
    from tripletbench.harness.settings import _module_path, code_closure

    scripts = _cell_scripts()
    assert len(scripts) >= 8, scripts  # fit_evaluate, the OAHU, human, SVM and data cells
    modules = set()
    for script in scripts:
        closure = code_closure(script=f"workflow/scripts/{script}")
        assert not [m for m in closure if m.endswith(".captions")], script
        modules |= set(closure)
    for cls in _algorithms().values():
        modules |= set(code_closure([cls.__module__]))
    wording = re.compile(r"(_WORDS$|CAPTION)")
    function = re.compile(r"(caption|_words$)")
    found = []
    for name in sorted(modules):
        tree = ast.parse(_module_path(name).read_text())
        for node in tree.body:
            targets = [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
            if isinstance(node, ast.FunctionDef) and function.search(node.name):
                # "*_words" that returns words (-> str), not a bag of words
                if "caption" in node.name or ast.unparse(node.returns or ast.Constant("")) == "str":
                    found.append(f"{name}.{node.name}")
            found += [f"{name}.{t}" for t in targets if wording.search(t)]
    assert found == [], found
    assert OAHU_CHOICES and "third decimal" in OAHU_ORDER_SPREAD


def test_the_oahu_diagnosis_compares_oahu_with_euclidean_knn_from_the_runs_themselves():
    """The caption's comparison of OAHU with plain Euclidean kNN is computed from the cells'
    rows at build time: a changed row changes the sentence (no number typed in)."""
    import pandas as pd

    from tripletbench.studies.oahu.captions import oahu_diagnosis

    def runs(eucl):
        rows = []
        for m, err in (("OAHU", 0.294), ("OAHU-init", 0.238), ("Eucl", eucl)):
            for seed in (0, 1):
                rows.append(dict(dataset="vehicle", algorithm=m, seed=seed, metric="error_rate",
                                 value=err))  # fmt: skip
        return pd.DataFrame(rows)

    below = oahu_diagnosis(runs(0.211))[0]
    assert "above plain Euclidean kNN's (Eucl, no learning) 0.211" in below, below
    above = oahu_diagnosis(runs(0.350))[0]
    assert "below plain Euclidean kNN's (Eucl, no learning) 0.350" in above, above


def test_table2_says_where_a_sets_rows_differ_from_the_papers_table():
    """segment: the files have 2,310 rows and all are used; the SDCA paper's Table 1 lists
    1,937. The data line says both, from the dataset's spec; a set that matches says nothing."""
    from tripletbench.studies.sdca.captions import _t2_data_line

    line = _t2_data_line({"data": {"route": "embedded"}}, ["vehicle", "segment"], [])
    assert "segment: " in line and "all 2,310 rows of the files (the paper lists 1,937)" in line
    assert line.count("rows of the files") == 1, line


def test_the_sdca_figures_say_which_method_ends_lower_from_the_runs_own_curves():
    """Figures 1-2's captions state where OASIS and SDCA end in this run (the last step, mean
    over seeds) beside the paper's order, computed from the rows: swap the values and the
    sentence follows."""
    import pandas as pd

    from tripletbench.studies.sdca.captions import curve_ends

    def rows(oasis, sdca):
        out = []
        for m, end in (("OASIS", oasis), ("SDCA", sdca)):
            for seed in (0, 1):
                for step, v in ((1, 1.0), (100, end + 0.01 * seed)):
                    out.append(dict(method=m, seed=seed, step=step, metric="mistake_rate",
                                    value=v))  # fmt: skip
        return pd.DataFrame(out)

    said = curve_ends(rows(0.093, 0.129), {"mistake_rate": "mistakes"}, "The paper: SDCA lower.")
    assert "mistakes OASIS 0.098, SDCA 0.134 (OASIS lower)" in said and said.endswith(
        "The paper: SDCA lower."
    ), said
    said = curve_ends(rows(0.3, 0.2), {"mistake_rate": "mistakes"}, "")
    assert "OASIS 0.305, SDCA 0.205 (SDCA lower)" in said, said
    assert curve_ends(rows(0.3, 0.2), {"avg_cumulative_hinge": "hinge"}, "x") == ""


def test_the_human_caption_names_only_the_configs_sets():
    """A config with one set: the caption names that set, its mirror folder and no ceiling
    sentence about sets it does not run (item of a config with the cars alone)."""
    from tripletbench.studies.human.captions import _header, _missing, _references

    config = {"data": {"route": "embedded"}, "human": {"sets": ["cars60"]}}
    head = _header(config)
    assert "the 60 cars" in head and "Food-100" not in head and "material" not in head, head
    miss = " ".join(_missing(config, ["cars60"]))
    assert "`cars/`" in miss and "`food/`" not in miss, miss
    assert _references(["cars60"]).endswith("coin flip).")
    both = _references(["material", "food100"])
    assert "ceiling (material only)" in both and "food100: no answer counts per question" in both
