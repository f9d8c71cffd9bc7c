"""Config errors are caught before any job runs, with the offending name in the message."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

from tripletbench.harness.config import ConfigError, check_config, schema_file

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = schema_file()  # the schema with the names found in datasets/ and algorithms/


def default():
    return yaml.safe_load((ROOT / "config/default.yaml").read_text())


@pytest.mark.slow
@pytest.mark.parametrize("name", ["default", "paper", "ci"])
def test_shipped_configs_are_valid(name):
    cfg = yaml.safe_load((ROOT / f"config/{name}.yaml").read_text())
    validate(cfg, str(SCHEMA))
    check_config(cfg)


@pytest.mark.parametrize(
    "mutate, needle",
    [
        (lambda c: c["sdca_table2"].update(seedz=[0]), "seedz"),
        (lambda c: c["data"].update(rout="download"), "rout"),
        (lambda c: c["sdca_table2"]["datasets"].append("vehicel"), "vehicel"),
        (lambda c: c["sdca_table2"]["methods"].update(SDCA2={"algorithm": "SDCB"}), "SDCB"),
        (lambda c: c["data"].update(route="internet"), "internet"),
    ],
)
def test_schema_rejects_misspelled_keys_and_unknown_names(mutate, needle):
    cfg = default()
    mutate(cfg)
    with pytest.raises(Exception, match=needle):
        validate(cfg, str(SCHEMA))


def test_unknown_method_is_named():
    cfg = default()
    cfg["sdca_table2"]["methods"]["OASYS"] = {}
    with pytest.raises(
        ConfigError, match=r"sdca_table2.methods.OASYS: .*unknown algorithm 'OASYS'"
    ):
        check_config(cfg)


@pytest.mark.slow
def test_a_variant_row_names_its_algorithm():
    cfg = default()
    cfg["sdca_table2"]["methods"]["SDCA-random"] = {
        "algorithm": "SDCA",
        "fixed": {"output": "random"},
    }
    validate(cfg, str(SCHEMA))
    check_config(cfg)


def test_unknown_hyperparameter_is_named_with_its_place():
    cfg = default()
    cfg["sdca_table2"]["methods"]["SDCA"]["grid"] = {"lamda": [0.1]}
    with pytest.raises(ConfigError, match=r"sdca_table2.methods.SDCA.grid.lamda: .*lamda"):
        check_config(cfg)


@pytest.mark.parametrize(
    "place, method, params, needle",
    [
        ("table3", "OAHU", {"tau": 0.9}, r"oahu.table3.methods.OAHU.fixed.tau: tau must lie in \(0, 2/3\)"),
        ("figure5", "RDML", {"lamda": 0.1}, r"oahu.figure5.methods.RDML.fixed.lamda: .*lamda"),
        ("figure7", "OASIS", {"C": -1.0}, r"oahu.figure7.methods.OASIS.fixed.C: C must be > 0"),
    ],
)
def test_oahu_blocks_are_checked_before_any_job(place, method, params, needle):
    cfg = default()
    cfg["oahu"][place]["methods"][method] = {"fixed": params}
    validate(cfg, str(SCHEMA))
    with pytest.raises(ConfigError, match=needle):
        check_config(cfg)


def test_a_pair_rule_is_only_accepted_on_a_pair_learner():
    """pairs_per_triplet: 1 or 2 on LEGO or RDML (schema); on a triplet learner it would be
    ignored without a word, so the start-up check refuses it."""
    cfg = default()
    cfg["oahu"]["table3"]["methods"]["RDML"]["pairs_per_triplet"] = 2
    validate(cfg, str(SCHEMA))
    check_config(cfg)
    cfg["oahu"]["table3"]["methods"]["RDML"]["pairs_per_triplet"] = 3
    with pytest.raises(Exception, match="3"):
        validate(cfg, str(SCHEMA))
    cfg = default()
    cfg["oahu"]["table3"]["methods"]["OASIS"]["pairs_per_triplet"] = 1
    validate(cfg, str(SCHEMA))
    with pytest.raises(
        ConfigError,
        match=r"oahu.table3.methods.OASIS.pairs_per_triplet: OASIS learns from triplets",
    ):
        check_config(cfg)


def test_unknown_dataset_in_an_oahu_block_is_named():
    from tripletbench.datasets.base import DataError

    cfg = default()
    cfg["oahu"]["figure5"]["stand_in"] = "leter"
    with pytest.raises(DataError, match="leter"):
        check_config(cfg)


@pytest.mark.slow
def test_dry_run_shows_the_plan_and_a_bad_config_stops_it(tmp_path):
    snakemake = [sys.executable, "-m", "snakemake"]
    out = subprocess.run(
        snakemake + ["-n", "table_sdca_2"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert "table_sdca_2" in out.stdout and "fit_evaluate" in out.stdout
    bad = default()
    bad["sdca_table2"]["n_triplet"] = 5
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(bad))
    out = subprocess.run(
        snakemake + ["-n", "table_sdca_2", "--configfile", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode != 0
    lines = (out.stdout + out.stderr).strip().splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("config "))
    assert first <= 1 and len(lines) <= 8, lines  # the key first, no schema dump
    assert lines[first].startswith(
        "config sdca_table2.n_triplet: unknown key; did you mean 'n_triplets'?"
    ), lines[first]


def test_the_schema_names_exactly_the_learners_and_datasets_found():
    """One source of truth: the schema's name lists are what algorithms/ and datasets/ hold,
    and the file on disk leaves them empty (nothing to keep in step by hand)."""
    from tripletbench.algorithms import ALGORITHMS
    from tripletbench.datasets import DATASETS
    from tripletbench.harness.config import SCHEMA, schema

    defs = schema()["definitions"]
    assert defs["algorithm"]["anyOf"][0]["enum"] == sorted(ALGORITHMS)
    assert defs["dataset"]["enum"] == sorted(DATASETS)
    raw = yaml.safe_load(SCHEMA.read_text())["definitions"]
    assert raw["dataset"]["enum"] == [] and raw["algorithm"]["anyOf"][0]["enum"] == []
    assert {"OASIS", "SDCA", "ITML-online", "SVM-relative"} <= set(ALGORITHMS)
    assert {"vehicle", "letter", "fashion_mnist", "glass"} <= set(DATASETS)
    assert not {"caltech256", "lfw", "webkb", "reuters"} & set(DATASETS)  # raw collections


def test_settings_provenance_notes_are_validated_and_tabulated():
    """A row's ``notes`` (protocol, paper, ours) pass the schema, reach the table's settings
    columns and caption; an unknown protocol is refused."""
    from tripletbench.harness.tables import settings_caption, settings_table

    cfg = default()
    methods = cfg["sdca_table2"]["methods"]
    methods["Eucl"]["notes"] = {"protocol": "paper", "paper": "Euclidean distance"}
    methods["SDCA"]["notes"] = {"protocol": "ours", "ours": "T = 10 epochs"}
    validate(cfg, str(SCHEMA))
    tab = settings_table(methods).set_index("algorithm")
    assert list(tab.index) == list(methods)
    assert tab.loc["Eucl", "protocol"] == "paper"
    assert tab.loc["Eucl", "paper_settings"] == "Euclidean distance"
    assert tab.loc["SDCA", "our_settings"] == "T = 10 epochs"
    methods["RCA"].pop("notes", None)
    assert settings_table(methods).set_index("algorithm").loc["RCA", "protocol"] == "unmarked"
    text = "\n".join(settings_caption(methods))
    assert "**Eucl** [paper" in text and "paper: Euclidean distance" in text
    assert "ours: T = 10 epochs" in text
    methods["Eucl"]["notes"]["protocol"] = "mine"
    with pytest.raises(Exception, match="mine"):
        validate(cfg, str(SCHEMA))


@pytest.mark.parametrize("name", ["default", "paper", "ci"])
def test_every_method_row_of_the_shipped_configs_says_where_its_settings_come_from(name):
    """Every row of every ``methods:`` block (SDCA Table 2, the image experiment, each OAHU
    table and figure) and every row of ``svm.notes`` carries ``notes`` with a protocol of
    ``tripletbench.harness.tables.PROTOCOLS``; an "ours" or "not-in-paper" row says what we chose."""
    from tripletbench.harness.config import method_blocks
    from tripletbench.harness.tables import PROTOCOLS

    cfg = yaml.safe_load((ROOT / f"config/{name}.yaml").read_text())
    rows = [(place, m, mcfg) for place, methods, _ in method_blocks(cfg)
            for m, mcfg in methods.items()]
    rows += [("svm.notes", m, {"notes": n}) for m, n in (cfg["svm"].get("notes") or {}).items()]
    places = {place for place, _, _ in rows}
    assert {"sdca_table2", "oahu.table3", "oahu.figure4", "oahu.figure5", "oahu.figure7",
            "svm.notes"} <= places
    if cfg.get("images", {}).get("methods"):
        assert "images" in places
    for place, m, mcfg in rows:
        notes = (mcfg or {}).get("notes")
        assert notes, f"{name}: {place}.{m} has no notes"
        assert notes.get("protocol") in PROTOCOLS, f"{name}: {place}.{m}: {notes}"
        if notes["protocol"] in ("ours", "not-in-paper"):  # our variant or row: say what it is
            assert notes.get("ours"), f"{name}: {place}.{m}"


def test_the_figures_dataset_may_be_an_image_set_the_route_can_build():
    """figures.dataset: a dataset or an image set (the SDCA paper's Figures 1-2 ran on Caltech-256
    with 50 classes); one that the run's route cannot build is refused before any job."""
    cfg = default()
    cfg["figures"].update(n_queries=190, n_database=460)  # what 10 x 65 images hold (below)
    cfg["figures"]["dataset"] = "fashion_mnist_pixels"
    check_config(cfg)
    cfg["figures"]["dataset"] = "caltech256_50"
    with pytest.raises(ConfigError, match=r"figures\.dataset: 'caltech256_50' cannot be built on"):
        check_config(cfg)
    cfg["data"]["route"] = "download"
    check_config(cfg)
    cfg["figures"]["dataset"] = "caltech256_999"
    with pytest.raises(ConfigError, match=r"figures\.dataset: unknown dataset .caltech256_999"):
        check_config(cfg)


@pytest.mark.parametrize(
    "images, needle",
    [
        ({"n_train_per_class": 2}, r"images\.n_train_per_class: 2 training images .* leave 1"),
        ({"n_train_per_class": 10, "fit_fraction": 0.1}, r"images\.n_train_per_class: .* leave 1"),
        ({"n_train_per_class": 4, "precision_at_k": 41, "datasets": ["caltech256_10"],
          "sdca_table3_datasets": ["caltech256_10"]},
         r"images\.precision_at_k: 41 exceeds .*\(4 training images per class x 10 classes = 40"),
    ],
)
def test_image_sizes_the_protocol_cannot_use_are_refused_before_any_job(images, needle):
    """n_train_per_class 2 failed deep in sample_triplets; precision_at_k beyond the
    database was reported as hits / k over fewer than k items."""
    cfg = default()
    cfg["images"].update(images)
    with pytest.raises(ConfigError, match=needle):
        check_config(cfg)
    cfg["images"].update(precision_at_k=40, n_train_per_class=4, fit_fraction=0.8)
    check_config(cfg)  # k equal to the smallest database is fine


@pytest.mark.parametrize(
    "mutate, needle",
    [
        (lambda c: c["svm"].update(token_pattern="\\w+("), r"svm\.token_pattern: .* not a regular"),
        (lambda c: c["svm"].update(token_pattern="(a)(b)"), r"svm\.token_pattern: .* 2 capturing"),
        # "" failed later as "median squared distance ... is 0"
        (lambda c: c["svm"].update(token_pattern=""), r"svm\.token_pattern: '' matches the empty"),
        (lambda c: c["svm"].update(token_pattern="\\w*"), r"svm\.token_pattern: .* the empty"),
        (lambda c: c["svm"].update(token_pattern="\\b(\\w+)?"), r"token_pattern: .* the empty"),
        (lambda c: c["svm"].update(token_pattern="xyz123"), r"token_pattern: .* finds no token"),
    ],
)
def test_a_token_pattern_that_cannot_tokenize_is_refused_before_any_job(mutate, needle):
    cfg = default()
    mutate(cfg)
    with pytest.raises(ConfigError, match=needle):
        check_config(cfg)


@pytest.mark.parametrize(
    "place",
    [
        ("svm", "n_train_triplets"), ("figures", "seeds"),
        ("oahu", "figure7", "ks"), ("oahu", "figure4", "n_constraints"),
    ],
)
def test_a_list_of_sizes_with_a_repeated_value_is_refused_by_the_schema(place):
    """Lists that name cells or rows must not repeat a value (two cells, one path)."""
    cfg = default()
    node = cfg
    for key in place[:-1]:
        node = node[key]
    node[place[-1]] = [node[place[-1]][0]] * 2
    with pytest.raises(Exception, match="non-unique|has non-unique elements"):
        validate(cfg, str(SCHEMA))


# --- temporary files are private ---------------------------------------------------------------


@pytest.mark.slow
def test_a_schema_planted_in_the_temporary_folder_is_never_read(tmp_path):
    """The schema was written to $TMPDIR/tripletbench-schema-<digest>.json and a file found there
    was trusted: a planted copy without the ranges let n_triplets 0 through and moved the figures
    out of the results folder. The schema now goes to a folder the process creates (mkdtemp,
    0700) and removes at exit; a file at the old name (or any guess of a name) is never read."""
    import hashlib
    import json
    import os

    from tripletbench.harness.config import schema

    text = json.dumps(schema(), indent=1, sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    lax = schema()
    lax["properties"]["sdca_table2"]["properties"]["n_triplets"] = {"type": "integer"}
    lax["properties"]["figures_dir"]["default"] = "/tmp/elsewhere"
    planted = [tmp_path / f"tripletbench-schema-{digest}.json",
               tmp_path / "tripletbench-schema-" / "config.schema.json"]
    for path in planted:
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(lax))
    code = (
        "import os, stat, sys, yaml\n"
        "from snakemake.utils import validate\n"
        "from tripletbench.harness.config import schema_file\n"
        "path = schema_file()\n"
        "mode = stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode)\n"
        "print(path, oct(mode))\n"
        "cfg = yaml.safe_load(open('config/ci.yaml'))\n"
        "cfg.pop('figures_dir', None)\n"
        "ok = dict(cfg, sdca_table2=dict(cfg['sdca_table2']))\n"
        "validate(ok, path)\n"
        "print('figures_dir', ok['figures_dir'])\n"
        "cfg['sdca_table2']['n_triplets'] = 0\n"
        "try:\n"
        "    validate(cfg, path)\n"
        "except Exception as err:\n"
        "    print('refused', 'minimum of 1' in str(err))\n"
    )
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    path, mode = lines[0].split()
    assert Path(path).parent.parent == tmp_path and Path(path) not in planted
    assert mode == "0o700"
    assert lines[1] == "figures_dir figures"  # the schema's default, not the planted one
    assert lines[2] == "refused True"
    assert not Path(path).exists() and not Path(path).parent.exists()  # removed at exit
    assert all(p.read_text() == json.dumps(lax) for p in planted)  # never touched either


def test_no_project_code_writes_a_temporary_file_at_a_predictable_shared_path():
    """Every temporary file of the project is made by tempfile.mkstemp / mkdtemp /
    TemporaryDirectory (a fresh name) or beside its target (tripletbench.harness.io.atomic_path); no code
    builds a path in the shared temporary folder by hand (gettempdir(), "/tmp/...", $TMPDIR)."""
    import ast

    found = []
    files = [p for d in ("harness", "datasets", "algorithms", "evaluation", "workflow")
             for p in (ROOT / d).rglob("*.py")]
    for path in files:
        tree = ast.parse(path.read_text())
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in ("gettempdir", "tempdir"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: tempfile.{node.attr}")
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in docs
                    and (node.value.startswith(("/tmp", "/var/tmp")) or node.value == "TMPDIR")):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    smk = [p for p in (ROOT / "workflow").rglob("*.smk")] + [ROOT / "Snakefile"]
    for path in smk:
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if "gettempdir" in line or "/tmp/" in line or "TMPDIR" in line:
                found.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert found == []


# --- a value is checked for what it means, before any job ---------------------------------------


def _set(cfg, dotted, value):
    node = cfg
    keys = dotted.split(".")
    for key in keys[:-1]:
        node = node.setdefault(key, {})
    node[keys[-1]] = value
    return cfg


@pytest.mark.parametrize(
    "dotted, value, needle",
    [
        ("sdca_table2.n_triplets", 2000.0, r"sdca_table2\.n_triplets: 2000\.0 .* write 2000"),
        ("sdca_table2.seeds", [0, 1.0], r"sdca_table2\.seeds\[1\]: 1\.0 .* integer"),
        ("figures.oasis_variants", {"X": {"psd": 1000.0}}, r"figures\.oasis_variants\.X\.psd"),
        ("svm.kernel.n_train_triplets", 300.0, r"svm\.kernel\.n_train_triplets: 300\.0"),
        ("oahu.table3.cv_folds", 2.0, r"oahu\.table3\.cv_folds: 2\.0"),
        ("svm.n_train_triplets", [100, 250.0], r"svm\.n_train_triplets\[1\]"),
        ("oahu.table3.methods.RDML.pairs_per_triplet", 2.0, r"RDML\.pairs_per_triplet: 2\.0"),
    ],
)
def test_a_decimal_number_where_an_integer_is_meant_is_refused_by_its_key(dotted, value, needle):
    """n_triplets 2000.0 passed the schema (JSON Schema counts 2000.0 as an integer,
    and jsonschema does) and raised a raw TypeError later; seeds [1.0] asked for files no rule
    makes (seed1.0). The start-up check refuses the float, naming its dotted key."""
    cfg = _set(default(), dotted, value)
    validate(cfg, str(SCHEMA))  # the schema alone lets it through
    with pytest.raises(ConfigError, match=needle):
        check_config(cfg)


@pytest.mark.parametrize(
    "dotted, value",
    [
        ("sdca_table2.n_triplets", 10**12),
        ("images.n_triplets", 10**12),
        ("figures.n_triplets", 10**9),
        ("oahu.table3.n_seeds", 10**12),
        ("svm.n_train_triplets", [10**9]),
        ("svm.n_test_triplets", 10**12),
        ("performance.dense_dims", [10**6]),
        ("table4_scaling.n_background", 10**12),
        ("images.bovw.caltech256.color_levels", 1000),
    ],
)
def test_a_size_beyond_a_sane_maximum_is_refused_before_any_job(dotted, value):
    """n_triplets 10^12 was accepted and the job died allocating 7.28 TiB. Every size
    that allocates has a maximum in the schema (and the shipped configs stay within them)."""
    cfg = _set(default(), dotted, value)
    with pytest.raises(Exception, match=r"is greater than the maximum of") as err:
        validate(cfg, str(SCHEMA))
    assert dotted.rsplit(".", 1)[-1] in str(err.value)


def test_a_key_given_twice_in_a_config_file_is_refused_with_file_line_and_key(tmp_path):
    """Two OASIS rows in one methods block were merged silently, the last one winning.
    Every config file given is read again with a loader that refuses a repeated key."""
    import json

    from tripletbench.harness.config import check_duplicate_keys

    text = (ROOT / "config/ci.yaml").read_text()
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line == "    OASIS:")
    end = next(i for i in range(at + 1, len(lines)) if not lines[i].startswith("      "))
    twice = tmp_path / "twice.yaml"
    twice.write_text("\n".join(lines[:end] + lines[at:end] + lines[end:]) + "\n")
    with pytest.raises(ConfigError, match=rf"config file .*twice\.yaml, line {end + 1}: key "
                                          rf"'OASIS' is given twice .*first at line {at + 1}"):
        check_duplicate_keys([ROOT / "config/ci.yaml", twice])
    top = tmp_path / "top.yaml"
    top.write_text("results_dir: a\nfigures_dir: b\nresults_dir: c\n")
    with pytest.raises(ConfigError, match=r"top\.yaml, line 3: key 'results_dir'"):
        check_duplicate_keys([top])
    as_json = tmp_path / "c.json"
    as_json.write_text('{"svm": {"C": 1, "C": 2}}')
    with pytest.raises(ConfigError, match=r"c\.json, line 1: key 'C'"):
        check_duplicate_keys([as_json])
    merged = tmp_path / "merge.yaml"  # a merge key's entries may be overridden (YAML's meaning)
    merged.write_text("base: &b {n_epochs: 1, C: 0.1}\nrow: {<<: *b, C: 0.2}\n")
    check_duplicate_keys([merged])
    shipped = sorted((ROOT / "config").rglob("*.yaml"))
    assert len(shipped) > 5
    check_duplicate_keys(shipped)
    assert json.loads(as_json.read_text()) == {"svm": {"C": 2}}  # what a plain reader keeps


@pytest.mark.parametrize(
    "dotted", ["results_dir", "figures_dir", "data.cache_dir", "sdca_table2.compare_with"]
)
@pytest.mark.parametrize("value", ["~/x", "~", "~other/x", "$HOME/x", "out/${USER}"])
def test_a_path_with_a_tilde_or_a_variable_is_refused(dotted, value):
    """results_dir "~/x" made a folder literally named "~" in the checkout. Every
    path-valued key (tripletbench.harness.config.PATH_KEYS) refuses a leading ~ and a $VAR (Snakemake expands
    neither; we refuse rather than expand, so the plan's paths are the ones the config shows)."""
    from tripletbench.harness.config import path_keys

    assert dotted in path_keys()
    cfg = _set(default(), dotted, value)
    with pytest.raises(ConfigError, match=rf"config {re.escape(dotted)}: .*(~|variable)"):
        check_config(cfg)


def test_a_data_mirror_folder_may_start_with_a_tilde(tmp_path, monkeypatch):
    """data.mirror is the one path key that expands ~ (tripletbench.datasets.base.mirror_location), so a
    mirror under the home folder is found, and a missing one is refused by name."""
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "mirror").mkdir()
    check_config(_set(default(), "data.mirror", "~/mirror"))
    with pytest.raises(ConfigError, match=r"data\.mirror"):
        check_config(_set(default(), "data.mirror", "~/nothing"))


@pytest.mark.parametrize(
    "mutate, needle",
    [
        # figures (Fig. 3 on vehicle: 846 samples, 4 classes; at least 252 test, 590 training)
        (lambda c: c["figures"].update(dataset="vehicle", n_queries=100000),
         r"figures\.n_queries: 100000 exceeds the 252 test samples of vehicle"),
        (lambda c: c["figures"].update(dataset="vehicle", n_queries=100, n_database=1000),
         r"figures\.n_database: 1000 exceeds the 591 training samples of vehicle"),
        (lambda c: c["figures"].update(dataset="fashion_mnist_pixels", n_queries=10000),
         r"figures\.n_queries: 10000 exceeds the 190 test samples .*10 classes x 65 images"),
        (lambda c: c["figures"].update(scaling_dataset="vehicle", scaling_n_samples=[100, 5000]),
         r"figures\.scaling_n_samples\[1\]: 5000 exceeds the 591 training samples"),
        # oahu
        (lambda c: c["oahu"]["table3"].update(n_samples=100000),
         r"oahu\.table3\.n_samples: 100000 exceeds the 70000 samples of fashion_mnist"),
        (lambda c: c["oahu"]["figure7"].update(n_samples=30000),
         r"oahu\.figure7\.n_samples: 30000 exceeds the 20000 samples of letter"),
        (lambda c: c["oahu"]["table3"].update(k=2000),
         r"oahu\.table3\.k: 2000 neighbours, .* certain to hold only 1590"),
        (lambda c: c["oahu"]["figure4"].update(n_constraints=[1000, 20000]),
         r"oahu\.figure4\.n_constraints\[1\]: 20000 exceeds the stream of .* 5000"),
        (lambda c: c["oahu"]["figure7"].update(ks=[1, 64]),
         r"oahu\.figure7\.ks\[1\]: K = 64 is not among oahu\.table3\.recall_ks"),
        # images
        (lambda c: c["images"].update(n_train_per_class=60, n_test_per_class=25),
         r"images\.n_train_per_class: 60 \+ n_test_per_class 25 = 85 .* caltech256 holds 80"),
        (lambda c: c["images"]["bovw"]["fashion_mnist"].update(n_words=5000, max_descriptors=1000),
         r"images\.bovw\.fashion_mnist\.n_words: 5000 words from at most 1000"),
        (lambda c: c["images"]["bovw"]["fashion_mnist"].update(block_size=32),
         r"images\.bovw\.fashion_mnist\.block_size: 32 px exceeds the 28 px"),
        (lambda c: c["images"].update(sdca_table3_datasets=["caltech256_7"]),
         r"images\.sdca_table3_datasets\[0\]: 'caltech256_7' is not in images\.datasets"),
        # performance, table4_scaling, svm
        (lambda c: c.update(performance={"sparse": [[1000, 30], [50, 70]]}),
         r"performance\.sparse\[1\]: 70 non-zeros per row of a 50-d vector"),
        (lambda c: c.update(performance={"sparse": [], "dense_dims": []}),
         r"performance: dense_dims and sparse are both empty"),
        (lambda c: c.update(table4_scaling={"methods": ["SDCA", "OASYS"]}),
         r"table4_scaling\.methods\[1\]: 'OASYS' is not a row of sdca_table4\.methods"),
        (lambda c: c.update(table4_scaling={"n_ground_truth": 50, "n_classes": 24}),
         r"table4_scaling\.n_classes: 24 classes of 50 ground-truth items leave 2 per class"),
        (lambda c: c.update(table4_scaling={"n_background": 90_000_000, "d": 4096}),
         r"table4_scaling: .* need 2,747 GiB, more than 256 GiB"),
        (lambda c: c["svm"].update(text_notions=[], datasets=[]),
         r"svm: text_notions and datasets are both empty"),
    ],
)
def test_sizes_the_data_cannot_hold_are_refused_before_any_job(mutate, needle):
    """figures.n_queries 100000 on vehicle was cut to 254 while the caption said
    100000; likewise n_database, the scaling sizes and the OAHU subsample (cut to all samples).
    Sizes that must fit the data or one another are refused, naming the key and the limit."""
    cfg = default()
    mutate(cfg)
    validate(cfg, str(SCHEMA))
    with pytest.raises(ConfigError, match=needle):
        check_config(cfg)


def test_the_figures_sizes_accept_what_the_split_holds():
    """The limits are what the split holds: exactly for an image set (each class has
    n_train_per_class + n_test_per_class images: caltech256_50 of config/paper.yaml, 50 x 19 test
    and 50 x 46 training images), and for a dataset the count it is certain to hold before its
    class sizes are read (vehicle: 252 of its 254 test samples)."""
    from tripletbench.studies.sdca.config import split_sizes

    cfg = default()
    assert split_sizes(cfg, "caltech256_50") == (2300, 950, "50 classes x 65 images, 70% per class")
    train, test, _ = split_sizes(cfg, "vehicle")
    assert (train, test) == (591, 252)
    cfg["figures"].update(dataset="vehicle", n_queries=252, n_database=591)
    check_config(cfg)
    paper = yaml.safe_load((ROOT / "config/paper.yaml").read_text())
    assert (paper["figures"]["n_queries"], paper["figures"]["n_database"]) == (950, 2300)
    paper["figures"]["n_queries"] = 951
    with pytest.raises(ConfigError, match=r"figures\.n_queries: 951 exceeds the 950 test"):
        check_config(paper)


def test_an_image_set_of_the_convergence_figures_is_held_to_its_class_sizes():
    """figures.dataset may be an image set (its features use the images block's sizes): a class
    of Caltech-256 holds 80 images at least, so more per class is refused even when the images
    block itself plans nothing."""
    cfg = default()
    cfg.pop("images")
    cfg["data"]["route"] = "download"
    cfg["figures"].update(dataset="caltech256_50", n_queries=10, n_database=10)
    check_config(cfg)
    cfg["images"] = {"n_train_per_class": 70, "n_test_per_class": 25}
    with pytest.raises(ConfigError, match=r"images\.n_train_per_class: 70 \+ n_test_per_class 25"):
        check_config(cfg)


def test_the_paper_configs_human_block_is_the_defaults_with_three_seeds():
    """config/paper.yaml builds the human-judgment table (download route) with the default's
    human block, the seeds alone changed: the two copies cannot drift apart unseen."""
    paper = yaml.safe_load((ROOT / "config/paper.yaml").read_text())["human"]
    ours = default()["human"]
    assert paper["seeds"] == [0, 1, 2] and ours["seeds"] == [0]
    assert {k: v for k, v in paper.items() if k != "seeds"} == {
        k: v for k, v in ours.items() if k != "seeds"
    }


@pytest.mark.slow
def test_a_fit_evaluate_job_asks_for_one_seeds_memory_and_all_its_seeds_runtime(tmp_path):
    """workflow/resources.yaml's fit_evaluate values are per seed (common.smk cell_resource): a
    job, which runs its seeds one after another, asks for one seed's memory and the runtime of
    all of them (SDCA Table 2 of the default config: 5 seeds)."""
    own = yaml.safe_load((ROOT / "workflow/resources.yaml").read_text())["rules"]["fit_evaluate"]
    seeds = default()["sdca_table2"]["seeds"]
    out = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "table_sdca_2", "--nolock", "--config",
         f"results_dir={tmp_path}", f"figures_dir={tmp_path}/figures"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    asked = re.findall(
        r"rule fit_evaluate:\n(?:.*\n)*?[ ]+resources: .*?runtime=(\d+), mem_mb=(\d+)", out.stdout
    )
    assert asked, out.stdout[-3000:]
    assert {(int(t), int(mb)) for t, mb in asked} == {(own["runtime"] * len(seeds), own["mem_mb"])}
