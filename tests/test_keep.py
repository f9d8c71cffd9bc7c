"""harness/keep.py without Snakemake: outputs kept when a run starts, put back when missing."""

import os
from types import SimpleNamespace

from tripletbench.harness.keep import (
    drop_previous,
    is_outdated,
    keep_previous,
    lacks_seeds,
    put_back,
    recorded_settings,
)


def _job(outputs, inputs=("in.csv",)):
    return SimpleNamespace(output=[str(o) for o in outputs], input=list(inputs))


def test_a_killed_rerun_gets_its_previous_output_back_at_the_next_start(tmp_path):
    old = tmp_path / "cells/OASIS.csv"
    old.parent.mkdir()
    old.write_text("a,settings_hash\n1,sold\n")
    kept = keep_previous(tmp_path, [_job([old, tmp_path / "cells/absent.npz"])])
    assert kept == [str(old)]
    old.unlink()  # Snakemake removes it when the job starts; the job is killed (kill -9)
    # the next run's start (onstart) puts it back, dated 1970 so that its job reruns
    keep_previous(tmp_path, [])
    assert old.read_text() == "a,settings_hash\n1,sold\n" and old.stat().st_mtime == 0
    assert not (tmp_path / ".previous").exists()


def test_a_new_output_is_kept_and_the_copies_dropped_on_success(tmp_path):
    out = tmp_path / "t.csv"
    out.write_text("old\n")
    keep_previous(tmp_path, [_job([out])])
    out.unlink()
    tmp = tmp_path / ".t.csv.new"  # an atomic write: a new file replaces the name
    tmp.write_text("new\n")
    os.replace(tmp, out)
    assert put_back(tmp_path) == [] and out.read_text() == "new\n"
    keep_previous(tmp_path, [_job([out])])
    drop_previous(tmp_path)
    assert out.read_text() == "new\n" and not (tmp_path / ".previous").exists()


def test_an_output_of_a_job_without_inputs_is_kept_aside_not_put_back(tmp_path, capsys):
    perf = tmp_path / "tables/performance.csv"
    perf.parent.mkdir()
    perf.write_text("old\n")
    keep_previous(tmp_path, [_job([perf], inputs=())])
    perf.unlink()
    assert put_back(tmp_path) == [] and not perf.exists()
    assert str(perf) in capsys.readouterr().err  # the message names it and where it is kept
    kept = list((tmp_path / ".previous").rglob("performance.csv"))
    assert len(kept) == 1 and kept[0].read_text() == "old\n"
    keep_previous(tmp_path, [])  # a later run keeps it (and its manifest entry)
    assert list((tmp_path / ".previous").rglob("performance.csv"))


def test_recorded_settings_of_a_cell_csv(tmp_path):
    f = tmp_path / "c.csv"
    f.write_text("x,settings_hash\n1,sabc\n2,sabc\n")
    assert recorded_settings(f) == {"sabc"}
    assert not is_outdated(f, "sabc") and is_outdated(f, "sdef")
    f.write_text("")
    assert recorded_settings(f) is None and not is_outdated(f, "sdef")  # refused by name later
    assert recorded_settings(tmp_path / "missing.csv") is None


def test_a_fit_csv_lacking_or_holding_other_seeds_than_the_config_is_outdated(tmp_path):
    f = tmp_path / "LEGO.csv"
    f.write_text("seed,settings_hash\n0,sabc\n1,sabc\n1,sabc\n")
    assert not lacks_seeds(f, [0, 1]) and not lacks_seeds(f, [1, 0])
    assert lacks_seeds(f, [0, 1, 2])  # a seed added
    assert lacks_seeds(f, [0])  # a seed removed
    assert not lacks_seeds(tmp_path / "missing.csv", [0])  # no file: Snakemake runs the job


def test_a_local_runs_scheduler_has_no_rate_limiter_timers():
    """Snakemake's job rate limiter starts a timer thread per scheduler pass; a local run
    drops it (tripletbench.harness.keep.without_rate_limiter_timers), a cluster run keeps it. The private
    attribute the hook sets must still exist in the pinned Snakemake."""
    import inspect
    from types import SimpleNamespace

    from snakemake.scheduling import job_scheduler

    from tripletbench.harness.keep import without_rate_limiter_timers

    src = inspect.getsource(job_scheduler.JobScheduler)
    assert "self.job_rate_limiter = (" in src and "if self.job_rate_limiter is not None" in src
    local = SimpleNamespace(local_exec=True, scheduler=SimpleNamespace(job_rate_limiter=object()))
    assert without_rate_limiter_timers(local) and local.scheduler.job_rate_limiter is None
    limiter = object()
    cluster = SimpleNamespace(local_exec=False, scheduler=SimpleNamespace(job_rate_limiter=limiter))
    assert (
        not without_rate_limiter_timers(cluster) and cluster.scheduler.job_rate_limiter is limiter
    )


def test_a_data_files_recorded_settings_force_its_job_and_guard_its_readers(tmp_path):
    """A data job's .npz records its settings (harness.io.settings_record); keep reads it back
    as it reads a cell CSV's column (an older file without one: None, left as it is), and a
    cell's reader refuses a file made under other settings, naming it and the remedy."""
    import numpy as np
    import pytest

    from tripletbench.harness.io import check_input_settings, save_npz, settings_record
    from tripletbench.harness.settings import settings_hash

    made = {"experiment": {"n_triplets": 2000}}
    new = tmp_path / "triplets_train.npz"
    save_npz(new, triplets=np.zeros((2, 3), int), **settings_record(made))
    old = tmp_path / "split.npz"
    save_npz(old, train=np.arange(3))
    assert recorded_settings(new) == {settings_hash(made)}
    assert recorded_settings(old) is None and recorded_settings(tmp_path / "none.npz") is None
    assert is_outdated(new, settings_hash({"experiment": {"n_triplets": 3000}}))
    assert not is_outdated(new, settings_hash(made)) and not is_outdated(old, "s0")
    h = settings_hash(made)
    assert check_input_settings({"triplets_train": new}, {"triplets_train": h}) == h
    pattern = rf"(?s)triplets_train.npz: made under settings {h}, the config implies s1.*--forcerun"
    with pytest.raises(ValueError, match=pattern):
        check_input_settings({"triplets_train": new}, {"triplets_train": "s1"})
    with pytest.raises(ValueError, match=r"split.npz: made under settings - \(before files"):
        check_input_settings({"split": old}, {"split": h})
    for bad in (new.read_bytes()[:40], b"garbage"):  # truncated, not an .npz at all
        new.write_bytes(bad)
        with pytest.raises(ValueError, match=r"triplets_train.npz: not a readable .npz.*--forcerun"):
            check_input_settings({"triplets_train": new}, {"triplets_train": h})


def test_a_missing_output_with_a_kept_copy_is_found_for_forcing(tmp_path):
    from tripletbench.harness.keep import kept_but_missing

    out = tmp_path / "cell.csv"
    out.write_text("a\n1\n")
    other = tmp_path / "other.csv"
    assert not kept_but_missing(out, tmp_path)  # nothing kept
    keep_previous(tmp_path, [_job([out])])
    assert not kept_but_missing(out, tmp_path)  # present
    out.unlink()
    assert kept_but_missing(out, tmp_path) and not kept_but_missing(other, tmp_path)
    assert not kept_but_missing(out, None)
    put_back(tmp_path)
    assert out.exists() and not kept_but_missing(out, tmp_path)
