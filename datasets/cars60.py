"""60 cars (Kleindessner & von Luxburg, "Lens depth function and k-relative neighborhood graph:
versatile tools for ordinal data analysis", JMLR 18(58), 2017): 60 car photographs (Wikimedia
Commons, public domain) and answers to "which of these three is the most central?". Human
judgments, not a feature table (``tabular=False``): load it with :func:`load_judgments`.

Sources:

* **download route** (the authors' archive): ``60_cars_data.zip`` from the authors' page at
  Tübingen, at the URL and with the sha256 pin that cblearn uses
  (``cblearn/datasets/_car_similarity.py``, ``ARCHIVE``; https://github.com/cblearn/cblearn),
  fetched by pooch (the URL is ``http://``; the pin decides whether the bytes are the authors').
* **data mirror** (``<mirror>/cars/``): a copy of the archive (``cars/60_cars_data.zip``, the
  same pin) or its members extracted under ``cars/60_cars_data/``, each verified by the sha256
  the mirror's ``SHA256SUMS`` lists (the archive's pin cannot be checked on extracted members;
  the provenance says which verification was used).

Members read (top folder ``60_cars_data/``): ``survey_data.csv`` (one row per answer: survey
round, the image chosen as most central, the three images shown left/middle/right, response
time in seconds), ``ordinal_data_preprocessed/{ALL,ALL_REDUCED,T_ALL,T_ALL_REDUCED}.csv`` (the
authors' collections of the paper: rows ``i,j,k`` with ``j < k``, "i is the most central of
(i, j, k)"), ``car_data_set_images/<n>.jpg`` (items n = 1..60) and ``README.txt``.

Parsing: a statement "A is the most central object within the triple (A, B, C)"
(``README.txt``) is read as the paper's lens-depth notion: A lies in the lens of B and C, the
pair without A is the farthest apart, d(A, B) <= d(B, C) and d(A, C) <= d(B, C). So **each
answer gives two triplets** ``(B, A, C)`` and ``(C, A, B)``: "B is closer to A than to C" and "C
is closer to A than to B" (anchor = one of the two others, positive = the centre, negative = the
third): the conversion of cblearn's ``triplets_from_mostcentral`` and of the code that reads
these files in mperrot/AddS-Clustering (``resources/car/car_comparisons.py``). Rows are
interleaved per statement: ``2s`` and ``2s + 1`` come from statement ``s``, with B < C by image
number.

Collections (``collection``): ``"ALL"`` (default): every answer of ``survey_data.csv`` (7,097
statements, 14,194 triplets), equal row for row to the authors' ``ALL.csv``; the other three are
read from the authors' files as published: ``T_ALL`` (ALL without the answers of seven survey
rounds, 6,757 statements), ``ALL_REDUCED`` / ``T_ALL_REDUCED`` (one statement per distinct
triple of images: 6,338 / 6,056). On the real files the reduction is the majority answer per
triple with ties going to the lower image number, rows sorted by triple
(:func:`reduce_statements` reproduces both files exactly; the rule is read off the files: the
README does not state it). The paper gives the reasons for the seven rounds; they are not
derived here.

Items: images 1..60 (item index = number - 1), ids ``"1"`` .. ``"60"``. Per-item label
``class``: the four subclasses of the README (ordinary cars, sports cars, off-road/sport utility
vehicles, outliers). Per-row columns: ``statement`` (the statement's row in its file; for ALL the
row of ``survey_data.csv``), and for ALL ``survey_round``, ``response_time`` (seconds) and
``centre_position`` (where the chosen image was shown: 0 left, 1 middle, 2 right).
"""

from __future__ import annotations

import collections
import csv
import io
from pathlib import Path

import numpy as np

from .base import DataError, DatasetSpec, RemoteFile
from .human_judgments import (
    ItemImages,
    Judgments,
    MemberStore,
    compare_with_published,
    fetch_either,
    not_tabular,
)
from .human_set import EMBEDDING_LITERATURE, HumanSet

URL = "http://www.tml.cs.uni-tuebingen.de/team/luxburg/code_and_data/60_cars_data.zip"
KNOWN_HASH = "sha256:5fa2ad932d48adf5cfe36bd16a08b25fd88d1519d974908f6ccbba769f629640"  # cblearn
ARCHIVE = "60_cars_data.zip"
TOP = "60_cars_data"
SOURCE = "cars"  # the folder of a data mirror
N_ITEMS = 60
SURVEY = "survey_data.csv"
SURVEY_HEADER = (
    "survey_round",
    "chosen_center",
    "triplet_object_1",
    "triplet_object_2",
    "triplet_object_3",
    "response_time",
)
COLLECTIONS = ("ALL", "ALL_REDUCED", "T_ALL", "T_ALL_REDUCED")
PUBLISHED_STATEMENTS = {"ALL": 7097, "ALL_REDUCED": 6338, "T_ALL": 6757, "T_ALL_REDUCED": 6056}
"""Rows of the authors' files (``ordinal_data_preprocessed/<collection>.csv``; ALL = the rows of
``survey_data.csv``), as counted on the real files."""
CLASSES = {  # the authors' README.txt, "we divided the car data set into four subclasses"
    "ORDINARY CARS": (2, 6, 7, 8, 9, 10, 11, 12, 16, 17, 25, 32, 35, 36, 37, 38, 39, 41, 44, 45,
                      46, 55, 58, 60),
    "SPORTS CARS": (15, 19, 20, 28, 40, 42, 47, 48, 49, 50, 51, 52, 54, 56, 59),
    "OFF-ROAD/SPORT UTILITY VEHICLES": (1, 3, 4, 5, 13, 14, 18, 22, 24, 26, 27, 29, 31, 33, 34,
                                        43, 57),
    "OUTLIERS": (21, 23, 30, 53),
}  # fmt: skip


def make_spec(url: str = URL, known_hash: str | None = KNOWN_HASH) -> DatasetSpec:
    """The download spec (another ``url``/``known_hash`` serves tests)."""
    return DatasetSpec(
        name="cars60",
        description="60 cars (Kleindessner & von Luxburg 2017): most-central-of-three answers",
        shape=(N_ITEMS, 0, len(CLASSES)),
        download=(RemoteFile(url, known_hash, ARCHIVE, source=SOURCE),),
        parse_download=not_tabular("cars60", "tripletbench.datasets.cars60.load_judgments"),
        scale_download=False,
        title="60 cars",
        tabular=False,
    )


SPEC = make_spec()


def _wanted(member: str) -> bool:
    return (
        member in (SURVEY, "README.txt")
        or (member.startswith("ordinal_data_preprocessed/") and member.endswith(".csv"))
        or (member.startswith("car_data_set_images/") and member.lower().endswith(".jpg"))
    )


def read_survey(store: MemberStore) -> dict:
    """The rows of ``survey_data.csv``: ``{"statements": (n, 3) int (centre, j, k) with j < k,
    "shown": (n, 3) int (left, middle, right), "survey_round": (n,) int, "response_time": (n,)
    float}``, image numbers 1..60. Raises :class:`DataError` naming the file and line for another
    header, a malformed row, a number outside 1..60, a repeated image, or a centre not shown."""
    where = store.where(SURVEY)
    try:
        text = store.read(SURVEY).decode("utf-8")
    except UnicodeDecodeError as err:
        raise DataError(f"{where}: not UTF-8 text ({err}); corrupt or another file") from None
    reader = csv.reader(io.StringIO(text))
    header = tuple(h.strip() for h in next(reader, ()))
    if header != SURVEY_HEADER:
        raise DataError(f"{where}: header {header}, expected {SURVEY_HEADER}")
    statements, shown, rounds, rt = [], [], [], []
    for lineno, row in enumerate(reader, 2):
        if not row or not "".join(row).strip():
            continue
        try:
            if len(row) != 6:
                raise ValueError(f"{len(row)} fields, expected 6")
            r, c, a, b, d = (int(v) for v in row[:5])
            t = float(row[5])
        except ValueError as err:
            raise DataError(f"{where}: line {lineno}: {err}") from None
        three = (a, b, d)
        if len(set(three)) != 3 or c not in three or not all(1 <= v <= N_ITEMS for v in three):
            raise DataError(
                f"{where}: line {lineno}: centre {c} of {three} is not one of three distinct "
                f"images 1..{N_ITEMS}"
            )
        j, k = sorted(set(three) - {c})
        statements.append((c, j, k))
        shown.append(three)
        rounds.append(r)
        rt.append(t)
    return {
        "statements": np.asarray(statements, dtype=np.int64).reshape(-1, 3),
        "shown": np.asarray(shown, dtype=np.int64).reshape(-1, 3),
        "survey_round": np.asarray(rounds, dtype=np.int64),
        "response_time": np.asarray(rt, dtype=np.float64),
    }


def read_collection(store: MemberStore, collection: str) -> np.ndarray:
    """The authors' statements of ``collection`` (``ordinal_data_preprocessed/<name>.csv``):
    (n, 3) int rows ``(i, j, k)``, "i is the most central of (i, j, k)", image numbers 1..60.
    Raises :class:`DataError` naming the file for a malformed row."""
    if collection not in COLLECTIONS:
        raise DataError(f"unknown 60-cars collection {collection!r}; expected one of {COLLECTIONS}")
    member = f"ordinal_data_preprocessed/{collection}.csv"
    rows = []
    text = store.read(member).decode("utf-8", errors="replace")
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            i, j, k = (int(v) for v in line.split(","))
        except ValueError:
            raise DataError(f"{store.where(member)}: line {lineno}: {line[:40]!r} is not i,j,k")
        if len({i, j, k}) != 3 or not all(1 <= v <= N_ITEMS for v in (i, j, k)):
            raise DataError(f"{store.where(member)}: line {lineno}: not three images 1..60")
        rows.append((i, j, k))
    return np.asarray(rows, dtype=np.int64).reshape(-1, 3)


def reduce_statements(statements: np.ndarray) -> np.ndarray:
    """One statement per distinct triple of images: the most frequent answer, ties to the lower
    centre number (the rule that reproduces the authors' ``*_REDUCED.csv`` from ``ALL.csv`` /
    ``T_ALL.csv`` on the real files); rows ``(i, j, k)``, j < k, sorted by the sorted triple."""
    votes: dict[tuple, collections.Counter] = collections.defaultdict(collections.Counter)
    for c, j, k in np.asarray(statements).tolist():
        votes[tuple(sorted((c, j, k)))][c] += 1
    out = []
    for triple in sorted(votes):
        top = max(votes[triple].values())
        c = min(v for v, n in votes[triple].items() if n == top)
        j, k = sorted(set(triple) - {c})
        out.append((c, j, k))
    return np.asarray(out, dtype=np.int64).reshape(-1, 3)


def statement_triplets(statements: np.ndarray) -> np.ndarray:
    """The two triplets of each most-central statement ``(c, j, k)`` (image numbers or indices):
    rows ``(j, c, k)`` and ``(k, c, j)`` (module docstring), interleaved per statement."""
    s = np.asarray(statements, dtype=np.int64).reshape(-1, 3)
    c, j, k = s[:, 0], s[:, 1], s[:, 2]
    return np.stack([np.stack([j, c, k], 1), np.stack([k, c, j], 1)], 1).reshape(-1, 3)


def parse(store: MemberStore, provenance: tuple[str, ...] = (), collection: str = "ALL"):
    """The 60-cars judgments of ``collection`` (module docstring) from the members in
    ``store``. Raises :class:`DataError` when an image 1..60 is missing."""
    images = [f"car_data_set_images/{n}.jpg" for n in range(1, N_ITEMS + 1)]
    present = set(store.names())
    lacking = [m for m in images if m not in present]
    if lacking:
        raise DataError(
            f"{store.where('car_data_set_images/')}: lacks {len(lacking)} of the {N_ITEMS} "
            f"images: {', '.join(lacking[:5])}"
        )
    if collection == "ALL":
        survey = read_survey(store)
        statements = survey["statements"]
        centre_pos = np.argmax(survey["shown"] == statements[:, :1], axis=1)
        per_statement = {
            "survey_round": survey["survey_round"],
            "response_time": survey["response_time"],
            "centre_position": centre_pos.astype(np.int64),
        }
        source = SURVEY
    else:
        statements = read_collection(store, collection)
        per_statement = {}
        source = f"ordinal_data_preprocessed/{collection}.csv"
    per_statement["statement"] = np.arange(len(statements), dtype=np.int64)
    triplets = statement_triplets(statements - 1)
    label = np.empty(N_ITEMS, dtype=object)
    for name, numbers in CLASSES.items():
        label[np.asarray(numbers) - 1] = name
    return Judgments(
        name="cars60",
        items=np.asarray([str(n) for n in range(1, N_ITEMS + 1)]),
        triplets=triplets,
        counts=None,
        columns={k: np.repeat(v, 2) for k, v in per_statement.items()},
        item_labels={"class": label.astype(str)},
        images=ItemImages(store, tuple(images)),
        provenance=tuple(provenance),
        note=(
            f"60 cars, collection {collection} ({source}): {len(statements)} most-central "
            f"statements, each giving two triplets (other, centre, third): {len(triplets)} "
            f"triplets over {N_ITEMS} items"
        ),
    )


def load_store(
    cache_dir: Path,
    mirror: str | None = None,
    allow_unpinned: bool = False,
    spec: DatasetSpec = SPEC,
) -> tuple[MemberStore, tuple[str, ...]]:
    """The archive's members and their provenance (:func:`tripletbench.datasets.human_judgments.
    fetch_either`: the authors' archive, a mirror's copy of it, or its extracted members)."""
    return fetch_either(
        spec, TOP, _wanted, (SURVEY,), Path(cache_dir), mirror=mirror, allow_unpinned=allow_unpinned
    )


def load_judgments(
    cache_dir: Path,
    mirror: str | None = None,
    allow_unpinned: bool = False,
    collection: str = "ALL",
    spec: DatasetSpec = SPEC,
) -> Judgments:
    """Fetch (once; from ``mirror`` when given) and parse the 60 cars (module docstring)."""
    if collection not in COLLECTIONS:
        raise DataError(f"unknown 60-cars collection {collection!r}; expected one of {COLLECTIONS}")
    store, provenance = load_store(cache_dir, mirror, allow_unpinned, spec)
    j = parse(store, provenance, collection)
    statements = {"statements": len(j.triplets) // 2}
    published = {"statements": PUBLISHED_STATEMENTS[collection]}
    return compare_with_published(j, statements, published)


def answer_units(judgments: Judgments) -> np.ndarray:
    """(n,) int64: the answer (statement) each row comes from: its two triplets (other, centre,
    third) share it (the column ``statement``)."""
    return np.asarray(judgments.columns["statement"], dtype=np.int64)


HUMAN_SET = HumanSet(
    name="cars60",
    title="60 cars",
    in_text="the 60 cars",
    cite="Kleindessner & von Luxburg 2017",
    load=load_judgments,
    source=SOURCE,
    mirror_paths=(f"{SOURCE}/{ARCHIVE}", f"{SOURCE}/{TOP}"),
    unit=answer_units,
    unit_words="one answer (its two triplets)",
    literature=EMBEDDING_LITERATURE,
)
"""The 60 cars in the human study: collection ALL, the image descriptors; two triplets per
answer, no answer counts, no publisher split."""

__all__ = [
    "CLASSES",
    "COLLECTIONS",
    "HUMAN_SET",
    "PUBLISHED_STATEMENTS",
    "SPEC",
    "load_judgments",
    "load_store",
    "make_spec",
    "parse",
    "read_collection",
    "read_survey",
    "reduce_statements",
    "statement_triplets",
]
