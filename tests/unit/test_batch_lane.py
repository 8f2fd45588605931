"""The batch lane on a scripted batch client: limits, back-off, outcomes, the batch price."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from pdbench.errors import ProviderError
from pdbench.providers.base import Usage
from pdbench.providers.batch import (
    BatchAnswer,
    BatchFailure,
    BatchItem,
    BatchLimits,
    BatchOutcome,
    split_items,
)
from pdbench.providers.batch_lane import (
    BatchLane,
    BatchPolling,
    BatchRefused,
    Settled,
    Unanswered,
)
from pdbench.providers.calls import CallRequest
from pdbench.providers.pricing import Price, PriceTable
from pdbench.providers.retry import RetryPolicy
from pdbench.providers.runtime import ProviderRuntime


class Scripted:
    """A batch client: each batch ends after ``polls`` status requests; requests whose prompt
    starts with ``fail`` error, those starting with ``lost`` are missing from the results."""

    def __init__(self, *, polls: int = 3, limits: BatchLimits | None = None) -> None:
        self.polls = polls
        self.batch_limits = limits or BatchLimits(max_requests=100, max_bytes=10**6)
        self.batches: dict[str, list[BatchItem]] = {}
        self.status_asked = 0

    def batch_line(self, item: BatchItem) -> dict[str, Any]:
        return {"custom_id": item.custom_id, "prompt": item.request.prompt}

    def submit_batch(self, items: Sequence[BatchItem]) -> str:
        batch_id = f"b{len(self.batches)}"
        self.batches[batch_id] = list(items)
        return batch_id

    def batch_ended(self, batch_id: str) -> bool:
        self.status_asked += 1
        return self.status_asked % self.polls == 0

    def batch_results(self, batch_id: str) -> dict[str, BatchOutcome]:
        outcomes: dict[str, BatchOutcome] = {}
        for item in self.batches[batch_id]:
            prompt = item.request.prompt
            if prompt.startswith("fail"):
                outcomes[item.custom_id] = BatchFailure("errored", "HTTP 500")
            elif not prompt.startswith("lost"):
                usage = Usage(tokens_in=1000, tokens_out=500)
                outcomes[item.custom_id] = BatchAnswer(reply=f"re: {prompt}", usage=usage)
        return outcomes


def _request(prompt: str) -> CallRequest:
    return CallRequest(system="", prompt=prompt, temperature=0.0, max_tokens=8)


def _lane(client: Scripted, sleeps: list[float], **polling: float) -> BatchLane:
    runtime = ProviderRuntime(prices=PriceTable({"m": Price(2.0, 8.0)}), sleep=sleeps.append)
    return BatchLane(
        client=client,  # type: ignore[arg-type]
        provider="openai",
        model="m",
        runtime=runtime,
        polling=BatchPolling(**polling),
        retry=RetryPolicy(max_retries=0),
    )


def test_batches_are_split_at_the_request_and_byte_limits():
    items = [BatchItem(custom_id=f"k{i}", request=_request("x" * 10)) for i in range(7)]
    by_count = Scripted(limits=BatchLimits(max_requests=3, max_bytes=10**6))
    assert [len(b) for b in split_items(items, client=by_count)] == [3, 3, 1]
    line = len('{"custom_id": "k0", "prompt": "xxxxxxxxxx"}') + 1
    by_bytes = Scripted(limits=BatchLimits(max_requests=100, max_bytes=2 * line))
    assert [len(b) for b in split_items(items, client=by_bytes)] == [2, 2, 2, 1]
    assert [i.custom_id for b in split_items(items, client=by_bytes) for i in b] == [
        f"k{i}" for i in range(7)
    ]


def test_polling_backs_off_up_to_its_cap_and_outcomes_are_settled_by_key():
    sleeps: list[float] = []
    client = Scripted(polls=5)
    lane = _lane(client, sleeps, interval_s=1.0, max_interval_s=3.0, price_factor=0.5)
    for key, prompt in (("a", "ask"), ("f", "fail me"), ("l", "lost one")):
        lane.queue(key, _request(prompt))
    submitted: list[str] = []
    ids = lane.submit(on_submitted=submitted.append)
    assert ids == submitted == ["b0"] and lane.queued == 0
    lane.collect(ids)
    assert sleeps == [1.0, 2.0, 3.0, 3.0]
    answered = lane.settled("a")
    assert isinstance(answered, Settled)
    assert (answered.reply, answered.batch_id) == ("re: ask", "b0")
    # the list price is (1000 * 2 + 500 * 8) / 1e6 = 0.006; a batch pays half
    assert answered.usage.cost_usd == pytest.approx(0.003)
    failed = lane.settled("f")
    assert isinstance(failed, Unanswered) and failed.failure.kind == "errored"
    lost = lane.settled("l")  # not in the results of a batch this lane submitted
    assert isinstance(lost, Unanswered) and lost.failure.kind == "missing"


def test_a_request_missing_from_a_batch_a_stopped_run_submitted_goes_into_the_next():
    client = Scripted(polls=1)
    first = _lane(client, [])
    first.queue("l", _request("lost one"))
    first.queue("a", _request("ask"))
    ids = first.submit(on_submitted=lambda batch_id: None)
    resumed = _lane(client, [])  # another process: it knows the batch by its id only
    resumed.collect(ids)
    assert isinstance(resumed.settled("a"), Settled)
    assert resumed.settled("l") is None


def test_a_batch_api_that_keeps_failing_is_one_provider_error():
    class Broken(Scripted):
        def batch_ended(self, batch_id: str) -> bool:
            raise ConnectionError("connection refused")

    lane = _lane(Broken(), [])
    lane.queue("a", _request("ask"))
    ids = lane.submit(on_submitted=lambda batch_id: None)
    with pytest.raises(ProviderError, match=r"^provider 'openai' \(m\) batch API failed: "):
        lane.collect(ids)


def test_a_batch_the_provider_refuses_to_tell_about_is_given_up_on_resume():
    from pdbench.providers.failures import Failure

    class Forgetful(Scripted):
        def batch_ended(self, batch_id: str) -> bool:
            raise LookupError(f"No batch found with id '{batch_id}'")

        def classify_error(self, exc: BaseException) -> Failure:
            return Failure(transient=False, reason="HTTP 404")

    lane = _lane(Forgetful(), [])
    refused = lane.adopt("b7")
    assert refused is not None and refused.startswith("provider 'openai' (m) batch API failed: ")
    assert "No batch found with id 'b7'" in refused

    # a transient failure that outlasts the retries is no reason to give a batch up
    class Down(Scripted):
        def batch_ended(self, batch_id: str) -> bool:
            raise ConnectionError("connection refused")

    with pytest.raises(ProviderError) as stopped:
        _lane(Down(), []).adopt("b7")
    assert not isinstance(stopped.value, BatchRefused)
