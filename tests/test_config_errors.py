"""A config error names the key first: its dotted path, what is expected, what the config gives
and the closest valid key or value; and one rule for what a learner row accepts wherever
learner rows appear."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from tripletbench.harness.config import (
    ConfigError,
    check_config,
    check_schema,
    did_you_mean,
    schema,
)
from tripletbench.harness.experiment import param_grid, row_params

ROOT = Path(__file__).resolve().parents[1]
MINIMAL = yaml.safe_load((ROOT / "config/examples/minimal.yaml").read_text())


def _error(mutate, check=check_schema) -> str:
    cfg = copy.deepcopy(MINIMAL)
    mutate(cfg)
    with pytest.raises(ConfigError) as err:
        check(cfg)
    return str(err.value)


@pytest.mark.parametrize(
    "mutate, starts, closest",
    [
        (lambda c: c.update(resluts_dir="x"), "config resluts_dir: unknown key", "results_dir"),
        (
            lambda c: c["sdca_table2"].update(n_tripets=5),
            "config sdca_table2.n_tripets:",
            "n_triplets",
        ),
        (
            lambda c: c["sdca_table2"]["methods"]["SDCA"].update(gird={}),
            "config sdca_table2.methods.SDCA.gird: unknown key",
            "grid",
        ),
        (
            lambda c: c["sdca_table2"].update(datasets=["vehicel"]),
            "config sdca_table2.datasets[0]: expected one of",
            "vehicle",
        ),
        (
            lambda c: c["data"].update(route="embeded"),
            "config data.route: expected one of",
            "embedded",
        ),
        (
            lambda c: c["sdca_table2"].update(n_triplets="many"),
            "config sdca_table2.n_triplets: expected integer; got 'many'",
            None,
        ),
        (
            lambda c: c["sdca_table2"].update(n_triplets=0),
            "config sdca_table2.n_triplets: expected >= 1; got 0",
            None,
        ),
    ],
)
def test_a_schema_error_names_the_key_first_then_expected_got_and_the_closest(
    mutate, starts, closest
):
    msg = _error(mutate)
    assert msg.startswith(starts), msg
    assert "\n" not in msg and len(msg) < 400, msg
    if closest:
        assert f"did you mean {closest!r}?" in msg, msg


@pytest.mark.parametrize(
    "mutate, starts, closest",
    [
        (
            lambda c: c["sdca_table2"]["methods"].update(SDAC={}),
            "config sdca_table2.methods.SDAC: unknown algorithm 'SDAC'",
            "SDCA",
        ),
        (
            lambda c: c["sdca_table2"]["methods"]["SDCA"].update(fixed={"n_epoch": 2}),
            "config sdca_table2.methods.SDCA.fixed.n_epoch: SDCA has no hyperparameter",
            "n_epochs",
        ),
    ],
)
def test_a_learner_error_names_the_key_first_and_the_closest(mutate, starts, closest):
    msg = _error(mutate, check_config)
    assert msg.startswith(starts) and f"did you mean {closest!r}?" in msg, msg


def test_the_shipped_configs_pass_the_schema_check():
    for name in ("default", "paper", "ci", "config"):
        check_schema(yaml.safe_load((ROOT / f"config/{name}.yaml").read_text()))
    assert did_you_mean("x", ["abc"]) == ""


CORE_ROW_KEYS = {"algorithm", "constraints", "fixed", "notes"}


def _row_schemas(node, path, root):
    """(dotted path, row schema) of every ``methods`` mapping of learner rows in the schema."""
    if isinstance(node, dict):
        if "$ref" in node and node["$ref"].startswith("#/definitions/"):
            node = root["definitions"][node["$ref"].split("/")[-1]]
        for key, sub in (node.get("properties") or {}).items():
            sub_r = root["definitions"][sub["$ref"].split("/")[-1]] if "$ref" in sub else sub
            if key == "methods" and sub_r.get("type") == "object":
                row = sub_r.get("additionalProperties")
                if "$ref" in row:
                    row = root["definitions"][row["$ref"].split("/")[-1]]
                yield f"{path}.methods", row
            else:
                yield from _row_schemas(sub, f"{path}.{key}" if path else key, root)


def test_every_learner_row_accepts_the_same_core_keys_wherever_rows_appear():
    sch = schema()
    rows = dict(_row_schemas(sch, "", sch))
    assert {"sdca_table2.methods", "human.methods", "images.methods"} <= set(rows), sorted(rows)
    for place, row in rows.items():
        keys = set(row.get("properties") or {})
        assert CORE_ROW_KEYS <= keys, (place, sorted(CORE_ROW_KEYS - keys))


def test_a_rows_constraints_reach_its_learner_in_every_study():
    row = {"algorithm": "metric_learn.SCML", "constraints": "triplets", "fixed": {"k_genuine": 2}}
    assert row_params(row) == {"k_genuine": 2, "constraints": "triplets"}
    assert param_grid({**row, "grid": {"beta": [1e-5, 1e-4]}})[1] == {
        "k_genuine": 2,
        "constraints": "triplets",
        "beta": 1e-4,
    }
    human = copy.deepcopy(yaml.safe_load((ROOT / "config/default.yaml").read_text())["human"])
    human["methods"] = {"SCML": {"algorithm": "metric_learn.SCML", "constraints": "triplets"}}
    check_schema({"human": human})
    check_config({"human": human, "results_dir": "results/x", "figures_dir": "results/x/f"})


def _with_scml(n_triplets, datasets=("vehicle", "letter"), **row):
    from snakemake.utils import validate

    from tripletbench.harness.config import schema_file

    cfg = copy.deepcopy(MINIMAL)
    cfg["sdca_table2"].update(datasets=list(datasets), n_triplets=n_triplets)
    cfg["sdca_table2"]["methods"]["SCML"] = {"algorithm": "metric_learn.SCML", **row}
    validate(cfg, schema_file())  # the defaults, as the workflow has them
    return cfg


def test_an_external_learner_that_refuses_its_real_size_is_refused_before_any_job():
    """metric-learn's SCML passes the small trial fit but refuses fewer triplets than
    features: a config whose smallest real cell has 10 triplets of 18-d vehicle is refused when
    the workflow starts, naming the cell; 2,000 triplets pass."""
    msg = _error(lambda c: c.update(_with_scml(10)), check_config)
    assert msg.startswith("config sdca_table2.methods.SCML: metric_learn.SCML fails at the size")
    assert "sdca_table2 on vehicle: 10 triplets" in msg and "18 features" in msg, msg
    assert "Number of features (18) is greater than the number of triplets" in msg, msg
    check_config(_with_scml(2000))


def test_the_smallest_real_cell_is_the_fewest_triplets_per_feature_within_the_rows_bound():
    from tripletbench.harness.config import TRIAL_MAX_TRIPLETS, smallest_cell

    cfg = _with_scml(1000)
    row = cfg["sdca_table2"]["methods"]["SCML"]
    row["max_triplets"] = 300  # a bounded row (images, sdca_table4 rows accept the key)
    pairs = [("sdca_table2", "vehicle"), ("sdca_table2", "letter")]
    # vehicle: 846 x 18, 4 classes; letter: 20,000 x 16: 300 / 18 < 300 / 16
    assert smallest_cell(cfg, "sdca_table2", row, pairs) == (
        "sdca_table2 on vehicle",
        300,
        592,
        18,
        4,
    )
    row["grid"] = {"beta": [1e-5, 1e-4]}  # a grid: fitted on the fit part (0.7 x 0.8 of 846)
    assert smallest_cell(cfg, "sdca_table2", row, pairs)[2] == int(846 * 0.7 * 0.8)
    cfg["sdca_table2"]["n_triplets"] = TRIAL_MAX_TRIPLETS + 1
    del row["grid"], row["max_triplets"]
    assert smallest_cell(cfg, "sdca_table2", row, pairs) is None  # too large to try at start
    assert smallest_cell(cfg, "human", row, []) is None  # not a block of the generic runner
