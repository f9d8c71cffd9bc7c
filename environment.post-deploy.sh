#!/usr/bin/env bash
# Run by Snakemake inside the conda environment of environment.yml right after creating it
# (--use-conda): cblearn and sparse without their declared dependencies (cblearn 0.4.0 pins
# numpy~=1.26, excluding our numpy; its own tests pass on our pins: requirements-nodeps.txt).
set -euo pipefail
python -m pip install --no-deps -r "$(dirname "$0")/requirements-nodeps.txt"
