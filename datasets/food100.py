"""Food-100 (Wilber, Kwak & Belongie, "Cost-effective HITs for relative similarity
comparisons", HCOMP 2014): 100 dish photographs and crowd answers to "which of these grid
images are most similar to the probe?". Human judgments, not a feature table
(``tabular=False``): load it with :func:`load_judgments`.

Sources:

* **download route** (the publisher's archive): ``food100-dataset.zip`` from the publisher's
  page at Cornell, at the URL and with the sha256 pin that cblearn uses
  (``cblearn/datasets/_food_similarity.py``, ``ARCHIVE``; https://github.com/cblearn/cblearn).
  cblearn names the URL with ``http://`` and fetches it without checking the TLS certificate
  (the host's certificate was outdated); we fetch the same URL through pooch and the pin decides
  whether the bytes are the publisher's, whatever the transport.
* **data mirror** (``<mirror>/food/``): a copy of that archive (``food/food100-dataset.zip``,
  verified by the same pin), or its members extracted under ``food/food100-dataset/``, each
  verified by the sha256 the mirror's ``SHA256SUMS`` lists (the archive's pin cannot be checked on
  extracted members; the provenance says which verification was used,
  :func:`tripletbench.datasets.human_judgments.fetch_members`).

Members read (the archive's top folder ``food100-dataset/``): ``images/<id>.jpg`` (the 100
items), ``raw-json/*.json`` (the raw crowd answers), ``all-triplets.csv`` (the publisher's
triplet file, for comparison: :func:`publisher_triplets`) and ``ingredients.json`` (dish names).

Parsing, as the publisher describes it (the archive's ``README.md`` and its
``generate_all_triplets.py``): each raw file is a list of HITs, each HIT a list of 10 grid
screens ``{probe, images, near_answer, is_catchtrial, ...}``; the probe is not among
``images`` (the grid). A screen that is **not** a catch trial gives the triplets
``(probe, b, c)`` for every ``b`` in the set of picked images (``near_answer``) and every ``c``
in the set of grid images not picked: "the probe is closer to b than to c". **Catch trials are
skipped** (the publisher: "since we handpicked them, the example code omits triplets inferred from
catch trials"). Every triplet is kept, repeats included (workers answered overlapping screens):
the publisher counts 250,320 triplets, 190,376 of them unique (README), and so do we on the real
files (``tests/test_human_judgments.py``), whose set equals ``all-triplets.csv``'s. Compare with
that file as a set: its README says it holds 250,320 rows, while cblearn's test of the
publisher's archive reads 190,376 rows from it (the unique count); a mirror's copy regenerated
by ``generate_all_triplets.py`` holds the 250,320.

Items: the image members, sorted by name (``images/<32 hex digits>.jpg``, the id the raw files
and ``all-triplets.csv`` use, and the order cblearn uses). Per-row columns: ``worker`` (the
worker id), ``hit`` (the HIT's number over all files, in file order), ``screen`` (0-9 within
the HIT), ``experiment`` (the raw file's name, e.g. ``grid12force1_rep1``: grid size, number of
images to pick, repetition). Per-item label ``dish`` (the dish name of ``ingredients.json``;
empty for the images it does not annotate).

Item features: the image descriptors every set has
(:data:`tripletbench.datasets.human_features.IMAGE_FEATURE_SETS`) and its own ``"ingredients"``
(:data:`HUMAN_SET`): the dish's recipe ingredients (the archive's ``ingredients.json``: for each
image a dish ``name`` and a list of ``ingredients``, each with a ``name``) as a **binary bag of
words**: scikit-learn's ``CountVectorizer(binary=True)`` with its defaults otherwise
(lower-cased; tokens of two or more word characters, the default ``token_pattern``; no stop
words; every word that occurs at least once), fitted on one document per item, the item's
ingredient names joined by newlines. Entry ``(i, w)`` is 1.0 when word ``w`` occurs in an
ingredient name of item ``i`` (not a count, no tf-idf, no row normalisation). The dish name and
the amounts are not used (the name repeats the ingredients and would bring the dish's title
words in). On the real file 90 of the 100 images have ingredients: 7 entries are ``null`` and 3
dishes have an empty ingredient list; those 10 items get a **row of zeros**
(:func:`ingredient_mask` says which rows are annotated), so their Euclidean distance to a dish
is the square root of that dish's word count (372 words on the real file). Columns are the
vocabulary in ``CountVectorizer``'s sorted order (:func:`ingredient_vocabulary`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .base import DataError, DatasetSpec, RemoteFile
from .human_judgments import (
    ItemImages,
    Judgments,
    MemberStore,
    compare_with_published,
    fetch_either,
    item_index,
    not_tabular,
    triplet_codes,
)
from .human_set import EMBEDDING_LITERATURE, HumanSet, ItemFeatureSet

URL = "http://vision.cornell.edu/se3/wp-content/uploads/2014/09/food100-dataset.zip"
KNOWN_HASH = "sha256:18f5e210174dfdbf6a7b4ed7538cf8ba53fd65e0cbe193519231b8ab4ea8fc62"  # cblearn
ARCHIVE = "food100-dataset.zip"
TOP = "food100-dataset"
SOURCE = "food"  # the folder of a data mirror
N_ITEMS = 100
INGREDIENTS_MEMBER = "ingredients.json"
PUBLISHED_COUNTS = (250_320, 190_376)  # triplets, unique triplets (the publisher's README)


def make_spec(url: str = URL, known_hash: str | None = KNOWN_HASH) -> DatasetSpec:
    """The download spec (another ``url``/``known_hash`` serves tests)."""
    return DatasetSpec(
        name="food100",
        description="Food-100 (Wilber et al. 2014): crowd grid answers over 100 dish photos",
        shape=(N_ITEMS, 0, 0),
        download=(RemoteFile(url, known_hash, ARCHIVE, source=SOURCE),),
        parse_download=not_tabular("food100", "tripletbench.datasets.food100.load_judgments"),
        scale_download=False,
        title="Food-100",
        tabular=False,
    )


SPEC = make_spec()


def _wanted(member: str) -> bool:
    return (
        (member.startswith("images/") and member.lower().endswith(".jpg"))
        or (member.startswith("raw-json/") and member.endswith(".json"))
        or member in ("all-triplets.csv", "ingredients.json")
    )


def screen_triplets(screen: dict) -> list[tuple[str, str, str]]:
    """The triplets ``(probe, near, far)`` of one grid screen, by the publisher's rule: none for
    a catch trial; else every picked image (``near_answer``, as a set) against every grid image
    not picked. Raises :class:`DataError` for a screen that lacks a field or picks an image that
    is not in its grid."""
    try:
        if screen["is_catchtrial"]:
            return []
        grid, near, probe = set(screen["images"]), set(screen["near_answer"]), screen["probe"]
    except (KeyError, TypeError) as err:
        raise DataError(f"a grid screen lacks the field {err}") from None
    if not near <= grid:
        raise DataError(f"a screen picks images that are not in its grid: {sorted(near - grid)}")
    if probe in grid:
        raise DataError(f"a screen's probe {probe} is in its own grid")
    return [(probe, b, c) for b in sorted(near) for c in sorted(grid - near)]


def parse_raw(store: MemberStore) -> dict:
    """Every triplet of the raw answer files of ``store`` (``raw-json/*.json``, in name order):
    ``{"triplets": (n, 3) str ids, "worker", "hit", "screen", "experiment": (n,) arrays,
    "n_screens", "n_catch", "n_hits", "files"}``. Raises :class:`DataError` naming the file
    for one that is not JSON or not a list of HITs."""
    files = [m for m in store.names() if m.startswith("raw-json/") and m.endswith(".json")]
    if not files:
        raise DataError(f"{store.where('raw-json/')}: no raw answer file (raw-json/*.json)")
    rows, worker, hit, screen_no, experiment = [], [], [], [], []
    n_screens = n_catch = n_hits = 0
    for member in files:
        try:
            hits = json.loads(store.read(member).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise DataError(
                f"{store.where(member)}: not a readable JSON file ({err}); corrupt or truncated"
            ) from None
        if not isinstance(hits, list):
            raise DataError(f"{store.where(member)}: expected a list of HITs")
        name = Path(member).stem.removesuffix("_food")
        for h in hits:
            try:
                screens, wid = h["HIT_screens"], h["worker_id"]
            except (KeyError, TypeError) as err:
                raise DataError(f"{store.where(member)}: a HIT lacks the field {err}") from None
            for s_no, s in enumerate(screens):
                n_screens += 1
                try:
                    got = screen_triplets(s)
                except DataError as err:
                    raise DataError(f"{store.where(member)}: HIT {n_hits}: {err}") from None
                n_catch += bool(s["is_catchtrial"])
                rows += got
                worker += [wid] * len(got)
                hit += [n_hits] * len(got)
                screen_no += [s_no] * len(got)
                experiment += [name] * len(got)
            n_hits += 1
    return {
        "triplets": np.asarray(rows, dtype=str).reshape(-1, 3),
        "worker": np.asarray(worker, dtype=np.int64),
        "hit": np.asarray(hit, dtype=np.int64),
        "screen": np.asarray(screen_no, dtype=np.int64),
        "experiment": np.asarray(experiment, dtype=str),
        "n_screens": n_screens,
        "n_catch": n_catch,
        "n_hits": n_hits,
        "files": files,
    }


def publisher_triplets(store: MemberStore) -> np.ndarray:
    """The rows of the publisher's ``all-triplets.csv`` (``"a; b; c"`` per line) as an (n, 3)
    str array of image ids. Raises :class:`DataError` naming the file for a malformed line."""
    where = store.where("all-triplets.csv")
    try:
        lines = store.read("all-triplets.csv").decode("utf-8").splitlines()
    except UnicodeDecodeError as err:
        raise DataError(f"{where}: not UTF-8 text ({err}); corrupt or another file") from None
    fields = [p.strip() for line in lines if line.strip() for p in line.split(";")]
    bad = next((i for i, line in enumerate(lines) if line.strip() and line.count(";") != 2), None)
    if bad is not None:
        raise DataError(f"{where}: line {bad + 1} is not 'a; b; c'")
    return np.asarray(fields, dtype=str).reshape(-1, 3)


def parse(store: MemberStore, provenance: tuple[str, ...] = ()) -> Judgments:
    """The Food-100 judgments of the members in ``store`` (module docstring). Raises
    :class:`DataError` when the archive does not hold 100 images or a triplet names an image it
    lacks."""
    images = [m for m in store.names() if m.startswith("images/") and m.lower().endswith(".jpg")]
    if len(images) != N_ITEMS:
        raise DataError(
            f"{store.where('images/')}: {len(images)} images, expected the publisher's {N_ITEMS}"
        )
    items = np.asarray(sorted(images), dtype=str)
    raw = parse_raw(store)
    triplets = item_index(raw["triplets"], items, f"{store.where('raw-json/')} (the probes)")
    dish = np.full(len(items), "", dtype=object)
    if "ingredients.json" in store.names():
        try:
            annotations = json.loads(store.read("ingredients.json").decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise DataError(f"{store.where('ingredients.json')}: not readable JSON ({err})")
        for i, item in enumerate(items):
            dish[i] = str((annotations.get(Path(item).name) or {}).get("name", ""))
    n_unique = len(np.unique(triplet_codes(triplets, len(items))))
    return Judgments(
        name="food100",
        items=items,
        triplets=triplets,
        counts=None,
        columns={k: raw[k] for k in ("worker", "hit", "screen", "experiment")},
        item_labels={"dish": dish.astype(str)},
        images=ItemImages(store, tuple(items.tolist())),
        provenance=tuple(provenance),
        note=(
            f"Food-100: {len(triplets)} triplets ({n_unique} unique) from "
            f"{raw['n_screens'] - raw['n_catch']} grid screens of {raw['n_hits']} HITs in "
            f"{len(raw['files'])} raw files, {raw['n_catch']} catch-trial screens skipped (the "
            "publisher's rule, generate_all_triplets.py); each screen gives (probe, picked, not "
            f"picked); {len(items)} items"
        ),
    )


def load_store(
    cache_dir: Path,
    mirror: str | None = None,
    allow_unpinned: bool = False,
    spec: DatasetSpec = SPEC,
) -> tuple[MemberStore, tuple[str, ...]]:
    """The archive's members and their provenance: the publisher's archive (pinned, through
    pooch), or a mirror's copy of it, or a mirror's extracted members verified by its
    ``SHA256SUMS`` (:func:`tripletbench.datasets.human_judgments.fetch_either`)."""
    return fetch_either(
        spec,
        TOP,
        _wanted,
        (),
        Path(cache_dir),
        mirror=mirror,
        allow_unpinned=allow_unpinned,
    )


def load_judgments(
    cache_dir: Path,
    mirror: str | None = None,
    allow_unpinned: bool = False,
    spec: DatasetSpec = SPEC,
) -> Judgments:
    """Fetch (once; from ``mirror`` when given) and parse Food-100 (module docstring)."""
    store, provenance = load_store(cache_dir, mirror, allow_unpinned, spec)
    j = parse(store, provenance)
    got = {"triplets": len(j.triplets), "unique triplets": len(j.unique()[0])}
    published = dict(zip(("triplets", "unique triplets"), PUBLISHED_COUNTS))
    return compare_with_published(j, got, published)


# --- the ingredients feature set ---------------------------------------------------------------


def ingredient_documents(judgments: Judgments) -> tuple[list[str], np.ndarray]:
    """``(documents, annotated)``: per item (in item order) its ingredient names joined by
    newlines ("" where ``ingredients.json`` does not annotate the image) and whether it is
    annotated. Raises :class:`DataError` for a collection without ``ingredients.json`` (only
    Food-100 has one) or an unreadable file."""
    store = judgments.images.store
    try:
        data = store.read(INGREDIENTS_MEMBER)
    except DataError as err:  # DataUnavailable included
        raise DataError(
            f"{judgments.name}: no ingredient annotations ({err}); only Food-100 has them"
        ) from None
    try:
        annotations = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DataError(f"{store.where(INGREDIENTS_MEMBER)}: not readable JSON ({err})") from None
    docs, annotated = [], np.zeros(judgments.n_items, dtype=bool)
    for i, member in enumerate(judgments.images.members):
        entry = annotations.get(Path(member).name)
        names = []
        if entry:
            try:
                names = [str(x["name"]) for x in entry.get("ingredients") or [] if x.get("name")]
            except (AttributeError, TypeError, KeyError) as err:
                raise DataError(
                    f"{store.where(INGREDIENTS_MEMBER)}: the entry of {Path(member).name} is not "
                    f"{{'ingredients': [{{'name': ...}}, ...]}} ({err})"
                ) from None
        annotated[i] = bool(names)
        docs.append("\n".join(names))
    return docs, annotated


def _vectorizer():
    from sklearn.feature_extraction.text import CountVectorizer

    return CountVectorizer(binary=True)


def ingredient_features(judgments: Judgments) -> np.ndarray:
    """(n_items, n_words) float64 in {0, 1}: the binary bag of words of each item's ingredient
    names (module docstring); columns in :func:`ingredient_vocabulary` order; unannotated items
    are rows of zeros. Through :func:`tripletbench.datasets.human_features.item_features` with
    ``own=HUMAN_SET.features`` it is computed once per process."""
    docs, _ = ingredient_documents(judgments)
    return _vectorizer().fit_transform(docs).toarray().astype(np.float64)


def ingredient_vocabulary(judgments: Judgments) -> np.ndarray:
    """The words (str) of :func:`ingredient_features`' columns, in order."""
    docs, _ = ingredient_documents(judgments)
    return np.asarray(_vectorizer().fit(docs).get_feature_names_out(), dtype=str)


def ingredient_mask(judgments: Judgments) -> np.ndarray:
    """(n_items,) bool: True where ``ingredients.json`` annotates the item with ingredients."""
    return ingredient_documents(judgments)[1]


def screen_units(judgments: Judgments) -> np.ndarray:
    """(n,) int64: the grid screen each row comes from (a HIT's ``hit`` number and its
    ``screen`` 0-9): the triplets of one screen (probe, each picked image, each image not
    picked) share it."""
    pairs = np.stack([judgments.columns["hit"], judgments.columns["screen"]], axis=1)
    return np.unique(pairs, axis=0, return_inverse=True)[1].ravel().astype(np.int64)


HUMAN_SET = HumanSet(
    name="food100",
    title="Food-100",
    in_text="Food-100",
    cite="Wilber et al. 2014",
    load=load_judgments,
    source=SOURCE,
    mirror_paths=(f"{SOURCE}/{ARCHIVE}", f"{SOURCE}/{TOP}"),
    unit=screen_units,
    unit_words="one grid screen (its triplets)",
    literature=EMBEDDING_LITERATURE,
    features={
        "ingredients": ItemFeatureSet(
            compute=ingredient_features,
            words=(
                "ingredients: binary bag of words of the Food-100 recipe ingredient names "
                "(scikit-learn CountVectorizer, binary=True), {dims} words; unannotated "
                "dishes: zeros"
            ),
            short="the Food-100 recipes' ingredient words as a binary bag of words",
        )
    },
)
"""Food-100 in the human study: the image descriptors and its ingredients; one answer per
screen row, no answer counts, no publisher split."""

__all__ = [
    "HUMAN_SET",
    "PUBLISHED_COUNTS",
    "SPEC",
    "load_judgments",
    "load_store",
    "ingredient_documents",
    "ingredient_features",
    "ingredient_mask",
    "ingredient_vocabulary",
    "make_spec",
    "parse",
    "parse_raw",
    "publisher_triplets",
    "screen_triplets",
]
