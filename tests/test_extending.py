"""Extending the benchmark: a config with any subset of the experiment blocks plans exactly those
tables; a dataset or learner module dropped in its folder is found; an external learner is one
config row; adding one plans only the new cells."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from pipeline import _package_dirs, checkout_env, copy_checkout

pytestmark = pytest.mark.slow  # runs the workflow: not in the fast subset (-m "not slow")

ROOT = Path(__file__).resolve().parents[1]
MINIMAL = ROOT / "config/examples/minimal.yaml"


def planned_jobs(targets, configfile, *extra, cwd=ROOT) -> dict[str, int]:
    """rule -> job count of a Snakemake dry run (``-n``), from its "Job stats" table."""
    cmd = [sys.executable, "-m", "snakemake", "-n", *targets, "--configfile", str(configfile)]
    out = subprocess.run(
        cmd + ["--cores", "1", "--nolock", *extra],
        cwd=cwd,
        env=checkout_env(cwd),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    if "Nothing to be done" in out.stdout + out.stderr:
        return {}
    stats = out.stdout.split("Job stats:")[1]
    return {
        m.group(1): int(m.group(2))
        for m in re.finditer(r"^(\w+)\s+(\d+)$", stats, re.M)
        if m.group(1) != "total"
    }


def write_config(tmp_path, cfg, name="config.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def test_the_minimal_example_plans_exactly_its_table(tmp_path):
    cfg = yaml.safe_load(MINIMAL.read_text())
    cfg["results_dir"] = str(tmp_path / "results")
    cfg["figures_dir"] = str(tmp_path / "figures")
    jobs = planned_jobs(["reproduce_all"], write_config(tmp_path, cfg))
    n_cells = len(cfg["sdca_table2"]["methods"])
    assert jobs.pop("fit_evaluate") == n_cells
    jobs.pop("prepare_dataset", None)  # planned only where the shared cache lacks vehicle
    assert jobs == {
        "split": 1,
        "sample_triplets": 1,
        "table_sdca_2": 1,
        "report_pages": 1,
        "reproduce_all": 1,
    }


def test_a_config_with_only_an_oahu_block_plans_only_oahu(tmp_path):
    ci = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
    cfg = {
        "results_dir": str(tmp_path / "results"),
        "figures_dir": str(tmp_path / "figures"),
        "oahu": ci["oahu"],
    }
    jobs = planned_jobs(["reproduce_all"], write_config(tmp_path, cfg))
    assert {"table_oahu_3", "figure_oahu_4", "figure_oahu_5", "figure_oahu_7"} <= set(jobs)
    others = {"table_sdca_2", "fit_evaluate", "svm_run", "performance", "curves", "scaling_times"}
    assert not others & set(jobs)


def test_a_config_without_an_experiment_block_is_refused_by_name(tmp_path):
    cfg = {"results_dir": str(tmp_path / "results")}
    cmd = [sys.executable, "-m", "snakemake", "-n", "--configfile"]
    out = subprocess.run(
        cmd + [str(write_config(tmp_path, cfg)), "--cores", "1", "--nolock"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode != 0
    assert "no experiment block" in out.stdout + out.stderr
    assert "config/examples/minimal.yaml" in out.stdout + out.stderr


@pytest.mark.parametrize("missing", ["sdca_table2", "svm", "oahu", "images", "figures", "human"])
def test_leaving_out_one_block_leaves_out_its_rules_only(tmp_path, missing):
    """The CI config less one block plans every other block's final rules and none of its own."""
    owned = {
        "sdca_table2": {"table_sdca_2"},
        "svm": {"table_svm_1", "figure_svm_2", "figure_svm_mds"},
        "oahu": {"table_oahu_3", "figure_oahu_4", "figure_oahu_5", "figure_oahu_7"},
        "images": {"table_sdca_3", "figure_oasis_2", "table_oasis_2"},
        "figures": {"figure_sdca_1", "figure_sdca_2", "figure_oasis_3", "figure_scaling"},
        # human.mirror names ../shared/mirror: planned with or without it (then "not run")
        "human": {"table_human", "figure_human_curve"},
    }
    cfg = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
    cfg["results_dir"] = str(tmp_path / "results")
    cfg["figures_dir"] = str(tmp_path / "figures")
    del cfg[missing]
    jobs = set(planned_jobs(["reproduce_all"], write_config(tmp_path, cfg)))
    assert not owned[missing] & jobs
    for block, rules in owned.items():
        if block != missing:
            assert rules <= jobs, (block, rules - jobs)


def test_a_copy_of_the_checkout_imports_every_module_from_the_copy(tmp_path):
    """Rule: a test that edits a copy of the checkout runs the copy's code. Every module of every
    package installed under tripletbench (pyproject's package-dir, src/tripletbench) resolves
    inside the copy under checkout_env, none through the editable install back to this checkout
    (tripletbench.studies and tripletbench.files once did, so a fault put into the copy's
    studies/svm/experiment.py went unseen by the regression-fault test)."""
    import subprocess
    import sys

    dest = copy_checkout(tmp_path / "checkout")
    names = ["tripletbench"]
    for name, folder in _package_dirs(dest).items():
        for f in sorted((dest / folder).rglob("*.py")):
            rel = f.relative_to(dest / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            names.append(".".join(["tripletbench", name, *parts]))
    names += [f"tripletbench.{f.stem}" for f in (dest / "src/tripletbench").glob("[!_]*.py")]
    code = (
        "import importlib.util, sys\n"
        "for n in sys.argv[1:]:\n"
        "    print(n, importlib.util.find_spec(n).origin)\n"
    )
    res = subprocess.run([sys.executable, "-c", code, *names], cwd=tmp_path,
                         env=checkout_env(dest), capture_output=True, text=True, check=True)  # fmt: skip
    origins = dict(line.split(" ", 1) for line in res.stdout.splitlines())
    assert len(origins) == len(names) > 100, (len(origins), len(names))
    outside = {n: o for n, o in origins.items() if not o.startswith(str(tmp_path))}
    assert not outside, outside


NEW_LEARNER = '''"""A learner added by a test: the Euclidean baseline under another name."""

from .euclidean import Euclidean


class EuclideanCopy(Euclidean):
    """Euclidean distance (a copy)."""

    name = "Eucl-copy"
'''


def test_a_new_module_or_config_row_alone_reruns_only_its_cells(tmp_path):
    """After a finished run of the minimal config: a learner module dropped in algorithms/, an
    external learner named by its dotted path and a dataset module dropped in datasets/ (each
    with one config row or list entry, no registry or schema edit) plan exactly the new cells,
    the table and the report; nothing that exists reruns."""
    repo = copy_checkout(tmp_path / "repo")
    cfg = yaml.safe_load(MINIMAL.read_text())
    cfg["data"]["cache_dir"] = str(ROOT / "data_cache")  # the prepared sets of this checkout
    cfg["results_dir"] = str(tmp_path / "results")
    cfg["figures_dir"] = str(tmp_path / "figures")
    path = write_config(tmp_path, cfg)
    run = [sys.executable, "-m", "snakemake", "reproduce_all", "--configfile", str(path)]
    out = subprocess.run(
        run + ["--cores", "2", "--nolock"],
        cwd=repo,
        env=checkout_env(repo),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert planned_jobs(["reproduce_all"], path, cwd=repo) == {}

    tail = {"table_sdca_2": 1, "report_pages": 1, "reproduce_all": 1}
    # a learner module, found by its name
    (repo / "algorithms/euclidean_copy.py").write_text(NEW_LEARNER)
    assert planned_jobs(["reproduce_all"], path, cwd=repo) == {}  # not in the config: nothing
    cfg["sdca_table2"]["methods"]["Eucl-copy"] = {}
    path = write_config(tmp_path, cfg)
    assert planned_jobs(["reproduce_all"], path, cwd=repo) == {"fit_evaluate": 1, **tail}
    # an external learner: one config row
    del cfg["sdca_table2"]["methods"]["Eucl-copy"]
    cfg["sdca_table2"]["methods"]["NCA"] = {
        "algorithm": "sklearn.neighbors.NeighborhoodComponentsAnalysis",
        "fixed": {"max_iter": 20},
    }
    path = write_config(tmp_path, cfg)
    assert planned_jobs(["reproduce_all"], path, cwd=repo) == {"fit_evaluate": 1, **tail}
    # a dataset module (glass.py under another name): one entry in the datasets list
    glass = (repo / "datasets/glass.py").read_text().replace('name="glass"', 'name="glass_copy"')
    (repo / "datasets/glass_copy.py").write_text(glass)
    del cfg["sdca_table2"]["methods"]["NCA"]
    cfg["sdca_table2"]["datasets"].append("glass_copy")
    path = write_config(tmp_path, cfg)
    jobs = planned_jobs(["reproduce_all"], path, cwd=repo)
    n_rows = len(cfg["sdca_table2"]["methods"])
    assert jobs == {
        "prepare_dataset": 1,
        "split": 1,
        "sample_triplets": 1,
        "fit_evaluate": n_rows,
        **tail,
    }


def test_project_modules_import_learners_from_their_modules():
    """A job's code hash follows its imports (tripletbench.harness.settings) and the package ``algorithms``
    imports no learner: a learner class imported through the package would leave its code out of
    the hash. Only the registry functions come from the package."""
    import ast

    allowed = {"ALGORITHMS", "learner_class", "make_learner"}
    files = [
        p
        for folder in ("harness", "evaluation", "datasets", "algorithms", "studies", "workflow/scripts")
        for p in (ROOT / folder).rglob("*.py")
    ]
    bad = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "tripletbench.algorithms" and not node.level:
                bad += [
                    f"{path.relative_to(ROOT)}: {a.name}"
                    for a in node.names
                    if a.name not in allowed
                ]
    assert not bad, bad


def iris():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    return (X - X.mean(0)) / X.std(0), y


@pytest.mark.parametrize(
    "path, params",
    [
        ("metric_learn.MLKR", {"max_iter": 30}),
        ("sklearn.neighbors.NeighborhoodComponentsAnalysis", {"max_iter": 30, "n_components": 2}),
    ],
)
def test_an_external_learner_is_its_library_model_through_the_harness(path, params):
    """Two real classes of two libraries, fitted by the harness on the same triplets as every
    learner (labels kind: the points that occur in them): M, transform and the ranking scores are
    the library model's own."""
    from tripletbench.datasets.constraints import sample_class_triplets
    from tripletbench.harness.experiment import fit_learner, learner_seed

    X, y = iris()
    t = sample_class_triplets(y, 300, np.random.default_rng(0))
    model, timing = fit_learner(path, params, t, X, y, seed=0)
    assert model.constraint_kind == "labels" and timing["fit_cpu_s"] >= 0
    lib = model.library_model().set_params(random_state=learner_seed(0))
    used = np.unique(t)
    lib.fit(X[used], y[used])
    L = lib.components_
    np.testing.assert_allclose(model.transform(X), X @ L.T, atol=1e-10)
    np.testing.assert_allclose(model.M_, L.T @ L, atol=1e-10)
    d2 = ((X[:5, None] @ L.T - X[None, :7] @ L.T) ** 2).sum(-1)
    np.testing.assert_allclose(model.similarity_matrix(X[:5], X[:7]), -d2, atol=1e-8)


def test_an_external_pair_or_triplet_learner_gets_its_constraint_kind():
    """metric-learn's ITML learns from pairs (its ``_tuple_size`` 2): the harness gives it the
    same pairs as our ITML; a row's ``constraints`` must be one of the three kinds, and is only
    for an external learner."""
    from tripletbench.algorithms import learner_class, make_learner
    from tripletbench.datasets.constraints import sample_class_triplets, triplets_to_pairs
    from tripletbench.harness.config import ConfigError, check_config
    from tripletbench.harness.experiment import fit_learner

    assert learner_class("metric_learn.ITML").constraint_kind == "pairs"
    assert learner_class("metric_learn.SCML").constraint_kind == "triplets"
    X, y = iris()
    t = sample_class_triplets(y, 100, np.random.default_rng(1))
    model, _ = fit_learner(
        "metric_learn.ITML", {"max_iter": 50}, t, X, y, seed=0, pairs_per_triplet=2
    )
    import metric_learn

    pairs, labels = triplets_to_pairs(t, 2)
    lib = metric_learn.ITML(max_iter=50).fit(X[pairs], labels)
    np.testing.assert_allclose(model.M_, lib.get_mahalanobis_matrix(), atol=1e-10)
    with pytest.raises(ValueError, match="constraints must be one of"):
        make_learner("metric_learn.MLKR", constraints="quadruplets").fit(X, y)
    cfg = yaml.safe_load(MINIMAL.read_text())
    cfg["sdca_table2"]["methods"]["SDCA"]["constraints"] = "labels"
    with pytest.raises(ConfigError, match="constraints is for an external learner"):
        check_config(cfg)
    cfg["sdca_table2"]["methods"]["SDCA"].pop("constraints")
    cfg["sdca_table2"]["methods"]["X"] = {"algorithm": "metric_learn.MLKRR"}
    with pytest.raises(ConfigError, match="cannot import learner 'metric_learn.MLKRR'"):
        check_config(cfg)
    cfg["sdca_table2"]["methods"]["X"] = {
        "algorithm": "metric_learn.MLKR",
        "fixed": {"max_iterr": 5},
    }
    with pytest.raises(ConfigError, match="max_iterr"):
        check_config(cfg)


# --- metric-learn parity: the README's table is computed here and must match ----------------------

COUNTERPARTS = {"ITML": "ITML", "LMNN": "LMNN", "RCA": "RCA"}
"""Our learners that call metric-learn's class of the same name."""
PARITY_COLUMNS = (
    "n_components",
    "components_",
    "transform",
    "get_mahalanobis_matrix",
    "pair_distance",
    "pair_score",
    "score_pairs",
    "get_metric",
    "_Supervised",
)


SMALL = {
    "ITML": {"max_iter": 20},
    "LMNN": {"max_iter": 20},
    "OAHU": {"n_epochs": 1},
    "SVM-relative": {"solver": "dcd"},
}


def fitted(name: str):
    """Learner ``name`` fitted by the harness on 200 class triplets of iris (small settings)."""
    from tripletbench.datasets.constraints import sample_class_triplets
    from tripletbench.harness.experiment import fit_learner

    X, y = iris()
    t = sample_class_triplets(y, 200, np.random.default_rng(2))
    return fit_learner(name, SMALL.get(name, {}), t, X, y, seed=0)[0]


def parity_cells(name: str) -> dict[str, str]:
    """The README table's cells of learner ``name``: "yes" / "–" per column, from a fitted
    instance (a bilinear learner's ``pair_distance`` raises AttributeError there)."""
    from tripletbench.algorithms import ALGORITHMS, supervised

    cls = ALGORITHMS[name]
    model = fitted(name)
    cells = {
        "learner": name,
        "metric-learn": f"`metric_learn.{COUNTERPARTS[name]}`" if name in COUNTERPARTS else "–",
        "fit": f"`{cls.constraint_kind}`",
        "n_components": "yes" if "n_components" in model.get_params() else "–",
    }
    for col in PARITY_COLUMNS[1:-1]:
        cells[col] = "yes" if hasattr(model, col) else "–"
    cells["_Supervised"] = "yes" if hasattr(supervised, f"{cls.__name__}_Supervised") else "–"
    return cells


def parity_table() -> str:
    """The README's API table: one row per learner found in algorithms/."""
    from tripletbench.algorithms import ALGORITHMS

    head = ["learner", "metric-learn", "fit", *PARITY_COLUMNS]
    shown = ["learner", "metric-learn counterpart", "constraints"]
    shown += [f"`{h}`" for h in PARITY_COLUMNS[:-1]] + ["`*_Supervised`"]
    lines = ["| " + " | ".join(shown) + " |", "|" + "---|" * len(head)]
    for name in sorted(ALGORITHMS, key=str.lower):
        cells = parity_cells(name)
        lines.append("| " + " | ".join(cells[h] for h in head) + " |")
    return "\n".join(lines)


def test_the_readme_api_table_is_what_the_learners_have():
    readme = (ROOT / "docs/library.md").read_text()
    start = readme.index("<!-- api-parity:start -->") + len("<!-- api-parity:start -->")
    end = readme.index("<!-- api-parity:end -->")
    assert readme[start:end].strip() == parity_table()


@pytest.mark.parametrize(
    "name", ["ITML", "LMNN", "RCA", "LEGO", "RDML", "Eucl", "OPML", "ITML-online"]
)
def test_components_and_transform_equal_metric_learns_for_the_same_metric(name):
    """For the same learned M, ``components_`` and ``transform`` are metric-learn's: its
    learned L where the learner is metric-learn's (LMNN, RCA; ITML: its conversion of M, as
    metric-learn's ITML does), else ``components_from_metric(M)``; ``score_pairs`` is
    ``pair_distance`` with metric-learn 0.7's FutureWarning; LMNN's ``n_components`` and ITML's
    ``prior`` reach metric-learn."""
    import metric_learn
    from metric_learn._util import components_from_metric

    from tripletbench.datasets.constraints import sample_class_triplets
    from tripletbench.harness.experiment import fit_learner

    X, y = iris()
    t = sample_class_triplets(y, 200, np.random.default_rng(2))
    small = {"ITML": {"max_iter": 20}, "LMNN": {"max_iter": 20}}.get(name, {})
    model, _ = fit_learner(name, small, t, X, y, seed=0)
    M = (model.M_ + model.M_.T) / 2
    if name == "LMNN":
        used = np.unique(t)
        lib = metric_learn.LMNN(n_neighbors=3, max_iter=20, random_state=model.random_state)
        L = lib.fit(X[used], y[used]).components_
    elif name == "RCA":
        from tripletbench.datasets.constraints import triplets_to_chunklets

        L = metric_learn.RCA().fit(X, triplets_to_chunklets(t, len(X))).components_
    else:
        L = components_from_metric(M)
    np.testing.assert_allclose(model.components_, L, atol=1e-10)
    np.testing.assert_allclose(model.transform(X[:4]), X[:4] @ L.T, atol=1e-10)
    pairs = np.stack([X[:3], X[3:6]], axis=1)
    with pytest.warns(FutureWarning, match="score_pairs will be deprecated"):
        np.testing.assert_allclose(model.score_pairs(pairs), model.pair_distance(pairs))
    if name in ("LMNN", "RCA"):
        two, _ = fit_learner(name, {**small, "n_components": 2}, t, X, y, seed=0)
        assert two.components_.shape == (2, 4) and two.transform(X).shape == (len(X), 2)
        np.testing.assert_allclose(two.M_, two.components_.T @ two.components_, atol=1e-12)
    if name == "ITML":
        from tripletbench.datasets.constraints import triplets_to_pairs

        cov, _ = fit_learner("ITML", {"max_iter": 20, "prior": "covariance"}, t, X, y, seed=0)
        pairs_i, labels = triplets_to_pairs(t, 2)
        ml = metric_learn.ITML(max_iter=20, prior="covariance").fit(X[pairs_i], labels)
        np.testing.assert_allclose(cov.M_, ml.get_mahalanobis_matrix(), atol=1e-10)


FAKE_EMBEDDING = '''"""A stand-in for cblearn's ordinal embeddings: fit on triplets of indices, an embedding of
the training items only (no metric on new points)."""
import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin


class SOE(BaseEstimator, TransformerMixin):
    def __init__(self, n_components=2, random_state=None):
        self.n_components = n_components
        self.random_state = random_state

    def fit(self, X, y=None):
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != 3 or not np.issubdtype(X.dtype, np.integer):
            raise ValueError("Expected triplets of indices, shape (n, 3)")
        self.embedding_ = np.zeros((X.max() + 1, self.n_components))
        return self

    def transform(self, X=None):
        return self.embedding_
'''


@pytest.mark.parametrize(
    "row, reason",
    [
        ({"algorithm": "metric_learn.LSML"}, "4-tuples \\(quadruplets\\)"),
        ({"algorithm": "metric_learn.ITML", "constraints": "triplets"}, "learns from pairs, not"),
        ({"algorithm": "fake_cblearn.SOE", "constraints": "triplets"}, "trial fit .* failed"),
        ({"algorithm": "fake_cblearn.SOE"}, "trial fit .* failed"),
        ({"algorithm": "sklearn.manifold.MDS"}, "not a linear metric learner"),
    ],
)
def test_an_external_learner_the_harness_cannot_evaluate_is_refused_at_start_up(
    tmp_path, monkeypatch, row, reason
):
    """Quadruplet learners (metric-learn's LSML), a kind the class's fit contradicts, embeddings of
    the training items only (cblearn's, stood in for) and non-metric estimators are refused by the
    config check, naming the row, before any job; the *_Supervised variant of a quadruplet learner
    and metric-learn's pair and triplet learners pass."""
    from tripletbench.algorithms.external import check_evaluable
    from tripletbench.harness.config import ConfigError, check_config

    (tmp_path / "fake_cblearn.py").write_text(FAKE_EMBEDDING)
    monkeypatch.syspath_prepend(str(tmp_path))
    cfg = yaml.safe_load(MINIMAL.read_text())
    cfg["sdca_table2"]["methods"]["X"] = row
    with pytest.raises(ConfigError, match=f"config sdca_table2.methods.X: .*{reason}"):
        check_config(cfg)
    assert check_evaluable("metric_learn.LSML_Supervised") == "labels"
    assert check_evaluable("metric_learn.ITML_Supervised") == "labels"
    assert check_evaluable("metric_learn.SCML") == "triplets"
    assert check_evaluable("metric_learn.MMC") == "pairs"
    cfg["sdca_table2"]["methods"]["X"] = {"algorithm": "metric_learn.MLKR", "fixed": {"max_iter": 5}}
    check_config(cfg)
