"""Reuters-21578 (ModApte) corn / grain documents: the offline stand-in for WebKB's text.

Embedded route only: Debian ``weka`` ships ``usr/share/doc/weka/examples/ReutersCorn-train.arff``
and ``-test.arff`` and ``ReutersGrain-...`` (1554 + 604 ModApte documents: a string attribute
``Text`` with the raw article and a 0/1 ``class-att`` flag). The Corn and Grain files hold the
same texts in the same order (checked here: a mismatch raises :class:`DataError`), so each
document has one **topic**: "corn" (corn flag), "grain-not-corn" (grain flag without corn) or
"neither". The ModApte part ("train"/"test") is kept as the label column ``modapte`` (the
protocol draws its own seeded 70/30 split, as the paper did for WebKB).

The ARFF files have string attributes, which ``scipy.io.arff`` cannot read: they are parsed
with ``liac-arff`` (pinned in requirements.txt). There is no download route: the stand-in is
defined by this copy (the original collection is on the UCI KDD archive, in SGML).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tripletbench.optional import require

from .base import DataError, DatasetSpec, EmbeddedFile, fetch_embedded, file_sha256
from .text import TextCorpus

WEKA = "usr/share/doc/weka/examples/"
FILES = {
    "ReutersCorn-train.arff": "1855af1b69c21491a103ae414a1ffe5103c633aa5ad920abde2115aac9f55322",
    "ReutersCorn-test.arff": "e7b3cf0bc83bfa449abeacaef3083e3573f89b4fc2a36111fe59b18ff68e9e33",
    "ReutersGrain-train.arff": "87abc5c45221a5027329912a1ed85d670edf338e696a2a2744893ae71cc2ae1b",
    "ReutersGrain-test.arff": "957e519ba6094b5e1f5aaf0ab4c0829052c8c9b5fd3c586834ddbef77f704cea",
}
N_DOCUMENTS = {"train": 1554, "test": 604}


def _no_download(paths):
    raise DataError("reuters has no download route (the stand-in is the weka copy)")


SPEC = DatasetSpec(
    name="reuters",
    description="Reuters-21578 ModApte corn/grain documents (Debian weka), text stand-in",
    shape=(N_DOCUMENTS["train"] + N_DOCUMENTS["test"], 0, 3),
    download=(),
    parse_download=_no_download,
    scale_download=False,
    embedded=tuple(EmbeddedFile("weka", WEKA + name, sha) for name, sha in FILES.items()),
    parse_embedded=None,
    scale_embedded=False,
    tabular=False,
)


def read_arff_texts(path: Path) -> tuple[list[str], np.ndarray]:
    """(texts, 0/1 int flags) of one weka Reuters ARFF file (liac-arff)."""
    arff = require("arff", "reading the Reuters ARFF files (liac-arff)")

    with open(path, encoding="utf-8") as fh:
        d = arff.load(fh)
    names = [a[0] for a in d["attributes"]]
    if names != ["Text", "class-att"]:
        raise DataError(f"{path.name}: unexpected attributes {names}")
    texts = [row[0] for row in d["data"]]
    flags = np.array([int(row[1]) for row in d["data"]], dtype=np.int64)
    return texts, flags


def parse(paths: list[Path]) -> TextCorpus:
    """The corpus from the four files (in :data:`FILES` order)."""
    by_name = {Path(p).name: Path(p) for p in paths}
    texts, topic, part = [], [], []
    for split in ("train", "test"):
        t_corn, corn = read_arff_texts(by_name[f"ReutersCorn-{split}.arff"])
        t_grain, grain = read_arff_texts(by_name[f"ReutersGrain-{split}.arff"])
        if t_corn != t_grain:
            raise DataError(f"Reuters {split}: the Corn and Grain files hold different texts")
        if len(t_corn) != N_DOCUMENTS[split]:
            raise DataError(
                f"Reuters {split}: {len(t_corn)} documents, expected {N_DOCUMENTS[split]}"
            )
        texts += t_corn
        topic += [
            "corn" if c else ("grain-not-corn" if g else "neither") for c, g in zip(corn, grain)
        ]
        part += [split] * len(t_corn)
    return TextCorpus(
        name="reuters",
        texts=texts,
        labels={"topic": np.array(topic), "modapte": np.array(part)},
        files={p.name: file_sha256(p) for p in paths},
        note="Reuters-21578 ModApte corn/grain documents from Debian weka (stand-in for WebKB)",
    )


def load_corpus(cache_dir: Path) -> TextCorpus:
    """Fetch (``apt-get download weka``, once), verify and parse the embedded copy."""
    return parse(fetch_embedded(SPEC, Path(cache_dir)))
