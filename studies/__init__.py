"""One package per study: a paper's experiments (its protocol, captions, table rows, the settings
the paper states and its config checks), or a measurement of our own.

Every sub-package that declares ``STUDY`` (a :class:`tripletbench.harness.study.Study`) is found
here and registered with the core, which reads the declarations and never imports a study. A
study's rule file is ``workflow/rules/<name>.smk`` and its scripts are in
``workflow/scripts/<name>/``. Adding a study adds its package and its rule file and touches
nothing in the core (docs/extending.md, "Adding a study").

Registration order: :data:`ORDER` first (the report lists their items in this order), then any
other study by name.
"""

from __future__ import annotations

import importlib
import pkgutil

from tripletbench.harness.study import Study, register  # checks the pipeline extra

ORDER = ("sdca", "oasis", "svm", "oahu", "human", "performance")
"""The studies of the papers in the order the report shows them; others follow by name."""

STUDIES: dict[str, Study] = {}
"""Every study found: name -> its declaration."""


def _discover() -> None:
    found = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg)
    for name in sorted(found, key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n)):
        module = importlib.import_module(f"{__name__}.{name}")
        study = getattr(module, "STUDY", None)
        if study is None:
            continue
        if study.name != name:
            raise ValueError(f"{module.__name__}.STUDY is named {study.name!r}, not {name!r}")
        STUDIES[name] = register(study)


_discover()
