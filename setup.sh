#!/usr/bin/env bash
# Idempotent set-up: a virtual environment in .venv with the pinned packages, and Debian's package
# lists (needed by `apt-get download` for the embedded data route). Safe to run every time.
set -euo pipefail
cd "$(dirname "$0")"
PYTHON=${PYTHON:-python3}

# One set-up at a time: a second run (another terminal, a CI retry) waits for the first, so that
# two pip processes never write .venv together.
mkdir -p .venv
exec 9>.venv/.setup.lock
if command -v flock >/dev/null; then flock 9; fi

if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi

# Every pinned package installed at its pinned version, and the modules the pipeline imports
# importable. Checked on every run, whatever the stamp says: an interrupted or concurrent install
# (or a package removed by hand) leaves the stamp of an earlier, complete install behind.
# requirements-nodeps.txt (cblearn, sparse) is checked the same way: installed without their
# declared dependencies (cblearn pins numpy~=1.26; its own tests pass on our numpy, that file).
check_env() {
  .venv/bin/python - <<'PY'
import importlib, importlib.metadata as md, re, sys
bad = []
for name in ("requirements.txt", "requirements-nodeps.txt"):
    for line in open(name):
        m = re.match(r"\s*([A-Za-z0-9_.\-]+)==([^\s#;]+)", line)
        if not m:
            continue
        try:
            got = md.version(m[1])
        except md.PackageNotFoundError:
            got = None
        if (got or "").split("+")[0] != m[2]:  # a local label (torch 2.13.0+cpu) is the same release
            bad.append(f"{m[1]}=={m[2]} (installed: {got or 'none'}; {name})")
for mod in ("numpy", "scipy", "pandas", "sklearn", "pooch", "snakemake", "metric_learn", "cvxpy",
            "matplotlib", "torch", "numba", "rdata", "jsonschema", "yaml", "tqdm", "pytest",
            "scikit_posthocs", "sparse", "cblearn.embedding"):
    try:
        importlib.import_module(mod)
    except Exception as err:
        bad.append(f"import {mod}: {type(err).__name__}: {err}")
if bad:
    print("[setup] the environment is incomplete:\n  " + "\n  ".join(bad), file=sys.stderr)
    sys.exit(1)
PY
}

stamp=.venv/.requirements.sha256
want=$(cat requirements.txt requirements-nodeps.txt | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || ! check_env 2>/dev/null; then
  echo "[setup] installing pinned packages (requirements.txt, requirements-nodeps.txt)"
  rm -f "$stamp"
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -r requirements.txt
  # without their declared dependencies: cblearn 0.4.0 pins numpy~=1.26, which would make pip
  # refuse the set or downgrade numpy; its own tests pass on our pins (requirements-nodeps.txt)
  .venv/bin/python -m pip install --quiet --no-deps -r requirements-nodeps.txt
  if ! check_env; then
    echo "[setup] failed: the packages above are missing or at other versions after pip install" >&2
    exit 1
  fi
  echo "$want" > "$stamp"
fi

# This checkout installed editable (setuptools' editable finder): the library and the pipeline are
# one code, imported as tripletbench.algorithms, tripletbench.datasets, ... from any folder; no
# top-level `datasets` or `algorithms` is installed (Hugging Face's `datasets` stays importable).
# The .pth of earlier set-ups (the checkout on sys.path) is removed.
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
rm -f "$site/tripletbench-checkout.pth"
here=$(pwd -P)
installed_here() {
  (cd / && "$here/.venv/bin/python" -c '
import sys
from pathlib import Path
import tripletbench.algorithms, tripletbench.harness
sys.exit(Path(tripletbench.algorithms.__file__).resolve().parents[1] != Path(sys.argv[1]))
' "$here") 2>/dev/null
}
if ! installed_here || [ pyproject.toml -nt .venv/.tripletbench-installed ]; then
  echo "[setup] installing this checkout editable (pip install -e . --no-deps)"
  .venv/bin/python -m pip install --quiet --no-deps -e .
  touch .venv/.tripletbench-installed
fi
if ! installed_here; then
  echo "[setup] failed: 'import tripletbench.algorithms' from outside the checkout does not load $here" >&2
  exit 1
fi

# The embedded data route runs `apt-get download`, which needs package lists (refreshed daily).
if command -v apt-get >/dev/null; then
  fresh=$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -n 1)
  if [ -z "$fresh" ]; then
    if [ "$(id -u)" = 0 ]; then
      echo "[setup] apt-get update (package lists for the embedded data route)"
      apt-get update -qq
    else
      echo "[setup] warning: no apt package lists; run 'sudo apt-get update' once for the embedded data route" >&2
    fi
  fi
fi
# pdflatex with booktabs, for the test that compiles every LaTeX table the pipeline writes
# (Debian: texlive-latex-base, texlive-latex-recommended). Without root it cannot be installed:
# the reason is left in .venv/.latex-unavailable and that test skips saying so.
rm -f .venv/.latex-unavailable
if ! command -v pdflatex >/dev/null || ! kpsewhich booktabs.sty >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "[setup] apt-get install texlive-latex-base texlive-latex-recommended (LaTeX table test)"
    # (the package lists are fresh: the block above updates them when they are a day old)
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      texlive-latex-base texlive-latex-recommended >/dev/null
  else
    echo "pdflatex with booktabs is missing and setup.sh is not root: install texlive-latex-base and texlive-latex-recommended" > .venv/.latex-unavailable
    echo "[setup] warning: $(cat .venv/.latex-unavailable)" >&2
  fi
fi
echo "[setup] ready: .venv/bin/snakemake, .venv/bin/python"
