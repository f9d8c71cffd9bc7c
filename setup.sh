#!/usr/bin/env bash
# Idempotent set-up: a virtual environment in .venv with the pinned packages, and Debian's package
# lists (needed by `apt-get download` for the embedded data route). Safe to run every time.
set -euo pipefail
cd "$(dirname "$0")"
PYTHON=${PYTHON:-python3}

if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.requirements.sha256
want=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "[setup] installing pinned packages (requirements.txt)"
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -r requirements.txt
  echo "$want" > "$stamp"
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
echo "[setup] ready: .venv/bin/snakemake, .venv/bin/python"
