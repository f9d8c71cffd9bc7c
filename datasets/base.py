"""Dataset specifications and the two data routes.

Every dataset module defines one :class:`DatasetSpec`. A spec names

* the **download route**: the files the paper used, at their original URL, each with a pinned
  sha256 (fetched and verified by :mod:`pooch`); and
* the **embedded route**: a real copy of the same data shipped inside a Debian package, taken with
  ``apt-get download`` + ``dpkg-deb -x`` (nothing is installed), each file with a pinned sha256.

See ``datasets/README.md`` for where each copy comes from, and the package docstring of
:mod:`datasets` for which downloads are pinned and which cannot be.

Unpinned downloads (no trustworthy hash exists) are refused unless the user asks for them on the
command line for one run (``--config allow_unpinned_downloads=true``); the file is then taken as
served and its sha256 is recorded in the log. A data mirror's own ``SHA256SUMS`` is no pin: a file
no publisher pinned is accepted from a mirror without the opt-in only when it has the measured
sha256 of the project mirror's copy that its module pins (``RemoteFile.mirror_hash``).

Every download is bounded (:func:`bounded_downloader`: at most the file's size or stated cap,
connect and read timeouts and a minimum rate), and the parsers read archive members and
decompressed streams through :func:`check_member_size` / :func:`read_bounded`.

Prepared arrays (``{cache_dir}/prepared/<name>_<route>.npz``) carry their own hash: a sidecar
``<file>.sha256`` in ``sha256sum`` format, written after the file. :func:`check_prepared` verifies
it (a file from before sidecars existed is verified by reading every array, zip CRCs included);
the workflow moves a corrupt file aside at start so that it is rebuilt (``common.smk``), and
:func:`load_prepared` refuses one with a clear :class:`DataError`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import time
import urllib.parse
import urllib.request
import zipfile
import zlib
from pathlib import Path
from typing import Callable

import numpy as np
import pooch

from tripletbench.algorithms._checks import DataError  # the learners' error (re-exported)

ROUTES = ("embedded", "download")


class ChecksumError(DataError):
    """A downloaded or unpacked file does not have its pinned sha256."""


class DataUnavailable(DataError):
    """A dataset cannot be obtained through the requested route (no copy, no network, no hash)."""


UNREADABLE_FILE_ERRORS = (
    tarfile.TarError,
    zipfile.BadZipFile,
    gzip.BadGzipFile,
    zlib.error,
    EOFError,
    UnicodeDecodeError,
)
"""What the standard readers raise for a corrupt or truncated archive or compressed file."""


@contextlib.contextmanager
def readable(paths, what: str, also: tuple = ()):
    """Turn the readers' raw errors for a corrupt or truncated file (``UNREADABLE_FILE_ERRORS``,
    pandas' parser errors, and the exception types ``also``) raised inside the block into a
    :class:`DataError` that names ``what``, the file(s) ``paths`` (a path or a list of them), the
    reader's message and the remedy: delete the file and rerun, which fetches and verifies it
    again. A :class:`DataError` passes as it is."""
    try:
        from pandas.errors import EmptyDataError, ParserError

        extra = (EmptyDataError, ParserError)
    except ImportError:  # pragma: no cover - pandas is a dependency
        extra = ()
    try:
        yield
    except DataError:
        raise
    except UNREADABLE_FILE_ERRORS + extra + tuple(also) as err:
        names = [str(p) for p in (paths if isinstance(paths, (list, tuple)) else [paths])]
        raise DataError(
            f"{what}: cannot read {', '.join(names)} ({type(err).__name__}: {err}); the file is "
            "corrupt or truncated. Delete it and rerun: it is fetched (or unpacked) again and "
            "verified against its pin"
        ) from err


DEFAULT_MAX_BYTES = 256 * 2**20
"""The cap on a downloaded file that states no ``max_bytes`` (its own size or a larger cap)."""
CONNECT_TIMEOUT_S = 30.0
"""Seconds to wait for an http(s) server to accept the connection."""
READ_TIMEOUT_S = 60.0
"""Seconds without one byte from the server before a download is abandoned as stalled."""
MIN_RATE_BYTES_S = 20_000
"""The slowest transfer accepted: a download of a file capped at ``cap`` bytes is abandoned after
``READ_TIMEOUT_S + cap / MIN_RATE_BYTES_S`` seconds in all (a server trickling a byte at a time
would never trip the read timeout)."""
SUMS_MAX_BYTES = 16 * 2**20
"""The cap on a mirror's ``SHA256SUMS``."""
MEMBER_MAX_BYTES = 64 * 2**20
"""The cap on one member of an archive or one decompressed file that a parser reads whole (a
dataset module may state its own): larger members are refused before they are read."""


def check_member_size(size: int, cap: int, what: str) -> None:
    """Refuse an archive member (or decompressed file) ``what`` that declares ``size`` bytes,
    more than ``cap``, before anything reads it: :class:`DataError` naming it and the cap."""
    if size > cap:
        raise DataError(
            f"{what} holds {size:,} bytes, more than the {cap:,} bytes a member may have: "
            "refusing to read it (an archive made to exhaust memory, or not the publisher's "
            "file); delete the file and rerun to fetch and verify it again"
        )


def read_bounded(f, cap: int, what: str) -> bytes:
    """At most ``cap`` bytes of the open binary file ``f`` (a gzip stream, an archive member):
    its whole content, or :class:`DataError` naming ``what`` and the cap when it holds more (a
    decompression bomb is read no further than ``cap + 1`` bytes)."""
    data = f.read(cap + 1)
    if len(data) > cap:
        raise DataError(
            f"{what} holds more than the {cap:,} bytes a member may have (decompressed): "
            "refusing to read it (an archive made to exhaust memory, or not the publisher's "
            "file); delete the file and rerun to fetch and verify it again"
        )
    return data


@dataclasses.dataclass(frozen=True)
class RemoteFile:
    """One file of the download route: original URL and its pinned hash in pooch's form
    ("sha256:<hex>" or "md5:<hex>" where only the publisher's md5 is known; ``None`` if unknown)
    and its ``source``, the folder of a data mirror that holds it (:func:`fetch_download`)."""

    url: str
    known_hash: str | None
    fname: str
    source: str = ""  # its folder in a data mirror: <mirror>/<source>/<fname>
    mirror_hash: str | None = None  # where no publisher hash exists: "sha256:<hex>" of the data
    # mirror's copy as measured (the module says when); it verifies the file from a mirror only
    max_bytes: int | None = None  # the most bytes a fetch reads: the file's size where the pin
    # fixes it, else a stated cap; None: DEFAULT_MAX_BYTES

    @property
    def cap(self) -> int:
        """The most bytes a fetch of this file reads (:attr:`max_bytes` or DEFAULT_MAX_BYTES)."""
        return self.max_bytes or DEFAULT_MAX_BYTES


@dataclasses.dataclass(frozen=True)
class EmbeddedFile:
    """One file of the embedded route: a path inside a Debian package and its pinned sha256."""

    package: str
    path: str
    sha256: str


@dataclasses.dataclass(frozen=True)
class DatasetSpec:
    """A dataset: its sources and parsers.

    ``parse_download(paths)`` and ``parse_embedded(paths)`` take the local paths of the route's
    files (same order as the spec lists them) and return ``(X, y_names)``: ``X`` float64 of shape
    (n_samples, n_features) and ``y_names`` of shape (n_samples,) with one class name per row.
    ``scale_download`` / ``scale_embedded`` say whether min-max scaling to [-1, 1] is still to be
    applied (the LIBSVM ``*.scale`` files are already scaled; the embedded copies are not).
    """

    name: str
    description: str
    paper_shape: tuple[int, int, int]  # (n_samples, n_features, n_classes) expected
    download: tuple[RemoteFile, ...] = ()  # () = no download route (datasets/glass.py)
    parse_download: Callable[[list[Path]], tuple[np.ndarray, np.ndarray]] | None = None
    scale_download: bool = False
    embedded: tuple[EmbeddedFile, ...] = ()
    parse_embedded: Callable[[list[Path]], tuple[np.ndarray, np.ndarray]] | None = None
    scale_embedded: bool = True
    scaling_embedded: str = ""  # how the embedded parser scales, where it does (captions:
    # tripletbench.harness.captions.scaling_words)
    scaling_download: str = ""  # how the publisher scaled the files, where they come scaled
    title: str = ""  # the human name in tables and figures (default: tripletbench.harness.plots.DISPLAY_NAMES)
    tabular: bool = True  # False: not a feature table (image archive, corpus, pairs files), not a
    # name for the experiments' `datasets` lists (tripletbench.datasets.DATASETS leaves it out)

    def has_route(self, route: str, mirror: str | None = None) -> bool:
        """True if the dataset can be obtained through ``route`` ('embedded' or 'download'); with
        a folder ``mirror`` (:func:`mirror_location`), the download route needs every file in
        it (an http(s) mirror is not asked before the fetch, which names a missing file)."""
        check_route(route)
        if route == "embedded":
            return bool(self.embedded)
        if not self.download or not mirror:
            return bool(self.download)
        kind, base = mirror_location(mirror)
        return kind == "http" or all(
            (Path(base) / rf.source / rf.fname).is_file() for rf in self.download
        )


def check_route(route: str) -> None:
    if route not in ROUTES:
        raise DataError(f"unknown data route {route!r}; expected one of {ROUTES}")


def file_sha256(path: str | os.PathLike) -> str:
    """sha256 of a file (hex), computed by pooch."""
    return pooch.file_hash(str(path), alg="sha256")


def prepared_hash_path(path) -> Path:
    """The sidecar that records the sha256 of prepared file ``path``: ``<path>.sha256``."""
    return Path(f"{path}.sha256")


def prepared_hash_line(path) -> str:
    """The sidecar's text for ``path`` as it is now (``sha256sum`` format: "<hex>  <name>\n")."""
    return f"{file_sha256(path)}  {Path(path).name}\n"


def check_prepared(path, recheck_after_s: float = 1.0) -> str:
    """Verify a prepared ``.npz`` file; return "ok" (its sidecar hash matches) or "unrecorded"
    (no sidecar, but every member reads back intact: zip structure and CRC-32 of each member,
    whatever its dtype, object arrays included, without unpickling anything).

    Raises :class:`DataError` naming the file and the problem for a corrupt or truncated file. A
    hash mismatch is checked again after ``recheck_after_s`` seconds (a writer in another process
    replaces the file and then its sidecar; a reader between the two must not condemn it)."""
    path = Path(path)
    side = prepared_hash_path(path)
    if side.exists():
        for attempt in range(2):
            recorded = side.read_text().split()[:1]
            got = file_sha256(path)
            if recorded and recorded[0] == got:
                return "ok"
            if attempt == 0:
                time.sleep(recheck_after_s)
        raise DataError(
            f"prepared file {path} is corrupt or truncated: sha256 {got}, but {side.name} records "
            f"{recorded[0] if recorded else 'nothing'}"
        )
    try:
        with zipfile.ZipFile(path) as zf:
            bad = zf.testzip()  # decompresses every member and checks its CRC-32
        if bad is not None:
            raise ValueError(f"member {bad} fails its CRC-32 check")
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as err:
        raise DataError(f"prepared file {path} is corrupt or truncated: {err}") from err
    return "unrecorded"


def _npy_shape(zf: zipfile.ZipFile, member: str) -> tuple:
    """The shape of array ``member`` of an open ``.npz`` from its header (the data is not read)."""
    with zf.open(member) as f:
        version = np.lib.format.read_magic(f)
        read = (
            np.lib.format.read_array_header_1_0
            if version == (1, 0)
            else np.lib.format.read_array_header_2_0
        )
        return read(f)[0]


def expected_sources(spec: DatasetSpec, route: str) -> dict[str, str | None]:
    """File name -> pinned sha256 (None where there is no sha256 pin) of ``spec``'s files on
    ``route``: the files a prepared file of it must record."""
    if route == "embedded":
        return {Path(ef.path).name: ef.sha256 for ef in spec.embedded}
    return {
        rf.fname: rf.known_hash.split(":", 1)[1]
        if rf.known_hash and rf.known_hash.startswith("sha256:")
        else None
        for rf in spec.download
    }


def check_prepared_spec(path) -> None:
    """Check that prepared file ``path`` (``<dataset>_<route>.npz``, as rule prepare_dataset
    names it) holds that dataset: its route, its source files (names, and sha256 where pinned),
    its shape and number of classes (:attr:`DatasetSpec.paper_shape`). A file whose name is no
    dataset of ours is left unchecked. Raises :class:`DataError` naming what differs (e.g.
    another dataset's file copied over it, which a sidecar written afresh would not see)."""
    from . import get_dataset  # the registry imports this module

    path = Path(path)
    name, _, route = path.name.removesuffix(".npz").rpartition("_")
    try:
        spec = get_dataset(name)
    except DataError:
        return
    if route not in ROUTES:
        return
    problems = []
    try:
        with zipfile.ZipFile(path) as zf:
            shape = _npy_shape(zf, "X.npy")
        with np.load(path, allow_pickle=False) as data:
            stored_route = str(data["route"])
            files = dict(str(f).split(":", 1) for f in data["files"])
            n_classes = len(data["classes"])
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as err:
        raise DataError(f"prepared file {path} is not a prepared dataset: {err}") from None
    n, d, k = spec.paper_shape
    if stored_route != route:
        problems.append(f"route {stored_route!r}, not {route!r}")
    want = expected_sources(spec, route)
    if set(files) != set(want):
        problems.append(f"source files {sorted(files)}, not {sorted(want)}")
    problems += [
        f"{f} has sha256 {files[f]}, not the pinned {h}"
        for f, h in want.items()
        if h is not None and f in files and files[f] != h
    ]
    if tuple(shape) != (n, d) or n_classes != k:
        problems.append(f"{shape[0]} x {shape[1]} with {n_classes} classes, not {n} x {d} with {k}")
    if problems:
        raise DataError(
            f"prepared file {path} does not hold {name} ({route} route): " + "; ".join(problems)
        )


def load_prepared(path, keys=None) -> dict:
    """The arrays ``keys`` (default: all) of a prepared ``.npz`` file, as a dict name -> array,
    after :func:`check_prepared`; raises :class:`DataError` for a corrupt file (rerun the
    workflow, which moves it aside and rebuilds it) or a missing key."""
    try:
        check_prepared(path)
        check_prepared_spec(path)
    except DataError as err:
        raise DataError(f"{err}; rerun the workflow to rebuild it") from None
    with np.load(path, allow_pickle=False) as data:
        missing = sorted(set(keys or ()) - set(data.files))
        if missing:
            raise DataError(f"{path} has no array(s) {missing}; it has {sorted(data.files)}")
        return {k: data[k] for k in (keys or data.files)}


def quarantine_corrupt_prepared(folder) -> list[str]:
    """Check every prepared ``.npz`` in ``folder`` (:func:`check_prepared`,
    :func:`check_prepared_spec`) before a run. Hidden files (the temporaries a running job writes,
    ``tripletbench.harness.io.atomic_path``) are never touched; a finished file appears by an atomic rename.

    A corrupt or truncated file, or one that does not hold its dataset, is renamed
    ``<file>.corrupt`` (the last such copy is kept for inspection; delete it at will) and its
    sidecar removed, so that the workflow rebuilds it; a sound file without a sidecar (written
    before sidecars existed) gets one. Returns one message per file moved aside."""
    from tripletbench.harness.io import save_text

    messages = []
    for path in sorted(Path(folder).glob("*.npz")):
        if path.name.startswith("."):
            continue  # a job's temporary file (tripletbench.harness.io.atomic_path), being written now
        try:
            state = check_prepared(path)
            check_prepared_spec(path)
        except DataError as err:
            os.replace(path, f"{path}.corrupt")
            prepared_hash_path(path).unlink(missing_ok=True)
            messages.append(f"{err}: moved aside to {path.name}.corrupt; it will be rebuilt")
            continue
        if state == "unrecorded":
            save_text(prepared_hash_path(path), prepared_hash_line(path))
    return messages


def verify_sha256(path: Path, expected: str, what: str) -> None:
    """Raise :class:`ChecksumError` naming ``what`` if ``path`` does not hash to ``expected``."""
    got = file_sha256(path)
    if got != expected:
        raise ChecksumError(
            f"checksum mismatch for {what} ({path}): expected sha256 {expected}, got {got}; "
            "the file is corrupt, truncated or a different version"
        )


MIRROR_SUMS = "SHA256SUMS"


def mirror_location(mirror: str) -> tuple[str, str]:
    """Where a data mirror is: ``("folder", absolute path)`` for a folder path or a ``file://`` URL,
    ``("http", base URL without trailing "/")`` for an ``http://`` or ``https://`` base URL.

    A mirror serves each file of the download route under its original name in the folder of
    its source: ``<mirror>/<source>/<fname>`` (e.g. ``libsvm/letter.scale``, ``webkb/
    webkb-data.gtar.gz``), and may list sha256 sums in ``<mirror>/SHA256SUMS`` (``sha256sum``
    format, paths relative to the mirror). Raises :class:`DataError` for another scheme,
    :class:`DataUnavailable` for a folder that does not exist."""
    parts = urllib.parse.urlsplit(str(mirror))
    if parts.scheme in ("http", "https"):
        if not parts.netloc:
            raise DataError(f"data mirror {mirror!r}: an http(s) mirror needs a host")
        return "http", str(mirror).rstrip("/")
    folder = _local_path(str(mirror))
    if folder is None:
        raise DataError(
            f"data mirror {mirror!r}: unsupported scheme {parts.scheme!r}; give a folder, a "
            "file:// URL or an http(s):// base URL"
        )
    folder = folder.expanduser()
    if not folder.is_dir():
        raise DataUnavailable(f"data mirror {mirror!r}: no such folder ({folder.resolve()})")
    return "folder", str(folder.resolve())


def _local_path(url: str) -> Path | None:
    """The local file that ``url`` names (a path or a ``file://`` URL), or None for a remote URL."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "file":
        return Path(urllib.request.url2pathname(parts.path))
    return Path(url) if parts.scheme == "" else None


def _inside_mirror(path: Path, root: str | None) -> None:
    """Refuse a local mirror file ``path`` that is a symbolic link, or whose real path (every
    link of the folders above it resolved) leaves the mirror folder ``root``: a mirror serves
    files, and a link may point anywhere (e.g. /etc/passwd). Raises :class:`DataUnavailable`."""
    if path.is_symlink():
        raise DataUnavailable(
            f"{path} is a symbolic link (to {os.readlink(path)}); a data mirror must hold the "
            "files themselves: replace the link with a copy of the file it should be (or remove "
            "it) and rerun"
        )
    if root is not None:
        real, top = Path(os.path.realpath(path)), Path(os.path.realpath(root))
        if not real.is_relative_to(top):
            raise DataUnavailable(
                f"{path} leads out of the data mirror {root} (its real path is {real}: a folder "
                "above it is a symbolic link); a data mirror must hold the files themselves: "
                "replace the link with a copy of the folder and rerun"
            )


def bounded_downloader(cap: int, what: str, root: str | None = None) -> Callable:
    """A pooch downloader (``(url, output_file, pooch)``) that reads at most ``cap`` bytes of
    ``what`` (a file's name, for messages) and never hangs:

    * a local file (a path or ``file://`` URL; ``root``: the mirror folder it must lie in,
      :func:`_inside_mirror`) larger than ``cap`` is refused before it is copied;
    * an http(s) file is streamed (``Accept-Encoding: identity``: the bytes as stored, nothing
      decompressed on the way) and refused as soon as it declares (``Content-Length``) or sends
      more than ``cap`` bytes, when the server accepts no connection in ``CONNECT_TIMEOUT_S``,
      sends nothing for ``READ_TIMEOUT_S``, or takes longer than ``READ_TIMEOUT_S + cap /
      MIN_RATE_BYTES_S`` in all.

    Each refusal is a :class:`DataUnavailable` naming the file, the URL and the cap or the
    timeout; pooch removes the partial file, so a previous copy is never replaced by it."""

    def download(url: str, output_file, pooch_obj=None) -> None:
        local = _local_path(url)
        if local is not None:
            _inside_mirror(local, root)
            size = local.stat().st_size
            if size > cap:
                raise DataUnavailable(
                    f"{what}: {local} holds {size:,} bytes, more than the {cap:,} bytes this "
                    "file may have (its size where the pin fixes it, else its stated cap): "
                    "refusing it; the mirror's copy is another file"
                )
            shutil.copyfile(local, output_file)
            return
        import requests
        import urllib3

        deadline = READ_TIMEOUT_S + cap / MIN_RATE_BYTES_S
        start = time.monotonic()
        too_big = (
            f"{what}: {url} sends more than the {cap:,} bytes this file may have (its size "
            "where the pin fixes it, else its stated cap): refusing it"
        )
        try:
            with requests.get(
                url,
                stream=True,
                timeout=(CONNECT_TIMEOUT_S, READ_TIMEOUT_S),
                headers={"Accept-Encoding": "identity"},
            ) as resp:
                resp.raise_for_status()
                declared = resp.headers.get("Content-Length", "")
                if declared.isdigit() and int(declared) > cap:
                    raise DataUnavailable(f"{too_big} (Content-Length {int(declared):,})")
                total = 0
                with open(output_file, "wb") as out:
                    while True:
                        chunk = resp.raw.read1(2**16, decode_content=False)
                        if not chunk:
                            break
                        total += len(chunk)
                        if total > cap:
                            raise DataUnavailable(too_big)
                        out.write(chunk)
                        if time.monotonic() - start > deadline:
                            raise DataUnavailable(
                                f"{what}: {url} too slow: {total:,} bytes in {deadline:.0f} s, "
                                f"the most this file may take (a timeout of {READ_TIMEOUT_S:g} s "
                                f"plus {cap:,} bytes at {MIN_RATE_BYTES_S:,} bytes/s); refusing "
                                "the stalled transfer: retry, or use another mirror"
                            )
        except (requests.exceptions.Timeout, urllib3.exceptions.ReadTimeoutError) as err:
            raise DataUnavailable(
                f"{what}: {url} stalled: nothing received for {READ_TIMEOUT_S:g} s (or no "
                f"connection in {CONNECT_TIMEOUT_S:g} s): {err}; retry, or use another mirror"
            ) from err

    return download


def mirror_sums(mirror: str) -> dict[str, str]:
    """The sha256 sums a mirror lists in its ``SHA256SUMS`` (relative path -> hex); {} when it
    lists none. Raises :class:`DataUnavailable` when an http(s) mirror cannot be reached."""
    kind, base = mirror_location(mirror)
    if kind == "folder":
        path = Path(base) / MIRROR_SUMS
        if path.is_file():
            _inside_mirror(path, base)
            check_member_size(path.stat().st_size, SUMS_MAX_BYTES, f"data mirror {mirror}: {path}")
        text = path.read_text() if path.is_file() else ""
    else:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / MIRROR_SUMS
            try:
                bounded_downloader(SUMS_MAX_BYTES, f"data mirror {mirror}: {MIRROR_SUMS}")(
                    f"{base}/{MIRROR_SUMS}", str(out), None
                )
                text = out.read_text()
            except OSError as err:
                if getattr(getattr(err, "response", None), "status_code", None) == 404:
                    return {}
                raise DataUnavailable(f"data mirror {mirror}: cannot read {MIRROR_SUMS}: {err}")
    sums = {}
    for line in text.splitlines():
        fields = line.strip().split(None, 1)
        if len(fields) == 2 and re.fullmatch(r"[0-9a-fA-F]{64}", fields[0]):
            sums[fields[1].lstrip("*").removeprefix("./")] = fields[0].lower()
    return sums


def source_path(path) -> Path:
    """The sidecar ``<file>.source`` that records where a downloaded file came from and how it
    was verified (one line: sha256, file name, URL, verification)."""
    return Path(f"{path}.source")


def download_provenance(paths) -> list[str]:
    """One line per downloaded file: its sidecar's record (sha256, name, URL, how it was
    verified), or its sha256 alone where no sidecar exists."""
    out = []
    for p in paths:
        side = source_path(p)
        out.append(
            side.read_text().strip() if side.exists() else f"{file_sha256(p)}  {Path(p).name}"
        )
    return out


def _sha256_of(known: str | None) -> str | None:
    """The hex of a ``"sha256:<hex>"`` pin, else None."""
    return known.split(":", 1)[1] if known and known.startswith("sha256:") else None


def _recorded_source(side: Path) -> tuple[str, str]:
    """(sha256, URL) that a download's ``.source`` sidecar records ("" where it records none)."""
    text = side.read_text() if side.exists() else ""
    fields = text.split()
    url = text.split(" from ", 1)[1].split(";", 1)[0].strip() if " from " in text else ""
    return (fields[0] if fields else ""), url


def fetch_download(
    spec: DatasetSpec,
    cache_dir: Path,
    allow_unpinned: bool = False,
    progressbar: bool = False,
    mirror: str | None = None,
) -> list[Path]:
    """Download (once) and verify the files of the download route, from the publishers' URLs or,
    with ``mirror`` (a folder, ``file://`` URL or http(s) base URL; see :func:`mirror_location`),
    from ``<mirror>/<source>/<fname>``, through pooch in both cases, each read through
    :func:`bounded_downloader` (at most the file's ``cap`` bytes, with timeouts).

    Verification, per file, by the pins our code holds and nothing else: its publisher's pin
    (``known_hash``), whichever host served it; from a mirror, for a file no publisher pinned, the
    measured sha256 of the mirror's copy that the dataset module pins (``mirror_hash``, e.g. our
    repacked WebKB archive; the log and the file's ``.source`` sidecar, which the provenance of
    rows made from it repeats, say so). A mirror's own ``SHA256SUMS`` never vouches for a file:
    a file with no pin of ours is taken only under the command-line opt-in ``allow_unpinned``
    (from a mirror whose ``SHA256SUMS`` lists it, checked against that listing for a sound
    transfer), its sha256 and source recorded.

    A file already in the cache is used when it has one of its pins; an unpinned one only under
    the opt-in and when its sidecar records the sha256 it has and the URL (the mirror) this run
    would fetch it from: from another mirror it is fetched again (rule prepare_dataset and
    fetch_raw rerun then too: their ``allow_unpinned`` param names the mirror).

    Returns the local paths (same order as the spec). Raises :class:`DataUnavailable` if a file
    cannot be fetched (network, HTTP error, a stalled or oversized transfer, a file the mirror
    lacks or a link out of it: the message names the file and the mirror) or has no pin of ours
    and ``allow_unpinned`` is False; :class:`ChecksumError` on a hash mismatch (pooch removes the
    bad file, so a previous good copy is never replaced by a bad one); :class:`DataError` for a
    mirror of an unsupported scheme.
    """
    from tripletbench.harness.io import save_text

    if not spec.download:
        raise DataUnavailable(f"dataset {spec.name!r} has no download route")
    location = mirror_location(mirror) if mirror else None
    sums = None
    out = []
    folder = Path(cache_dir) / "download" / spec.name
    for rf in spec.download:
        target = folder / rf.fname
        side = source_path(target)
        if location:
            rel = f"{rf.source}/{rf.fname}" if rf.source else rf.fname
            url = f"{location[1]}/{rel}"
            where = f"mirror {mirror} ({rel})"
        else:
            url, where = rf.url, rf.url
        if rf.known_hash is None and target.exists():
            recorded, came_from = _recorded_source(side)
            got = file_sha256(target)
            pinned = got == _sha256_of(rf.mirror_hash)
            taken = allow_unpinned and recorded == got and came_from == url
            if (pinned or taken) and side.exists():
                out.append(target)  # one of our pins, or taken under the opt-in from this URL
                continue
            target.unlink()  # unpinned and from elsewhere (or unrecorded): fetched again below
            side.unlink(missing_ok=True)
        known = rf.known_hash
        if known:
            how = f"pinned {known.split(':')[0]} (datasets/{spec.name}.py)"
        elif location and rf.mirror_hash and not allow_unpinned:
            known = rf.mirror_hash
            how = (
                f"the mirror's copy, pinned by its measured sha256 (datasets/{spec.name}.py; no "
                "publisher hash exists)"
            )
        else:
            listed = None
            if location:
                sums = mirror_sums(mirror) if sums is None else sums
                listed = sums.get(rel)
            if not allow_unpinned:
                mirror_note = (
                    f"; a data mirror's own {MIRROR_SUMS} cannot vouch for it (mirror {mirror} "
                    f"{'lists' if listed else 'lists no'} sha256 for it)"
                    if location
                    else ""
                )
                raise DataUnavailable(
                    f"{spec.name}: no pinned hash for {rf.fname} (none is published; see the "
                    f"datasets package docstring){mirror_note}; refusing an unverified download. "
                    "To accept the file as served for one run, add --config "
                    "allow_unpinned_downloads=true to the snakemake command line (its sha256 and "
                    f"source are then recorded), or pin a hash in datasets/{spec.name}.py"
                )
            known = f"sha256:{listed}" if listed else None
            how = "unpinned: taken as served (allow_unpinned_downloads on the command line)" + (
                f", checked against the sha256 the mirror's {MIRROR_SUMS} lists (no publisher or "
                "project pin)"
                if listed
                else ""
            )
        cached = target.exists() and side.exists()  # pooch re-checks its pin and keeps it
        local = _local_path(url)
        if local is not None and not local.is_file() and not local.is_symlink() and not cached:
            raise DataUnavailable(f"{spec.name}: {where}: no such file ({local})")
        root = location[1] if location and location[0] == "folder" else None
        try:
            path = pooch.retrieve(
                url,
                known_hash=known,
                fname=rf.fname,
                path=folder,
                progressbar=progressbar,
                downloader=bounded_downloader(rf.cap, f"{spec.name}: {rf.fname}", root),
            )
        except DataError:
            raise
        except ValueError as err:
            if known and "does not match the known hash" in str(err):
                raise ChecksumError(f"{spec.name}: checksum mismatch for {where}: {err}") from err
            raise DataUnavailable(f"{spec.name}: could not fetch {where}: {err}") from err
        except OSError as err:  # no network, HTTP error (requests' errors are OSErrors)
            status = getattr(getattr(err, "response", None), "status_code", None)
            lack = (
                f" (HTTP {status}: the mirror has no {rel})" if location and status == 404 else ""
            )
            raise DataUnavailable(f"{spec.name}: could not download {where}{lack}: {err}") from err
        path = Path(path)
        if location and known != rf.mirror_hash and file_sha256(path) == _sha256_of(rf.mirror_hash):
            how = (
                f"the mirror's copy, pinned by its measured sha256 (datasets/{spec.name}.py; no "
                "publisher hash exists)"
            )  # under the opt-in, the pinned copy all the same
        if not (cached and side.read_text().startswith(file_sha256(path))):
            record = f"{file_sha256(path)}  {rf.fname}  from {url}; {how}"
            print(f"[fetch] {record}")
            save_text(side, record + "\n")  # where it came from, for every row made from it
        out.append(path)
    return out


def fetch_embedded(spec: DatasetSpec, cache_dir: Path) -> list[Path]:
    """Unpack (once) and verify the embedded copies from Debian packages.

    Each package is fetched with ``apt-get download`` and unpacked with ``dpkg-deb -x`` into a
    temporary folder of ``cache_dir``; only the verified files are moved (atomically) into
    ``cache_dir/embedded/<package>/``. Raises :class:`DataUnavailable` when there is no embedded
    copy or apt cannot fetch the package, :class:`ChecksumError` on a hash mismatch.
    """
    if not spec.embedded:
        raise DataUnavailable(f"dataset {spec.name!r} has no embedded copy: it needs a download")
    root = Path(cache_dir) / "embedded"
    out = []
    for ef in spec.embedded:
        target = root / ef.package / ef.path
        if target.exists():
            try:
                verify_sha256(target, ef.sha256, f"{spec.name} embedded file {ef.path}")
            except ChecksumError as err:
                raise ChecksumError(
                    f"{err}. It is a cached copy: delete {target} and rerun, and it is unpacked "
                    f"again from Debian package {ef.package} and verified"
                ) from None
        else:
            _unpack_from_package(ef, target, spec.name)
        out.append(target)
    return out


def _unpack_from_package(ef: EmbeddedFile, target: Path, dataset: str) -> None:
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise DataUnavailable(f"{dataset}: the embedded route needs {tool} (Debian/Ubuntu)")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".unpack-") as tmp:
        tmp = Path(tmp)
        res = subprocess.run(
            ["apt-get", "download", ef.package], cwd=tmp, capture_output=True, text=True
        )
        debs = sorted(tmp.glob(f"{ef.package}_*.deb"))
        if res.returncode != 0 or not debs:
            raise DataUnavailable(
                f"{dataset}: 'apt-get download {ef.package}' failed ({res.stderr.strip()[-400:]}); "
                "run 'apt-get update' once (as root) and retry"
            )
        res = subprocess.run(
            ["dpkg-deb", "-x", str(debs[0]), str(tmp / "x")], capture_output=True, text=True
        )
        if res.returncode != 0:
            raise DataError(
                f"{dataset}: 'dpkg-deb -x' cannot unpack {debs[0].name}, the package 'apt-get "
                f"download {ef.package}' fetched ({res.stderr.strip()[-400:]}): the .deb is "
                "corrupt or truncated. It was fetched into a temporary folder, now deleted: rerun "
                f"to download it again; if it fails again, delete apt's cached copy "
                f"(/var/cache/apt/archives/{ef.package}_*.deb, or 'apt-get clean' as root), run "
                "'apt-get update' and rerun"
            )
        src = tmp / "x" / ef.path
        if not src.exists():
            raise DataUnavailable(f"{dataset}: {ef.path} is not in package {debs[0].name}")
        verify_sha256(src, ef.sha256, f"{dataset} file {ef.path} of {debs[0].name}")
        os.replace(src, target)


def fetch(
    spec: DatasetSpec,
    route: str,
    cache_dir: Path,
    allow_unpinned: bool = False,
    mirror: str | None = None,
) -> list[Path]:
    """Local, verified files of ``spec`` through ``route`` ('embedded' or 'download'; the data
    mirror ``mirror`` serves the download route, :func:`fetch_download`)."""
    check_route(route)
    if route == "embedded":
        return fetch_embedded(spec, cache_dir)
    return fetch_download(spec, cache_dir, allow_unpinned=allow_unpinned, mirror=mirror)


def load(
    spec: DatasetSpec,
    route: str,
    cache_dir: Path,
    allow_unpinned: bool = False,
    mirror: str | None = None,
) -> dict:
    """Fetch, parse, check and scale a dataset.

    Returns a dict with ``X`` (float64, (n, d); scaled to [-1, 1] on all rows where the route
    is scaled here, else as the publisher or the parser scaled it: a range fitted on training
    rows alone, as LIBSVM's ``vowel.scale.t``, leaves test rows outside [-1, 1];
    :func:`tripletbench.harness.captions.scaling_words` says which), ``y`` (int64, (n,), class
    codes 0..k-1), ``classes`` (str, (k,)), ``route``, ``files`` (name -> sha256) and
    ``sources`` (one str per file: sha256, name, where it came from and how it was verified).
    Raises :class:`DataError` on NaN/inf features, fewer than two classes or a shape that differs
    from the paper's.
    """
    from .preprocess import check_features, minmax_scale

    paths = fetch(spec, route, cache_dir, allow_unpinned, mirror)
    parse = spec.parse_embedded if route == "embedded" else spec.parse_download
    # a parser only reads its files: its ValueError (a content check) is a corrupt file too
    with readable(paths, f"{spec.name} ({route})", also=(ValueError,)):
        X, names = parse(paths)
    X = check_features(np.asarray(X, dtype=np.float64), spec.name)
    classes, y = np.unique(np.asarray(names).astype(str), return_inverse=True)
    n, d, k = spec.paper_shape
    if X.shape != (n, d) or len(classes) != k:
        raise DataError(
            f"{spec.name} ({route}): got {X.shape[0]} x {X.shape[1]} with {len(classes)} classes, "
            f"expected {n} x {d} with {k} classes"
        )
    if spec.scale_embedded if route == "embedded" else spec.scale_download:
        X = minmax_scale(X)
    files = {p.name: file_sha256(p) for p in paths}
    sources = (
        download_provenance(paths)
        if route == "download"
        else [f"{files[p.name]}  {p.name}  from Debian package {p.parent.name}" for p in paths]
    )
    return {
        "X": X,
        "y": y.astype(np.int64),
        "classes": classes,
        "route": route,
        "files": files,
        "sources": sources,
    }


def load_libsvm(paths: list[Path], n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """Parse and stack LIBSVM-format files (``sklearn.datasets.load_svmlight_file``)."""
    from sklearn.datasets import load_svmlight_file

    Xs, ys = [], []
    for p in paths:
        X, y = load_svmlight_file(str(p), n_features=n_features)
        Xs.append(X.toarray())
        ys.append(y.astype(np.int64).astype(str))
    return np.vstack(Xs), np.concatenate(ys)


def load_rda_frame(path: Path, name: str):
    """A data frame from an R ``.rda`` file, read without R through the ``rdata`` package."""
    import warnings

    import rdata

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Unknown encoding")
        return rdata.read_rda(str(path))[name]
