"""The words a caption uses to set our settings beside those a paper states: the machinery; the
settings each paper states live in its study's ``paper`` module (``tripletbench.studies.<name>.
paper.PAPER``, a :class:`PaperSettings`).

A caption that states one of our settings which the paper states too (a split fraction, a number
of triplets, of runs, a grid, k, a size, C, ...) names it with :meth:`PaperSettings.vs_paper` (or
:meth:`PaperSettings.note`): "2,000 class-based random triplets per seed (the paper: 10K per
standard data set)" where ours differs, "... (as the paper)" where it is the paper's, "... (the
paper states none)" where the paper is silent. A config value is never labelled as the paper's:
the paper's value comes from its :class:`PaperSettings` only. Where a caption compares our
numbers with the paper's, :meth:`PaperSettings.comparison_note` says which of the settings behind
them differ.

No project imports here: the table and figure scripts import this module, and its code hash
(:mod:`tripletbench.harness.settings`) should cover this file alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Stated:
    """One setting as a paper states it. ``value``: compared with ours (None: the paper states
    none); ``text``: the paper's value as a caption names it (for None, optional words on what
    the paper gives instead); ``source``: the paper and the section that says it; ``paper``: who
    states it, as a caption names it; ``scope``: where the paper says it, when that is not the
    artifact itself ("for Figure 2"), named in either case."""

    value: object
    text: str = ""
    source: str = ""
    paper: str = "the paper"
    scope: str = ""


def show(value) -> str:
    """Our value as a caption prints it: integers with thousands separators, floats short."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.0f}" if value.is_integer() and abs(value) >= 1000 else f"{value:g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show(v) for v in value) + "]"
    return str(value)


def same(ours, paper) -> bool:
    """Whether our value is the paper's: numbers to rounding, sequences element by element (a
    list in any order: a grid), anything else by equality."""
    if isinstance(ours, (list, tuple)) and isinstance(paper, (list, tuple)):
        if len(ours) != len(paper):
            return False
        a, b = (sorted(ours), sorted(paper)) if isinstance(paper, list) else (ours, paper)
        return all(same(x, y) for x, y in zip(a, b))
    number = (int, float)
    if isinstance(ours, number) and isinstance(paper, number):
        return math.isclose(float(ours), float(paper), rel_tol=1e-9, abs_tol=1e-12)
    return ours == paper


def paper_method(name: str, mcfg) -> str | None:
    """The paper's method a config row implements, as :func:`tripletbench.harness.tables.paper_values_for_rows`
    reads it (ITML-online -> ITML, SDCA-random -> SDCA); None for a row not in the paper."""
    protocol = ((mcfg or {}).get("notes") or {}).get("protocol")
    if protocol == "not-in-paper":
        return None
    return name if protocol is None else name.split("-")[0]


class PaperSettings:
    """The settings one paper states, per artifact we reproduce: artifact (the rule's table or
    figure name) -> setting -> :class:`Stated`. Keys name our settings (config keys where there
    is one; ``n_runs`` = number of seeds, ``grid.<method>`` = the method's validation grid, a
    learner's hyperparameters by their learner names). Each study's ``paper`` module holds one,
    ``PAPER``, and exports its bound methods."""

    def __init__(self, settings: dict[str, dict[str, Stated]]):
        self.settings = settings

    def stated(self, artifact: str, key: str) -> Stated:
        """What the paper states for ``key`` of ``artifact``; KeyError for an unknown one."""
        return self.settings[artifact][key]

    def note(self, artifact: str, key: str, ours) -> str:
        """The words after our value: "(as the paper)" where ``ours`` is the paper's value, "(the
        paper: X)" where it differs, "(the paper states none)" where the paper is silent."""
        s = self.stated(artifact, key)
        if s.value is None:
            return f"({s.paper} states none" + (f": {s.text})" if s.text else ")")
        scope = f", {s.scope}" if s.scope else ""
        if same(ours, s.value):
            return f"(as {s.paper}{scope})"
        return f"({s.paper}: {s.text}{scope})"

    def vs_paper(self, artifact: str, key: str, ours, shown: str | None = None) -> str:
        """``shown`` (default: ``ours`` as :func:`show` prints it) followed by :meth:`note`."""
        return f"{show(ours) if shown is None else shown} {self.note(artifact, key, ours)}"

    def differs(self, artifact: str, key: str, ours) -> bool:
        """Whether the paper states ``key`` and ours is not its value."""
        s = self.stated(artifact, key)
        return s.value is not None and not same(ours, s.value)

    def comparison_note(self, artifact: str, settings, against: str = "the paper's numbers") -> str:
        """The sentence that goes beside a comparison of our numbers with the paper's: "" where
        every setting of ``settings`` (triples (key, ours, caption words)) is the paper's or one
        the paper does not state, else which of ours differ, each with the paper's value beside
        it."""
        diffs = [
            self.vs_paper(artifact, k, v, shown)
            for k, v, shown in settings
            if self.differs(artifact, k, v)
        ]
        if not diffs:
            return ""
        return (
            f"Ours - paper compares a run under other settings than the paper's with {against}: "
            + "; ".join(diffs)
            + "."
        )

    def grid_key(self, artifact: str, name: str, mcfg) -> str | None:
        """The key of the paper's grid for row ``name`` (``grid.<method>``), None where the paper
        states no grid for its method."""
        key = f"grid.{paper_method(name, mcfg)}"
        return key if key in self.settings[artifact] else None

    def runs(self, artifact: str, seeds) -> str:
        """Our seeds, the paper's number of runs beside them: seeds [0, 1] (the paper: 5 runs)."""
        return self.vs_paper(artifact, "n_runs", len(seeds), f"seeds {list(seeds)}")


def __getattr__(name: str):
    """A name that moved into a study's package: found there, with a DeprecationWarning."""
    from tripletbench._moved import moved_name

    return moved_name(__name__, name)
