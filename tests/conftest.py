from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _checkout_of_tripletbench() -> Path | None:
    """The checkout whose code ``import tripletbench`` loads (None: not installed)."""
    try:
        import tripletbench.algorithms as algorithms
    except ModuleNotFoundError:
        return None
    return Path(algorithms.__file__).resolve().parents[1]


# The tests run the code of this checkout, installed editable (setup.sh: pip install -e .): the
# packages are imported as tripletbench.algorithms, ... from any folder, never from sys.path tricks.
_found = _checkout_of_tripletbench()
if _found is None:
    pytest.exit(
        "tripletbench is not installed in this environment: run `bash setup.sh` (it installs this "
        "checkout editable: pip install -e . --no-deps)",
        returncode=4,
    )
if _found != ROOT:
    pytest.exit(
        f"this environment's tripletbench is the checkout {_found}, not {ROOT}: install this one "
        f"(`pip install -e {ROOT} --no-deps`, e.g. in a virtual environment of its own)",
        returncode=4,
    )

# the studies register with the core (tripletbench.harness.study), as the workflow does first thing
import tripletbench.studies  # noqa: E402,F401


@pytest.fixture(scope="session")
def ci_run(tmp_path_factory):
    """One real run of the CI config shared by the pipeline tests (tests/pipeline.py CI_TARGETS:
    the regression check with every table it guards, the figures, the performance table), plus
    one OAHU Table 3 cell pair and one SVM cell for the "results follow their inputs" dry runs."""
    import os

    from tests.pipeline import CI_TARGETS, OAHU_SVM_CELLS, run_targets

    if os.environ.get("TRIPLETBENCH_CI_RUN"):  # a finished run of CI_TARGETS by this checkout
        return Path(os.environ["TRIPLETBENCH_CI_RUN"])  # (developing a pipeline test)
    tmp_path = tmp_path_factory.mktemp("ci")
    run_targets(
        [*CI_TARGETS, *(str(tmp_path / p) for p in OAHU_SVM_CELLS)], tmp_path, timeout=1800
    )
    return tmp_path


WORKFLOW_FIXTURES = ("ci_run", "ci_all")
"""Fixtures that run the workflow (minutes): ``ci_run`` (config/ci.yaml, this file) and
``ci_all`` (its ``reproduce_all``, tests/test_report.py)."""


def pytest_collection_modifyitems(config, items):
    """A test that uses a run of the workflow (:data:`WORKFLOW_FIXTURES`) is slow, wherever it
    is: not in the fast subset, ``-m "not slow"``."""
    for item in items:
        if set(WORKFLOW_FIXTURES) & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
