"""Downloads, mirrors and checksums: the files of the two data routes, below the dataset specs.

* the files a spec names: :class:`RemoteFile` (download route: URL, pin, data-mirror folder, cap)
  and :class:`EmbeddedFile` (embedded route: a path in a Debian package and its sha256);
* data mirrors (:func:`mirror_location`, :func:`mirror_sums`) and bounded downloads
  (:func:`bounded_downloader`: at most a file's cap, with timeouts), the bounds on what a parser
  reads (:func:`check_member_size`, :func:`read_bounded`);
* one file of the download route fetched and verified (:func:`fetch_remote_file`, the step of
  :func:`tripletbench.datasets.base.fetch_download`), its provenance sidecar
  (:func:`source_path`, :func:`download_provenance`), and one embedded file unpacked from its
  Debian package (:func:`_unpack_from_package`).

:mod:`tripletbench.datasets.base` re-exports every name of this module that it held before; this
module imports nothing of the datasets package (the specs import it), and holds no dataset.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Callable

import pooch

from tripletbench.algorithms._checks import DataError
from tripletbench.files import save_text


class ChecksumError(DataError):
    """A downloaded or unpacked file does not have its pinned sha256."""


class DataUnavailable(DataError):
    """A dataset cannot be obtained through the requested route (no copy, no network, no hash)."""


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


def file_sha256(path: str | os.PathLike) -> str:
    """sha256 of a file (hex), computed by pooch."""
    return pooch.file_hash(str(path), alg="sha256")


def git_blob_id(data: bytes) -> str:
    """The git blob id (SHA-1, hex) of a file's bytes, as ``git hash-object`` computes it."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def git_tree_id(files: dict[str, bytes]) -> str:
    """The git tree id (SHA-1, hex) of a folder of regular files (mode 100644, no subfolders):
    ``files`` maps each file name to its bytes. Equal to the tree id in the publisher's commit
    exactly when every name and every byte are the publisher's and no file is missing or extra."""
    if any("/" in n or not n for n in files):
        raise ValueError("git_tree_id takes the plain file names of one folder")
    body = b"".join(
        b"100644 " + n.encode() + b"\0" + bytes.fromhex(git_blob_id(files[n]))
        for n in sorted(files, key=lambda s: s.encode())
    )
    return hashlib.sha1(b"tree %d\0" % len(body) + body).hexdigest()


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


def _mirror_copy_how(name: str) -> str:
    """How a file verified by its module's ``mirror_hash`` was verified, in words."""
    return (
        f"the mirror's copy, pinned by its measured sha256 (datasets/{name}.py; no "
        "publisher hash exists)"
    )


def _remote_url(
    rf: RemoteFile, mirror: str | None, location: tuple[str, str] | None
) -> tuple[str, str, str]:
    """``(url, where, rel)`` of ``rf``: the URL it is fetched from, how messages name that place,
    and its path in the data mirror (``<source>/<fname>``; "" without a mirror)."""
    if location:
        rel = f"{rf.source}/{rf.fname}" if rf.source else rf.fname
        return f"{location[1]}/{rel}", f"mirror {mirror} ({rel})", rel
    return rf.url, rf.url, ""


def _reuse_unpinned(rf: RemoteFile, target: Path, url: str, allow_unpinned: bool) -> bool:
    """For a cached file ``target`` of ``rf``, which has no publisher pin: True when it is used as
    it is (it has the module's ``mirror_hash``, or was taken under the opt-in from ``url`` and its
    sidecar records the sha256 it has); else it and its sidecar are deleted (fetched again)."""
    side = source_path(target)
    recorded, came_from = _recorded_source(side)
    got = file_sha256(target)
    pinned = got == _sha256_of(rf.mirror_hash)
    taken = allow_unpinned and recorded == got and came_from == url
    if (pinned or taken) and side.exists():
        return True  # one of our pins, or taken under the opt-in from this URL
    target.unlink()  # unpinned and from elsewhere (or unrecorded): fetched again below
    side.unlink(missing_ok=True)
    return False


def _choose_pin(
    name: str,
    rf: RemoteFile,
    mirror: str | None,
    rel: str,
    sums: Callable[[], dict[str, str]],
    allow_unpinned: bool,
) -> tuple[str | None, str]:
    """``(known, how)``: the hash pooch checks ``rf`` against (None: none) and how the file is
    verified, in words (its record). Raises :class:`DataUnavailable` for a file with no pin of
    ours without the opt-in ``allow_unpinned``. ``sums()``: the mirror's ``SHA256SUMS``."""
    known = rf.known_hash
    if known:
        return known, f"pinned {known.split(':')[0]} (datasets/{name}.py)"
    if mirror and rf.mirror_hash and not allow_unpinned:
        return rf.mirror_hash, _mirror_copy_how(name)
    listed = sums().get(rel) if mirror else None
    if not allow_unpinned:
        mirror_note = (
            f"; a data mirror's own {MIRROR_SUMS} cannot vouch for it (mirror {mirror} "
            f"{'lists' if listed else 'lists no'} sha256 for it)"
            if mirror
            else ""
        )
        raise DataUnavailable(
            f"{name}: no pinned hash for {rf.fname} (none is published; see the "
            f"datasets package docstring){mirror_note}; refusing an unverified download. "
            "To accept the file as served for one run, add --config "
            "allow_unpinned_downloads=true to the snakemake command line (its sha256 and "
            f"source are then recorded), or pin a hash in datasets/{name}.py"
        )
    known = f"sha256:{listed}" if listed else None
    how = "unpinned: taken as served (allow_unpinned_downloads on the command line)" + (
        f", checked against the sha256 the mirror's {MIRROR_SUMS} lists (no publisher or "
        "project pin)"
        if listed
        else ""
    )
    return known, how


def _retrieve(
    name: str,
    rf: RemoteFile,
    folder: Path,
    url: str,
    where: str,
    rel: str,
    known: str | None,
    root: str | None,
    progressbar: bool,
) -> Path:
    """``rf`` fetched by pooch from ``url`` into ``folder`` (``root``: the folder mirror a local
    file must lie in), checked against ``known``; pooch's errors as :class:`ChecksumError` or
    :class:`DataUnavailable` naming the file and ``where`` it comes from."""
    try:
        path = pooch.retrieve(
            url,
            known_hash=known,
            fname=rf.fname,
            path=folder,
            progressbar=progressbar,
            downloader=bounded_downloader(rf.cap, f"{name}: {rf.fname}", root),
        )
    except DataError:
        raise
    except ValueError as err:
        if known and "does not match the known hash" in str(err):
            raise ChecksumError(f"{name}: checksum mismatch for {where}: {err}") from err
        raise DataUnavailable(f"{name}: could not fetch {where}: {err}") from err
    except OSError as err:  # no network, HTTP error (requests' errors are OSErrors)
        status = getattr(getattr(err, "response", None), "status_code", None)
        lack = f" (HTTP {status}: the mirror has no {rel})" if rel and status == 404 else ""
        raise DataUnavailable(f"{name}: could not download {where}{lack}: {err}") from err
    return Path(path)


def fetch_remote_file(
    name: str,
    rf: RemoteFile,
    folder: Path,
    mirror: str | None,
    location: tuple[str, str] | None,
    sums: Callable[[], dict[str, str]],
    allow_unpinned: bool = False,
    progressbar: bool = False,
) -> Path:
    """One file ``rf`` of dataset ``name``'s download route, fetched (once) into ``folder`` and
    verified, its ``.source`` sidecar written: the step of
    :func:`tripletbench.datasets.base.fetch_download` for one file (see there for the pins, the
    cache and the errors). ``location``: :func:`mirror_location` of the data mirror ``mirror``
    (None: the publisher's URL); ``sums()``: the mirror's ``SHA256SUMS`` (:func:`mirror_sums`),
    read where a file needs it."""
    target = folder / rf.fname
    side = source_path(target)
    url, where, rel = _remote_url(rf, mirror, location)
    if rf.known_hash is None and target.exists():
        if _reuse_unpinned(rf, target, url, allow_unpinned):
            return target
    known, how = _choose_pin(name, rf, mirror, rel, sums, allow_unpinned)
    cached = target.exists() and side.exists()  # pooch re-checks its pin and keeps it
    local = _local_path(url)
    if local is not None and not local.is_file() and not local.is_symlink() and not cached:
        raise DataUnavailable(f"{name}: {where}: no such file ({local})")
    root = location[1] if location and location[0] == "folder" else None
    path = _retrieve(name, rf, folder, url, where, rel, known, root, progressbar)
    if location and known != rf.mirror_hash and file_sha256(path) == _sha256_of(rf.mirror_hash):
        how = _mirror_copy_how(name)  # under the opt-in, the pinned copy all the same
    if not (cached and side.read_text().startswith(file_sha256(path))):
        record = f"{file_sha256(path)}  {rf.fname}  from {url}; {how}"
        print(f"[fetch] {record}")
        save_text(side, record + "\n")  # where it came from, for every row made from it
    return path


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
