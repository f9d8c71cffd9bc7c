"""A crowd-sourced set is one module: the recipe of docs/extending.md ("Adding a crowd-sourced
set"), run as written. A copy of the checkout gets the recipe's module as
``datasets/toy_crowd.py`` and nothing else; a folder mirror holds 12 images and answers drawn
from the items' places on a circle; a config names ``human.sets: [toy]``. The schema accepts the
new name and its own feature set, the table is built with the set's column, its own feature set
and the captions' words from the declaration, and the rules the core and the study derive from
the declaration (the ceiling, protocol (d), a feature set of another set) hold for it."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from pipeline import ROOT, checkout_env, copy_checkout

RECIPE = ROOT / "docs/extending.md"
N_ITEMS, N_ANSWERS = 12, 400


def recipe_module() -> str:
    """The python block of the recipe's section in docs/extending.md."""
    text = RECIPE.read_text()
    section = text.split("## Adding a crowd-sourced set", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert len(blocks) == 1, "the recipe has one module"
    return blocks[0]


def toy_mirror(root: Path) -> np.ndarray:
    """A folder mirror with ``toy/``: 12 items on a circle, each image a colour of its angle,
    400 answers "i is closer to j than to k" by the places, 10% of them flipped (seed 0).
    Returns the places."""
    from PIL import Image

    rng = np.random.default_rng(0)
    angle = 2 * np.pi * np.arange(N_ITEMS) / N_ITEMS
    places = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    folder = root / "toy"
    (folder / "images").mkdir(parents=True)
    for i, a in enumerate(angle):
        rgb = (np.array([np.cos(a), np.sin(a), -np.cos(a)]) * 100 + 128).astype(np.uint8)
        pixels = np.tile(rgb, (32, 32, 1))
        pixels[: 4 + i, :, :] = 255  # a stripe whose height also tells the item
        Image.fromarray(pixels).save(folder / f"images/{i}.png")
    rows = []
    while len(rows) < N_ANSWERS:
        i, j, k = rng.choice(N_ITEMS, 3, replace=False)
        d = np.linalg.norm(places[[j, k]] - places[i], axis=1)
        if d[0] == d[1]:
            continue
        if (d[0] > d[1]) != (rng.random() < 0.1):  # the truth, flipped one time in ten
            j, k = k, j
        rows.append((i, j, k))
    np.savetxt(folder / "answers.csv", np.array(rows), fmt="%d", delimiter=",")
    np.savetxt(folder / "places.csv", places, delimiter=",")
    return places


def snakemake(repo, args, timeout=900):
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args, "--cores", "2", "--nolock"],
        cwd=repo,
        env=checkout_env(repo),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,  # the caller reads the return code
    )


@pytest.mark.slow  # runs the workflow: not in the fast subset (-m "not slow")
def test_a_crowd_sourced_set_is_one_module(tmp_path):
    repo = copy_checkout(tmp_path / "repo")
    (repo / "datasets/toy_crowd.py").write_text(recipe_module())  # the only edit
    mirror = tmp_path / "mirror"
    toy_mirror(mirror)
    cfg = {
        "results_dir": str(tmp_path / "results"),
        "figures_dir": str(tmp_path / "figures"),
        "data": {"cache_dir": str(tmp_path / "cache")},
        "human": {
            "mirror": str(mirror),
            "sets": ["toy"],
            "features": ["places", "hog"],
            "protocols": ["triplets", "items", "publisher"],
            "n_splits": 2,
            "seeds": [0],
            "embedding_figure": {"set": "toy"},
            "methods": {"OASIS": {"fixed": {"C": 0.1, "n_epochs": 1}}},
        },
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    out = snakemake(repo, ["table_human", "--configfile", str(path)])
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]

    table = pd.read_csv(tmp_path / "results/tables/human_table.csv")
    a = table[table.protocol == "triplets"].set_index(["dataset", "algorithm"])
    assert set(a.index.get_level_values(0)) == {"toy (a)"}
    # the set's own feature set: the places the answers were drawn from (90% kept, and the
    # flips fall on both sides, so the Euclidean distance on the places is right about 0.9)
    places = a.loc[("toy (a)", "Eucl · places")]
    assert places.status == "ok" and 0.8 < places["mean"] < 1.0, places
    assert a.loc[("toy (a)", "Eucl · hog")].status == "ok"
    assert a.loc[("toy (a)", "OASIS · places")].status == "ok"
    assert a.loc[("toy (a)", "chance")]["mean"] == 0.5
    # not counted: no ceiling; no publisher split: protocol (d) has no column although asked
    assert a.loc[("toy (a)", "ceiling")].status == "n/a (answers not counted per question)"
    assert set(table.protocol) == {"triplets", "items"}
    md = (tmp_path / "results/tables/human_table.md").read_text()
    assert "the toy crowd, a test" in md  # the caption's words, from the declaration
    assert "places = 2-D places (Toy crowd only)" in md
    assert "Protocol (d)" not in md and "material" not in md.lower()

    # the schema's lists come from the declarations: a misspelt set or feature set is refused
    # with the closest name, and the embedding figure is planned for the new set
    for key, bad, near in (("sets", ["tyo"], "toy"), ("features", ["place"], "places")):
        wrong = {**cfg, "human": {**cfg["human"], key: bad}}
        path.write_text(yaml.safe_dump(wrong, sort_keys=False))
        res = snakemake(repo, ["-n", "table_human", "--configfile", str(path)], timeout=300)
        assert res.returncode != 0
        assert f"did you mean '{near}'?" in res.stdout + res.stderr, res.stderr[-2000:]
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    res = snakemake(repo, ["-n", "figure_human_embedding", "--configfile", str(path)], 300)
    assert res.returncode == 0 and "figure_human_embedding" in res.stdout, res.stderr[-2000:]


def test_a_declaration_that_disagrees_with_its_rows_is_refused(tmp_path, monkeypatch):
    """``counted`` and ``publisher_split`` decide the table's ceiling and protocol (d) columns
    before any data is read; the rows decide what is computed. A set whose rows disagree with
    its declaration is refused when read, naming the field."""
    import dataclasses

    from tripletbench.datasets import DataError
    from tripletbench.studies.human import sets

    ns: dict = {
        "__name__": "tripletbench.datasets.toy_crowd",
        "__package__": "tripletbench.datasets",
    }
    exec(compile(recipe_module(), "toy_crowd.py", "exec"), ns)
    toy = ns["HUMAN_SET"]
    toy_mirror(tmp_path / "mirror")
    for name, wrong in (
        ("counted", {"counted": True}),
        ("publisher_split", {"publisher_split": "x"}),
    ):
        monkeypatch.setitem(sets.SETS, "toy", dataclasses.replace(toy, **wrong))
        with pytest.raises(DataError, match=f"human set toy: its declaration says {name}"):
            sets.load("toy", tmp_path / "cache", str(tmp_path / "mirror"))
    monkeypatch.setitem(sets.SETS, "toy", toy)
    j = sets.load("toy", tmp_path / "cache", str(tmp_path / "mirror"))
    assert j.triplets.shape == (N_ANSWERS, 3) and sets.feature_sets("toy", ["hog", "places"])
    assert toy.display == "Toy crowd (a test)"
    with pytest.raises(ValueError, match="does not match"):
        dataclasses.replace(toy, name="Toy Crowd")
