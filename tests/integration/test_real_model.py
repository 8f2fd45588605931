"""A real model end to end: SmolLM2-135M-Instruct behind llama.cpp's OpenAI-compatible server,
played through the real OpenAI SDK, then the marts built.

Nothing about the model's replies is assumed. A recording proxy between pdbench and the server
keeps every request and response, and the tests check what must hold for any model: every
attempt is a line of ``calls.jsonl`` with the server's token counts, every reply is stored
verbatim, each recorded move or score is what the documented extraction rules give on the
stored reply (recomputed here), invalid replies count as invalid, a cached re-run makes no
call, and the marts build.

Installed by ``uv sync --group local-model`` (llama.cpp is compiled, minutes); skipped
without it outside CI, failed without it in CI (``tests/needs.py``).
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections import Counter, defaultdict
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import duckdb
import pytest
import yaml
from pdbench.aggregate import aggregate_run
from pdbench.arena.marts import ArenaMart
from pdbench.arena.records import ArenaFiles
from pdbench.arena.scores import extract_score
from pdbench.games import load_config
from pdbench.pd.experiment import run_experiment
from pdbench.pd.moves import extract_action
from pdbench.pd.records import PDFiles
from pdbench.providers.calls import prompt_sha256
from pdbench.replies import INVALID
from pdbench.storage.schema import RunFiles

from tests.conftest import write_arena
from tests.servers.llama import MODEL, llama_server

TIMES = {"timestamp_utc", "started_at", "finished_at", "latency_ms"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama.cpp's server with SmolLM2; yields its base URL."""
    with llama_server(tmp_path_factory.mktemp("model_server") / "server.log") as url:
        yield url


class RecordingProxy:
    """Forwards every request to ``upstream`` and keeps (request, response) JSON pairs."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.removesuffix("/v1")
        self.exchanges: list[tuple[dict, dict]] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                request = urllib.request.Request(
                    proxy.upstream + self.path,
                    data=body,
                    headers={"content-type": "application/json"},
                )
                try:
                    with urllib.request.urlopen(request, timeout=300) as upstream:
                        status, payload = upstream.status, upstream.read()
                except urllib.error.HTTPError as err:
                    status, payload = err.code, err.read()
                if status == 200:
                    proxy.exchanges.append((json.loads(body), json.loads(payload)))
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def seen(self) -> Counter[tuple[str, str, int, int]]:
        """(prompt sha256, reply, tokens in, tokens out) of every answered request."""
        seen: Counter[tuple[str, str, int, int]] = Counter()
        for request, response in self.exchanges:
            messages = {m["role"]: m["content"] for m in request["messages"]}
            usage = response["usage"]
            seen[
                (
                    prompt_sha256(messages["system"], messages["user"]),
                    response["choices"][0]["message"]["content"] or "",
                    usage["prompt_tokens"],
                    usage["completion_tokens"],
                )
            ] += 1
        return seen


@pytest.fixture
def proxy(server: str) -> Iterator[RecordingProxy]:
    recorder = RecordingProxy(server)
    yield recorder
    recorder.close()


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _pd_config(project: Path, base_url: str) -> Path:
    smollm2 = {
        "ref": "agents/llm_default.yaml",
        "overrides": {
            "provider": "openai",
            "model": MODEL,
            "base_url": base_url,
            "temperature": 0.7,
            "max_tokens": 24,
            "max_retries": 1,
            "output_format": "lenient",
            "on_invalid": "fallback",
            "fallback_action": "D",
        },
    }
    experiment = {
        "run_id": "real-model",
        "seed": 3,
        "replicates": 1,
        "store_prompts": True,
        "max_concurrency": 1,
        "cache_path": str(project / "cache.sqlite"),
        "horizon": {"type": "fixed", "n": 3},
        "conditions": [
            {
                "name": "smollm2_vs_tft",
                "agent_a": smollm2,
                "agent_b": {"ref": "agents/policies.yaml", "overrides": {"policy": "TFT"}},
            },
            {"name": "smollm2_vs_smollm2", "agent_a": smollm2, "agent_b": smollm2},
        ],
    }
    path = project / "configs" / "real_model.yaml"
    path.write_text(yaml.safe_dump(experiment, sort_keys=False), encoding="utf-8")
    return path


def _pd_recorded(run_dir: Path) -> Counter[tuple[str, str, int, int]]:
    """(prompt sha256, reply, tokens) of every call, the reply taken from rounds.jsonl."""
    calls: dict[tuple[str, int, str], list[dict]] = defaultdict(list)
    for call in _lines(run_dir / RunFiles.CALLS):
        calls[call["match_id"], call["round_index"], call["agent"]].append(call)
    recorded: Counter[tuple[str, str, int, int]] = Counter()
    for row in _lines(run_dir / PDFiles.ROUNDS):
        for side, replies in row["raw_responses"].items():
            attempts = sorted(calls[row["match_id"], row["round_index"], side], key=_attempt)
            assert len(attempts) == len(replies) == row[f"{side}_attempts"]
            for call, reply in zip(attempts, replies, strict=True):
                recorded[call["prompt_sha256"], reply, call["tokens_in"], call["tokens_out"]] += 1
    return recorded


def _attempt(call: dict) -> int:
    return call["attempt"]


def test_a_pd_run_on_a_real_model(project: Path, proxy: RecordingProxy) -> None:
    loaded = load_config(_pd_config(project, proxy.url))
    run_dir = project / "run"
    result = run_experiment(loaded, output_dir=run_dir)
    assert result.manifest.status == "completed"

    calls = _lines(run_dir / RunFiles.CALLS)
    # one line per attempt, each the server's answer with its token counts, replies verbatim
    assert len(calls) == len(proxy.exchanges) > 0
    assert all(c["tokens_in"] > 0 and c["tokens_out"] >= 0 for c in calls)
    assert _pd_recorded(run_dir) == proxy.seen()

    # every move is what the lenient rules give on the stored replies (none from a cut one)
    by_call = {(c["match_id"], c["round_index"], c["agent"], c["attempt"]): c for c in calls}
    invalid = 0
    for row in _lines(run_dir / PDFiles.ROUNDS):
        for side, replies in row["raw_responses"].items():
            readings = [
                # a reply cut at the token limit is never read as a move
                INVALID
                if by_call[row["match_id"], row["round_index"], side, attempt]["truncated"]
                else extract_action(reply, output_format="lenient")
                for attempt, reply in enumerate(replies, 1)
            ]
            for attempt, reading in enumerate(readings, 1):
                call = by_call[row["match_id"], row["round_index"], side, attempt]
                assert call["status"] == ("ok" if reading.valid else "invalid")
                assert call["parse_rule"] == reading.rule
            invalid += sum(not r.valid for r in readings)
            last = readings[-1]
            assert row[f"{side}_valid"] is last.valid
            assert row[f"{side}_intended_action"] == (last.value if last.valid else "D")

    summary = aggregate_run(run_dir)
    assert summary.tables["aggregates.parquet"] > 0
    with duckdb.connect() as con:
        n_invalid = con.execute(
            "select sum(n_invalid) from read_parquet($p) where level = 'agent'",
            {"p": str(run_dir / "calls_summary.parquet")},
        ).fetchone()[0]
        by_rule = con.execute(
            "select coalesce(sum(n_attempts) filter (where parse_rule = 'invalid'), 0), "
            "sum(n_attempts) from read_parquet($p)",
            {"p": str(run_dir / "parse_rules.parquet")},
        ).fetchone()
        invalid_rounds = con.execute(
            "select sum(fallback_move_share_a * rounds_played) from read_parquet($p) "
            "where level = 'replicate'",
            {"p": str(run_dir / "aggregates.parquet")},
        ).fetchone()[0]
    assert n_invalid == invalid == by_rule[0]
    assert by_rule[1] == len(calls)
    rows = _lines(run_dir / PDFiles.ROUNDS)
    assert invalid_rounds == pytest.approx(sum(not r["agent_a_valid"] for r in rows))

    # the same run again is answered from the response cache: no request reaches the server
    asked = len(proxy.exchanges)
    again = run_experiment(loaded, output_dir=project / "again")
    assert again.manifest.status == "completed"
    assert len(proxy.exchanges) == asked
    cached = _lines(project / "again" / RunFiles.CALLS)
    assert len(cached) == len(calls) and all(c["cache_hit"] for c in cached)

    def strip(path: Path) -> list[dict]:
        return [{k: v for k, v in r.items() if k not in TIMES} for r in _lines(path)]

    assert strip(project / "again" / PDFiles.ROUNDS) == strip(run_dir / PDFiles.ROUNDS)


def test_an_arena_on_a_real_model(project: Path, proxy: RecordingProxy) -> None:
    from pdbench.arena.runner import run_arena

    players = [
        {"name": name, "provider": "openai", "base_url": proxy.url, "temperature": 0.7}
        for name in ("p1", "p2", "p3")
    ]
    config = write_arena(
        project / "configs",
        players=players,
        openai_model=MODEL,
        # answers cut at 30 tokens are kept (flagged truncated) and judged all the same
        max_tokens={"generate": 200, "rate": 8, "answer": 30, "judge": 8},
        max_retries=1,
        score_format="lenient",
        max_concurrency=1,
        cache_path=str(project / "cache.sqlite"),
        bootstrap={"n": 50},
        anomaly={"permutations": 50, "fdr": 0.1},
    )
    run_dir = project / "arena"
    result = run_arena(load_config(config), output_dir=run_dir)
    assert result.manifest.status == "completed"

    calls = _lines(run_dir / RunFiles.CALLS)
    assert len(calls) == len(proxy.exchanges) > 0
    seen = proxy.seen()
    replies = {(sha, reply) for sha, reply, _, _ in seen}
    assert Counter((c["prompt_sha256"], c["tokens_in"], c["tokens_out"]) for c in calls) == Counter(
        (sha, tin, tout) for (sha, _, tin, tout), n in seen.items() for _ in range(n)
    )
    for name in (ArenaFiles.QUESTION_RATINGS, ArenaFiles.JUDGMENTS):
        for record in _lines(run_dir / name):
            # the recorded reply is one the server gave to this very prompt, verbatim
            assert (record["prompt_sha256"], record["raw_reply"]) in replies
            reading = extract_score(record["raw_reply"], score_format="lenient")
            assert record["is_valid"] is reading.valid
            assert record["score"] == reading.value
    for call in calls:
        if call["phase"] in ("rate", "judge") and call["status"] == "ok":
            assert call["parse_rule"] in {
                "integer",
                "decorated",
                "out_of_ten",
                "labelled",
                "single_number",
            }

    summary = aggregate_run(run_dir)
    assert "leaderboard.parquet" in summary.tables
    with duckdb.connect() as con:
        invalid = con.execute(
            "select coalesce(sum(n_attempts) filter (where parse_rule = 'invalid'), 0) "
            "from read_parquet($p)",
            {"p": str(run_dir / ArenaMart.PARSE_RULES)},
        ).fetchone()[0]
    assert invalid == sum(c["status"] == "invalid" for c in calls)
