"""Stated strategies: reading a statement, the tables the mock states, the agent's re-asks."""

from dataclasses import replace

import pytest
from pdbench.pd.agents.llm import LLMAgent
from pdbench.pd.agents.policy import AllD, TitForTat, make_policy
from pdbench.pd.agents.prompts import PromptTemplates, render_strategy, render_system
from pdbench.pd.labels import ActionLabels
from pdbench.pd.mock_player import PDMockPlayer
from pdbench.pd.payoff import PayoffMatrix, PayoffView
from pdbench.pd.plan import MatchPlan
from pdbench.pd.stated_play import opponent_copy, stated_points_per_round
from pdbench.pd.statements import StatedStrategy, is_statement_prompt, parse_statement, policy_table
from pdbench.providers.calls import CallContext
from pdbench.providers.gateway import ProviderGateway
from pdbench.providers.mock import MockProvider

from tests.conftest import CONFIGS

CLASSIC = PayoffMatrix(cc=(3, 3), cd=(0, 5), dc=(5, 0), dd=(1, 1))
TEMPLATES = PromptTemplates.from_files(
    system_path=CONFIGS / "prompts/pd_system.md",
    round_path=CONFIGS / "prompts/pd_round.md",
    persona_path=None,
    strategy_path=CONFIGS / "prompts/pd_strategy.md",
)
TFT_JSON = '{"first": 1, "cc": 1, "cd": 0, "dc": 1, "dd": 0}'


@pytest.mark.parametrize(
    "reply",
    [TFT_JSON, f"```json\n{TFT_JSON}\n```", '{"dd": 0, "dc": 1.0, "cd": 0.0, "cc": 1, "first": 1}'],
    ids=["plain", "fenced", "keys-in-another-order"],
)
def test_a_table_of_five_probabilities_reads_as_the_stated_strategy(reply):
    found = parse_statement(reply)
    assert found.rule == "json_table"
    assert found.value == StatedStrategy(first=1, cc=1, cd=0, dc=1, dd=0)


@pytest.mark.parametrize(
    "reply",
    [
        "TFT",
        '{"first": 1, "cc": 1, "cd": 0, "dc": 1}',  # a key missing
        '{"first": 1, "cc": 1, "cd": 0, "dc": 1, "dd": 0, "ee": 1}',  # a key too many
        '{"first": 1.5, "cc": 1, "cd": 0, "dc": 1, "dd": 0}',  # not a probability
        '{"first": true, "cc": 1, "cd": 0, "dc": 1, "dd": 0}',  # a boolean is not a number
        '{"first": "1", "cc": 1, "cd": 0, "dc": 1, "dd": 0}',  # nor is a string
        f"My strategy: {TFT_JSON}",  # words around the object
        "[1, 1, 0, 1, 0]",
    ],
)
def test_anything_but_the_table_is_invalid(reply):
    assert not parse_statement(reply).valid


def test_the_tables_of_the_policies_are_their_rules():
    view = PayoffView(R=3, S=0, T=5, P=1)
    assert policy_table("TFT", view) == StatedStrategy(1, 1, 0, 1, 0)
    assert policy_table("GRIM", view) == StatedStrategy(1, 1, 0, 0, 0)
    # win-stay (CC: R, DC: T) lose-shift (CD: S, DD: P)
    assert policy_table("WSLS", view) == StatedStrategy(1, 1, 0, 0, 1)
    # GTFT forgives with min(1 - (5 - 3) / (3 - 0), (3 - 1) / (5 - 1)) = min(1/3, 1/2)
    assert policy_table("GTFT", view).cd == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="URND"):
        policy_table("URND", view)


def test_the_strategy_prompt_names_the_labels_and_asks_for_the_table():
    prompt = render_strategy(TEMPLATES, ActionLabels(C="J", D="F"))
    assert "the probability that you choose J" in prompt
    assert "you chose F and the other player chose J" in prompt
    assert is_statement_prompt(prompt)
    assert "{" not in prompt.replace('{"first"', "")  # no placeholder left


def test_the_mock_states_its_own_policy_or_the_planted_one():
    system = render_system(TEMPLATES, matrix=CLASSIC, side="agent_a", output_format="token")
    prompt = render_strategy(TEMPLATES)

    def stated(**settings) -> StatedStrategy | None:
        mock = MockProvider(player=PDMockPlayer(**settings), seed=1)
        return parse_statement(
            mock.complete(system=system, prompt=prompt, temperature=0, max_tokens=80)
        ).value

    assert stated(strategy="GRIM") == StatedStrategy(1, 1, 0, 0, 0)
    assert stated(strategy="GRIM", stated_strategy="ALLC") == StatedStrategy(1, 1, 1, 1, 1)


class Scripted:
    def __init__(self, replies: list[str]) -> None:
        self.replies, self.prompts = list(replies), []

    def complete(self, *, system: str, prompt: str, temperature: float, max_tokens: int) -> str:
        self.prompts.append(prompt)
        return self.replies.pop(0)


def _agent(
    replies: list[str], calls: list[dict], max_retries: int = 2
) -> tuple[LLMAgent, Scripted]:
    provider = Scripted(replies)
    gateway = ProviderGateway(
        client=provider, provider="scripted", model="m", run_id="r", record=calls.append
    )
    context = CallContext(
        game="pd", phase="pd_round", agent="agent_a", match_id="m/0", condition="m", replicate=0
    )
    agent = LLMAgent(
        name="scripted",
        side="agent_a",
        templates=TEMPLATES,
        matrix=CLASSIC,
        gateway=gateway,
        context=context,
        history_window=5,
        max_retries=max_retries,
    )
    return agent, provider


def test_an_invalid_statement_is_asked_again_and_counted():
    calls: list[dict] = []
    agent, provider = _agent(["I play tit for tat.", TFT_JSON], calls)
    statement = agent.state_strategy()
    assert statement.table == StatedStrategy(1, 1, 0, 1, 0)
    assert statement.attempts == 2
    assert provider.prompts[1].startswith("Your previous reply was not a valid strategy table.")
    assert [(c["phase"], c["status"], c["attempt"]) for c in calls] == [
        ("pd_strategy", "invalid", 1),
        ("pd_strategy", "ok", 2),
    ]


def test_a_statement_that_stays_invalid_has_no_table_and_every_attempt():
    calls: list[dict] = []
    agent, _ = _agent(["no", "still no"], calls, max_retries=1)
    statement = agent.state_strategy()
    assert statement.table is None
    assert statement.attempts == 2
    assert statement.raw_responses == ("no", "still no")


def test_an_agent_without_a_strategy_template_is_not_asked():
    calls: list[dict] = []
    agent, _ = _agent([], calls)
    assert agent.elicits_strategy
    plain = replace(TEMPLATES, strategy="")
    other = LLMAgent(
        name="x",
        side="agent_a",
        templates=plain,
        matrix=CLASSIC,
        gateway=agent.gateway,
        context=agent.context,
        history_window=5,
    )
    assert not other.elicits_strategy


def _plan(rounds: int) -> MatchPlan:
    return MatchPlan(
        condition_index=0,
        condition="c",
        replicate=0,
        match_id="c/0",
        match_seed=1,
        planned_rounds=rounds,
    )


@pytest.mark.parametrize("side", ["agent_a", "agent_b"])
def test_a_stated_table_is_played_against_the_opponent_by_hand(side):
    # TFT's table against ALLD over 3 rounds: C then D, D against D, D, D: 0 + 1 + 1 points
    tft = StatedStrategy(1, 1, 0, 1, 0)
    points = stated_points_per_round(
        tft, opponent=AllD(), side=side, plan=_plan(3), payoffs=CLASSIC.table(), seed=7
    )
    assert points == pytest.approx(2 / 3)
    # WSLS's table against TFT: C, C, C: 3 points a round
    wsls = StatedStrategy(1, 1, 0, 0, 1)
    points = stated_points_per_round(
        wsls, opponent=TitForTat(), side=side, plan=_plan(4), payoffs=CLASSIC.table(), seed=7
    )
    assert points == 3.0


def test_the_copy_of_a_random_opponent_draws_what_the_original_draws():
    original = make_policy("URND", payoffs=PayoffView(R=3, S=0, T=5, P=1), coop_prob=0.5)
    original.reset(11)
    copy = opponent_copy(original)
    assert copy is not None
    assert [copy.first_action()] + [copy.next_action("C", "C", 3) for _ in range(30)] == [
        original.first_action()
    ] + [original.next_action("C", "C", 3) for _ in range(30)]
