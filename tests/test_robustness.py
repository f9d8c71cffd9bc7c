"""Every bad input and fault gives a clear error, nothing is lost.

One test (or parametrised group) per row of the issue's table, with the same input as the report
and the clear error or correct behaviour expected now. The "results follow their inputs" row (a
changed setting reruns exactly its jobs; tables refuse rows made under other settings) is in
tests/test_pipeline.py, on the CI run.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.exceptions import NotFittedError
from snakemake.utils import validate

from tripletbench.algorithms import ALGORITHMS, make_learner
from tripletbench.datasets.base import DataError, DataUnavailable, check_prepared, quarantine_corrupt_prepared
from tripletbench.harness.config import ConfigError, check_config, schema_file, unpinned_downloads_opt_in

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = schema_file()  # the schema with the names found in datasets/ and algorithms/


def ci():
    return yaml.safe_load((ROOT / "config/ci.yaml").read_text())


def checked(cfg):
    """Schema (with defaults) then the start-up check, as the workflow does before any job."""
    validate(cfg, str(SCHEMA))
    check_config(cfg)


@pytest.fixture
def data():
    """40 points in 4-d, two classes of 20, and 40 class triplets (anchor, positive, negative)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    y = np.repeat([0, 1], 20)
    t = np.array([[i, (i + 2) % 20 + 20 * (i >= 20), (i + 20) % 40] for i in range(40)])
    return X, y, t


class _Deadline:
    """Fail instead of hanging: SIGALRM after ``seconds``."""

    def __init__(self, seconds):
        self.seconds = seconds

    def __enter__(self):
        def fail(*_):
            raise AssertionError(f"still running after {self.seconds} s (a hang)")

        self.old = signal.signal(signal.SIGALRM, fail)
        signal.alarm(self.seconds)

    def __exit__(self, *exc):
        signal.alarm(0)
        signal.signal(signal.SIGALRM, self.old)


# --- block_size 0 or negative: used to hang ------------------------------------------------------


@pytest.mark.parametrize("name", ["OASIS", "SDCA"])
@pytest.mark.parametrize("block_size", [0, -4])
def test_block_size_below_one_is_refused_by_the_api(data, name, block_size):
    X, _, t = data
    with (
        _Deadline(20),
        pytest.raises(ValueError, match=f"block_size must be an int >= 1 or 'auto', got {block_size}"),
    ):
        make_learner(name, preprocessor=X, n_epochs=1, block_size=block_size).fit(t)


def test_the_engine_itself_refuses_block_size_zero():
    from tripletbench.algorithms.base import TraceRecorder, bilinear_stream

    W = np.eye(2)
    order = np.zeros(3, dtype=np.int64)
    with _Deadline(20), pytest.raises(ValueError, match="block_size"):
        bilinear_stream(
            W, [(np.ones((1, 2)), np.ones((1, 2)), 1.0)], order, None, TraceRecorder(3), 0
        )


@pytest.mark.parametrize("name", ["OASIS", "SDCA"])
def test_block_size_below_one_is_refused_before_any_job(name):
    cfg = ci()
    cfg["sdca_table2"]["methods"][name]["fixed"]["block_size"] = 0
    with pytest.raises(ConfigError, match=rf"sdca_table2\.methods\.{name}\.fixed\.block_size: "):
        checked(cfg)


# --- n_epochs -5: used to run one step and report a wrong mAP as ok -----------------------------


@pytest.mark.parametrize("name", ["OASIS", "SDCA"])
@pytest.mark.parametrize("n_epochs", [-5, 0])
def test_negative_or_zero_epochs_are_refused(data, name, n_epochs):
    X, _, t = data
    with pytest.raises(ValueError, match=f"n_epochs must be a finite number > 0, got {n_epochs}"):
        make_learner(name, preprocessor=X, n_epochs=n_epochs).fit(t)
    cfg = ci()
    cfg["sdca_table2"]["methods"][name]["fixed"]["n_epochs"] = n_epochs
    with pytest.raises(ConfigError, match=rf"sdca_table2\.methods\.{name}\.fixed\.n_epochs: "):
        checked(cfg)


def test_oahu_keeps_zero_epochs_as_its_initialisation_control():
    """OAHU-init (n_epochs = 0) is a row of the default run: the shared check allows it there."""
    make_learner("OAHU", n_epochs=0)._check_params()
    with pytest.raises(ValueError, match="n_epochs"):
        make_learner("OAHU", n_epochs=-1)._check_params()


@pytest.mark.parametrize("name", ["LEGO", "RDML", "ITML-online"])
def test_non_positive_passes_are_refused(name):
    with pytest.raises(ValueError, match="n_passes must be a finite number > 0"):
        make_learner(name, n_passes=-1)._check_params()


# --- results_dir "": the plan used to write to the filesystem root -------------------------------


@pytest.mark.parametrize("key", ["results_dir", "figures_dir"])
@pytest.mark.parametrize(
    "value", ["", "/", "//", "/.", "/tmp/..", "//./", "/tmp/../.."]  # resolved
)
def test_an_empty_or_root_output_folder_is_refused(key, value):
    cfg = ci()
    cfg[key] = value
    with pytest.raises(ConfigError, match=rf"config {key}: .* not a usable folder"):
        checked(cfg)


@pytest.mark.slow
def test_the_dry_run_stops_on_an_empty_results_dir(tmp_path):
    cfg = ci()
    cfg["results_dir"] = ""
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    res = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "table_sdca_2", "--configfile", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode != 0
    assert "config results_dir: '' is not a usable folder" in res.stdout + res.stderr


# --- ITML gamma -1, LMNN k 0: ZeroDivisionError / "argmax of an empty sequence" ------------------


def test_lmnn_k_zero_is_a_clear_error(data):
    X, y, _ = data
    msg = r"LMNN: n_neighbors \(target neighbours\) must be an int >= 1"
    with pytest.raises(ValueError, match=msg):
        make_learner("LMNN", n_neighbors=0).fit(X, y)
    with pytest.warns(FutureWarning, match="'k' is deprecated"), pytest.raises(ValueError, match=msg):
        make_learner("LMNN", k=0).fit(X, y)  # metric-learn 0.7's deprecated name still works
    cfg = ci()
    cfg["sdca_table2"]["methods"]["LMNN"]["fixed"]["n_neighbors"] = 0
    with pytest.raises(ConfigError, match=r"sdca_table2\.methods\.LMNN\.fixed\.n_neighbors: "):
        checked(cfg)


def test_itml_negative_gamma_is_refused_before_any_job():
    cfg = ci()
    cfg["sdca_table2"]["methods"]["ITML"]["grid"]["gamma"] = [-1]
    with pytest.raises(ConfigError, match=r"sdca_table2\.methods\.ITML\.grid\.gamma\[0\]: "):
        checked(cfg)


# --- SDCA lam < 0, LEGO eta < 0, SDCA output randm, figures.scaling_lmnn: pass the start-up check -


def test_lego_negative_eta_is_refused_before_any_job():
    cfg = ci()
    cfg["sdca_table2"]["methods"]["LEGO"]["grid"]["eta"] = [0.01, -0.5]
    with pytest.raises(ConfigError, match=r"sdca_table2\.methods\.LEGO\.grid\.eta\[1\]: "):
        checked(cfg)


@pytest.mark.parametrize(
    "block, needle",
    [
        ({"kk": 3}, r"figures\.scaling_lmnn\.kk: LMNN has no hyperparameter 'kk'"),
        ({"n_neighbors": 0}, r"figures\.scaling_lmnn\.n_neighbors: LMNN: n_neighbors"),
        (
            {"n_neighbors": "three"},
            r"figures\.scaling_lmnn\.n_neighbors: LMNN hyperparameter n_neighbors must be a number",
        ),
    ],
)
def test_figures_scaling_lmnn_is_checked_before_any_job(block, needle):
    cfg = ci()
    cfg["figures"]["scaling_lmnn"] = block
    with pytest.raises(ConfigError, match=needle):
        checked(cfg)


def test_figures_oasis_variants_are_checked_before_any_job():
    cfg = ci()
    validate(cfg, str(SCHEMA))
    cfg["figures"]["oasis_variants"]["OASIS-bad"] = {"block_size": 0}
    with pytest.raises(ConfigError, match=r"figures\.oasis_variants\.OASIS-bad\.block_size: "):
        check_config(cfg)


@pytest.mark.parametrize("key, value", [("lam", -0.01), ("output", "randm")])
def test_sdca_bad_lam_or_output_is_refused_before_any_job(key, value):
    cfg = ci()
    cfg["sdca_table2"]["methods"]["SDCA"]["fixed"][key] = value
    cfg["sdca_table2"]["methods"]["SDCA"]["grid"].pop(key, None)
    with pytest.raises(ConfigError, match=rf"sdca_table2\.methods\.SDCA\.fixed\.{key}: "):
        checked(cfg)


# --- a string where a number belongs: Python's comparison error without the key ------------------


@pytest.mark.parametrize(
    "place, key",
    [("fixed", "n_epochs"), ("grid", "C")],
)
def test_a_string_for_a_number_names_its_full_path(place, key):
    cfg = ci()
    oasis = cfg["sdca_table2"]["methods"]["OASIS"]
    if place == "fixed":
        oasis["fixed"][key] = "5"
        path, got = rf"fixed\.{key}", r", got '5' \(str\)"
    else:
        oasis["grid"][key] = [0.01, "0.1"]
        path, got = rf"grid\.{key}\[1\]", r", got '0\.1' \(str\)"
    needle = (
        rf"sdca_table2\.methods\.OASIS\.{path}: OASIS hyperparameter {key} must be a number{got}"
    )
    with pytest.raises(ConfigError, match=needle):
        checked(cfg)


def test_a_string_for_a_number_through_the_api_names_the_hyperparameter(data):
    X, _, t = data
    with pytest.raises(TypeError, match="OASIS hyperparameter C must be a number, got '0.1'"):
        make_learner("OASIS", preprocessor=X, C="0.1").fit(t)


def test_a_string_in_an_experiment_setting_is_named_by_the_schema():
    cfg = ci()
    cfg["figures"]["oasis_C"] = "0.1"
    with pytest.raises(
        Exception, match=r"(?s)'0.1' is not of type 'number'.*\['figures'\]\['oasis_C'\]"
    ):
        validate(cfg, str(SCHEMA))


# --- truncated prepared .npz: BadZipFile, and the rerun deleted a good split file -----------------


def _prepared(tmp_path, name="vehicle_embedded.npz", like="vehicle_embedded.npz"):
    """A prepared file ``name`` in the layout of rule prepare_dataset, holding random features
    of dataset ``like`` (its shape, classes, route and source files, as its spec says)."""
    from tripletbench.datasets import get_dataset
    from tripletbench.datasets.base import expected_sources, prepared_hash_line, prepared_hash_path
    from tripletbench.files import save_npz, save_text

    folder = tmp_path / "prepared"
    path = folder / name
    dataset, _, route = like.removesuffix(".npz").rpartition("_")
    spec = get_dataset(dataset)
    n, d, k = spec.shape
    rng = np.random.default_rng(1)
    files = [f"{f}:{h or '0' * 64}" for f, h in expected_sources(spec, route).items()]
    save_npz(
        path, X=rng.normal(size=(n, d)), y=np.arange(n) % k,
        classes=np.array([f"c{i}" for i in range(k)]), route=route, files=files, sources=files,
    )
    save_text(prepared_hash_path(path), prepared_hash_line(path))
    return folder, path


def test_another_datasets_prepared_file_is_not_trusted(tmp_path):
    """Letter's prepared file copied over vehicle's, its sidecar removed, was accepted
    (a new sidecar was written for it) and the "vehicle" split had 20,000 rows."""
    from tripletbench.datasets.base import check_prepared_spec, load_prepared, prepared_hash_path

    folder, path = _prepared(tmp_path, "vehicle_embedded.npz", like="letter_embedded.npz")
    prepared_hash_path(path).unlink()
    with pytest.raises(DataError, match=r"does not hold vehicle \(embedded route\): source files"):
        check_prepared_spec(path)
    with pytest.raises(DataError, match="20000 x 16 with 26 classes, not 846 x 18 with 4"):
        load_prepared(path)
    msgs = quarantine_corrupt_prepared(folder)
    assert len(msgs) == 1 and "does not hold vehicle" in msgs[0]
    assert not path.exists() and not prepared_hash_path(path).exists()
    # the right file, but with the other route's name
    folder, path = _prepared(tmp_path / "b", "vehicle_download.npz", like="vehicle_embedded.npz")
    with pytest.raises(DataError, match="route 'embedded', not 'download'"):
        check_prepared_spec(path)


def test_the_start_up_check_never_touches_a_running_jobs_temporary_file(tmp_path):
    """A dry run while prepare_dataset wrote its .npz renamed the writer's hidden
    temporary file (tripletbench.files.atomic_path) to .corrupt, and the job died."""
    from tripletbench.files import atomic_path

    folder, path = _prepared(tmp_path)
    with atomic_path(folder / "letter_embedded.npz") as tmp:
        tmp.write_bytes(b"PK\x03\x04 half written")  # what a reader sees mid-write
        assert tmp.name.startswith(".") and tmp.suffix == ".npz"
        assert quarantine_corrupt_prepared(folder) == []
        assert tmp.exists() and not list(folder.glob("*.corrupt"))
    assert path.exists()


def test_a_truncated_prepared_file_is_detected_and_moved_aside(tmp_path):
    from tripletbench.datasets.base import load_prepared

    folder, path = _prepared(tmp_path)
    assert check_prepared(path) == "ok"
    good = path.read_bytes()
    path.write_bytes(good[: len(good) // 2])
    with pytest.raises(DataError, match="corrupt or truncated"):
        check_prepared(path, recheck_after_s=0)
    with pytest.raises(DataError, match="rerun the workflow to rebuild it"):
        load_prepared(path)
    msgs = quarantine_corrupt_prepared(folder)
    assert len(msgs) == 1 and "moved aside" in msgs[0]
    assert not path.exists() and (folder / f"{path.name}.corrupt").exists()
    assert not (folder / f"{path.name}.sha256").exists()


def test_a_truncated_file_from_before_sidecars_is_detected_too(tmp_path):
    folder, path = _prepared(tmp_path)
    (folder / f"{path.name}.sha256").unlink()
    assert check_prepared(path) == "unrecorded"
    assert quarantine_corrupt_prepared(folder) == []  # a sound one gets its sidecar
    assert check_prepared(path) == "ok"
    (folder / f"{path.name}.sha256").unlink()
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(DataError, match="corrupt or truncated"):
        check_prepared(path)


# each rule script that reads a prepared data file, with the wildcards that send it there
PREPARED_READERS = {
    "fit_evaluate": {"experiment": "sdca_table2", "dataset": "vehicle", "method": "LEGO"},
    "curves": {"seed": "0", "curves": "sdca_1"},
    "scaling": {"seed": "0"},
    "oahu_cell": {"experiment": "table3", "dataset": "vehicle", "seed": "0", "method": "LEGO"},
    "oahu_fig4_cell": {"dataset": "vehicle", "seed": "0", "method": "LEGO", "n": "10"},
    "oahu_fig5_cell": {"dataset": "vehicle", "seed": "0", "method": "LEGO"},
    "svm_run": {"notion": "vehicle", "seed": "0"},
    "images_features": {"dataset": "fashion_mnist_pixels", "seed": "0"},
    "oahu_sensitivity": {},
}

_RUN_SCRIPTS = """
import json, runpy, sys, types
import yaml
from snakemake.utils import validate
from tripletbench.datasets.base import DataError

class Named(list):
    def __init__(self, items, **named):
        super().__init__(items)
        self.__dict__.update(named)

root, bad, tmp, cases = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
config = yaml.safe_load(open(f"{root}/config/default.yaml"))
from tripletbench.harness.config import schema_file
validate(config, schema_file())
out = {}
for script, wildcards in cases.items():
    per_seed = script == "fit_evaluate"
    sm = types.SimpleNamespace(
        config=config,
        wildcards=types.SimpleNamespace(**wildcards),
        input=Named([bad], prepared=bad,
                    **{k: [bad] if per_seed else bad  # fit_evaluate: lists, one per seed
                       for k in ("data", "split", "triplets_fit", "triplets_train")}),
        output=Named([f"{tmp}/{script}.out"], rows=f"{tmp}/r", model=f"{tmp}/m",
                     runs=f"{tmp}/u", alpha=f"{tmp}/a", auc=f"{tmp}/c", roc=f"{tmp}/o",
                     features=f"{tmp}/f", split=f"{tmp}/s"),
        log=[f"{tmp}/{script}.log"],
        params=types.SimpleNamespace(cache_dir=tmp, allow_unpinned=False, route="embedded",
                                     settings={}, svm=config["svm"], seeds=[0],
                                     store=f"{tmp}/store"),
    )
    try:
        path = next(__import__("pathlib").Path(root, "workflow/scripts").rglob(f"{script}.py"))
        runpy.run_path(str(path), init_globals={"snakemake": sm})
        out[script] = "no error"
    except DataError as err:
        out[script] = "DataError: " + str(err)
    except BaseException as err:
        out[script] = f"{type(err).__name__}: {err}"
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
print("RESULT " + json.dumps(out))
"""


@pytest.mark.slow
def test_every_script_reading_a_prepared_file_refuses_a_corrupt_one(tmp_path):
    """Each rule script that reads a prepared data file goes through
    ``tripletbench.datasets.base.load_prepared``: a truncated file gives the clear DataError (with the remedy)
    before anything else happens, not numpy's zip error or a silently short array."""
    folder, path = _prepared(tmp_path)
    path.write_bytes(path.read_bytes()[:3000])
    res = subprocess.run(
        [sys.executable, "-c", _RUN_SCRIPTS, str(ROOT), str(path), str(tmp_path),
         json.dumps(PREPARED_READERS)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    line = [x for x in res.stdout.splitlines() if x.startswith("RESULT ")]
    assert res.returncode == 0 and line, (res.stdout + res.stderr)[-3000:]
    got = json.loads(line[-1][len("RESULT "):])
    assert set(got) == set(PREPARED_READERS)
    for script, message in got.items():
        assert message.startswith("DataError: prepared file"), (script, message)
        assert "corrupt or truncated" in message and "rerun the workflow" in message, script


@pytest.mark.slow
def test_the_workflow_rebuilds_a_truncated_prepared_file_and_keeps_the_good_split(tmp_path):
    """The issue's case through Snakemake: the split made from the good file survives the rerun;
    a job that needs the prepared file gets it rebuilt."""
    cache = tmp_path / "cache"
    src = ROOT / "data_cache/embedded/r-cran-mlbench"
    if not (src / "usr/lib/R/site-library/mlbench/data/Vehicle.rda").exists():
        pytest.skip("the embedded vehicle copy is not unpacked here")
    shutil.copytree(src, cache / "embedded/r-cran-mlbench")
    out = tmp_path / "results"
    base = [sys.executable, "-m", "snakemake", "--configfile", "config/ci.yaml", "--cores", "1"]
    conf = [
        "--config",
        f"results_dir={out}",
        f"figures_dir={out}/figures",
        f'data={{"cache_dir": "{cache}", "route": "embedded"}}',
        "--nolock",
    ]

    def run(target):
        res = subprocess.run(
            base + [str(target)] + conf, cwd=ROOT, capture_output=True, text=True, timeout=300
        )
        assert res.returncode == 0, (res.stdout + res.stderr)[-3000:]
        return res.stdout + res.stderr

    split0 = out / "sdca_table2/splits/vehicle/seed0.npz"
    run(split0)
    before = split0.read_bytes()
    prepared = cache / "prepared/vehicle_embedded.npz"
    prepared.write_bytes(prepared.read_bytes()[:5000])
    log = run(split0)
    assert "moved aside to vehicle_embedded.npz.corrupt" in log
    assert split0.read_bytes() == before  # the good split is kept
    run(out / "sdca_table2/splits/vehicle/seed1.npz")  # needs the prepared file: rebuilt
    assert check_prepared(prepared) == "ok"


# --- RCA on NaN / inf points through the API ------------------------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_rca_refuses_nan_and_inf_points(data, bad):
    from tripletbench.datasets.constraints import triplets_to_chunklets

    X, _, t = data
    X = X.copy()
    X[3, 1] = bad
    with pytest.raises(
        DataError,
        match=r"RCA input: 1 NaN/inf feature values in 1 rows \(first at row 3, column 1\)",
    ):
        make_learner("RCA").fit(X, triplets_to_chunklets(t, len(X)))


# --- ITML on duplicate or all-zero points ---------------------------------------------------------


def test_itml_on_all_zero_points_is_a_data_error(data):
    from tripletbench.datasets.constraints import triplets_to_pairs

    X, _, t = data
    with pytest.raises(DataError, match="every point they involve is the same vector"):
        make_learner("ITML", preprocessor=np.zeros_like(X), max_iter=5).fit(*triplets_to_pairs(t))


def test_itml_on_a_duplicate_point_across_classes_is_a_data_error(data):
    from tripletbench.datasets.constraints import triplets_to_pairs

    X, _, t = data
    X = X.copy()
    X[20] = X[0]  # the same vector in both classes
    pairs = triplets_to_pairs(np.vstack([t, [[0, 2, 20]]]))
    with pytest.raises(DataError, match="duplicate|same point|coincide"):
        make_learner("ITML", preprocessor=X, max_iter=5).fit(*pairs)


def _fit_cell(name, X, y, t):
    from tripletbench.harness.experiment import fit_learner

    small = {
        "LMNN": {"max_iter": 5},
        "ITML": {"max_iter": 5},
        "OASIS": {"n_epochs": 1},
        "Dissim-OASIS": {"n_epochs": 1},
        "SDCA": {"n_epochs": 1},
        "COMET": {"n_sweeps": 1},
        "SparseCOMET": {"n_sweeps": 1},
        "OAHU": {"n_hidden_layers": 1, "n_hidden": 8, "embedding_dim": 4},
    }
    return fit_learner(name, small.get(name, {}), t, X, y, 0)


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
@pytest.mark.parametrize("case", ["nan", "inf", "all-zero", "no triplets"])
def test_degenerate_data_is_a_data_error_in_every_learner(data, name, case):
    X, y, t = data
    X = X.copy()
    if case == "nan":
        X[5, 2] = np.nan
    elif case == "inf":
        X[5, 2] = np.inf
    elif case == "all-zero":
        X[:] = 0.0
    else:
        t = t[:0]
    with pytest.raises(DataError):
        _fit_cell(name, X, y, t)


@pytest.mark.parametrize("name", ["LMNN", "OPML"])
def test_labelled_learners_name_a_single_class_and_too_small_classes(data, name):
    X, y, _ = data
    with pytest.raises(DataError, match=r"1 class\(es\)|forms no triplet"):
        make_learner(name).fit(X, np.zeros(len(X), dtype=int))
    if name == "LMNN":
        with pytest.raises(DataError, match=r"class 0 has 20 row\(s\).*at least 21 per class"):
            make_learner("LMNN", n_neighbors=20).fit(X, y)


# --- predict before fit: AttributeError on W_ -----------------------------------------------------


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_scoring_an_unfitted_learner_raises_not_fitted(data, name):
    X, _, t = data
    model = make_learner(name, preprocessor=X)
    with pytest.raises(NotFittedError):
        model.predict(t)
    with pytest.raises(NotFittedError):
        model.pair_score(t[:, :2])


@pytest.mark.parametrize(
    "name",
    ["Eucl", "RCA", "LMNN", "ITML", "ITML-online", "LEGO", "OASIS", "Dissim-OASIS", "SDCA", "RDML",
     "COMET"],
)
def test_matrices_and_transforms_of_an_unfitted_learner_raise_not_fitted(data, name):
    X, _, _ = data
    model = make_learner(name, preprocessor=X)
    with pytest.raises(NotFittedError):
        model.similarity_matrix(X, X)
    getter = "get_bilinear_matrix" if hasattr(model, "get_bilinear_matrix") else "transform"
    with pytest.raises(NotFittedError):
        getattr(model, getter)(*(() if getter == "get_bilinear_matrix" else (X,)))


# --- every atomically written result: mode 0600 whatever the umask --------------------------------


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_atomic_writes_get_the_umask_permissions(tmp_path, umask, mode):
    """A result CSV and its digest (save_text and save_npz themselves: tests/test_files.py)."""
    from tripletbench.harness.io import save_csv

    old = os.umask(umask)
    try:
        save_csv(tmp_path / "b.csv", pd.DataFrame({"a": [1]}))
    finally:
        os.umask(old)
    for f in ("b.csv", "b.csv.sha256"):
        assert (tmp_path / f).stat().st_mode & 0o777 == mode, f


# --- disk full during a job: empty log, run_walltime.csv without its header -----------------------


class _FullDisk:
    """A log file on a full disk: every write fails with ENOSPC."""

    def write(self, s):
        raise OSError(28, "No space left on device")

    def flush(self):
        raise OSError(28, "No space left on device")


def test_a_failing_log_never_hides_the_jobs_own_output(capsys):
    import io

    from tripletbench.harness.io import _Tee

    console = io.StringIO()
    tee = _Tee(console, _FullDisk())
    tee.write("step 1\n")
    tee.write("Traceback: the job's real error\n")
    tee.flush()
    text = console.getvalue()
    assert "step 1" in text and "the job's real error" in text
    assert text.count("can no longer be written") == 1


@pytest.fixture
def tiny_disk(tmp_path):
    """A 4 MiB tmpfs (needs root; skipped elsewhere)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    res = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True
    )
    if res.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    yield mount
    subprocess.run(["umount", str(mount)], check=False)


JOB = """
import os, sys
from tripletbench.harness.io import save_text, start_log
start_log({log!r})
print("step 1: started")
with open({filler!r}, "wb", buffering=0) as b:
    try:
        while True:
            b.write(b"x" * 65536)
    except OSError as e:
        print("the disk is full now:", e.strerror)
for i in range(300):  # ~20 KB more log: new disk blocks that a full disk cannot give
    print(f"progress {{i}}: " + "." * 60)
print("step 2: writing the result")
save_text({result!r}, "z" * 300000)
"""


def test_a_job_that_fills_the_disk_keeps_its_log(tiny_disk):
    log = tiny_disk / "job.log"
    code = JOB.format(
        root=str(ROOT),
        log=str(log),
        filler=str(tiny_disk / "filler"),
        result=str(tiny_disk / "result.txt"),
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert res.returncode != 0  # the job fails: its result does not fit
    text = log.read_text()
    assert "step 1: started" in text and "progress 299" in text
    assert "step 2: writing the result" in text
    assert "No space left on device" in text and "Traceback" in text
    assert not (tiny_disk / "result.txt").exists()  # no half-written result
    assert not [p for p in tiny_disk.iterdir() if p.name.startswith(".result")]


def test_the_walltime_record_keeps_its_header(tmp_path):
    from tripletbench.harness.io import append_csv_row

    path = tmp_path / "run_walltime.csv"
    head = "started_utc,wall_s,status,targets,cores"
    path.write_text("")  # what a full disk used to leave
    append_csv_row(path, head, "t0,1.0,error,all,2")
    append_csv_row(path, head, "t1,2.0,success,all,2")
    rows = pd.read_csv(path)
    assert list(rows.columns) == head.split(",") and list(rows.status) == ["error", "success"]


def test_the_walltime_record_survives_a_full_disk(tiny_disk):
    from tripletbench.harness.io import append_csv_row

    path = tiny_disk / "run_walltime.csv"
    head = "started_utc,wall_s,status,targets,cores"
    append_csv_row(path, head, "t0," + "1" * 9000 + ",success,all,2")
    before = path.read_text()
    with open(tiny_disk / "filler", "wb", buffering=0) as fh, pytest.raises(OSError):
        while True:
            fh.write(b"x" * 65536)
    with pytest.raises(OSError):
        append_csv_row(path, head, "t1," + "9" * 100000 + ",error,all,2")
    assert path.read_text() == before


# --- python -m tripletbench.harness.regression overwrote the stored numbers ------------------------------------


def test_the_regression_module_checks_by_default_and_stores_only_with_update(tmp_path, capsys):
    from tripletbench.harness.io import save_csv
    from tripletbench.harness.regression import main

    results = tmp_path / "results"
    table = results / "tables/t.csv"
    table.parent.mkdir(parents=True)
    save_csv(table, pd.DataFrame(
        {"dataset": ["vehicle", "vehicle"], "algorithm": ["Eucl", "RCA"], "mean": [0.39, 0.5249],
         "status": ["ok", "ok"], "fit_s": [1.5, 2.5]}
    ))  # fmt: skip
    expected = tmp_path / "e.csv"
    stored = (
        "# spread: measured\n"
        "table,cell,column,value,abs_tol\n"
        "tables/t.csv,dataset=vehicle;algorithm=Eucl,mean,0.381265,0.0005\n"
        "tables/t.csv,dataset=vehicle;algorithm=RCA,mean,0.524914,0.0005\n"
    )
    expected.write_text(stored)
    assert main([str(results), str(expected)]) == 1
    out = capsys.readouterr().out
    # every stored number beside the new one and its tolerance, the moved one marked, and the
    # command that accepts a deliberate change
    assert (
        "MOVED tables/t.csv[dataset=vehicle;algorithm=Eucl].mean: stored 0.381265, new 0.390000 "
        "(tolerance ±0.0005)" in out
    )
    assert (
        "ok    tables/t.csv[dataset=vehicle;algorithm=RCA].mean: stored 0.524914, new 0.524900 "
        "(tolerance ±0.0005)" in out
    )
    assert "1 of 2 stored numbers moved" in out and f"{expected} --update" in out
    assert expected.read_text() == stored  # untouched
    assert main([str(results), str(expected), "--update"]) == 0
    out = capsys.readouterr().out
    assert "-tables/t.csv,dataset=vehicle;algorithm=Eucl,mean,0.381265,0.0005" in out
    assert "+tables/t.csv,dataset=vehicle;algorithm=Eucl,mean,0.39,0.0005" in out
    assert expected.read_text().startswith("# spread: measured\n")  # the comments stay
    assert main([str(results), str(expected)]) == 0
    assert main([str(results), str(expected), "--update"]) == 0
    assert "nothing moved" in capsys.readouterr().out
    # a row added by hand without a value is filled from the run; a timing column is refused
    expected.write_text(expected.read_text() + "tables/t.csv,dataset=vehicle;algorithm=RCA,status,,0\n")
    assert main([str(results), str(expected), "--update"]) == 0
    assert "+tables/t.csv,dataset=vehicle;algorithm=RCA,status,ok,0" in capsys.readouterr().out
    expected.write_text(expected.read_text() + "tables/t.csv,dataset=vehicle;algorithm=RCA,fit_s,,0\n")
    with pytest.raises(ValueError, match="timing or memory columns"):
        main([str(results), str(expected), "--update"])
    # a table edited by hand (its digest no longer matches) is refused, not read
    table.write_text(table.read_text().replace("0.39", "0.381265"))
    with pytest.raises(Exception, match="t.csv"):
        main([str(results), str(expected)])


# --- paper.yaml took five sources as served, WebKB over plain http --------------------------------


UNPINNED = {  # no trustworthy hash exists (datasets package docstring)
    "svmguide4",
    "svmguide4.t",
    "lfw_attributes.txt",
    "webkb-data.gtar.gz",
}


def _download_specs():
    from tripletbench.datasets import DATASETS, caltech256, lfw, webkb

    return [*DATASETS.values(), caltech256.SPEC, lfw.SPEC, webkb.SPEC]


def test_every_download_is_pinned_unless_no_hash_exists():
    for spec in _download_specs():
        for rf in spec.download:
            if rf.fname in UNPINNED:
                assert rf.known_hash is None, rf
            else:
                assert rf.known_hash and rf.known_hash.split(":")[0] in ("sha256", "md5"), rf


def test_downloads_use_https():
    plain = [
        rf.url for s in _download_specs() for rf in s.download if not rf.url.startswith("https://")
    ]
    assert plain == []


def test_webkb_uses_https():
    from tripletbench.datasets import webkb

    assert webkb.URL.startswith("https://")


def test_an_unpinned_download_is_refused_without_the_command_line_opt_in(tmp_path):
    from tripletbench.datasets import get_dataset
    from tripletbench.datasets.base import fetch_download

    with pytest.raises(DataUnavailable, match="--config allow_unpinned_downloads=true"):
        fetch_download(get_dataset("svmguide4"), tmp_path)


def test_the_opt_in_comes_from_the_command_line_only():
    paper = yaml.safe_load((ROOT / "config/paper.yaml").read_text())
    assert (
        "allow_unpinned_downloads" not in paper["data"] and "allow_unpinned_downloads" not in paper
    )
    assert unpinned_downloads_opt_in(paper, {}) is False
    assert unpinned_downloads_opt_in(paper, {"allow_unpinned_downloads": "true"}) is True
    in_file = copy.deepcopy(paper)
    in_file["data"]["allow_unpinned_downloads"] = True
    with pytest.raises(ConfigError, match="not accepted from a config file"):
        unpinned_downloads_opt_in(in_file, {})
    top = copy.deepcopy(paper)
    top["allow_unpinned_downloads"] = True
    with pytest.raises(ConfigError, match="accepted only on the typed command line"):
        unpinned_downloads_opt_in(top, {})
    with pytest.raises(ConfigError, match="expected true or false"):
        unpinned_downloads_opt_in(paper, {"allow_unpinned_downloads": "maybe"})
    validate({**ci(), "allow_unpinned_downloads": "true"}, str(SCHEMA))


def test_the_svm_mds_notion_is_checked_before_any_job():
    cfg = ci()
    cfg["svm"]["mds"]["notion"] = "reuters_topc"
    with pytest.raises(ConfigError, match=r"svm\.mds\.notion: 'reuters_topc' is neither"):
        checked(cfg)


@pytest.mark.parametrize(
    "name, params, needle",
    [
        ("COMET", {"max_step": -1}, "max_step"),
        ("COMET", {"n_sweeps": -1}, "n_sweeps"),
        ("COMET", {"frob": -1}, "frob"),
        ("SparseCOMET", {"n_steps_diag": -1}, "n_steps_diag"),
        ("SparseCOMET", {"stepsize_diag": -1}, "stepsize_diag"),
        ("SDCA", {"average_from": 1.0}, "average_from"),
        ("ITML", {"max_iter": 0}, "max_iter"),
    ],
)
def test_learners_refuse_negative_steps_sweeps_and_bounds(name, params, needle):
    with pytest.raises(ValueError, match=needle):
        make_learner(name, **params)._check_params()


@pytest.mark.slow
def test_a_profile_cannot_open_unpinned_downloads(tmp_path):
    """A profile's `config: [allow_unpinned_downloads=true]` filled Snakemake's record
    of --config, so a file switched the opt-in on; only the typed command line counts."""
    from tripletbench.harness.config import command_line_config

    assert command_line_config(
        ["snakemake", "t", "--config", "allow_unpinned_downloads=true", "data={a: 1}", "-n"]
    ) == {"allow_unpinned_downloads": "true", "data": "{a: 1}"}
    assert command_line_config(["x", "-C", "a=1", "--config=b=2"]) == {"a": "1", "b": "2"}
    assert command_line_config(["snakemake", "--configfile", "c.yaml"]) == {}
    profile = tmp_path / "profile"
    profile.mkdir()
    (profile / "config.yaml").write_text("config:\n  - allow_unpinned_downloads=true\n")
    # the folders in a config file: a typed --config would replace the profile's list
    dirs = tmp_path / "dirs.yaml"
    dirs.write_text(f"results_dir: {tmp_path}/r\nfigures_dir: {tmp_path}/f\n")
    base = [
        sys.executable, "-m", "snakemake", "table_sdca_2", "-n", "--nolock",
        "--configfile", "config/ci.yaml", str(dirs),
    ]

    def run(*extra):
        res = subprocess.run([*base, *extra], cwd=ROOT, capture_output=True, text=True,
                             timeout=300)
        return res.returncode, res.stdout + res.stderr

    rc, out = run("--workflow-profile", str(profile))
    assert rc != 0 and "set in a config file or a Snakemake profile" in out, out[-3000:]
    rc, out = run("--config", "allow_unpinned_downloads=true")  # typed: accepted
    assert rc == 0, out[-3000:]


@pytest.mark.slow
def test_a_yaml_alias_expansion_is_refused_before_anything_walks_it(tmp_path):
    """A 1.3 KB alias bomb under svm.solver_options took 95 s at 10^6 leaves and was
    killed at 10^7; the size check stops counting at 100,000 values."""
    import time

    from tripletbench.harness.config import check_config_size

    lines = ["svm:", "  solver_options:", "    a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"    a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 8)]
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\n")  # 10^8 leaves
    t0 = time.process_time()
    with pytest.raises(ConfigError, match="more than 100,000 values"):
        check_config_size({**ci(), **yaml.safe_load(bomb.read_text())})
    assert time.process_time() - t0 < 5
    check_config_size(ci())  # the shipped configs pass
    res = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--nolock", "--configfile", "config/ci.yaml",
         str(bomb)], cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert res.returncode != 0 and "more than 100,000 values" in res.stdout + res.stderr


def test_a_templated_config_is_refused_and_the_readme_says_a_config_is_code(tmp_path):
    """A config with __use_yte__: true runs Python while Snakemake loads it; the
    workflow refuses it (after the fact: Snakemake renders it first, which the README says)."""
    from tripletbench.harness.config import check_no_templating

    yte = tmp_path / "yte.yaml"
    yte.write_text('__use_yte__: true\nresults_dir: ?"/tmp/" + "x"\n')
    with pytest.raises(ConfigError, match="__use_yte__ asks Snakemake to render it"):
        check_no_templating([yte])
    check_no_templating([ROOT / "config/ci.yaml"])
    readme = (ROOT / "README.md").read_text()
    assert "__use_yte__" in readme and "trusted input" in readme


def test_an_interrupted_write_leaves_the_old_file_and_no_temporary():
    """The promise behind every result file (tripletbench.harness.io.atomic_path): a write that stops half-way
    (an exception here; a killed process leaves at most a hidden temporary, never read) leaves
    the previous file whole."""
    import tempfile

    from tripletbench.harness.io import atomic_path, save_csv
    from tripletbench.harness.tables import collect

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "rows.csv"
        save_csv(path, pd.DataFrame({"a": [1, 2]}))
        before = path.read_bytes()
        with pytest.raises(KeyboardInterrupt):
            with atomic_path(path) as tmp:
                tmp.write_text("a\n9\n")  # half of the new content
                raise KeyboardInterrupt  # Ctrl-C between the write and the rename
        assert path.read_bytes() == before
        assert sorted(p.name for p in Path(d).iterdir()) == ["rows.csv", "rows.csv.sha256"]
        assert collect([path]).a.tolist() == [1, 2]  # the old file and its digest still agree


# --- a table counts what it averages: every result file whole and as its job wrote it ----------


def _cell(seed, value=0.5, algorithm="A"):
    """A cell's tidy rows as rule fit_evaluate writes them (one dataset, seed and method)."""
    return pd.DataFrame(
        {"dataset": "d1", "seed": seed, "algorithm": algorithm, "stage": "test",
         "checkpoint": "final", "metric": ["mAP", "fit_wall_s"], "value": [value, 1.0],
         "settings_hash": "s0123456789ab"}
    )


def _cells(folder, seeds=(0, 1, 2)):
    """One cell file per seed, written by tripletbench.harness.io.save_csv (the jobs' writer)."""
    from tripletbench.harness.io import save_csv

    paths = []
    for s in seeds:
        path = folder / f"seed{s}" / "A.csv"
        save_csv(path, _cell(s, 0.5 + 0.1 * s))
        paths.append(path)
    return paths


CELL = ("dataset", "seed", "algorithm")


def test_a_result_file_is_read_with_its_digest_and_every_row(tmp_path):
    """The jobs write each result CSV and then its sha256 beside it (``<file>.sha256``, in
    sha256sum's format, both atomically); collect reads the three seeds whole."""
    import hashlib

    from tripletbench.harness.tables import collect

    paths = _cells(tmp_path)
    side = Path(f"{paths[0]}.sha256").read_text()
    assert side == f"{hashlib.sha256(paths[0].read_bytes()).hexdigest()}  A.csv\n"
    runs = collect(paths, "fit_evaluate", ["metric", "value"], CELL)
    assert sorted(runs.seed.unique()) == [0, 1, 2] and len(runs) == 6
    assert runs.settings_hash.tolist() == ["s0123456789ab"] * 6  # still read as text


@pytest.mark.parametrize(
    "case, needle",
    [
        ("header only", "only a header line"),
        ("empty", "the file is empty (0 bytes)"),
        ("one value edited", "does not match the digest its job wrote"),
        ("no digest", "no A.csv.sha256 beside it"),
        ("a column gone", "lacks the column(s) ['value']"),
        ("a digest of another file", "is no digest of this file"),
    ],
)
def test_a_cut_emptied_edited_or_unrecorded_result_is_refused_by_name(tmp_path, case, needle):
    """A cell CSV cut to its header line made the table average 2 of 3 seeds under a
    caption that says seeds [0, 1, 2]; an emptied one raised pandas' EmptyDataError; a value
    edited by hand became the best cell. Each is refused, naming the file, what is wrong and the
    rule and command that remake it."""
    from tripletbench.harness.io import ResultFileError
    from tripletbench.harness.tables import collect

    paths = _cells(tmp_path)
    bad = paths[2]
    text = bad.read_text()
    if case == "header only":
        bad.write_text(text.splitlines()[0] + "\n")
    elif case == "empty":
        bad.write_text("")
    elif case == "one value edited":
        bad.write_text(text.replace("0.7", "0.99", 1))  # seed 2's mAP, now the best
        assert "0.99" in bad.read_text()
    elif case == "no digest":
        Path(f"{bad}.sha256").unlink()
    elif case == "a column gone":
        from tripletbench.harness.io import save_csv

        save_csv(bad, _cell(2).drop(columns="value"))  # written whole, digest and all
    else:  # seed 1's digest copied beside seed 2's file
        Path(f"{bad}.sha256").write_text(Path(f"{paths[1]}.sha256").read_text().replace(
            "A.csv", "B.csv"))
    with pytest.raises(ResultFileError) as err:
        collect(paths, "fit_evaluate", ["metric", "value"], CELL)
    msg = str(err.value)
    assert msg.startswith(f"{bad}: ") and needle in msg, msg
    assert "rule fit_evaluate" in msg and f"snakemake --forcerun {bad}" in msg, msg
    assert isinstance(err.value, ValueError)  # the scripts' callers catch ValueError


def test_a_copy_of_another_cells_file_is_refused_naming_both(tmp_path):
    """A missing seed: seed 2's file holds seed 1's rows (copied with its digest, the digest
    renamed), so the table would count seed 1 twice and seed 2 never; refused, both named. A
    file holding two cells, or a row without its seed, is refused too."""
    import shutil

    from tripletbench.harness.io import ResultFileError, save_csv
    from tripletbench.harness.tables import collect

    paths = _cells(tmp_path)
    shutil.copy(paths[1], paths[2])
    Path(f"{paths[2]}.sha256").write_text(Path(f"{paths[1]}.sha256").read_text())
    with pytest.raises(ResultFileError, match=r"holds the same cell \(dataset d1, seed 1, "
                       r"algorithm A\) as .*seed1/A.csv") as err:
        collect(paths, "fit_evaluate", cell=CELL)
    assert str(err.value).startswith(f"{paths[2]}: ")
    save_csv(paths[2], pd.concat([_cell(2), _cell(3)]))
    with pytest.raises(ResultFileError, match="should hold one cell .* but they hold 2"):
        collect(paths, "fit_evaluate", cell=CELL)
    save_csv(paths[2], _cell(2).assign(seed=[2, None]))
    with pytest.raises(ResultFileError, match="a row lacks a value there"):
        collect(paths, "fit_evaluate", cell=CELL)


def test_a_job_stopped_between_its_file_and_its_digest_is_refused_and_a_rerun_heals_it(tmp_path):
    """The digest is not a Snakemake output: a rerun job (Snakemake deletes the CSV, not the
    sidecar) writes the new CSV and then its digest. A job stopped between the two leaves the
    new CSV beside the old digest, which cannot match it: refused. The rerun writes both."""
    from tripletbench.harness.io import ResultFileError, atomic_path, save_csv
    from tripletbench.harness.tables import collect

    paths = _cells(tmp_path)
    paths[0].unlink()  # what Snakemake does before rerunning a job
    with atomic_path(paths[0]) as tmp:  # the CSV written, the job killed before its digest
        _cell(0, 0.9).to_csv(tmp, index=False)
    with pytest.raises(ResultFileError, match="does not match the digest"):
        collect(paths, "fit_evaluate", cell=CELL)
    save_csv(paths[0], _cell(0, 0.9))  # the rerun
    runs = collect(paths, "fit_evaluate", cell=CELL)
    assert runs[(runs.seed == 0) & (runs.metric == "mAP")].value.tolist() == [0.9]


def test_results_from_before_digests_are_refused_until_rerun_or_adopted(tmp_path, capsys):
    """A result written before results carried a digest is refused like a hand-made one (the
    table cannot tell them apart); the message offers the rerun and, for a file its job is known
    to have written, ``python -m tripletbench.harness.io adopt``, which writes the digests of the files
    without one and leaves a file whose digest does not match refused."""
    from tripletbench.harness.io import ResultFileError, main
    from tripletbench.harness.tables import collect

    paths = _cells(tmp_path)
    for p in paths[:2]:
        Path(f"{p}.sha256").unlink()  # as a run before digests left them
    with pytest.raises(ResultFileError) as err:
        collect(paths, "fit_evaluate", cell=CELL)
    msg = str(err.value)  # every refused file named in one error, each with its remedy
    assert msg.startswith("2 result files refused"), msg
    assert f"python -m tripletbench.harness.io adopt {paths[0]}" in msg
    assert f"python -m tripletbench.harness.io adopt {paths[1]}" in msg
    paths[2].write_text(paths[2].read_text().replace("0.7", "0.99", 1))  # edited after its job
    assert main(["adopt", str(tmp_path)]) == 0
    assert "2 file(s) adopted" in capsys.readouterr().out
    assert all(Path(f"{p}.sha256").exists() for p in paths[:2])
    with pytest.raises(ResultFileError, match="does not match the digest"):
        collect(paths, "fit_evaluate", cell=CELL)  # adopting does not bless an edited file
    assert len(collect(paths[:2], "fit_evaluate", cell=CELL)) == 4


def test_every_table_and_figure_script_reads_result_csvs_through_collect():
    """The one place that checks result files is tripletbench.harness.tables.collect (read_result): no table
    or figure script reads a CSV with pandas itself, except those listed (not result CSVs of a
    job, or scripts this rule leaves to their owners)."""
    import re

    allowed = {
        "images_features.py": "the Caltech-256 list file, not a result",
        "svm_table_1.py": "the readings table (svm_table_readings.py); not edited here",
    }
    offenders = []
    for script in sorted((ROOT / "workflow/scripts").rglob("*.py")):
        if re.search(r"\bpd\.read_csv\(", script.read_text()) and script.name not in allowed:
            offenders.append(script.name)
    assert offenders == []
