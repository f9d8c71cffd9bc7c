"""WebKB (CMU "4 Universities" collection): the text data of Schultz & Joachims (2003), section 5.

Download route only (no packaged copy exists): ``webkb-data.gtar.gz`` from the CMU WebKB page,
fetched by pooch. CMU publishes no hash and no byte-identical copy of CMU's archive was found, so
from CMU the file is taken only under the ``allow_unpinned_downloads`` opt-in of
:mod:`tripletbench.datasets.base` (its sha256 then recorded). The project's data mirror holds the same pages
repacked in another archive, pinned here by its sha256 as measured on 2026-11-26
(:data:`MIRROR_HASH`: no publisher hash exists) and accepted from a mirror only with that hash
(:func:`tripletbench.datasets.base.fetch_download`; the log and every row made from it say so). A mirror's own
``SHA256SUMS`` cannot vouch for another archive: that needs the opt-in.

Layout of the archive: ``webkb/<topic>/<university>/<page file>`` with topics course,
department, faculty, other, project, staff, student and universities cornell, texas,
washington, wisconsin and misc (pages of other universities). Each page file is an HTTP
response: MIME header lines, a blank line, then the HTML.

Parsing: the archive is read member by member with :mod:`tarfile` **without extracting it**
(nothing is written to disk, so a hostile member name cannot escape the cache folder); member
names that are absolute or contain ".." are rejected anyway. What of a page file becomes its text
is the **page reading** (:data:`PAGE_READINGS`, :func:`page_text`): the paper says only that its
words are "binary" features "without stemming or stop word removal" (63,949 of them) and that
"pages usually mentioned which university they were from"; it does not say whether the MIME
header, the tags or their attributes count. The readings, from the least to the most of the file:

* ``visible_text``: the text a browser shows (MIME header dropped, tags and their attributes
  removed, script and style skipped);
* ``text_and_header``: the visible text after the MIME header lines (server, date, type);
* ``text_and_attributes``: the visible text plus every tag attribute's value (the URLs of links
  and images: their hosts and paths);
* ``whole_page``: the page file as served, every byte (header, tag names, attributes, text).

Which reading a table uses is a setting of the protocol (``svm.text_features.reading``), chosen by
a measured rule, not by the paper's text (:mod:`tripletbench.harness.svm_experiment`). The paper used the pages
of the topics faculty, student, course and project (its 4,183 pages); pages whose text is empty
under the reading are dropped (counted in ``note``; none on the real archive under any reading).

Labels (one str per page):

* ``topic``: the topic folder (faculty, student, course, project);
* ``university``: the page's university as a web domain. A page of the four named folders gets
  its university's domain (:data:`UNIVERSITY_DOMAINS`: cornell.edu, utexas.edu, washington.edu,
  wisc.edu); a page of "misc" (pages of many other universities) gets the domain of the host in
  its file name (the file name is the page's URL with "/" written "^"), reduced by
  :func:`university_domain` (our rule: the last two labels of the host, or three where the
  second-level label is a generic one such as "ac" or "edu" under a two-letter country code).
  Section 5 of the paper says the University Distance used "webpages from seven universities"
  without naming them; which seven is decided by the protocol (:mod:`tripletbench.harness.svm_experiment`),
  not here. No label merges faculty and student: the Topic+FacultyStudent notion is the topic
  rule plus an extra rule on the topic column (:mod:`tripletbench.harness.svm_experiment`).
"""

from __future__ import annotations

import collections
import dataclasses
import re
import tarfile
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath

import numpy as np

from .base import (
    DataError,
    DatasetSpec,
    RemoteFile,
    download_provenance,
    check_member_size,
    fetch_download,
    file_sha256,
    read_bounded,
    readable,
)
from .text import TextCorpus

URL = "https://www.cs.cmu.edu/afs/cs.cmu.edu/project/theo-20/www/data/webkb-data.gtar.gz"
KNOWN_HASH = None  # not published; see the module docstring
MIRROR_HASH = "sha256:bf8c90c6a1c382a10566240def207c2a71dee6880d835cfbcac1a69ad202002b"
"""The mirror's hash as measured on 2026-11-26, no publisher hash exists: the project's mirror's
``webkb/webkb-data.gtar.gz`` (CMU's 8,282 pages repacked, members sorted, mtime 0)."""
MAX_BYTES = 64 * 2**20  # stated cap on the archive (the mirror's: 11,017,985 bytes)
PAGE_MAX_BYTES = 4 * 2**20  # stated cap on one page (the largest real page: 1,431,045 bytes)
PAGES_MAX_BYTES = 256 * 2**20  # stated cap on all members, decompressed (real: 63,974,694)
MEMBERS_MAX = 100_000  # stated cap on the archive's entries (real: 8,317, pages and folders)
TOPICS = ("faculty", "student", "course", "project")
UNIVERSITIES = ("cornell", "texas", "washington", "wisconsin", "misc")
UNIVERSITY_DOMAINS = {
    "cornell": "cornell.edu",
    "texas": "utexas.edu",
    "washington": "washington.edu",
    "wisconsin": "wisc.edu",
}
_BLANK_LINE = re.compile(r"\r?\n[ \t]*\r?\n")
_GENERIC_SECOND_LEVEL = {"ac", "edu", "co", "or", "ne", "go", "gov", "org", "net", "uni", "gob"}


def make_spec(
    url: str = URL, known_hash: str | None = KNOWN_HASH, mirror_hash: str | None = MIRROR_HASH
) -> DatasetSpec:
    """The download spec (a different ``url``/``known_hash``/``mirror_hash`` serves tests)."""
    return DatasetSpec(
        name="webkb",
        description="WebKB 4 Universities pages (CMU)",
        shape=(4183, 0, 4),
        download=(
            RemoteFile(
                url,
                known_hash,
                "webkb-data.gtar.gz",
                source="webkb",
                mirror_hash=mirror_hash,
                max_bytes=MAX_BYTES,
            ),
        ),
        parse_download=lambda paths: parse_archive(paths[0]),
        scale_download=False,
        tabular=False,
    )


SPEC = make_spec()


PAGE_READINGS = {
    "visible_text": "the visible text (MIME header, tags and attributes dropped)",
    "text_and_header": "the visible text and the MIME header",
    "text_and_attributes": "the visible text and the tags' attribute values (link URLs)",
    "whole_page": "the whole page file as served (MIME header, tags, attributes, text)",
}
"""The readings of a page file (:func:`page_text`), name -> what of the file becomes words."""


class _TextOnly(HTMLParser):
    """The visible text of an HTML document (script and style skipped); with ``attributes``,
    every start tag's attribute values too, in document order."""

    def __init__(self, attributes: bool = False):
        super().__init__(convert_charrefs=True)
        self.parts, self._skip, self._attributes = [], 0, attributes

    def handle_starttag(self, tag, attrs):
        if self._attributes:
            self.parts.extend(v for _, v in attrs if v)
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def page_text(raw: bytes, reading: str = "visible_text") -> str:
    """The text (str, whitespace runs made single spaces) of one WebKB page file (bytes, read as
    latin-1) under ``reading`` (:data:`PAGE_READINGS`). The MIME header ends at the first empty
    line (LF or CRLF line ends); a file whose first block has no header field (Date, Content-Type,
    MIME-Version, Server) has no header. Raises ``ValueError`` for an unknown reading."""
    if reading not in PAGE_READINGS:
        raise ValueError(f"unknown page reading {reading!r}; expected one of {list(PAGE_READINGS)}")
    s = raw.decode("latin-1")
    if reading == "whole_page":
        return re.sub(r"\s+", " ", s).strip()
    # the header ends at the first empty line, whatever the line ends: 2,358 of the 4,199 pages of
    # the four topics end it with CRLF CRLF (as served in 1996-97), the rest with LF LF
    blank = _BLANK_LINE.search(s)
    head, body = (s[: blank.start()], s[blank.end() :]) if blank else ("", s)
    if not blank or not re.search(r"(?im)^(date|content-type|mime-version|server):", head):
        head, body = "", s  # no MIME header
    p = _TextOnly(attributes=reading == "text_and_attributes")
    p.feed(body)
    p.close()
    parts = [head, *p.parts] if reading == "text_and_header" else p.parts
    return re.sub(r"\s+", " ", " ".join(parts)).strip()


def university_domain(host: str) -> str:
    """The university key of a web host (str): lower-cased, port and trailing dot dropped, then
    the last two dot-separated labels ("www.cs.cmu.edu" -> "cmu.edu"), or the last three where
    the top-level label has two letters and the second-level label is generic
    ("www.cs.ox.ac.uk" -> "ox.ac.uk"). A numeric IPv4 host is kept whole. This rule is ours (the
    paper does not say how it told the universities apart). Raises :class:`DataError` for an
    empty host."""
    h = host.strip().lower().split(":")[0].rstrip(".")
    if not h:
        raise DataError(f"WebKB: empty host in {host!r}")
    labels = h.split(".")
    if all(x.isdigit() for x in labels):
        return h
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _GENERIC_SECOND_LEVEL:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def page_university(folder: str, file_name: str) -> str:
    """The university (a domain, str) of a page in ``webkb/<topic>/<folder>/<file_name>``: the
    folder's own university for the four named folders, else the host of the URL that the file
    name spells ("http:^^www.cs.cmu.edu^~avrim^" -> "cmu.edu"). Raises :class:`DataError` when a
    "misc" file name holds no URL."""
    if folder in UNIVERSITY_DOMAINS:
        return UNIVERSITY_DOMAINS[folder]
    m = re.match(r"(?i)^[a-z]+:\^\^([^\^/]+)", file_name)
    if not m:
        raise DataError(f"WebKB: no URL host in the file name {file_name!r} (folder {folder!r})")
    return university_domain(m.group(1))


def parse_archive(path: Path, topics=TOPICS, reading: str = "visible_text") -> TextCorpus:
    """Read the pages of ``topics`` from the archive without extracting it, each page's text
    under ``reading`` (:func:`page_text`). The corpus' ``collection_counts["university"]`` counts
    each university's pages in every class of the archive (other, department and staff
    included): the tie-break of the University notion's seven largest universities
    (:func:`tripletbench.harness.svm_experiment.eligible_items`). Raises :class:`DataError` for an unsafe
    member name, an unknown university folder or no page of ``topics``; ``ValueError`` for an
    unknown reading."""
    if reading not in PAGE_READINGS:
        raise ValueError(f"unknown page reading {reading!r}; expected one of {list(PAGE_READINGS)}")
    texts, topic, univ = [], [], []
    collection = collections.Counter()  # pages per university in every class of the archive
    n_empty = 0
    n_members = total = 0
    with readable(path, "WebKB archive"), tarfile.open(path, mode="r:*") as tar:
        for member in tar:
            n_members += 1
            total += max(member.size, 0)
            if n_members > MEMBERS_MAX or total > PAGES_MAX_BYTES:
                raise DataError(
                    f"WebKB archive {path}: more than {MEMBERS_MAX:,} entries or "
                    f"{PAGES_MAX_BYTES:,} bytes decompressed (the stated caps; the real archive "
                    "has 8,317 and 63,974,694): refusing to read further; delete it and rerun"
                )
            if not member.isfile():
                continue
            name = PurePosixPath(member.name)
            if name.is_absolute() or ".." in name.parts:
                raise DataError(f"WebKB archive: unsafe member name {member.name!r}")
            parts = name.parts
            if len(parts) < 4 or parts[0] != "webkb":
                continue
            if parts[2] not in UNIVERSITIES:
                raise DataError(f"WebKB archive: unknown university folder {parts[2]!r}")
            collection[page_university(parts[2], parts[-1])] += 1
            if parts[1] not in topics:
                continue
            what = f"WebKB archive {path}: page {member.name}"
            check_member_size(member.size, PAGE_MAX_BYTES, what)  # before reading it
            text = page_text(read_bounded(tar.extractfile(member), PAGE_MAX_BYTES, what), reading)
            if not text:
                n_empty += 1
                continue
            texts.append(text)
            topic.append(parts[1])
            univ.append(page_university(parts[2], parts[-1]))
    if not texts:
        raise DataError(f"WebKB archive {path}: no pages of topics {topics}")
    n_univ = len(set(univ))
    return TextCorpus(
        name="webkb",
        texts=texts,
        labels={"topic": np.array(topic), "university": np.array(univ)},
        files={Path(path).name: file_sha256(path)},
        collection_counts={"university": dict(collection)},
        note=(
            f"WebKB pages of {', '.join(topics)}: {len(texts)} pages of {n_univ} universities "
            f"(web domains); {n_empty} empty pages dropped; page reading {reading} "
            f"({PAGE_READINGS[reading]})"
        ),
    )


def load_corpus(
    cache_dir: Path,
    allow_unpinned: bool = False,
    spec: DatasetSpec = SPEC,
    mirror: str | None = None,
    reading: str = "visible_text",
):
    """Download (once, pooch; from ``mirror`` when given) and parse under the page ``reading``
    (:data:`PAGE_READINGS`). The corpus' ``files`` map the archive's name to its provenance line
    (sha256, source, how it was verified). Raises :class:`tripletbench.datasets.base.DataUnavailable` offline,
    or when the file has no hash to check (no pin, no mirror listing) and ``allow_unpinned`` is
    False."""
    paths = fetch_download(spec, Path(cache_dir), allow_unpinned=allow_unpinned, mirror=mirror)
    corpus = parse_archive(paths[0], reading=reading)
    return dataclasses.replace(corpus, files={paths[0].name: download_provenance(paths)[0]})
