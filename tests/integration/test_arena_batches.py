"""Batch mode through the real SDKs against the loopback server's batch APIs: a tournament in
batches equals the same tournament in single calls, at the batch price, with every request
in exactly one batch; requests a batch did not answer (errored, expired, cancelled) are asked
alone; a repeated run is served from the cache and submits nothing."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from pdbench.arena.players import mock_settings
from pdbench.arena.records import ArenaFiles
from pdbench.arena.runner import arena_runtime, run_arena
from pdbench.games import load_config
from pdbench.providers import mock
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.schema import RunFiles

from tests.conftest import write_arena
from tests.servers.wire import Request, WireServer, wire_server

PHASE_FILES = (ArenaFiles.QUESTIONS, ArenaFiles.QUESTION_RATINGS, ArenaFiles.ANSWERS,
               ArenaFiles.JUDGMENTS)  # fmt: skip
PER_CALL = {"timestamp_utc", "latency_ms", "batch_id", "cost_usd"}
PRICES = {"input_per_mtok": 2.0, "output_per_mtok": 8.0}
KEY_ENV = "BATCH_TEST_KEY"
SINGLE = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}
"""The path of a single call, per wire."""


def mock_players(n: int = 3) -> list[dict]:
    """Mock players ``p0``.. whose replies the fake server gives (``p1`` is sometimes
    invalid, so that re-asks go into batches of their own)."""
    return [
        {
            "ref": "agents/arena_player.yaml",
            "overrides": {"name": f"p{i}", "mock": {"answer_skill": 0.9 - 0.2 * i,
                                                   "invalid_rate": 0.25 if i == 1 else 0.0}},
        }
        for i in range(n)
    ]  # fmt: skip


def answerer(project: Path) -> object:
    """The server's replies: player ``p<i>``'s mock answers requests for model ``m-p<i>``."""
    loaded = load_config(write_arena(project / "configs", "mocks.yaml", players=mock_players()))
    config = loaded.config
    mocks = {
        f"m-{p.name}": mock.build(settings=mock_settings(config, i), seed=i)
        for i, p in enumerate(config.players)
    }

    def answer(request: Request) -> str:
        return mocks[request.body["model"]].complete(
            system=request.system, prompt=request.prompt, temperature=0.0, max_tokens=1
        )

    return answer


def remote_arena(project: Path, server: WireServer, *, batch: bool, name: str) -> Path:
    """The tournament of :func:`mock_players` played by ``server``'s models."""
    players = []
    for player in mock_players():
        overrides = player["overrides"]
        players.append(
            {
                "ref": "agents/arena_player.yaml",
                "overrides": {
                    "name": overrides["name"],
                    "provider": server.wire,
                    "model": f"m-{overrides['name']}",
                    "base_url": server.base_url,
                    "api_key_env": KEY_ENV,
                    "batch": batch,
                    "transport": {"max_retries": 0},
                },
            }
        )
    return write_arena(
        project / "configs",
        name,
        players=players,
        cache_path=f"{name}.sqlite",
        prices={f"m-p{i}": PRICES for i in range(3)},
        batches={"poll_interval_s": 0.001, "max_poll_interval_s": 0.002},
    )


def _rows(run_dir: Path, name: str, drop: set[str] = PER_CALL) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in drop} for r in read_jsonl(run_dir / name)]


def _play(config: Path, out: str) -> None:
    loaded = load_config(config)
    run_arena(loaded, output_dir=out, runtime=arena_runtime(loaded.config, sleep=lambda s: None))


def _single_calls(server: WireServer) -> int:
    return sum(r.path.endswith(SINGLE[server.wire]) for r in server.requests)


@pytest.fixture
def keyed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-batch-test")


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_tournament_in_batches_equals_it_in_single_calls_at_half_the_price(
    project: Path, keyed: None, wire: str
):
    with wire_server(wire, answer=answerer(project)) as server:
        server.batches.polls_to_end = 3
        _play(remote_arena(project, server, batch=False, name="single.yaml"), "single")
        single_calls = _single_calls(server)
        assert single_calls > 0 and not server.batches.created
        _play(remote_arena(project, server, batch=True, name="batch.yaml"), "batch")
        assert _single_calls(server) == single_calls, "a batch run made a single call"
        for name in PHASE_FILES:
            assert _rows(project / "batch", name) == _rows(project / "single", name), name
        calls = list(read_jsonl(project / "batch" / RunFiles.CALLS))
        assert _rows(project / "batch", RunFiles.CALLS) == _rows(project / "single", RunFiles.CALLS)
        # every request went into exactly one batch, and every call came from one
        submitted = server.batches.submitted
        assert len(submitted) == len(set(submitted)) == len(calls) == single_calls
        assert {c["batch_id"] for c in calls} == set(server.batches.created)
        # generate, rate, answer, judge and the re-asks and rationales after them
        assert len(server.batches.created) > 4 * 3
        singles = list(read_jsonl(project / "single" / RunFiles.CALLS))
        for in_batch, alone in zip(calls, singles, strict=True):
            assert alone["batch_id"] is None and alone["cost_usd"] > 0
            assert in_batch["cost_usd"] == pytest.approx(alone["cost_usd"] / 2)
        # a repeated run is served from the cache: nothing submitted, nothing called
        created = len(server.batches.created)
        _play(remote_arena(project, server, batch=True, name="batch.yaml"), "again")
        assert len(server.batches.created) == created and _single_calls(server) == single_calls
        again = list(read_jsonl(project / "again" / RunFiles.CALLS))
        assert all(c["cache_hit"] and c["batch_id"] is None for c in again)


def _one_in_four(body: dict) -> bool:
    prompt = str(body["messages"][-1]["content"])
    return hashlib.sha256(prompt.encode()).hexdigest()[0] in "0123"


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_requests_a_batch_failed_are_asked_alone_at_the_list_price(
    project: Path, keyed: None, wire: str
):
    with wire_server(wire, answer=answerer(project)) as server:
        _play(remote_arena(project, server, batch=False, name="single.yaml"), "single")
        before = _single_calls(server)
        server.batches.fails = _one_in_four
        _play(remote_arena(project, server, batch=True, name="batch.yaml"), "batch")
        calls = list(read_jsonl(project / "batch" / RunFiles.CALLS))
        alone = [c for c in calls if c["batch_id"] is None]
        assert 0 < len(alone) < len(calls)
        assert len(alone) == len(server.batches.failed)
        # each failed request was asked once, alone: the server saw exactly those calls
        assert _single_calls(server) - before == len(alone)
        singles = {c["call_id"]: c for c in read_jsonl(project / "single" / RunFiles.CALLS)}
        for call in alone:
            assert call["cost_usd"] == pytest.approx(singles[call["call_id"]]["cost_usd"])
        for name in PHASE_FILES:
            assert _rows(project / "batch", name) == _rows(project / "single", name), name


@pytest.mark.parametrize(("wire", "ending"), [("openai", "expired"), ("anthropic", "cancelled")])
def test_requests_of_an_expired_or_cancelled_batch_are_asked_alone(
    project: Path, keyed: None, wire: str, ending: str
):
    with wire_server(wire, answer=answerer(project)) as server:
        _play(remote_arena(project, server, batch=False, name="single.yaml"), "single")
        before = _single_calls(server)
        server.batches.cut_next, server.batches.cut_as = 10**6, ending
        server.batches.answered_before_cut = 1
        _play(remote_arena(project, server, batch=True, name="batch.yaml"), "batch")
        calls = list(read_jsonl(project / "batch" / RunFiles.CALLS))
        in_batches = [c for c in calls if c["batch_id"] is not None]
        # every batch answered its first request only; the rest were asked alone
        assert len(in_batches) == len(server.batches.created)
        assert _single_calls(server) - before == len(calls) - len(in_batches) > 0
        for name in PHASE_FILES:
            assert _rows(project / "batch", name) == _rows(project / "single", name), name


def test_requests_of_a_batch_that_failed_as_a_whole_are_asked_alone_once(
    project: Path, keyed: None
):
    with wire_server("openai", answer=answerer(project)) as server:
        _play(remote_arena(project, server, batch=False, name="single.yaml"), "single")
        before = _single_calls(server)
        server.batches.cut_next, server.batches.cut_as = 2, "failed"
        _play(remote_arena(project, server, batch=True, name="batch.yaml"), "batch")
        calls = list(read_jsonl(project / "batch" / RunFiles.CALLS))
        alone = [c for c in calls if c["batch_id"] is None]
        # the first two batches (two players' question lists) failed: asked alone, once each
        assert [(c["phase"], c["attempt"]) for c in alone] == [("generate", 1)] * 2
        assert _single_calls(server) - before == 2
        submitted = server.batches.submitted
        assert len(submitted) == len(set(submitted)) == len(calls)
        for name in PHASE_FILES:
            assert _rows(project / "batch", name) == _rows(project / "single", name), name


@pytest.mark.parametrize("phases", [None, ["rate", "judge"]])
def test_mock_players_in_batches_play_the_same_tournament_from_the_command_line(
    project: Path, phases: list[str] | None
):
    from pdbench import cli
    from typer.testing import CliRunner

    batched = [{**p, "overrides": {**p["overrides"], "batch": True}} for p in mock_players()]
    plain = write_arena(project / "configs", "plain.yaml", players=mock_players())
    only = {"batch_phases": phases} if phases else {}
    in_batches = write_arena(project / "configs", "batched.yaml", players=batched, **only)
    for config, out in ((plain, "plain"), (in_batches, "batched")):
        result = CliRunner().invoke(
            cli.app, ["run", str(config), "--output-dir", out, "--no-aggregate"]
        )
        assert result.exit_code == 0, result.stderr
    for name in PHASE_FILES:
        assert _rows(project / "batched", name) == _rows(project / "plain", name), name
    assert _rows(project / "batched", RunFiles.CALLS) == _rows(project / "plain", RunFiles.CALLS)
    calls = list(read_jsonl(project / "batched" / RunFiles.CALLS))
    in_batches = {"generate", "rate", "answer", "judge", "rationale"}
    if phases:
        in_batches = {*phases, "rationale"}
    assert {c["phase"] for c in calls} >= in_batches | {"rate", "answer"}
    for call in calls:
        assert (call["batch_id"] or "").startswith("mockbatch_") == (call["phase"] in in_batches)
    assert not any(c["batch_id"] for c in read_jsonl(project / "plain" / RunFiles.CALLS))
