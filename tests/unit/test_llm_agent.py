"""The LLM agent's retry path, against a provider that replies from a script."""

import pytest
from pdbench.errors import ProviderError
from pdbench.pd.actions import C, D, Observation, Turn
from pdbench.pd.agents.base import MatchAborted
from pdbench.pd.agents.llm import LLMAgent
from pdbench.pd.agents.prompts import PromptTemplates
from pdbench.pd.payoff import PayoffMatrix
from pdbench.providers.calls import CallContext
from pdbench.providers.gateway import ProviderGateway
from pdbench.providers.retry import RetryPolicy
from pdbench.providers.runtime import ProviderRuntime
from pdbench.storage.schema import CallRecord

from tests.conftest import CONFIGS

CLASSIC = PayoffMatrix(cc=(3, 3), cd=(0, 5), dc=(5, 0), dd=(1, 1))


class ScriptedProvider:
    """Replies from a list, remembers every prompt, and says when the script runs out."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.prompts: list[str] = []

    def complete(self, *, system: str, prompt: str, temperature: float, max_tokens: int) -> str:
        self.prompts.append(prompt)
        if not self.replies:
            raise AssertionError("the scripted provider ran out of replies")
        return self.replies.pop(0)


def _agent(
    provider, calls: list[dict], gateway_options: dict | None = None, **settings
) -> LLMAgent:
    templates = PromptTemplates.from_files(
        system_path=CONFIGS / "prompts/pd_system.md",
        round_path=CONFIGS / "prompts/pd_round.md",
        persona_path=None,
    )
    gateway = ProviderGateway(
        client=provider,
        provider="scripted",
        model="script-1",
        run_id="r",
        record=calls.append,
        **(gateway_options or {}),
    )
    context = CallContext(
        game="pd", phase="pd_round", agent="agent_a", match_id="m/0", condition="m", replicate=0
    )
    return LLMAgent(
        name="scripted",
        side="agent_a",
        templates=templates,
        matrix=CLASSIC,
        gateway=gateway,
        context=context,
        history_window=3,
        **settings,
    )


OBS = Observation(round_index=2, history=[Turn(C, D, 0, 5)], own_total=0, opponent_total=5)


def test_garbage_then_d_is_reasked_with_the_correction_and_counted_valid():
    provider = ScriptedProvider(["I'd rather cooperate", "D"])
    calls: list[dict] = []
    agent = _agent(provider, calls)
    assert agent.act(OBS) == D
    round_prompt = agent.render_round_prompt(OBS)
    assert provider.prompts == [
        round_prompt,
        "Your previous reply was not a valid move.\n\n" + round_prompt,
    ]
    assert [(c["attempt"], c["status"]) for c in calls] == [(1, "invalid"), (2, "ok")]
    assert [c["call_id"] for c in calls] == [
        "pd_round/m/0/2/agent_a/1",
        "pd_round/m/0/2/agent_a/2",
    ]
    assert calls[0]["prompt_sha256"] != calls[1]["prompt_sha256"]
    for call in calls:
        CallRecord.model_validate(call)
    decision = agent.last_decision
    assert (decision.valid, decision.attempts) == (True, 2)
    assert decision.raw_responses == ("I'd rather cooperate", "D")
    assert decision.round_prompt == round_prompt


def test_a_valid_first_reply_is_one_attempt():
    calls: list[dict] = []
    agent = _agent(ScriptedProvider([" c "]), calls)
    assert agent.act(OBS) == C
    assert (agent.last_decision.valid, agent.last_decision.attempts) == (True, 1)
    assert len(calls) == 1


def test_garbage_forever_plays_the_fallback_and_is_recorded_invalid():
    provider = ScriptedProvider(["nope", "still no", "never"])
    calls: list[dict] = []
    agent = _agent(provider, calls, max_retries=2, on_invalid="fallback", fallback_action=C)
    assert agent.act(OBS) == C
    assert (agent.last_decision.valid, agent.last_decision.attempts) == (False, 3)
    assert [c["status"] for c in calls] == ["invalid"] * 3
    assert provider.replies == []


def test_garbage_forever_with_abort_stops_the_match():
    calls: list[dict] = []
    agent = _agent(ScriptedProvider(["x", "y"]), calls, max_retries=1, on_invalid="abort")
    with pytest.raises(MatchAborted, match=r"agent_a .*round 2 after 2 attempts"):
        agent.act(OBS)
    assert len(calls) == 2


def test_zero_retries_means_one_attempt():
    calls: list[dict] = []
    agent = _agent(ScriptedProvider(["x"]), calls, max_retries=0)
    assert agent.act(OBS) == D  # the default fallback
    assert agent.last_decision.attempts == 1


def test_a_failing_provider_is_retried_then_recorded_as_an_error():
    class Broken:
        def complete(self, **_):
            raise TimeoutError("no answer")

    calls: list[dict] = []
    waits: list[float] = []
    runtime = ProviderRuntime(sleep=waits.append)
    agent = _agent(
        Broken(),
        calls,
        gateway_options={"runtime": runtime, "retry": RetryPolicy(max_retries=3)},
    )
    with pytest.raises(ProviderError, match=r"failed after 3 retries: timeout: .*no answer"):
        agent.act(OBS)
    assert len(calls) == 1
    assert (calls[0]["status"], calls[0]["transport_retries"], calls[0]["attempt"]) == (
        "error",
        3,
        1,
    )
    assert "TimeoutError" in calls[0]["error"]
    assert len(waits) == 3


def test_a_fatal_provider_error_is_not_retried():
    class Refused:
        def complete(self, **_):
            raise PermissionError("denied")

    calls: list[dict] = []
    waits: list[float] = []
    agent = _agent(
        Refused(), calls, gateway_options={"runtime": ProviderRuntime(sleep=waits.append)}
    )
    with pytest.raises(ProviderError, match="denied"):
        agent.act(OBS)
    assert waits == []
    assert calls[0]["transport_retries"] == 0
