"""The human name of every dataset, image set and text notion: the one mapping every figure and
caption title uses (``tripletbench.harness.plots.display_name``)."""

from __future__ import annotations

#: Human names of the datasets, image sets and text notions (the one mapping every figure and
#: caption title uses; a name not listed is shown as it is).
DISPLAY_NAMES = {
    "vehicle": "Vehicle",
    "vowel": "Vowel",
    "letter": "Letter",
    "segment": "Segment",
    "svmguide4": "svmguide4",
    "fashion_mnist": "Fashion-MNIST",
    "emnist": "EMNIST",
    "cifar10_gray": "CIFAR-10 (grey)",
    "lfw": "LFW",
    "fashion_mnist_pixels": "Fashion-MNIST, pixels",
    "fashion_mnist_bovw": "Fashion-MNIST, bag of visual words",
    "webkb_university": "WebKB, University",
    "webkb_topic": "WebKB, Topic",
    "webkb_topic_facultystudent": "WebKB, Topic+FacultyStudent",
    "reuters_topic": "Reuters corn/grain, Topic (stand-in)",
    "reuters_topic_corngrain": "Reuters corn/grain, Topic+FacultyStudent (stand-in)",
}


def display_name(name: str) -> str:
    """The human name of a dataset, image set, notion or method (:data:`DISPLAY_NAMES`, else a
    crowd-sourced set's :attr:`~tripletbench.datasets.human_set.HumanSet.display`, else a
    dataset module's ``SPEC.title``; ``caltech256_N`` = "Caltech-256, N classes"; method names
    are shown as they are)."""
    import re

    m = re.fullmatch(r"caltech256_(\d+)", name)
    if m:
        return f"Caltech-256, {m.group(1)} classes"
    if name in DISPLAY_NAMES:
        return DISPLAY_NAMES[name]
    from tripletbench.datasets import ALL_SPECS, HUMAN_SETS

    if name in HUMAN_SETS:
        return HUMAN_SETS[name].display
    spec = ALL_SPECS.get(name)
    return spec.title if spec is not None and spec.title else name
