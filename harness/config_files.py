"""Checks of the config files and the command line before anything reads the config: its size (a
YAML alias expansion), no YTE templating, no key given twice in one mapping, and the one setting
accepted only on the typed command line (unpinned downloads)."""

from __future__ import annotations

from pathlib import Path


class ConfigError(ValueError):
    """A config value that is unknown, of the wrong type or out of range; the message names its
    full dotted path and what is wrong."""


TRUE_WORDS = (True, "true", "True", "yes", "1", 1)


FALSE_WORDS = (False, "false", "False", "no", "0", 0)


def command_line_config(argv) -> dict[str, str]:
    """The ``KEY=VALUE`` items given after ``--config`` / ``-C`` (or as ``--config=KEY=VALUE``)
    on a Snakemake command line ``argv`` (e.g. ``sys.argv``), values as text.

    Snakemake's own record of ``--config`` (``workflow.config_settings.config``) also holds what
    a profile (``--profile``, ``--workflow-profile``, ``SNAKEMAKE_PROFILE``, or the default
    ``workflow/profiles/default``) sets: a file. Only the typed command line is read here."""
    out: dict[str, str] = {}
    argv = list(argv)
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok.startswith("--config="):
            key, _, value = tok[len("--config=") :].partition("=")
            out[key] = value
        elif tok in ("--config", "-C"):
            while i + 1 < len(argv) and not argv[i + 1].startswith("-"):
                i += 1
                key, _, value = argv[i].partition("=")
                out[key] = value
        i += 1
    return out


def unpinned_downloads_opt_in(config: dict, command_line: dict) -> bool:
    """Whether this run may download files that have no pinned hash: only when the snakemake
    command line says so (``--config allow_unpinned_downloads=true``; ``command_line`` is
    :func:`command_line_config` of the typed command line), never from a config file or a
    profile. Raises :class:`ConfigError` for the setting in a config file or a profile, or an
    unreadable value."""
    if (config.get("data") or {}).get("allow_unpinned_downloads"):
        raise ConfigError(
            "config data.allow_unpinned_downloads: true is not accepted from a config file (it "
            "would apply to every run silently); remove it and add --config "
            "allow_unpinned_downloads=true to the command line of the run that may take "
            "unverified downloads"
        )
    if "allow_unpinned_downloads" not in command_line:
        if config.get("allow_unpinned_downloads") not in (None, *FALSE_WORDS):
            raise ConfigError(
                "config allow_unpinned_downloads: set in a config file or a Snakemake profile; "
                "it is accepted only on the typed command line (--config "
                "allow_unpinned_downloads=true), for one run"
            )
        return False
    value = command_line["allow_unpinned_downloads"]
    if value in TRUE_WORDS:
        return True
    if value in FALSE_WORDS:
        return False
    raise ConfigError(f"--config allow_unpinned_downloads={value!r}: expected true or false")


MAX_CONFIG_VALUES = 100_000
"""The most values (mapping entries and list items, counted through every level) a config may
hold; ours hold about a thousand. A YAML alias expansion (a "billion laughs" file of a few
lines) is refused before anything walks it."""


def check_config_size(config, limit: int = MAX_CONFIG_VALUES) -> None:
    """Raise :class:`ConfigError` if ``config`` holds more than ``limit`` values; stops counting
    at the limit, so the check costs O(limit) whatever the expansion's size."""
    todo, seen = [config], 0
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            children = list(node.values())
        elif isinstance(node, (list, tuple)):
            children = list(node)
        else:
            continue
        seen += len(children)
        if seen > limit:
            raise ConfigError(
                f"config: more than {limit:,} values (YAML aliases expanded?); a config of this "
                "workflow holds about a thousand. Refused before it is read"
            )
        todo.extend(children)


YTE_KEY = "__use_yte__"


def check_no_templating(configfiles) -> None:
    """Raise :class:`ConfigError` for a config file that asks Snakemake to render it as a YTE
    template (a top-level ``__use_yte__: true``): a template runs Python. Snakemake renders
    such a file while it loads it, before this workflow runs, so this refusal cannot undo what
    the template did; it stops the run and says so (README: a config file is trusted input)."""
    import yaml

    for f in configfiles or []:
        try:
            raw = yaml.safe_load(Path(f).read_text())
        except (OSError, yaml.YAMLError):
            continue  # Snakemake has already read it; its own error stands
        if isinstance(raw, dict) and raw.get(YTE_KEY):
            raise ConfigError(
                f"config file {f}: {YTE_KEY} asks Snakemake to render it as a YTE template, which "
                "runs Python; this workflow does not accept templated configs. Snakemake has "
                "already rendered it before this check: treat it as code you ran"
            )


def _unique_key_loader():
    """A PyYAML ``SafeLoader`` that raises :class:`ConfigError` on a key given twice in one
    mapping (PyYAML and Snakemake keep the last one without a word). Keys brought in by a merge
    (``<<: *base``) may be overridden, as YAML means them to be."""
    import yaml

    class UniqueKeyLoader(yaml.SafeLoader):
        def construct_mapping(self, node, deep=False):
            if isinstance(node, yaml.MappingNode):
                seen = {}
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue
                    key = self.construct_object(key_node, deep=True)
                    try:
                        first = seen.get(key)
                    except TypeError:  # an unhashable key: PyYAML's own error follows
                        continue
                    if first is not None:
                        raise ConfigError(
                            f"line {key_node.start_mark.line + 1}: key {key!r} is given twice in "
                            f"one mapping (first at line {first.line + 1}); YAML would keep the "
                            "last one silently. Remove or rename one of them"
                        )
                    seen[key] = key_node.start_mark
            return super().construct_mapping(node, deep=deep)

    return UniqueKeyLoader


def check_duplicate_keys(configfiles) -> None:
    """Raise :class:`ConfigError` naming the file, line and key for a key given twice in one
    mapping of a config file (two ``OASIS:`` rows in one ``methods:`` block: YAML, PyYAML and
    Snakemake keep the last silently, so the first row would vanish from the table). A JSON
    config is read the same way (YAML reads JSON). Run before the config is used."""
    import yaml

    loader = _unique_key_loader()
    for f in configfiles or []:
        try:
            text = Path(f).read_text(encoding="utf-8")
        except OSError:
            continue  # Snakemake has already read it; its own error stands
        try:
            yaml.load(text, Loader=loader)  # noqa: S506 (a SafeLoader subclass)
        except ConfigError as err:
            raise ConfigError(f"config file {f}, {err}") from None
        except yaml.YAMLError:
            continue  # Snakemake has read it (JSON, or YAML it accepts); its own error stands


def _option_values(argv, names) -> list[str]:
    """The values given to the options ``names`` (``--opt V`` or ``--opt=V``) on ``argv``."""
    out, argv = [], list(argv)
    for i, tok in enumerate(argv):
        for name in names:
            if tok == name and i + 1 < len(argv):
                out.append(argv[i + 1])
            elif tok.startswith(name + "="):
                out.append(tok[len(name) + 1 :])
    return out


def profile_files(argv, environ, snakefile_dir) -> list[Path]:
    """The profile files a Snakemake command line ``argv`` uses, as Snakemake 9 finds them:
    ``--profile`` (else ``$SNAKEMAKE_PROFILE``) and ``--workflow-profile`` (else the workflow's
    ``profiles/default``, unless ``--workflow-profile none``), each resolved by Snakemake's own
    lookup (a folder's ``config.yaml`` or ``config.v8+.yaml``, a file, or a name under the
    user's and the site's config folders; :mod:`.snakemake_internals`)."""
    from .snakemake_internals import profile_file

    names = _option_values(argv, ("--profile",)) or (
        [environ["SNAKEMAKE_PROFILE"]] if environ.get("SNAKEMAKE_PROFILE") else []
    )
    workflow_profiles = _option_values(argv, ("--workflow-profile",))
    if not workflow_profiles:
        defaults = [Path("profiles/default"), Path(snakefile_dir) / "profiles" / "default"]
        workflow_profiles = [str(d) for d in defaults if d.exists()][:1]
    found = [profile_file(p) for p in names + [p for p in workflow_profiles if p != "none"]]
    return [f for f in found if f is not None]


def check_config_items(items, where: str) -> None:
    """Raise :class:`ConfigError` naming ``where`` for a key given twice with different values
    among ``KEY=VALUE`` items (a typed ``--config``, or a profile's ``config:`` list):
    Snakemake keeps the last one without a word. The same item twice loses nothing and passes."""
    seen: dict[str, str] = {}
    for item in items:
        key, _, value = str(item).partition("=")
        key = key.strip()
        if key in seen and seen[key].partition("=")[2] != value:
            raise ConfigError(
                f"{where}: {key} is given twice ({seen[key]!r} and {str(item)!r}); Snakemake "
                "would keep the last one silently. Give it once"
            )
        seen[key] = str(item)


def typed_config_groups(argv) -> list[list[str]]:
    """The ``KEY=VALUE`` items of each ``--config`` / ``-C`` / ``--config=`` on ``argv``, one
    list per occurrence, in order (Snakemake keeps the last occurrence's list only)."""
    groups = []
    for i, tok in enumerate(argv):
        if tok.startswith("--config="):
            groups.append([tok[len("--config=") :]])
        elif tok in ("--config", "-C"):
            j, items = i + 1, []
            while j < len(argv) and not argv[j].startswith("-"):
                items.append(argv[j])
                j += 1
            groups.append(items)
    return groups


def check_config_groups(groups) -> None:
    """Raise :class:`ConfigError` for ``KEY=VALUE`` items that Snakemake would lose silently.
    ``groups`` is a list of ``(where, items)`` in the order Snakemake reads them: each profile's
    ``config:`` list, then each typed ``--config`` / ``-C`` / ``--config=`` on the command line.
    Snakemake keeps the last group only (a typed ``--config`` replaces a profile's ``config:``
    and an earlier ``--config`` entirely), so refused are a key given twice with different values
    in one group, and an item of an earlier group that the last one drops or changes. A later
    group that repeats the earlier one's items passes."""
    if not groups:
        return
    for where, items in groups:
        check_config_items(items, where)
    last_where, last = groups[-1]
    kept = {str(x).partition("=")[0].strip(): str(x) for x in last}
    for where, items in groups[:-1]:
        for item in items:
            key, _, value = str(item).partition("=")
            replacement = kept.get(key.strip())
            if replacement is None or replacement.partition("=")[2] != value:
                there = f"it has {replacement!r}" if replacement else "it lacks the key"
                raise ConfigError(
                    f"{where}: {str(item)!r} would be dropped, because the {last_where} replaces "
                    f"this list entirely ({there}); "
                    "Snakemake keeps the last config list only, silently. Give every item in one "
                    "--config (or repeat it there)"
                )


def check_profiles(argv, environ, snakefile_dir) -> None:
    """The checks a config file gets, for every profile file the run uses and its ``config:``
    list, and for the typed ``--config`` items: no key given twice (``configfile:`` twice in a
    profile dropped one config file without a word). Raises :class:`ConfigError` naming the file
    and the key."""
    import yaml

    groups = []
    for f in profile_files(argv, environ, snakefile_dir):
        try:
            check_duplicate_keys([f])
        except ConfigError as err:
            raise ConfigError(str(err).replace("config file", "Snakemake profile", 1)) from None
        try:
            raw = yaml.safe_load(Path(f).read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError):
            continue  # Snakemake has read it; its own error stands
        items = raw.get("config") if isinstance(raw, dict) else None
        if isinstance(items, dict):  # Snakemake reads a mapping as its KEY=VALUE items
            items = [f"{k}={v}" for k, v in items.items()]
        if isinstance(items, str):
            items = items.split()
        if items:
            groups.append((f"Snakemake profile {f}, config", list(items)))
    typed = typed_config_groups(argv)
    groups += [("--config on the command line", items) for items in typed]
    check_config_groups(groups)
