"""Material appearance similarity (Lagunas, Malpica, Serrano, Garces, Gutierrez & Masia, "A
similarity measure for material appearance", ACM TOG 38(4), SIGGRAPH 2019): 100 rendered
materials (MERL BRDFs on the Havran shape) and crowd answers to "which of these two candidates
looks more like the reference?", each question answered by several people. Human judgments,
not a feature table (``tabular=False``): load it with :func:`load_judgments`.

Sources (the authors' repository https://github.com/mlagunas/material-appearance-similarity):

* **download route** (the repository archive, as cblearn fetches it): ``ARCHIVE_SPEC``, GitHub's
  archive of the branch ``master`` with the sha256 pin cblearn uses
  (``cblearn/datasets/_material_similarity.py``, ``ARCHIVE``, pinned in 2021;
  https://github.com/cblearn/cblearn). In the snapshot of the repository we read, its only
  branch is ``main`` (two commits of 2024-08-28, the last :data:`COMMIT`), so that URL may no
  longer be served; the pin then refuses whatever else is served there.
* **the repository's files at** :data:`COMMIT` (``SPEC``: what a data mirror holds under
  ``<mirror>/material/``): ``answers_processed_train.json`` and ``answers_processed_test.json``
  (raw files at the commit, pinned by sha256: the sha256 of copies whose git blob ids equal the
  commit's, :data:`GIT_IDS`) and the repository archive at the commit
  ``material-appearance-similarity-<COMMIT>.zip``. No pin exists for an archive's bytes (GitHub
  generates them; a mirror's may be a ``git archive``): from a mirror it is checked against the
  project mirror's copy's sha256 as measured (:data:`MIRROR_ARCHIVE_HASH`; another copy, or one
  from GitHub, only under the ``allow_unpinned_downloads`` opt-in: a mirror's own ``SHA256SUMS``
  cannot vouch for it), and **its image members are checked against the commit's git tree ids**
  (:data:`GIT_IDS`: every name and byte of the image folder, nothing missing or extra), so the
  images are the authors' whichever archive carried them. The provenance says which checks ran.

Members read: ``data/answers_processed_{train,test}.json`` and the images
``data/havran1_ennis_298x298_LDR/<material>.jpg`` (``image_folder``; the authors'
``havran1_stpeters_256x256_LDR`` PNGs show the same 100 materials under another light). Images
are read from the zip in memory, never extracted.

Parsing, as the authors' code reads the files (``losses.py``, ``userstudy_sampling/README.md``):
``answers`` holds one question per row ``[reference, a, b]`` (item indices) and ``agreement``
``[answers for a, answers for b]``; ``answers_diff`` / ``answers_equal`` split them by whether
the counts differ (checked here). Each answered orientation becomes a row: ``(r, a, b)`` with
count ``agreement[0]`` and ``(r, b, a)`` with count ``agreement[1]`` (rows with count 0 are
left out): "r looks more like a than b", answered that many times. On the real files: 22,801
training and 3,000 test questions with 92,892 and 11,800 answers. The **majority answer** of a
question is the orientation with more answers (the authors train and measure agreement on
these, ``answers_diff``: first candidate = majority); ties (1,395 training and 262 test
questions) have none: :meth:`Judgments.majority` per split (:func:`majority`).

Items: the images of ``image_folder`` in the order of the authors' ``utils.load_imgs`` (sorted
file paths, extension included), with which they measure agreement with the answers; ids are the
material names. cblearn sorts the names without the extension, which swaps items 17 and 18
(``chrome-steel``, ``chrome``): "-" sorts before "." but after the end of a name. Which order the
study's indices used is not stated; the authors' user-study code lists image URLs
``havran1_<material>_ennis.jpg``, whose sorted order is the one used here.
Per-row columns: ``split`` ("train"/"test"), ``question`` (the row of the split's ``answers``),
``first`` (True for the orientation ``(r, a, b)`` as stored).
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

import numpy as np

from .base import (
    ChecksumError,
    DataError,
    DatasetSpec,
    DataUnavailable,
    RemoteFile,
    download_provenance,
    fetch_download,
    mirror_location,
    mirror_sums,
)
from .fetch import git_blob_id, git_tree_id
from .human_judgments import (
    ItemImages,
    Judgments,
    MemberStore,
    archive_top,
    compare_with_published,
    not_tabular,
)
from .human_set import HumanSet

REPO = "https://github.com/mlagunas/material-appearance-similarity"
COMMIT = "e5fccab94462f8b245e29818a31e83253369db6e"  # main, 2024-08-28 ("Update README.md")
SOURCE = "material"  # the folder of a data mirror
ARCHIVE_URL = f"{REPO}/archive/refs/heads/master.zip"  # cblearn's URL
ARCHIVE_HASH = "sha256:f0be4d573829fd5e5a7e7b332989545cbf6584eaf25e2555371703a9264f5937"  # cblearn
ARCHIVE_NAME = "material-appearance-similarity-master.zip"
RAW = f"https://raw.githubusercontent.com/mlagunas/material-appearance-similarity/{COMMIT}"
ANSWERS = {  # split -> (file, sha256 of the commit's blob)
    "train": (
        "answers_processed_train.json",
        "eafd46b57a8220d7b650961dd119faabf30424620828eb37a7d00b0390085214",
    ),
    "test": (
        "answers_processed_test.json",
        "8705e1d38f9762da6a66ab4b26fb691aacdea706692ebfe2ef206262de979def",
    ),
}
COMMIT_ARCHIVE = f"material-appearance-similarity-{COMMIT}.zip"
MIRROR_ARCHIVE_HASH = "sha256:b7aab0243f3cf21ba12a2b44b962d52e6db219b85aa7321e8b6d1a5d22d6c222"
"""The mirror's hash of :data:`COMMIT_ARCHIVE` as measured on 2026-11-26, no publisher hash exists
(the project mirror's ``git archive`` of COMMIT; its image members are checked against
:data:`GIT_IDS` anyway)."""
GIT_IDS = {  # path at COMMIT -> git object id (`git ls-tree COMMIT data/`)
    "data/answers_processed_train.json": "e7ae2f74e7f7e8675191ab1fe1398da6f9b1d0d7",
    "data/answers_processed_test.json": "26f67e7dc3dfe40aa7e751a233b10ccf20d67ec9",
    "data/havran1_ennis_298x298_LDR": "cd327eeb58157b916e524d210280d37612c06bd8",
    "data/havran1_stpeters_256x256_LDR": "569f10b5e532ac572c419e292b439cac30015c33",
}
IMAGE_FOLDERS = ("havran1_ennis_298x298_LDR", "havran1_stpeters_256x256_LDR")
N_ITEMS = 100
PUBLISHED_COUNTS = {"train": (22_801, 92_892), "test": (3_000, 11_800)}
"""Questions and answers per split (cblearn's description of the dataset; the real files)."""

_REFUSE = not_tabular(
    "material_similarity", "tripletbench.datasets.material_similarity.load_judgments"
)


def make_spec(raw: str = RAW, archive_url: str = f"{REPO}/archive/{COMMIT}.zip") -> DatasetSpec:
    """The repository's files at :data:`COMMIT` (other URLs serve tests)."""
    return DatasetSpec(
        name="material_similarity",
        description="Material appearance similarity (Lagunas et al. 2019): 2AFC crowd answers",
        shape=(N_ITEMS, 0, 0),
        download=tuple(
            RemoteFile(f"{raw}/data/{f}", f"sha256:{h}", f, source=SOURCE)
            for f, h in ANSWERS.values()
        )
        + (
            RemoteFile(
                archive_url,
                None,
                COMMIT_ARCHIVE,
                source=SOURCE,
                mirror_hash=MIRROR_ARCHIVE_HASH,
            ),
        ),
        parse_download=_REFUSE,
        scale_download=False,
        title="Material similarity",
        tabular=False,
    )


def make_archive_spec(url: str = ARCHIVE_URL, known_hash: str | None = ARCHIVE_HASH):
    """The repository archive as cblearn fetches it (another ``url``/``known_hash`` serves
    tests)."""
    return DatasetSpec(
        name="material_similarity",
        description="Material appearance similarity: the authors' repository archive (cblearn)",
        shape=(N_ITEMS, 0, 0),
        download=(RemoteFile(url, known_hash, ARCHIVE_NAME, source=SOURCE),),
        parse_download=_REFUSE,
        scale_download=False,
        title="Material similarity",
        tabular=False,
    )


SPEC = make_spec()
ARCHIVE_SPEC = make_archive_spec()


def _folder_files(store: MemberStore, folder: str) -> dict[str, str]:
    """file name -> member name of the files directly in ``data/<folder>/`` of ``store``."""
    pre = f"data/{folder}/"
    out = {}
    for m in store.names():
        if m.startswith(pre):
            rest = m[len(pre) :]
            if "/" in rest:
                raise DataError(f"{store.where(m)}: unexpected subfolder in {pre}")
            out[rest] = m
    return out


def check_git_ids(store: MemberStore, folder: str, answers: dict[str, bytes] | None = None):
    """Compare the image folder ``data/<folder>/`` of ``store`` (and the answer files' bytes
    ``answers``: file name -> bytes) with the git ids of :data:`COMMIT`. Returns
    ``{path: True/False}`` (equal or not)."""
    files = _folder_files(store, folder)
    got = {f"data/{folder}": git_tree_id({n: store.read(m) for n, m in files.items()})}
    for name, data in (answers or {}).items():
        got[f"data/{name}"] = git_blob_id(data)
    return {path: GIT_IDS[path] == gid for path, gid in got.items()}


def read_answers(data: bytes, where: str) -> dict:
    """One split's answer file: ``{"answers": (q, 3) int, "agreement": (q, 2) int}`` after
    checking that ``answers_diff`` / ``answers_equal`` (and their agreements) are the rows whose
    counts differ / are equal, in order. Raises :class:`DataError` naming ``where``."""
    try:
        d = json.loads(data.decode("utf-8"))
        answers = np.asarray(d["answers"], dtype=np.int64)
        agreement = np.asarray(d["agreement"], dtype=np.int64)
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        raise DataError(f"{where}: not the authors' answer file ({err}); corrupt or truncated")
    if answers.ndim != 2 or answers.shape[1:] != (3,) or agreement.shape != (len(answers), 2):
        raise DataError(f"{where}: answers {answers.shape} and agreement {agreement.shape}")
    if answers.min() < 0 or answers.max() >= N_ITEMS or (agreement < 0).any():
        raise DataError(f"{where}: an item index outside 0..{N_ITEMS - 1} or a negative count")
    if (agreement.sum(1) == 0).any():
        raise DataError(f"{where}: a question without answers")
    diff = agreement[:, 0] != agreement[:, 1]
    for key, mask in (("diff", diff), ("equal", ~diff)):
        try:
            same = np.array_equal(np.asarray(d[f"answers_{key}"]).reshape(-1, 3), answers[mask])
            same &= np.array_equal(
                np.asarray(d[f"agreement_{key}"]).reshape(-1, 2), agreement[mask]
            )
        except (KeyError, ValueError) as err:
            raise DataError(f"{where}: answers_{key} unreadable ({err})") from None
        if not same:
            raise DataError(f"{where}: answers_{key} are not the rows of answers they name")
    return {"answers": answers, "agreement": agreement}


def parse(
    answers: dict[str, bytes],
    store: MemberStore,
    image_folder: str = IMAGE_FOLDERS[0],
    provenance: tuple[str, ...] = (),
    where: dict[str, str] | None = None,
) -> Judgments:
    """The judgments of the two answer files (``answers``: split -> bytes) over the images of
    ``data/<image_folder>/`` in ``store`` (module docstring). Raises :class:`DataError` for a
    folder without the 100 images."""
    if image_folder not in IMAGE_FOLDERS:
        raise DataError(f"unknown image folder {image_folder!r}; expected one of {IMAGE_FOLDERS}")
    files = _folder_files(store, image_folder)
    if len(files) != N_ITEMS:
        raise DataError(
            f"{store.where(f'data/{image_folder}/')}: {len(files)} images, expected {N_ITEMS}"
        )
    names = sorted(files)  # the authors' utils.load_imgs: sorted paths, extension included
    items = np.asarray([PurePosixPath(n).stem for n in names])
    rows, counts, split, question, first = [], [], [], [], []
    for s in ("train", "test"):
        d = read_answers(answers[s], (where or {}).get(s, ANSWERS[s][0]))
        a, g = d["answers"], d["agreement"]
        if (np.sort(a, axis=1)[:, 1:] == np.sort(a, axis=1)[:, :-1]).any():
            raise DataError(f"{ANSWERS[s][0]}: a question repeats an item")
        both = np.stack([a, a[:, [0, 2, 1]]], axis=1).reshape(-1, 3)
        c = g.reshape(-1)
        keep = c > 0
        rows.append(both[keep])
        counts.append(c[keep])
        split.append(np.full(int(keep.sum()), s))
        question.append(np.repeat(np.arange(len(a)), 2)[keep])
        first.append(np.tile([True, False], len(a))[keep])
    triplets = np.concatenate(rows).astype(np.int64)
    counts_all = np.concatenate(counts).astype(np.int64)
    n_q = {s: int(np.max(q) + 1) if len(q) else 0 for s, q in zip(("train", "test"), question)}
    n_a = {s: int(c.sum()) for s, c in zip(("train", "test"), counts)}
    return Judgments(
        name="material_similarity",
        items=items,
        triplets=triplets,
        counts=counts_all,
        columns={
            "split": np.concatenate(split),
            "question": np.concatenate(question).astype(np.int64),
            "first": np.concatenate(first),
        },
        item_labels={},
        images=ItemImages(store, tuple(files[n] for n in names)),
        provenance=tuple(provenance),
        note=(
            f"material appearance similarity: {n_q['train']} training / {n_q['test']} test "
            f"questions with {n_a['train']} / {n_a['test']} answers; one row per answered "
            f"orientation with its count ({len(triplets)} rows); {N_ITEMS} items "
            f"({image_folder}, the authors' sorted file order)"
        ),
    )


def majority(judgments: Judgments, split: str) -> tuple[np.ndarray, np.ndarray]:
    """The majority triplets of ``split`` and their margins (ties left out):
    :meth:`Judgments.majority` on that split's rows."""
    return judgments.select(judgments.columns["split"] == split).majority()


def _layout(mirror: str | None) -> str:
    """ "archive" (cblearn's pinned archive) or "files" (the files at the commit) for ``mirror``.
    Raises :class:`DataUnavailable` naming what a folder mirror lacks."""
    if mirror is None:
        return "archive"
    kind, base = mirror_location(mirror)
    if kind == "folder":
        if (Path(base) / SOURCE / ARCHIVE_NAME).is_file():
            return "archive"
        folder = Path(base) / SOURCE
        lacking = [
            f"{SOURCE}/{rf.fname}" for rf in SPEC.download if not (folder / rf.fname).is_file()
        ]
        if lacking:
            raise DataUnavailable(
                f"material_similarity: data mirror {mirror} holds neither {SOURCE}/"
                f"{ARCHIVE_NAME} nor all of the repository's files at {COMMIT[:8]}: it lacks "
                f"{', '.join(lacking)}"
            )
        return "files"
    return "archive" if f"{SOURCE}/{ARCHIVE_NAME}" in mirror_sums(mirror) else "files"


def load_judgments(
    cache_dir: Path,
    mirror: str | None = None,
    allow_unpinned: bool = False,
    image_folder: str = IMAGE_FOLDERS[0],
    layout: str | None = None,
    spec: DatasetSpec = SPEC,
    archive_spec: DatasetSpec = ARCHIVE_SPEC,
) -> Judgments:
    """Fetch (once, pooch) and parse (module docstring). ``layout``: "archive" (cblearn's
    pinned archive, from the authors or ``<mirror>/material/``), "files" (the files at
    :data:`COMMIT`, the layout of a data mirror; the archive's image folder must equal the
    commit's git tree, :class:`ChecksumError` otherwise) or None: "archive" without a mirror,
    else whichever the mirror holds."""
    layout = layout or _layout(mirror)
    cache_dir = Path(cache_dir)
    if layout == "archive":
        paths = fetch_download(archive_spec, cache_dir, allow_unpinned, mirror=mirror)
        store = MemberStore("zip", paths[0], archive_top(paths[0]), label=paths[0].name)
        answers = {s: store.read(f"data/{f}") for s, (f, _) in ANSWERS.items()}
        where = {s: store.where(f"data/{f}") for s, (f, _) in ANSWERS.items()}
        ids = check_git_ids(store, image_folder, {f: answers[s] for s, (f, _) in ANSWERS.items()})
        same = all(ids.values())
        provenance = tuple(download_provenance(paths)) + (
            f"{paths[0].name}: answer files and data/{image_folder} "
            + (
                f"equal to the authors' commit {COMMIT[:8]} (git ids)"
                if same
                else f"differ from the authors' commit {COMMIT[:8]} in "
                f"{sorted(p for p, ok in ids.items() if not ok)} (the archive's pin holds)"
            ),
        )
    elif layout == "files":
        paths = fetch_download(spec, cache_dir, allow_unpinned, mirror=mirror)
        by_name = {p.name: p for p in paths}
        archive = by_name[COMMIT_ARCHIVE]
        store = MemberStore("zip", archive, archive_top(archive), label=archive.name)
        answers = {s: by_name[f].read_bytes() for s, (f, _) in ANSWERS.items()}
        where = {s: str(by_name[f]) for s, (f, _) in ANSWERS.items()}
        ids = check_git_ids(store, image_folder)
        if not all(ids.values()):
            raise ChecksumError(
                f"material_similarity: the images data/{image_folder}/ of {archive.name} "
                f"({archive}) are not the authors' (their git tree id differs from commit "
                f"{COMMIT[:8]}'s {GIT_IDS[f'data/{image_folder}']}: a file changed, missing or "
                "added); delete it and fetch it again"
            )
        provenance = tuple(download_provenance(paths)) + (
            f"{archive.name}: data/{image_folder} verified against the authors' commit "
            f"{COMMIT[:8]} (git tree id {GIT_IDS[f'data/{image_folder}'][:12]}: every name and "
            "byte of the folder)",
        )
    else:
        raise DataError(f"unknown layout {layout!r}; expected 'archive' or 'files'")
    j = parse(answers, store, image_folder, provenance, where)
    got, published = {}, {}
    for s, (n_q, n_a) in PUBLISHED_COUNTS.items():
        rows = j.columns["split"] == s
        got[f"{s} questions"] = len(np.unique(j.columns["question"][rows]))
        got[f"{s} answers"] = int(j.counts[rows].sum())
        published.update({f"{s} questions": n_q, f"{s} answers": n_a})
    return compare_with_published(j, got, published)


def question_units(judgments: Judgments) -> np.ndarray:
    """(n,) int64: the question each row answers, a reference and an unordered pair of
    candidates ``(r, {a, b})`` (both orientations and every answer share it:
    :func:`tripletbench.evaluation.human_protocols.question_ids`). On the real files these are
    exactly the publisher's 25,801 (split, question) pairs."""
    from tripletbench.evaluation.human_protocols import question_ids

    return question_ids(judgments.triplets)


HUMAN_SET = HumanSet(
    name="material",
    title="Material appearance",
    in_text="material appearance",
    cite="Lagunas et al. 2019",
    load=load_judgments,
    source=SOURCE,
    mirror_paths=(SOURCE,),  # the files at COMMIT or cblearn's archive (load_judgments)
    counted=True,
    unit=question_units,
    unit_words="one question (every answer to it)",
    publisher_split=(
        f"the publisher's {PUBLISHED_COUNTS['train'][0]:,} training and "
        f"{PUBLISHED_COUNTS['test'][0]:,} test questions"
    ),
)
"""Material appearance in the human study: the image descriptors; rows with answer counts (the
human ceiling) and the authors' train/test split (protocol (d))."""

__all__ = [
    "ARCHIVE_SPEC",
    "COMMIT",
    "GIT_IDS",
    "HUMAN_SET",
    "IMAGE_FOLDERS",
    "PUBLISHED_COUNTS",
    "SPEC",
    "check_git_ids",
    "load_judgments",
    "majority",
    "make_archive_spec",
    "make_spec",
    "parse",
    "read_answers",
]
