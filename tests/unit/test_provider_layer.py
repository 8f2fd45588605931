"""Back-off, error classes, keys and ``.env``, and the concurrent executor."""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

import pytest
from pdbench.providers import keys
from pdbench.providers.failures import Failure, classify_status, parse_retry_after
from pdbench.providers.retry import (
    RetriesExhausted,
    RetryPolicy,
    backoff_delay,
    call_with_retries,
)
from pdbench.run.concurrency import run_concurrently


def test_backoff_doubles_is_capped_and_jittered():
    policy = RetryPolicy(backoff_base_s=1.0, backoff_max_s=5.0)
    rng = random.Random(0)
    for retry, ceiling in ((1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (9, 5.0)):
        delays = {backoff_delay(retry=retry, policy=policy, rng=rng) for _ in range(50)}
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(delays) > 1


def test_retry_after_wins_over_the_backoff():
    policy = RetryPolicy(backoff_base_s=1.0, backoff_max_s=5.0)
    assert backoff_delay(retry=1, policy=policy, rng=random.Random(0), retry_after_s=42.0) == 42.0


def test_retry_after_headers():
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:05 GMT"}, now=1445412480) == 5
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:05 GMT"}, now=0) == 300
    assert parse_retry_after({"retry-after": "nan"}) is None
    assert parse_retry_after({"retry-after": "1e999"}) is None
    assert parse_retry_after({"retry-after-ms": "inf", "retry-after": "2"}) == 2
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after(None) is None


@pytest.mark.parametrize(
    ("status", "transient"),
    [
        (429, True),
        (500, True),
        (503, True),
        (529, True),
        (408, True),
        (400, False),
        (401, False),
        (403, False),
        (404, False),
        (422, False),
    ],
)
def test_status_classes(status: int, transient: bool):
    assert classify_status(status).transient is transient


def test_call_with_retries_counts_and_stops():
    outcomes = [TimeoutError("slow"), ConnectionResetError("reset"), "ok"]
    waits: list[float] = []

    def call() -> str:
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    classify = lambda exc: Failure(True, "transient")  # noqa: E731
    result = call_with_retries(
        call,
        policy=RetryPolicy(max_retries=5),
        classify=classify,
        sleep=waits.append,
        rng=random.Random(1),
    )
    assert result == ("ok", 2) and len(waits) == 2
    with pytest.raises(RetriesExhausted) as caught:
        call_with_retries(
            lambda: (_ for _ in ()).throw(TimeoutError()),
            policy=RetryPolicy(max_retries=2),
            classify=classify,
            sleep=waits.append,
            rng=random.Random(1),
        )
    assert caught.value.retries == 2
    with pytest.raises(RetriesExhausted) as stopped:
        call_with_retries(
            lambda: (_ for _ in ()).throw(TimeoutError()),
            policy=RetryPolicy(max_retries=9),
            classify=classify,
            sleep=waits.append,
            rng=random.Random(1),
            should_stop=lambda: True,
        )
    assert stopped.value.retries == 0


def test_dotenv_parsing_and_no_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    assert keys.parse_dotenv(
        "# comment\nexport A_KEY='quoted value'\nB=plain # note\nnot a pair\nC=\"x=y\"\n"
    ) == {"A_KEY": "quoted value", "B": "plain", "C": "x=y"}
    dotenv = tmp_path / ".env"
    dotenv.write_text("PDB_T_ONE=from-file\nPDB_T_TWO=from-file\n")
    monkeypatch.setenv("PDB_T_ONE", "from-env")
    monkeypatch.delenv("PDB_T_TWO", raising=False)
    keys.load_dotenv(dotenv)
    assert os.environ["PDB_T_ONE"] == "from-env"
    assert os.environ["PDB_T_TWO"] == "from-file"
    monkeypatch.delenv("PDB_T_TWO")


def test_scrub_blanks_keys_handed_out_and_secret_looking_variables(monkeypatch):
    monkeypatch.setenv("PDB_T_SECRET_VALUE", "abc-not-named-like-a-secret")
    monkeypatch.setenv("SOME_SERVICE_API_KEY", "sk-1234567890")
    monkeypatch.setenv("PDB_T_ODD", "odd-name-secret-42")
    assert keys.api_key("PDB_T_ODD") == "odd-name-secret-42"
    text = keys.scrub("keys sk-1234567890 and odd-name-secret-42 and abc-not-named-like-a-secret")
    assert text == "keys *** and *** and abc-not-named-like-a-secret"


def test_run_concurrently_keeps_input_order_and_uses_threads():
    seen_threads: set[str] = set()

    def job(n: int) -> int:
        seen_threads.add(threading.current_thread().name)
        time.sleep(0.02 * (5 - n % 5))  # later items finish first
        return n * n

    done: list[int] = []
    started = time.perf_counter()
    results = run_concurrently(
        list(range(10)), job, max_concurrency=10, on_done=lambda i, _: done.append(i)
    )
    assert results == [n * n for n in range(10)]
    assert done != sorted(done) and sorted(done) == list(range(10))
    assert len(seen_threads) > 1
    assert time.perf_counter() - started < 0.5


def test_the_first_error_cancels_the_rest():
    cancel = threading.Event()
    ran: list[int] = []

    def job(n: int) -> int:
        if n == 0:
            raise ValueError("boom")
        time.sleep(0.01)
        ran.append(n)
        return n

    with pytest.raises(ValueError, match="boom"):
        run_concurrently(list(range(200)), job, max_concurrency=2, cancel=cancel)
    assert cancel.is_set()
    assert len(ran) < 50


def test_one_at_a_time_runs_in_the_calling_thread():
    names = run_concurrently([1, 2], lambda _: threading.current_thread().name, max_concurrency=1)
    assert names == [threading.current_thread().name] * 2
