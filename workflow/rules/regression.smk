# The CI regression check (config/ci_expected.csv, harness/regression.py): result numbers of
# the tables the config builds against stored values with tolerances.


localrules:
    regression_check,


REGRESSION_EXPECTED = ROOT / "config/ci_expected.csv"
# stored tables this run cannot build, with the reason (each study's regression_skip)
REGRESSION_SKIP = {
    k: v for s in STUDIES.values() for k, v in s.regression_skip(config, BLOCKS_ON).items()
}


# inputs: exactly the result tables that the stored values name (a change reruns only what the
# checked numbers depend on)
rule regression_check:
    """The CI regression check: the numbers of every table and figure the CI config builds.

    Compares them with `config/ci_expected.csv` (use with `config/ci.yaml`): every stored number
    beside the new one and its tolerance, a moved one refused with the command that accepts a
    deliberate change (docs/config.md, "The config files in detail").
    """
    input:
        tables=[
            f"{RESULTS}/{t}"
            for t in stored_tables(REGRESSION_EXPECTED)
            if t not in REGRESSION_SKIP
        ],
        expected=REGRESSION_EXPECTED,
    output:
        f"{RESULTS}/regression_report.txt",
    log:
        f"{LOGS}/regression_check.log",
    conda:
        "../../environment.yml"
    params:
        skip=REGRESSION_SKIP,
        code=script_code("workflow/scripts/regression_check.py"),
    script:
        "../scripts/regression_check.py"
