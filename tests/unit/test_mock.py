"""The mock provider: a pure function of seed and prompt that plays through the text."""

import json
from random import Random

import pytest
from pdbench.pd.actions import C, D, Turn
from pdbench.pd.agents.prompts import PromptTemplates, render_round, render_system
from pdbench.pd.mock_player import PDMockPlayer
from pdbench.pd.moves import extract_action
from pdbench.pd.payoff import PayoffMatrix
from pdbench.providers.mock import MockProvider

from tests.conftest import CONFIGS

CLASSIC = PayoffMatrix(cc=(3, 3), cd=(0, 5), dc=(5, 0), dd=(1, 1))
TEMPLATES = PromptTemplates.from_files(
    system_path=CONFIGS / "prompts/pd_system.md",
    round_path=CONFIGS / "prompts/pd_round.md",
    persona_path=None,
)


def _prompts(history, *, window=5, matrix=CLASSIC, output_format="token"):
    system = render_system(TEMPLATES, matrix=matrix, side="agent_a", output_format=output_format)
    shown = history[-window:] if window else []
    prompt = render_round(
        TEMPLATES,
        round_index=len(history) + 1,
        turns=shown,
        history_window=window,
        include_totals=True,
        own_total=0,
        opponent_total=0,
        output_format=output_format,
    )
    return system, prompt


def _ask(strategy, history, *, seed=1, invalid_rate=0.0, **kwargs):
    output_format = kwargs.get("output_format", "token")
    mock = MockProvider(
        player=PDMockPlayer(strategy=strategy, output_format=output_format),
        seed=seed,
        invalid_rate=invalid_rate,
    )
    system, prompt = _prompts(history, **kwargs)
    return mock.complete(system=system, prompt=prompt, temperature=0, max_tokens=4)


def test_same_prompt_same_reply_across_instances():
    history = [Turn(C, D, 0, 5), Turn(D, C, 5, 0)]
    replies = {_ask("GTFT", history, seed=4, invalid_rate=0.3) for _ in range(5)}
    assert len(replies) == 1


def test_tft_copies_the_opponents_last_move_from_the_prompt():
    assert _ask("TFT", []) == "C"
    assert _ask("TFT", [Turn(C, C, 3, 3), Turn(C, D, 0, 5)]) == "D"
    assert _ask("TFT", [Turn(C, D, 0, 5), Turn(D, C, 5, 0)]) == "C"


def test_grim_sees_only_what_the_window_shows():
    history = [Turn(C, D, 0, 5), Turn(D, C, 5, 0), Turn(D, C, 5, 0)]
    assert _ask("GRIM", history, window=3) == "D"
    assert _ask("GRIM", history, window=2) == "C"


def test_wsls_reads_its_payoffs_from_the_history_lines():
    assert _ask("WSLS", [Turn(D, C, 5, 0)]) == "D"  # won: stay
    assert _ask("WSLS", [Turn(D, D, 1, 1)]) == "C"  # lost: shift


def _gtft_forgiveness_share(matrix):
    history = [Turn(C, D, 0, 5)]
    replies = [_ask("GTFT", history, seed=s, matrix=matrix) for s in range(600)]
    return replies.count("C") / len(replies)


def test_gtft_reads_the_payoff_table_from_the_system_prompt():
    # classic: generous_prob 1/3 (sd of the share over 600 draws: 0.019)
    assert abs(_gtft_forgiveness_share(CLASSIC) - 1 / 3) < 0.08
    # T = 6: 1 - (T-R)/(R-S) = 0, so no forgiveness at all
    harsh = PayoffMatrix(cc=(3, 3), cd=(0, 6), dc=(6, 0), dd=(1, 1))
    assert _gtft_forgiveness_share(harsh) == 0


def test_invalid_replies_come_at_the_seeded_rate_and_never_parse():
    replies = [_ask("ALLC", [], seed=s, invalid_rate=0.25) for s in range(2000)]
    invalid = [r for r in replies if not extract_action(r).valid]
    # sd of the share over 2000 draws: 0.0097
    assert abs(len(invalid) / len(replies) - 0.25) < 0.04
    assert all(r == "C" for r in replies if r not in invalid)
    for output_format in ("json", "reasoning"):
        assert not any(extract_action(r, output_format=output_format).valid for r in invalid)
    lenient = {r: extract_action(r, output_format="lenient") for r in set(invalid)}
    assert {r: (e.value, e.rule) for r, e in lenient.items() if e.valid} == {
        "I think I will cooperate this time.": ("C", "words")
    }


def test_json_format_replies_are_strict_json():
    reply = _ask("ALLD", [], output_format="json")
    assert json.loads(reply) == {"action": "D"}
    assert extract_action(reply, output_format="json").value == D


def test_unknown_strategy_is_refused():
    with pytest.raises(ValueError, match="unknown strategy"):
        PDMockPlayer(strategy="RANDOM")


def test_the_player_is_separate_from_the_provider():
    class Echo:
        def reply(self, *, system: str, prompt: str, rng: Random) -> str:
            return prompt.upper()

    mock = MockProvider(player=Echo(), seed=0)
    assert mock.complete(system="s", prompt="hi", temperature=0, max_tokens=1) == "HI"
