"""The Schultz & Joachims study's config checks (``svm:`` block), beyond what the schema says."""

from __future__ import annotations

from tripletbench.datasets import get_dataset
from tripletbench.datasets.base import DataError
from tripletbench.harness.config import ConfigError, setting

TOKEN_PROBES = ("", " ", "a", "a b", "The quick brown fox jumps over the lazy dog, 1999.")
"""Texts a token pattern is tried on (:func:`_check_token_pattern`); the last one must yield a
token."""


def _check_token_pattern(pattern) -> None:
    """``svm.token_pattern`` must compile as a Python regular expression with at most one
    capturing group (scikit-learn's CountVectorizer rule: the group is the token), must never
    yield an empty token (``""``, ``\\w*``: every document would become the same empty word,
    and the kernel row fails later with "median squared distance ... is 0") and must find a
    token in a plain English sentence."""
    import re

    if pattern is None:
        return
    try:
        groups = re.compile(pattern).groups
    except re.error as err:
        raise ConfigError(
            f"config svm.token_pattern: {pattern!r} is not a regular expression ({err})"
        ) from None
    if groups > 1:
        raise ConfigError(
            f"config svm.token_pattern: {pattern!r} has {groups} capturing groups; at most one "
            "(the token) is allowed"
        )
    regex = re.compile(pattern)
    for text in TOKEN_PROBES:
        tokens = regex.findall(text)  # scikit-learn's tokenizer: findall, the group if any
        if any(t == "" for t in tokens):
            raise ConfigError(
                f"config svm.token_pattern: {pattern!r} matches the empty string (an empty "
                f"token in {text!r}); every document would hold the same empty word. Give a "
                "pattern whose tokens have at least one character, e.g. (?u)\\b\\w+\\b"
            )
    if not regex.findall(TOKEN_PROBES[-1]):
        raise ConfigError(
            f"config svm.token_pattern: {pattern!r} finds no token in a plain sentence "
            f"({TOKEN_PROBES[-1]!r}); every document would be empty"
        )


def check(config: dict, libraries: bool = True) -> None:
    """The Schultz & Joachims study's checks (Study.check): ``svm.token_pattern`` (a regular
    expression with at most one group, no empty token); ``svm.mds.notion``, ``svm.mds.notion_c``,
    ``svm.figure2.notions``: text notions or datasets; at least one notion or dataset."""
    from .experiment import TEXT_NOTIONS as SVM_TEXT_NOTIONS

    svm = config.get("svm") or {}
    _check_token_pattern(svm.get("token_pattern"))
    mds = svm.get("mds") or {}
    named = [(f"svm.mds.{k}", mds.get(k)) for k in ("notion", "notion_c")]
    named += [
        (f"svm.figure2.notions[{i}]", n)
        for i, n in enumerate((svm.get("figure2") or {}).get("notions") or [])
    ]
    for place, notion in named:
        if notion is None or notion in SVM_TEXT_NOTIONS:
            continue
        try:
            get_dataset(notion)
        except DataError:
            raise ConfigError(
                f"config {place}: {notion!r} is neither a text notion "
                f"{list(SVM_TEXT_NOTIONS)} nor a dataset"
            ) from None
    # svm
    svm = config.get("svm") or {}
    if "text_notions" in svm or "datasets" in svm:
        if not setting(config, "svm.text_notions") and not setting(config, "svm.datasets"):
            raise ConfigError(
                "config svm: text_notions and datasets are both empty; Table 1 would have no "
                "column"
            )
