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
