"""The embedders of :mod:`pdbench.providers.embeddings` without a network."""

from __future__ import annotations

import math

import pytest
from pdbench.providers.embeddings import MockEmbedder, ngram_vector, pooled


def test_a_text_of_one_trigram_is_a_unit_vector_on_one_coordinate():
    # "ab" padded is " ab ": two 3-grams, " ab" and "ab ", each adding 1 to one coordinate
    vector = ngram_vector("AB", dim=64)
    assert sorted(x for x in vector if x) in ([1 / math.sqrt(2)] * 2, [1.0])
    assert math.isclose(sum(x * x for x in vector), 1.0)
    assert ngram_vector("", dim=8) == [0.0] * 8


def test_the_mock_is_deterministic_and_paraphrases_are_closer_than_unrelated_texts():
    embed = MockEmbedder(model="mock-ngram", dim=256).embed
    first, again = (
        embed(["What is the key idea?"]).vectors,
        embed(["What is the key idea?"]).vectors,
    )
    assert first == again
    a, b, c = embed(
        ["Why does claim 12 hold in logic?", "So, why does claim 12 hold in logic?",
         "Describe a sunset over the sea."]
    ).vectors  # fmt: skip
    cos = lambda u, v: sum(x * y for x, y in zip(u, v, strict=True))  # noqa: E731 (unit vectors)
    assert cos(a, b) > 0.85 > 0.5 > cos(a, c)


def test_per_token_vectors_are_averaged_and_a_flat_vector_is_kept():
    assert pooled([[1.0, 2.0], [3.0, 6.0]]) == [2.0, 4.0]
    assert pooled([0.5, -0.5]) == [0.5, -0.5]
    with pytest.raises(ValueError, match="different lengths"):
        pooled([[1.0, 2.0], [3.0]])
