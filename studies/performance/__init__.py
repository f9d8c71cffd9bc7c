"""Measurements of our own, in no paper: the speed and memory of the online engine (OASIS, SDCA,
OAHU's step; the ``performance`` block) and Table 4's code path at the paper's sizes on synthetic
features (the ``table4_scaling`` block, with the SDCA study's ``sdca_table4`` rows).

Modules: ``config`` (checks), ``paper`` (Table 4's stated sizes), ``measure`` (the performance
table), ``reference`` (the peers it is measured against), ``blocks`` (the block-size sweep),
``table4_scaling``; the one-thread timing helpers are the core's (``tripletbench.harness.timing``). Rules: ``workflow/rules/performance.smk``.
"""

from pathlib import Path

from tripletbench.harness.study import Study, lazy

CATEGORY = "Not in a paper"


STUDY = Study(
    name="performance",
    schema=str(Path(__file__).with_name("schema.yaml")),
    category=CATEGORY,
    blocks=("performance", "table4_scaling"),
    items={
        "performance": ("speed and memory of OASIS and SDCA; OAHU's online step", "table"),
        "table4_scaling": ("Table 4's code path at the configured sizes", "table"),
    },
    reads=("sdca_table4",),  # table4_scaling runs the rows of the SDCA study's Table 4
    check=lazy(f"{__name__}.config", "check"),
)
