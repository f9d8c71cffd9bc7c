"""The oahu_sensitivity target through Snakemake on the CI config's tiny sizes: one row
per (setting, seed) with OAHU's and its untrained network's kNN error, the untrained network the
same for every setting of one reference set and seed, and the caption's finding computed from the
rows."""

import re
import shutil

import pandas as pd
import pytest
import yaml

from tests.pipeline import ROOT

pytestmark = pytest.mark.slow  # runs the workflow: not in the fast subset (-m "not slow")

COLUMNS = {
    "dataset", "factor", "setting", "eta", "n_epochs", "momentum", "reference", "tau",
    "n_closure", "n_reference", "n_test", "n_constraints", "seed", "oahu_error", "init_error",
    "oahu_minus_init", "oahu_uniform_alpha_error", "init_trained_alpha_error", "alpha",
    "fit_wall_s", "eval_wall_s", "protocol", "paper_settings", "our_settings",
}  # fmt: skip


@pytest.mark.skipif(shutil.which("apt-get") is None, reason="the embedded route needs Debian's apt")
def test_oahu_sensitivity_on_the_ci_config(ci_run):
    cfg = yaml.safe_load((ROOT / "config/ci.yaml").read_text())["oahu"]
    sens, seeds = cfg["sensitivity"], cfg["table3"]["seeds"]
    tmp_path = ci_run  # the CI run (conftest.py) builds oahu_sensitivity (CI_TARGETS)
    t = pd.read_csv(tmp_path / "tables/oahu_sensitivity.csv")
    assert COLUMNS <= set(t.columns)
    # the paper's setting plus every other configured value of each factor, once per seed
    factors = ("eta", "n_epochs", "momentum", "n_seeds", "reference")
    n_settings = 1 + sum(len(sens[f]) - 1 for f in factors)
    assert len(t) == n_settings * len(seeds)
    assert t.groupby("setting").seed.nunique().eq(len(seeds)).all()
    paper = t[t.setting == "paper"]
    # the CI sizes are bounded (a subsample, a short stream): no row claims the paper's protocol
    assert (t.protocol == "ours").all() and paper.our_settings.str.contains("Table 3's sizes").all()
    assert (paper.eta == 0.3).all() and (paper.n_epochs == 1).all() and (paper.momentum == 0).all()
    assert (paper.reference == "dev").all()
    # the 'paper' row trains on Table 3's stream; a stream row on n + n triplets
    t3 = cfg["table3"]
    assert (paper.n_constraints == t3["n_seeds"] + t3["n_closure"]).all()
    other = [n for n in sens["n_seeds"] if n != t3["n_seeds"]][0]
    st = t[t.factor == "n_seeds"]
    assert (st.n_seeds == other).all() and (st.n_constraints == 2 * other).all()
    for col in ("oahu_error", "init_error"):
        assert t[col].between(0, 1).all()
        # the errors are fractions of the test half
        assert ((t[col] * t.n_test).round(9) % 1 == 0).all()
    assert (t.oahu_minus_init - (t.oahu_error - t.init_error)).abs().max() < 1e-12
    # the decomposition (network vs hedge weights) on the development-half reference only
    dev_rows = t.reference == "dev"
    for col in ("oahu_uniform_alpha_error", "init_trained_alpha_error"):
        assert t.loc[dev_rows, col].between(0, 1).all() and t.loc[~dev_rows, col].isna().all()
    alpha = t.alpha.str.split(";").apply(lambda a: sum(map(float, a)))
    assert ((alpha - 1).abs() < 1e-3).all()  # the trained alpha is a distribution (4 decimals)
    # the untrained network ignores eta, passes and momentum: one value per (reference, seed)
    assert (t.groupby(["reference", "seed"]).init_error.nunique() == 1).all()
    assert (t.groupby(["reference", "seed"]).n_reference.nunique() == 1).all()
    # 'all' holds every sample outside the test half, more than the development half
    n_ref = t.groupby("reference").n_reference.first()
    assert n_ref["all"] > n_ref["dev"] == t.n_test.iloc[0]
    # same training, other reference set: the 'all' row's model is the paper row's (same fit time)
    both = paper.merge(t[t.setting == "reference=all"], on="seed")
    assert (both.fit_wall_s_x == both.fit_wall_s_y).all()
    md = (tmp_path / "tables/oahu_sensitivity.md").read_text()
    m = re.search(r"below its untrained network's in (\d+) of (\d+) \(setting, seed\) runs", md)
    assert m and int(m[1]) == int((t.oahu_minus_init < 0).sum()) and int(m[2]) == len(t)
    gap = t[t.setting == "paper"].oahu_minus_init.mean()
    assert f"at the 'paper' row it is {gap:+.3f}" in md
    assert "ours, not in the paper" in md and "eta 0.3 (section 4.3.2)" in md
