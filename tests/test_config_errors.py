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
