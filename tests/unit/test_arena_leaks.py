"""The identity-leak rule: whole words, any case, names, models, makers and phrases."""

from __future__ import annotations

from pdbench.arena.leaks import SCRUB_TOKEN, LeakRule

PLAYERS = [
    ("atlas", "openai", "gpt-4o-mini"),
    ("borealis", "anthropic", "claude-3-5-haiku"),
    ("cirrus", "mock", "mock-arena"),
]
RULE = LeakRule.for_players(PLAYERS)


def test_a_self_identification_names_the_phrase_and_the_maker():
    check = RULE.check("As an AI developed by OpenAI, I cannot say.")
    assert check.leaked == ("as an ai developed by", "openai")
    assert check.shown == "[redacted] [redacted], I cannot say."


def test_names_and_models_match_in_any_case_on_whole_words_only():
    assert RULE.check("Signed, ATLAS (running on Mock-Arena)").leaked == ("atlas", "mock-arena")
    assert RULE.check("Atlases and cirrusy skies, borealisation").leaked == ()
    assert RULE.check("I am Claude.").leaked == ("claude",)
    assert RULE.check("Compare GPT-4o-mini with gpt.").leaked == ("gpt", "gpt-4o-mini")


def test_makers_count_only_when_a_player_comes_from_them():
    mock_only = LeakRule.for_players([("p0", "mock", "mock-arena")])
    assert mock_only.check("OpenAI and Claude are mentioned here").leaked == ()
    assert mock_only.check("I am a language model.").leaked == ("i am a language model",)
    # a gateway provider: the maker comes from the model's name
    routed = LeakRule.for_players([("p0", "litellm", "anthropic/claude-3-5-haiku")])
    assert routed.check("Claude here, from Anthropic.").leaked == ("anthropic", "claude")


def test_scrubbing_removes_every_match_and_keeps_the_rest():
    check = RULE.check("Step 1: think. I am borealis, made by Anthropic. Thanks.")
    assert check.shown == f"Step 1: think. I am {SCRUB_TOKEN}, made by {SCRUB_TOKEN}. Thanks."
    assert "borealis" not in check.shown.casefold()
    clean = RULE.check("Nothing to see.")
    assert (clean.leaked, clean.shown) == ((), "Nothing to see.")
