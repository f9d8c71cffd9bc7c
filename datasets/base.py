"""Dataset specifications and the two data routes.

Every dataset module defines one :class:`DatasetSpec` (:mod:`tripletbench.datasets.spec`,
re-exported here). A spec names

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
decompressed streams through :func:`check_member_size` / :func:`read_bounded`. These, the files
of both routes (:class:`RemoteFile`, :class:`EmbeddedFile`), data mirrors and checksums live in
:mod:`tripletbench.datasets.fetch` and are re-exported here.

Prepared arrays (``{cache_dir}/prepared/<name>_<route>.npz``) carry their own hash: a sidecar
``<file>.sha256`` in ``sha256sum`` format, written after the file. :func:`check_prepared` verifies
it (a file from before sidecars existed is verified by reading every array, zip CRCs included);
the workflow moves a corrupt file aside at start so that it is rebuilt (``common.smk``), and
:func:`load_prepared` refuses one with a clear :class:`DataError`.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import os
import tarfile
import time
import zipfile
import zlib
from pathlib import Path

import numpy as np

from tripletbench.algorithms._checks import DataError  # the learners' error (re-exported)
from tripletbench.files import save_text
from tripletbench.optional import require

# the files of the two routes, downloads, mirrors and checksums (re-exported from here)
from .fetch import (  # noqa: F401
    CONNECT_TIMEOUT_S,
    DEFAULT_MAX_BYTES,
    MEMBER_MAX_BYTES,
    MIN_RATE_BYTES_S,
    MIRROR_SUMS,
    READ_TIMEOUT_S,
    SUMS_MAX_BYTES,
    ChecksumError,
    DataUnavailable,
    EmbeddedFile,
    RemoteFile,
    _inside_mirror,
    _local_path,
    _recorded_source,
    _sha256_of,
    _unpack_from_package,
    bounded_downloader,
    check_member_size,
    download_provenance,
    fetch_remote_file,
    file_sha256,
    mirror_location,
    mirror_sums,
    read_bounded,
    source_path,
    verify_sha256,
)
from .spec import ROUTES, DatasetSpec, check_route  # the specification (re-exported)

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
        rf.fname: (
            rf.known_hash.split(":", 1)[1]
            if rf.known_hash and rf.known_hash.startswith("sha256:")
            else None
        )
        for rf in spec.download
    }


def check_prepared_spec(path) -> None:
    """Check that prepared file ``path`` (``<dataset>_<route>.npz``, as rule prepare_dataset
    names it) holds that dataset: its route, its source files (names, and sha256 where pinned),
    its shape and number of classes (:attr:`DatasetSpec.shape`). A file whose name is no
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
    n, d, k = spec.shape
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


def verify_prepared(path) -> None:
    """Check a prepared ``.npz`` file (:func:`check_prepared`, :func:`check_prepared_spec`)
    without loading its arrays; raises :class:`DataError` with the remedy (rerun the workflow,
    which moves a corrupt file aside and rebuilds it). A reader calls it before any other file
    of the same job, so a corrupt data file is named as such first."""
    try:
        check_prepared(path)
        check_prepared_spec(path)
    except DataError as err:
        raise DataError(f"{err}; rerun the workflow to rebuild it") from None


def load_prepared(path, keys=None) -> dict:
    """The arrays ``keys`` (default: all) of a prepared ``.npz`` file, as a dict name -> array,
    after :func:`verify_prepared`; raises :class:`DataError` for a corrupt file (rerun the
    workflow, which moves it aside and rebuilds it) or a missing key."""
    verify_prepared(path)
    with np.load(path, allow_pickle=False) as data:
        missing = sorted(set(keys or ()) - set(data.files))
        if missing:
            raise DataError(f"{path} has no array(s) {missing}; it has {sorted(data.files)}")
        return {k: data[k] for k in (keys or data.files)}


def quarantine_corrupt_prepared(folder) -> list[str]:
    """Check every prepared ``.npz`` in ``folder`` (:func:`check_prepared`,
    :func:`check_prepared_spec`) before a run. Hidden files (the temporaries a running job writes,
    ``tripletbench.files.atomic_path``) are never touched; a finished file appears by an atomic
    rename.

    A corrupt or truncated file, or one that does not hold its dataset, is renamed
    ``<file>.corrupt`` (the last such copy is kept for inspection; delete it at will) and its
    sidecar removed, so that the workflow rebuilds it; a sound file without a sidecar (written
    before sidecars existed) gets one. Returns one message per file moved aside."""
    messages = []
    for path in sorted(Path(folder).glob("*.npz")):
        if path.name.startswith("."):
            continue  # a job's temporary file (tripletbench.files.atomic_path), being written now
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
    mirror of an unsupported scheme. Each file: :func:`fetch_remote_file`.
    """
    if not spec.download:
        raise DataUnavailable(f"dataset {spec.name!r} has no download route")
    location = mirror_location(mirror) if mirror else None
    sums = functools.cache(lambda: mirror_sums(mirror))  # read once, where a file needs it
    folder = Path(cache_dir) / "download" / spec.name
    return [
        fetch_remote_file(
            spec.name, rf, folder, mirror, location, sums, allow_unpinned, progressbar
        )
        for rf in spec.download
    ]


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
    n, d, k = spec.shape
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

    rdata = require("rdata", "reading an R .rda file")

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Unknown encoding")
        return rdata.read_rda(str(path))[name]
