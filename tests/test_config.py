"""Config errors are caught before any job runs, with the offending name in the message."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

from harness.config import ConfigError, check_config, schema_file

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = schema_file()  # the schema with the names found in datasets/ and algorithms/


def default():
    return yaml.safe_load((ROOT / "config/default.yaml").read_text())


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
    from datasets.base import DataError

    cfg = default()
    cfg["oahu"]["figure5"]["stand_in"] = "leter"
    with pytest.raises(DataError, match="leter"):
        check_config(cfg)


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
    assert "n_triplet" in out.stdout + out.stderr


def test_the_schema_names_exactly_the_learners_and_datasets_found():
    """One source of truth: the schema's name lists are what algorithms/ and datasets/ hold,
    and the file on disk leaves them empty (nothing to keep in step by hand)."""
    from algorithms import ALGORITHMS
    from datasets import DATASETS
    from harness.config import SCHEMA, schema

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
    from harness.tables import settings_caption, settings_table

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
    ``harness.tables.PROTOCOLS``; an "ours" or "not-in-paper" row says what we chose."""
    from harness.config import method_blocks
    from harness.tables import PROTOCOLS

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
        ({"n_train_per_class": 4, "precision_at_k": 41, "datasets": ["caltech256_10"]},
         r"images\.precision_at_k: 41 exceeds .*\(4 training images per class x 10 classes = 40"),
    ],
)
def test_image_sizes_the_protocol_cannot_use_are_refused_before_any_job(images, needle):
    """issue 22: n_train_per_class 2 failed deep in sample_triplets; precision_at_k beyond the
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
    """issue 22: lists that name cells or rows must not repeat a value (two cells, one path)."""
    cfg = default()
    node = cfg
    for key in place[:-1]:
        node = node[key]
    node[place[-1]] = [node[place[-1]][0]] * 2
    with pytest.raises(Exception, match="non-unique|has non-unique elements"):
        validate(cfg, str(SCHEMA))
