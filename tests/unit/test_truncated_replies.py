"""A reply cut at the token limit: never a PD move, a flagged arena answer, a flagged call."""

from random import Random

from pdbench.arena.phases import read_answer
from pdbench.arena.tasks import CallTask, PlayerClient, ask
from pdbench.pd.actions import C, D, Observation, Turn
from pdbench.providers.base import Usage
from pdbench.providers.gateway import ProviderGateway
from pdbench.providers.mock import MockProvider

from tests.unit.test_llm_agent import _agent

# SmolLM2's reply through llama.cpp, cut at the token limit: a history echo, not a move
ECHO = "You chose D, the other player played D; you got 1."
OBS = Observation(round_index=2, history=[Turn(D, D, 1, 1)], own_total=1, opponent_total=1)


class CutProvider:
    """Replies from a script of ``(text, finish_reason)``, reporting how each ended."""

    def __init__(self, script: list[tuple[str, str]]) -> None:
        self.script = list(script)
        self.last_usage: Usage | None = None

    def complete(self, *, system: str, prompt: str, temperature: float, max_tokens: int) -> str:
        text, finish_reason = self.script.pop(0)
        self.last_usage = Usage(tokens_in=10, tokens_out=max_tokens, finish_reason=finish_reason)
        return text


def test_the_lenient_words_rule_reads_the_echo_as_a_move_when_it_is_whole():
    calls: list[dict] = []
    agent = _agent(CutProvider([(ECHO, "stop")]), calls, output_format="lenient")
    assert agent.act(OBS) == D
    assert [(c["status"], c["parse_rule"], c["truncated"]) for c in calls] == [
        ("ok", "words", False)
    ]


def test_a_truncated_history_echo_is_not_a_move_and_is_asked_again():
    calls: list[dict] = []
    provider = CutProvider([(ECHO, "length"), ("C", "stop")])
    agent = _agent(provider, calls, output_format="lenient")
    assert agent.act(OBS) == C
    assert [(c["attempt"], c["status"], c["parse_rule"], c["truncated"]) for c in calls] == [
        (1, "invalid", None, True),
        (2, "ok", "token", False),
    ]
    decision = agent.last_decision
    assert (decision.valid, decision.attempts, decision.truncated) == (True, 2, True)
    assert decision.raw_responses == (ECHO, "C")


def test_replies_cut_at_every_attempt_play_the_fallback():
    calls: list[dict] = []
    provider = CutProvider([(ECHO, "length"), ("C", "length"), ("**D**", "length")])
    agent = _agent(provider, calls, output_format="lenient", max_retries=2, fallback_action=C)
    assert agent.act(OBS) == C  # the configured fallback, not the D the replies name
    decision = agent.last_decision
    assert (decision.valid, decision.attempts, decision.truncated) == (False, 3, True)
    assert [c["status"] for c in calls] == ["invalid"] * 3


def test_a_cut_answer_is_kept_and_flagged_truncated():
    script = CutProvider([("The answer is 4, because two and two make", "length")])
    calls: list[dict] = []
    gateway = ProviderGateway(
        client=script, provider="mock", model="m", run_id="r", record=calls.append
    )
    task = CallTask(phase="answer", player="p1", prompt="2 + 2?", max_tokens=10, item_id="a_1")
    outcome = ask(
        task,
        client=PlayerClient(gateway=gateway, temperature=0.0),
        read=read_answer,
        max_retries=2,
    )
    assert (outcome.is_valid, len(outcome.attempts)) == (True, 1)
    assert outcome.recorded.truncated is True
    assert [(c["status"], c["truncated"]) for c in calls] == [("ok", True)]


class Echo:
    def reply(self, *, system: str, prompt: str, rng: Random) -> str:
        return "C"


def test_the_mock_cuts_a_reply_drawn_to_run_long_at_max_tokens():
    always = MockProvider(player=Echo(), seed=1, truncated_rate=1.0)
    prompt = "Round 2.\n\nRound 1: you played D, the other player played D; you got 1, they got 1."
    reply = always.complete(system="", prompt=prompt, temperature=0, max_tokens=4)
    # 4 tokens of 4 characters: the first 16 characters of the echoed prompt
    assert reply == "Round 2.\n\nRound "
    assert always.last_usage is not None and always.last_usage.finish_reason == "length"
    # room for the echo and the move: nothing is cut
    roomy = always.complete(system="", prompt="Round 1.", temperature=0, max_tokens=16)
    assert roomy == "Round 1.\nC" and always.last_usage.finish_reason == "stop"
    never = MockProvider(player=Echo(), seed=1)
    assert never.complete(system="", prompt=prompt, temperature=0, max_tokens=4) == "C"
    assert never.last_usage is not None and never.last_usage.finish_reason == "stop"
