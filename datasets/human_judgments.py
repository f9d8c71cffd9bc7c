"""Human similarity judgments: the shared parts of :mod:`tripletbench.datasets.food100`,
:mod:`tripletbench.datasets.cars60` and :mod:`tripletbench.datasets.material_similarity` (no dataset of its own).

These collections are relative comparisons made by people, not derived from class labels: the
motivation Schultz & Joachims (2003) give for learning from relative comparisons. Their items are
images; a learner needs features of the images (not made here), and the answers are noisy.

What is shared:

* :class:`Judgments`: the parsed collection: item ids, triplets as an int64 (n, 3) array of item
  indices ``(anchor, positive, negative) = (i, j, k)`` meaning "i is closer to j than to k",
  answer counts where the data has them, per-row and per-item columns, the images and the
  provenance of every file read.
* :class:`MemberStore`: the members of a publisher's archive, read **in memory** from the zip
  (nothing is extracted; a member is looked up by name, so a hostile member name cannot escape a
  folder) or from a folder of verified extracted members.
* two ways to get the members: the publisher's archive through
  :func:`tripletbench.datasets.base.fetch_download` (pooch, the archive's pin; :func:`fetch_archive`), or a
  data mirror that holds the archive's members extracted under ``<mirror>/<source>/<top>/``
  (:func:`fetch_members`), each member verified by the sha256 the mirror's ``SHA256SUMS`` lists:
  a pin of the whole archive cannot be checked on its extracted members, so the provenance says
  which verification was used. :func:`fetch_either` picks one for a mirror.
* the check of the parsed counts against the publisher's (:func:`compare_with_published`).

Where a publisher's repository addresses its files by commit, a member is checked against the
publisher's own git blob and tree ids (:func:`tripletbench.datasets.fetch.git_blob_id`,
:func:`~tripletbench.datasets.fetch.git_tree_id`), whatever archive carried it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import warnings
import zipfile
from pathlib import Path, PurePosixPath
from typing import Callable

import numpy as np

from tripletbench.files import save_text
from tripletbench.optional import require

from .base import DataError, DatasetSpec, fetch_download
from .fetch import (
    MEMBER_MAX_BYTES,
    MIRROR_SUMS,
    ChecksumError,
    DataUnavailable,
    _local_path,
    bounded_downloader,
    check_member_size,
    download_provenance,
    file_sha256,
    mirror_location,
    mirror_sums,
)

# --- members of an archive ------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class MemberStore:
    """The members of one publisher's archive: ``kind`` "zip" (read from the archive ``path`` in
    memory, under its top folder ``prefix``, e.g. ``"food100-dataset/"``) or "folder" (verified
    extracted members under the folder ``path``). Member names are POSIX paths relative to the
    archive's top folder (``"raw-json/grid2force1_rep1_food.json"``)."""

    kind: str
    path: Path
    prefix: str = ""
    label: str = ""  # how errors name the container (the archive's name, or mirror + folder)
    listing: tuple[str, ...] | None = None  # a folder's members (None: every file under it)

    def names(self) -> list[str]:
        """Every member name (files only), sorted."""
        if self.kind == "zip":
            try:
                with zipfile.ZipFile(self.path) as zf:
                    raw = zf.namelist()
            except (OSError, zipfile.BadZipFile) as err:
                raise DataError(f"{self.path}: not a readable zip archive ({err})") from None
            out = [n[len(self.prefix) :] for n in raw if n.startswith(self.prefix)]
            return sorted(n for n in out if n and not n.endswith("/"))
        if self.listing is not None:
            return sorted(self.listing)
        root = Path(self.path)
        return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())

    def where(self, name: str) -> str:
        """How an error names member ``name``: ``<archive>:<member>`` or its file path."""
        if self.kind == "zip":
            return f"{self.label or Path(self.path).name}:{self.prefix}{name}"
        return str(Path(self.path) / name)

    def read(self, name: str) -> bytes:
        """The bytes of member ``name``. Raises :class:`DataUnavailable` naming it when the
        archive or folder lacks it, :class:`DataError` when it cannot be read (a zip member
        failing its CRC-32, a truncated archive)."""
        parts = PurePosixPath(name).parts
        if not parts or PurePosixPath(name).is_absolute() or ".." in parts:
            raise DataError(f"unsafe member name {name!r}")
        if self.kind == "zip":
            try:
                with zipfile.ZipFile(self.path) as zf:
                    info = zf.getinfo(self.prefix + name)
                    check_member_size(info.file_size, MEMBER_MAX_BYTES, self.where(name))
                    return zf.read(info)  # never more than the size it declares
            except KeyError:
                raise DataUnavailable(f"{self.where(name)}: no such member") from None
            except (OSError, EOFError, zipfile.BadZipFile, ValueError) as err:
                raise DataError(f"{self.where(name)}: cannot be read ({err})") from None
        path = Path(self.path) / name
        if not path.is_file() or (self.listing is not None and name not in self.listing):
            raise DataUnavailable(f"{self.where(name)}: no such member")
        check_member_size(path.stat().st_size, MEMBER_MAX_BYTES, self.where(name))
        return path.read_bytes()


def archive_top(archive: Path, expected: str | None = None) -> str:
    """The top folder (``"name/"``) of a zip archive whose members lie in one folder. With
    ``expected``, that folder must be among the top entries (others, such as a ``__MACOSX/``
    folder, are ignored). Raises :class:`DataError` naming the archive otherwise (not a zip,
    several top folders, no ``expected`` folder)."""
    try:
        with zipfile.ZipFile(archive) as zf:
            names = [n for n in zf.namelist() if n.strip("/")]
    except (OSError, zipfile.BadZipFile) as err:
        raise DataError(f"{archive}: not a readable zip archive ({err})") from None
    tops = sorted({n.split("/", 1)[0] for n in names})
    if expected is not None and expected.strip("/") in tops:
        return expected.strip("/") + "/"
    if len(tops) != 1 or expected is not None:
        raise DataError(
            f"{archive}: expected every member under {expected or 'one top folder'}, found top "
            f"entries {tops[:5]}{' ...' if len(tops) > 5 else ''}"
        )
    return tops[0] + "/"


# --- the two ways to the members -------------------------------------------------------------


def fetch_archive(
    spec: DatasetSpec,
    top: str | None,
    cache_dir: Path,
    mirror: str | None = None,
    allow_unpinned: bool = False,
) -> tuple[MemberStore, tuple[str, ...]]:
    """The publisher's archive (``spec.download[0]``) through :func:`fetch_download` (pooch;
    its pin, from the publisher or from ``<mirror>/<source>/<fname>``), read in memory. Returns
    the store and the provenance line of the archive (sha256, name, URL, how it was verified)."""
    paths = fetch_download(spec, Path(cache_dir), allow_unpinned=allow_unpinned, mirror=mirror)
    prefix = archive_top(paths[0], top)
    store = MemberStore("zip", paths[0], prefix, label=paths[0].name)
    return store, tuple(download_provenance(paths[:1]))


def _mirror_listing(mirror: str, folder: str) -> dict[str, str]:
    """member -> sha256 of every file the mirror's SHA256SUMS lists under ``folder/``."""
    pre = folder.rstrip("/") + "/"
    return {rel[len(pre) :]: h for rel, h in mirror_sums(mirror).items() if rel.startswith(pre)}


MIRROR_MEMBER_PINS = {
    # the sha256 of the listing (listing_digest) of the members the parsers read, as measured on
    # the project's mirror (/work/shared/mirror, its SHA256SUMS) on 2026-11-26: no publisher hash
    # exists for the extracted members (the publishers' pins are of the archives)
    "food/food100-dataset": "5e5e6cad81b7dffc266a95b0485f32d0fe244ef41e3e9fbdbc21154e404ddb4e",
    "cars/60_cars_data": "f82d6d613cc05e447ebf1c973897008d0d8188cec43505447a246416c060f89e",
}
"""Mirror folder of extracted members -> the pinned sha256 of their listing: a mirror's
``SHA256SUMS`` vouches for its members only where its listing hashes to this pin."""


def listing_digest(listed: dict[str, str]) -> str:
    """The sha256 of a member listing (member -> sha256) in ``sha256sum`` format, sorted."""
    text = "".join(f"{h}  {m}\n" for m, h in sorted(listed.items()))
    return hashlib.sha256(text.encode()).hexdigest()


def fetch_members(
    name: str,
    folder: str,
    wanted: Callable[[str], bool],
    required: tuple[str, ...],
    cache_dir: Path,
    mirror: str,
    archive: str,
    allow_unpinned: bool = False,
) -> tuple[MemberStore, tuple[str, ...]]:
    """The members of a publisher's archive that a data mirror holds extracted, under
    ``<mirror>/<folder>/`` (``folder`` e.g. ``"food/food100-dataset"``; ``archive``: the
    archive's name, for messages), copied by pooch into ``<cache_dir>/download/<name>/`` and each
    verified by the sha256 that the mirror's ``SHA256SUMS`` lists for it, where that listing is
    the one this project pins (:data:`MIRROR_MEMBER_PINS`); any other listing only under the
    command-line opt-in ``allow_unpinned``.

    ``wanted(member)`` says which listed members the parser reads; ``required`` names members
    that must be among them. A folder mirror's file that ``SHA256SUMS`` does not list is refused
    (unverifiable) unless ``allow_unpinned`` (then taken as served, its sha256 recorded).

    Returns the store (a folder of verified copies) and the provenance: one line saying where the
    members came from and how they were verified, with the sha256 of the manifest
    ``<cache_dir>/download/<name>/<top>.source`` that lists every member's sha256 and URL.

    Raises :class:`DataUnavailable` naming the member and the mirror: a member listed but absent,
    a required member not listed, a folder mirror's unlisted file, an unreachable http mirror;
    :class:`ChecksumError` naming the member for a sha256 mismatch (pooch removes the bad copy).
    """
    import pooch

    kind, base = mirror_location(mirror)
    folder = folder.strip("/")
    listed, unlisted, pinned = _members_to_fetch(
        name, folder, wanted, required, mirror, (kind, base), archive, allow_unpinned
    )
    target_root = Path(cache_dir) / "download" / name / PurePosixPath(folder).name
    lines = []
    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel("WARNING")  # one summary line below instead of one per member
    members = {**listed, **unlisted}
    try:
        for member, sha in sorted(members.items()):
            lines.append(_fetch_member(name, folder, member, sha, base, mirror, target_root))
    finally:
        logger.setLevel(level)
    manifest = target_root.parent / f"{target_root.name}.source"
    text = "".join(line + "\n" for line in lines)
    save_text(manifest, text)
    digest = hashlib.sha256(text.encode()).hexdigest()
    how = (
        f"each verified by the sha256 the mirror's {MIRROR_SUMS} lists, a listing this project "
        "pins (MIRROR_MEMBER_PINS)"
        if pinned and not unlisted
        else "unpinned: taken under the command-line opt-in (allow_unpinned_downloads), "
        f"{len(listed)} checked against the mirror's {MIRROR_SUMS}, {len(unlisted)} unlisted"
    )
    summary = (
        f"{digest}  {target_root.name}.source  {len(lines)} members of {archive} from data "
        f"mirror {mirror} ({folder}/), {how} (the mirror's copies of the extracted members: the "
        "publisher's pin is of the archive and cannot be checked on them)"
    )
    print(f"[fetch] {summary}")
    store = MemberStore(
        "folder", target_root, label=f"{mirror}/{folder}", listing=tuple(sorted(members))
    )
    return store, (summary,)


def _members_to_fetch(name, folder, wanted, required, mirror, location, archive, allow_unpinned):
    """What :func:`fetch_members` fetches from data mirror ``mirror`` (``location``: its
    :func:`mirror_location`): ``(listed, unlisted, pinned)``, the wanted members its
    ``SHA256SUMS`` lists under ``folder/`` (member -> sha256), a folder mirror's wanted files it
    does not list (member -> None), and whether the listing is the one this project pins. Raises
    :class:`DataUnavailable` as :func:`fetch_members` says."""
    kind, base = location
    listed = {m: h for m, h in _mirror_listing(mirror, folder).items() if wanted(m)}
    unlisted: dict[str, None] = {}
    if kind == "folder":
        root = Path(base) / folder
        on_disk = (
            sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
            if root.is_dir()
            else []
        )
        unlisted = {m: None for m in on_disk if wanted(m) and m not in listed}
        if unlisted and not allow_unpinned:
            shown = ", ".join(f"{folder}/{m}" for m in sorted(unlisted)[:5])
            raise DataUnavailable(
                f"{name}: data mirror {mirror} holds {len(unlisted)} file(s) that its "
                f"{MIRROR_SUMS} does not list ({shown}{' ...' if len(unlisted) > 5 else ''}); "
                "refusing unverified members. List their sha256 in the mirror's "
                f"{MIRROR_SUMS}, or add --config allow_unpinned_downloads=true to the command "
                "line to take them as served"
            )
    missing = [m for m in required if m not in listed and m not in unlisted]
    if missing:
        raise DataUnavailable(
            f"{name}: data mirror {mirror} lacks {', '.join(f'{folder}/{m}' for m in missing)} "
            f"(not listed in its {MIRROR_SUMS}{' nor in the folder' if kind == 'folder' else ''}"
            f"; the members of {archive} are expected under {folder}/)"
        )
    pinned = listing_digest(listed) == MIRROR_MEMBER_PINS.get(folder)
    if not pinned and not allow_unpinned:
        raise DataUnavailable(
            f"{name}: the members under {folder}/ that data mirror {mirror} lists in its "
            f"{MIRROR_SUMS} are not the ones this project pinned (MIRROR_MEMBER_PINS in "
            "datasets/human_judgments.py: the sha256 of the listing measured on the project's "
            "mirror); a mirror's own list cannot vouch for them, and the publisher's pin is of "
            f"{archive}, which cannot be checked on extracted members. Put the publisher's "
            f"{archive} in the mirror instead, or add --config allow_unpinned_downloads=true to "
            "the command line to take the members as the mirror lists them"
        )
    return listed, unlisted, pinned


def _fetch_member(name, folder, member, sha, base, mirror, target_root) -> str:
    """Fetch one mirrored member (pooch; checked against ``sha`` where given) into
    ``target_root``; return its manifest line (sha256, member, URL, how it was verified)."""
    import pooch

    parts = PurePosixPath(member).parts
    if PurePosixPath(member).is_absolute() or ".." in parts:
        raise DataError(f"{name}: unsafe member name {member!r} in mirror {mirror}")
    rel = f"{folder}/{member}"
    url = f"{base}/{rel}"
    local = _local_path(url)
    if local is not None and not local.is_file():
        raise DataUnavailable(
            f"{name}: data mirror {mirror} lacks {rel} (its {MIRROR_SUMS} lists it): no such "
            f"file ({local})"
        )
    target = target_root / member
    if not sha:
        target.unlink(missing_ok=True)  # unlisted (opt-in): never a copy from another mirror
    try:
        got = pooch.retrieve(
            url,
            known_hash=f"sha256:{sha}" if sha else None,
            fname=target.name,
            path=target.parent,
            progressbar=False,
            downloader=bounded_downloader(
                MEMBER_MAX_BYTES, f"{name}: {rel}", base if local is not None else None
            ),
        )
    except DataError:
        raise
    except ValueError as err:
        if "does not match the known hash" in str(err):
            raise ChecksumError(
                f"{name}: checksum mismatch for {rel} from data mirror {mirror}: the file is "
                f"corrupt, truncated or another version ({err})"
            ) from err
        raise DataUnavailable(f"{name}: could not fetch {rel} from {mirror}: {err}") from err
    except OSError as err:
        raise DataUnavailable(f"{name}: could not fetch {rel} from {mirror}: {err}") from err
    how = (
        f"sha256 listed by the mirror's {MIRROR_SUMS}"
        if sha
        else "unlisted: taken as served (allow_unpinned_downloads on the command line)"
    )
    return f"{sha or file_sha256(got)}  {member}  from {url}; {how}"


def fetch_either(
    spec: DatasetSpec,
    top: str,
    wanted: Callable[[str], bool],
    required: tuple[str, ...],
    cache_dir: Path,
    mirror: str | None = None,
    allow_unpinned: bool = False,
) -> tuple[MemberStore, tuple[str, ...]]:
    """The members of ``spec``'s archive (its one download file): from the publisher (no
    mirror) or a mirror's copy of the archive (``<mirror>/<source>/<archive>``), both verified by
    the archive's pin; else, from a mirror holding the members extracted under
    ``<mirror>/<source>/<top>/`` (:func:`fetch_members`). Raises :class:`DataUnavailable` naming
    both places when the mirror holds neither."""
    rf = spec.download[0]
    if mirror is None:
        return fetch_archive(spec, top, cache_dir, None, allow_unpinned)
    kind, base = mirror_location(mirror)
    folder = f"{rf.source}/{top.strip('/')}"
    if kind == "folder":
        has_archive = (Path(base) / rf.source / rf.fname).is_file()
        has_members = (Path(base) / folder).is_dir()
    else:
        listing = mirror_sums(mirror)
        has_archive = f"{rf.source}/{rf.fname}" in listing
        has_members = any(rel.startswith(folder + "/") for rel in listing)
    if has_archive or not has_members:
        if kind == "folder" and not has_archive:
            raise DataUnavailable(
                f"{spec.name}: data mirror {mirror} holds neither the archive "
                f"{rf.source}/{rf.fname} nor its members under {folder}/"
            )
        return fetch_archive(spec, top, cache_dir, mirror, allow_unpinned)
    return fetch_members(
        spec.name, folder, wanted, required, cache_dir, mirror, rf.fname, allow_unpinned
    )


# --- the parsed collection --------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ItemImages:
    """The image of each item: member ``members[i]`` of ``store``."""

    store: MemberStore
    members: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.members)

    def read(self, i: int) -> bytes:
        """The file bytes of item ``i``'s image."""
        return self.store.read(self.members[int(i)])

    def load(self, i: int, mode: str = "RGB"):
        """Item ``i``'s image, decoded by Pillow and converted to ``mode`` (``None``: as
        stored). Raises :class:`DataError` naming the member when Pillow cannot decode it."""
        Image = require("PIL.Image", "decoding the items' images")
        UnidentifiedImageError = Image.UnidentifiedImageError

        member = self.members[int(i)]
        data = self.store.read(member)
        try:
            with Image.open(io.BytesIO(data)) as im:
                im.load()
                return im.convert(mode) if mode else im.copy()
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as err:
            raise DataError(
                f"{self.store.where(member)}: not a decodable image ({err}); the file is corrupt "
                "or truncated"
            ) from None


@dataclasses.dataclass(frozen=True)
class Judgments:
    """A collection of human similarity judgments.

    ``items``: (n_items,) str, the publisher's id of each item (its index is the item index);
    ``triplets``: (n, 3) int64 rows ``(i, j, k)``: "i is closer to j than to k" (anchor,
    positive, negative), one row per answer-derived triplet, repeats kept;
    ``counts``: (n,) int64, how many answers each row stands for (None: one answer per row);
    ``columns``: per-row arrays (worker, survey round, split, ...); ``item_labels``: per-item
    arrays (classes where the publisher gives them); ``images``: the item images;
    ``provenance``: one line per file or member set read (sha256, where from, how verified);
    ``note``: what was parsed and by which rule, in words; ``shortfall``: one line per count
    that differs from the publisher's, where the opt-in to unpinned files let such a set through
    (:func:`compare_with_published`; empty for a set as published).
    """

    name: str
    items: np.ndarray
    triplets: np.ndarray
    counts: np.ndarray | None
    columns: dict
    item_labels: dict
    images: ItemImages
    provenance: tuple[str, ...]
    note: str
    shortfall: tuple[str, ...] = ()  # :func:`compare_with_published`: counts unlike the publisher's

    def __post_init__(self):
        t = self.triplets
        if t.ndim != 2 or t.shape[1] != 3 or t.dtype != np.int64:
            raise DataError(f"{self.name}: triplets must be an int64 (n, 3) array, not {t.shape}")
        if len(t) and (t.min() < 0 or t.max() >= len(self.items)):
            raise DataError(f"{self.name}: a triplet names an item outside 0..{len(self.items)}")
        if len(t) and ((t[:, 0] == t[:, 1]) | (t[:, 0] == t[:, 2]) | (t[:, 1] == t[:, 2])).any():
            raise DataError(f"{self.name}: a triplet repeats an item")
        if self.counts is not None and self.counts.shape != (len(t),):
            raise DataError(f"{self.name}: {self.counts.shape} counts for {len(t)} triplets")
        for key, col in self.columns.items():
            if len(col) != len(t):
                raise DataError(f"{self.name}: column {key!r} has {len(col)} rows, not {len(t)}")
        for key, col in self.item_labels.items():
            if len(col) != len(self.items):
                raise DataError(f"{self.name}: label {key!r} has {len(col)} items")
        if len(self.images) != len(self.items):
            raise DataError(f"{self.name}: {len(self.images)} images for {len(self.items)} items")

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_answers(self) -> int:
        """The number of answers the rows stand for (the sum of ``counts``, or the rows)."""
        return int(self.counts.sum()) if self.counts is not None else len(self.triplets)

    def load_image(self, i: int, mode: str = "RGB"):
        """Item ``i``'s image as a Pillow image (:meth:`ItemImages.load`)."""
        return self.images.load(i, mode)

    def select(self, mask) -> "Judgments":
        """The same collection restricted to the rows where ``mask`` (bool, (n,)) holds."""
        mask = np.asarray(mask, dtype=bool)
        return dataclasses.replace(
            self,
            triplets=self.triplets[mask],
            counts=None if self.counts is None else self.counts[mask],
            columns={k: np.asarray(v)[mask] for k, v in self.columns.items()},
        )

    def unique(self) -> tuple[np.ndarray, np.ndarray]:
        """``(triplets, counts)``: each distinct row once (sorted) and how many answers gave it."""
        weights = self.counts if self.counts is not None else np.ones(len(self.triplets), int)
        n = len(self.items)
        codes, inverse = np.unique(triplet_codes(self.triplets, n), return_inverse=True)
        counts = np.bincount(inverse.ravel(), weights=weights, minlength=len(codes))
        return triplets_of_codes(codes, n), counts.astype(np.int64)

    def majority(self) -> tuple[np.ndarray, np.ndarray]:
        """``(triplets, margins)``: for each question (an anchor and an unordered pair), the
        orientation that strictly more answers gave, with its margin (answers for it minus
        answers against it); questions answered equally often both ways are left out."""
        return majority_triplets(*self.unique())


class SmallerThanPublished(UserWarning):
    """A human set, taken under the unpinned opt-in, parsed to other counts than its
    publisher's (a truncated, header-only, empty or duplicated file)."""


def compare_with_published(judgments: Judgments, counts: dict, published: dict) -> Judgments:
    """Check the counts a set was parsed to (``counts``: what -> int, e.g. ``{"statements":
    7097}``) against its publisher's (``published``, the same keys).

    Equal: ``judgments`` unchanged. A count of zero: :class:`DataError` (nothing to learn or score
    from). Otherwise, where a file was taken without its pin (a provenance line says
    "unpinned": the command-line opt-in ``allow_unpinned_downloads`` let it through): a
    :class:`SmallerThanPublished` warning (in the job's log) and the returned judgments carry
    the line in ``shortfall`` (the human table's caption shows it). Where every file passed its
    pin, different counts mean the parser disagrees with the publisher: :class:`DataError` (a
    fault of this code, not of the data), whatever the opt-in."""
    differ = {k: (int(counts[k]), int(n)) for k, n in published.items() if int(counts[k]) != n}
    if not differ:
        return judgments
    line = f"{judgments.name}: " + ", ".join(
        f"{got:,} {what} where the publisher has {n:,}" for what, (got, n) in differ.items()
    )
    empty = [what for what, (got, _) in differ.items() if got == 0]
    if empty:
        raise DataError(
            f"{line}: no {', '.join(empty)} at all, nothing to learn or score from (a truncated, "
            "header-only or empty file); delete the cached copy and fetch it again"
        )
    if not any("unpinned" in line for line in judgments.provenance):
        raise DataError(
            f"{line}, although every file passed its publisher's pin: the parser disagrees with "
            "the publisher (a fault of tripletbench; please report it)"
        )
    line += " (taken under allow_unpinned_downloads: a truncated or duplicated file?)"
    warnings.warn(line, SmallerThanPublished, stacklevel=2)
    print(f"WARNING: {line}", flush=True)
    return dataclasses.replace(judgments, shortfall=(*judgments.shortfall, line))


def majority_triplets(triplets: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Majority vote over the two orientations of each question: ``triplets`` (n, 3) distinct
    rows ``(i, j, k)`` with ``counts`` (n,); the question of a row is ``(i, {j, k})``. Returns
    the rows that won strictly (sorted) and their margins; ties are dropped."""
    t = np.asarray(triplets, dtype=np.int64).reshape(-1, 3)
    c = np.asarray(counts, dtype=np.int64)
    n = int(t.max()) + 1 if len(t) else 1
    lo, hi = np.minimum(t[:, 1], t[:, 2]), np.maximum(t[:, 1], t[:, 2])
    key = triplet_codes(np.stack([t[:, 0], lo, hi], axis=1), n)
    sign = np.where(t[:, 1] == lo, 1, -1)  # +1: "closer to the smaller index"
    qs, inv = np.unique(key, return_inverse=True)
    net = np.bincount(inv.ravel(), weights=sign * c, minlength=len(qs)).astype(np.int64)
    win = net != 0
    q = triplets_of_codes(qs[win], n)
    out = np.where((net[win] > 0)[:, None], q, q[:, [0, 2, 1]])
    order = np.lexsort(out.T[::-1])
    return out[order], np.abs(net[win])[order]


def triplet_codes(triplets: np.ndarray, n_items: int) -> np.ndarray:
    """One int64 per row ``(i, j, k)``: ``(i * n + j) * n + k``, ordered as the rows are
    lexicographically (fast unique and sort of rows)."""
    t = np.asarray(triplets, dtype=np.int64).reshape(-1, 3)
    return (t[:, 0] * n_items + t[:, 1]) * n_items + t[:, 2]


def triplets_of_codes(codes: np.ndarray, n_items: int) -> np.ndarray:
    """The rows of :func:`triplet_codes`."""
    c = np.asarray(codes, dtype=np.int64)
    return np.stack([c // (n_items * n_items), (c // n_items) % n_items, c % n_items], axis=1)


def item_index(ids, items: np.ndarray, what: str) -> np.ndarray:
    """Indices into the sorted id array ``items`` of ``ids`` (any shape). Raises
    :class:`DataError` naming ``what`` and the first ids that are not items."""
    ids = np.asarray(ids)
    pos = np.searchsorted(items, ids)
    pos = np.clip(pos, 0, len(items) - 1)
    bad = items[pos] != ids
    if bad.any():
        unknown = sorted(set(np.asarray(ids)[bad].ravel().tolist()))
        raise DataError(
            f"{what}: {len(unknown)} id(s) name no item (first: {unknown[:3]}); the archive or "
            "the mirror lacks their images, or the file belongs to another collection"
        )
    return pos.astype(np.int64)


def not_tabular(name: str, loader: str):
    """A ``parse_download`` that refuses :func:`tripletbench.datasets.base.load` (not a feature table)."""

    def _refuse(paths):
        raise DataError(
            f"{name} is a collection of human judgments over images, not a feature table: use "
            f"{loader}"
        )

    return _refuse


__all__ = [
    "ItemImages",
    "Judgments",
    "MemberStore",
    "SmallerThanPublished",
    "archive_top",
    "compare_with_published",
    "fetch_archive",
    "fetch_either",
    "fetch_members",
    "item_index",
    "majority_triplets",
    "not_tabular",
    "triplet_codes",
    "triplets_of_codes",
]
