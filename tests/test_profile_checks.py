"""Rule: every input of a run is checked as a config file is. A Snakemake profile with
``configfile:`` twice dropped one config file without a word, ``config:`` twice kept the last,
a key given twice in a profile's ``config:`` list or in the typed ``--config`` kept the last
silently, and a second ``--config`` (or any ``--config`` after a profile's ``config:``) dropped the
first list's items; now each is refused before any job, naming the profile (or the command line) and the
key. The profiles are found as Snakemake finds them (``--profile``, ``$SNAKEMAKE_PROFILE``,
``--workflow-profile``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tripletbench.harness.config import ConfigError
from tripletbench.harness.config_files import check_profiles, profile_files

ROOT = Path(__file__).resolve().parents[1]

PROFILES = {
    "configfile twice": (
        "configfile: config/ci.yaml\nconfigfile: config/ci.yaml\n",
        r"Snakemake profile .*config.yaml, line 2: key 'configfile' is given twice",
    ),
    "config twice": (
        "config:\n  - a=1\nconfig:\n  - b=2\n",
        r"line 3: key 'config' is given twice",
    ),
    "a key twice in config:": (
        "config:\n  - seeds=[0]\n  - seeds=[1]\n",
        r"profile .*config: seeds is given twice",
    ),
}


def _profile(tmp_path, text):
    folder = tmp_path / "profile"
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text(text)
    return folder


@pytest.mark.parametrize("case", list(PROFILES))
@pytest.mark.parametrize("option", ["--profile", "--workflow-profile", "SNAKEMAKE_PROFILE"])
def test_a_profile_with_a_key_twice_is_refused_naming_it(tmp_path, case, option):
    text, message = PROFILES[case]
    folder = _profile(tmp_path, text)
    if option == "SNAKEMAKE_PROFILE":
        argv, env = ["snakemake", "-n"], {"SNAKEMAKE_PROFILE": str(folder)}
    else:
        argv, env = ["snakemake", option, str(folder), "-n"], {}
    assert profile_files(argv, env, tmp_path) == [folder / "config.yaml"]
    with pytest.raises(ConfigError, match=message):
        check_profiles(argv, env, tmp_path)


def test_a_sound_profile_and_the_shipped_ones_pass(tmp_path):
    folder = _profile(tmp_path, "cores: 2\nconfig:\n  - a=1\n  - b=2\nconfigfile: c.yaml\n")
    check_profiles(["snakemake", "--profile", str(folder)], {}, tmp_path)
    for shipped in sorted((ROOT / "workflow/profiles").iterdir()):
        check_profiles(["snakemake", "--workflow-profile", str(shipped)], {}, ROOT)


def test_a_key_twice_on_the_typed_command_line_is_refused():
    with pytest.raises(ConfigError, match=r"--config on the command line: results_dir is given"):
        check_profiles(["snakemake", "--config", "results_dir=a", "results_dir=b"], {}, ROOT)
    check_profiles(["snakemake", "--config", "a=1", "b=2"], {}, ROOT)
    check_profiles(["snakemake", "--config", "a=1", "a=1"], {}, ROOT)  # the same item loses nothing


def test_an_item_a_later_config_list_drops_is_refused(tmp_path):
    """Snakemake keeps the last ``--config`` only (argparse's store), and a typed ``--config``
    replaces a profile's ``config:`` list: an item of an earlier list that the last one drops or
    changes would vanish without a word; a later list that repeats it passes."""
    with pytest.raises(ConfigError, match=r"'seeds=\[0\]' would be dropped.*it has 'seeds=\[1\]'"):
        check_profiles(["snakemake", "-C", "seeds=[0]", "--config=seeds=[1]"], {}, ROOT)
    with pytest.raises(ConfigError, match=r"'a=1' would be dropped.*lacks the key"):
        check_profiles(["snakemake", "--config", "a=1", "--config", "b=2"], {}, ROOT)
    check_profiles(["snakemake", "--config", "a=1", "-n", "--config", "a=1", "b=2"], {}, ROOT)
    folder = _profile(tmp_path, "config:\n  - a=1\n")
    with pytest.raises(ConfigError, match=r"Snakemake profile .*config: 'a=1' would be dropped"):
        check_profiles(["snakemake", "--profile", str(folder), "--config", "b=2"], {}, ROOT)
    check_profiles(["snakemake", "--profile", str(folder), "--config", "a=1", "b=2"], {}, ROOT)
    check_profiles(["snakemake", "--profile", str(folder)], {}, ROOT)
    mapping = _profile(tmp_path / "m", "config:\n  a: 1\n")  # a mapping: its items, the same
    with pytest.raises(ConfigError, match=r"'a=1' would be dropped"):
        check_profiles(["snakemake", "--profile", str(mapping), "--config", "b=2"], {}, ROOT)


@pytest.mark.slow
def test_the_workflow_refuses_a_profile_with_configfile_twice_before_any_job(tmp_path):
    """Through Snakemake itself: the run stops at parse time with the profile named."""
    dirs = tmp_path / "dirs.yaml"
    dirs.write_text(f"results_dir: {tmp_path}/r\nfigures_dir: {tmp_path}/f\n")
    folder = _profile(tmp_path, f"configfile:\n  - config/ci.yaml\nconfigfile: {dirs}\n")
    cmd = [sys.executable, "-m", "snakemake", "table_sdca_2", "-n", "--nolock",
           "--workflow-profile", str(folder)]  # fmt: skip
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    out = res.stdout + res.stderr
    assert res.returncode != 0 and "key 'configfile' is given twice" in out, out[-3000:]
