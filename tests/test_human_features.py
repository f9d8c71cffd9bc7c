"""Features of the human-judgment items (:mod:`tripletbench.datasets.human_features`, Food-100's
own ingredients in :mod:`tripletbench.datasets.food100`) on the
real images of ``../shared/mirror``: shapes, finiteness, rows in the collections' item order
(the indices the triplets use), and rows equal to the library calls made by hand on the files
the item ids name.

Skipped where no mirror folder stands beside the checkout (as tests/test_human_judgments.py).
"""

import io
import json
import zipfile

import numpy as np
import pytest
from conftest import ROOT
from PIL import Image
from skimage.color import rgb2gray
from skimage.feature import hog
from sklearn.feature_extraction.text import CountVectorizer

from tripletbench.datasets import cars60, food100
from tripletbench.datasets import human_features as hf
from tripletbench.studies.human import captions
from tripletbench.studies.human.sets import item_features
from tripletbench.datasets import material_similarity as material
from tripletbench.datasets.base import DataError
from tripletbench.datasets.global_descriptor import descriptor_from_bytes

MIRROR = ROOT.parent / "shared" / "mirror"
pytestmark = pytest.mark.skipif(
    not (MIRROR / "SHA256SUMS").is_file(), reason="no data mirror beside the checkout"
)


@pytest.fixture(scope="module")
def food(tmp_path_factory):
    return food100.load_judgments(tmp_path_factory.mktemp("food"), mirror=str(MIRROR))


@pytest.fixture(scope="module")
def cars(tmp_path_factory):
    return cars60.load_judgments(tmp_path_factory.mktemp("cars"), mirror=str(MIRROR))


@pytest.fixture(scope="module")
def mat(tmp_path_factory):
    return material.load_judgments(tmp_path_factory.mktemp("material"), mirror=str(MIRROR))


def _file_of_item(judgments, i: int) -> bytes:
    """The bytes of item ``i``'s image, found from the item's id alone (not through the
    module's member list): the publishers' file naming."""
    item = str(judgments.items[i])
    if judgments.name == "food100":
        return (MIRROR / "food" / "food100-dataset" / item).read_bytes()
    if judgments.name == "cars60":
        return (
            MIRROR / "cars" / "60_cars_data" / "car_data_set_images" / f"{item}.jpg"
        ).read_bytes()
    archive = MIRROR / "material" / material.COMMIT_ARCHIVE
    top = archive.name[: -len(".zip")]
    with zipfile.ZipFile(archive) as zf:
        return zf.read(f"{top}/data/{material.IMAGE_FOLDERS[0]}/{item}.jpg")


def _hog_by_hand(data: bytes) -> np.ndarray:
    """HOG as the module's docstring states it, written out with the library calls."""
    with Image.open(io.BytesIO(data)) as im:
        small = im.convert("RGB").resize((64, 64), Image.Resampling.BICUBIC)
    return hog(
        rgb2gray(np.asarray(small)),
        orientations=9,
        pixels_per_cell=(8, 8),
        cells_per_block=(2, 2),
        block_norm="L2-Hys",
        transform_sqrt=False,
        feature_vector=True,
    )


def _probe_items(judgments) -> list[int]:
    """The three items of the first triplet, and the first and last item."""
    return sorted({*judgments.triplets[0].tolist(), 0, judgments.n_items - 1})


@pytest.mark.slow
@pytest.mark.parametrize("name", ["food", "cars", "mat"])
def test_hog_rows_are_the_library_call_on_the_file_each_item_id_names(name, request):
    j = request.getfixturevalue(name)
    X = hf.hog_features(j)
    assert X.shape == (j.n_items, 1764) == (j.n_items, hf.hog_dims())
    assert X.dtype == np.float64 and np.isfinite(X).all() and not X.flags.writeable
    assert j.triplets.max() < len(X)  # every triplet index names a row
    assert len(np.unique(X.round(12), axis=0)) == j.n_items  # no two items alike
    assert hf.item_features(j, "hog") is X  # cached in memory: the same array
    for i in _probe_items(j):
        np.testing.assert_array_equal(X[i], _hog_by_hand(_file_of_item(j, i)))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["food", "cars", "mat"])
def test_global_rows_are_the_projects_descriptor_of_the_file_each_item_id_names(name, request):
    j = request.getfixturevalue(name)
    X = hf.global_features(j)
    assert X.shape == (j.n_items, 297) and X.dtype == np.float64 and np.isfinite(X).all()
    assert len(np.unique(X.round(12), axis=0)) == j.n_items
    for i in _probe_items(j):
        np.testing.assert_array_equal(X[i], descriptor_from_bytes(_file_of_item(j, i)))
    # the four parts' histograms sum to 1 per row (colour 72 bins, edge 37, LBP 59)
    np.testing.assert_allclose(X[:, :72].sum(1), 1.0)
    np.testing.assert_allclose(X[:, 81:118].sum(1), 1.0)
    np.testing.assert_allclose(X[:, 238:].sum(1), 1.0)


def test_food100_ingredients_bag_of_words(food):
    """Binary CountVectorizer on each item's ingredient names (from ingredients.json, looked up
    by the item id's file name), zeros where no ingredients are annotated (10 of 100 items).
    """
    B = hf.item_features(food, "ingredients", own=food100.HUMAN_SET.features)
    assert item_features("food100", food, "ingredients") is B  # cached per process
    vocab = food100.ingredient_vocabulary(food)
    mask = food100.ingredient_mask(food)
    assert B.shape == (100, len(vocab)) == (100, 372) and B.dtype == np.float64
    assert set(np.unique(B)) == {0.0, 1.0}
    assert mask.sum() == 90 and (B[~mask] == 0).all() and (B[mask].sum(1) > 0).all()
    annotations = json.loads((MIRROR / "food/food100-dataset/ingredients.json").read_text())
    docs = []
    for item in food.items:
        entry = annotations[item.split("/")[-1]] or {}
        docs.append("\n".join(x["name"] for x in entry.get("ingredients", [])))
    cv = CountVectorizer(binary=True)
    by_hand = cv.fit_transform(docs).toarray()
    np.testing.assert_array_equal(B, by_hand)
    assert vocab.tolist() == cv.get_feature_names_out().tolist()
    i = int(food.triplets[0, 0])  # a probe's row holds the words of its own dish
    first = annotations[food.items[i].split("/")[-1]]
    if first and first["ingredients"]:
        word = cv.build_analyzer()(first["ingredients"][0]["name"])[0]
        assert B[i, vocab.tolist().index(word)] == 1.0
    assert food100.HUMAN_SET.feature_sets == ("global", "hog", "ingredients")


def test_only_food100_has_ingredients_and_unknown_sets_are_refused(cars):
    assert cars60.HUMAN_SET.feature_sets == ("global", "hog")
    with pytest.raises(DataError, match="only Food-100"):
        food100.ingredient_features(cars)
    with pytest.raises(ValueError, match="unknown feature set 'ingredients'; it has global, hog"):
        item_features("cars60", cars, "ingredients")
    with pytest.raises(ValueError, match="unknown feature set"):
        hf.item_features(cars, "sift")
    words = captions.feature_set_words("hog")
    assert "Dalal & Triggs" in words and "1764" in words
