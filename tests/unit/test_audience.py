"""The audience page's two rules, without a browser: which answer comes next (the fewest votes,
never one the voter scored), and the votes file (every vote one whole line, counted once)."""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path

from pdbench.arena.audience.ballot import AudienceAnswer, next_answer
from pdbench.arena.audience.votes import Tally, append_vote, read_tally
from pdbench.arena.records import AudienceVoteRecord

ANSWERS = tuple(AudienceAnswer(f"a{i}", f"question {i}", f"answer {i}") for i in range(6))


def _vote(vote_id: str, answer_id: str, voter: str = "v", score: int = 5) -> AudienceVoteRecord:
    return AudienceVoteRecord(
        vote_id=vote_id,
        run_id="run",
        answer_id=answer_id,
        voter=voter,
        score=score,
        created_at="2026-01-01T00:00:00Z",
    )


def test_the_next_answer_has_the_fewest_votes_and_was_not_scored_by_the_voter():
    tally = Tally(
        votes=Counter({"a0": 2, "a1": 1, "a2": 0, "a3": 1, "a4": 3, "a5": 0}),
        scored={"me": {"a2"}},
    )
    assert next_answer(ANSWERS, tally=tally, voter="me").answer_id == "a5"
    tally.scored["me"].add("a5")
    assert next_answer(ANSWERS, tally=tally, voter="me").answer_id in {"a1", "a3"}
    tally.scored["me"].update({"a0", "a1", "a3", "a4"})
    assert next_answer(ANSWERS, tally=tally, voter="me") is None


def test_ties_go_different_ways_for_different_voters_and_the_same_way_for_one():
    firsts = {next_answer(ANSWERS, tally=Tally(), voter=f"voter{i}").answer_id for i in range(20)}
    assert len(firsts) > 1
    assert {next_answer(ANSWERS, tally=Tally(), voter="same").answer_id for _ in range(5)} == {
        next_answer(ANSWERS, tally=Tally(), voter="same").answer_id
    }


def test_voters_taking_turns_spread_the_votes_evenly(tmp_path: Path):
    path = tmp_path / "audience_votes.jsonl"
    for turn in range(15):
        voter = f"voter{turn % 4}"
        chosen = next_answer(ANSWERS, tally=read_tally(path), voter=voter)
        append_vote(path, _vote(f"v{turn}", chosen.answer_id, voter))
    tally = read_tally(path)
    assert sum(tally.votes.values()) == 15
    assert sorted(tally.votes[a.answer_id] for a in ANSWERS) == [2, 2, 2, 3, 3, 3]
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for voter, scored in tally.scored.items():
        assert len(scored) == sum(1 for line in lines if line["voter"] == voter)


def test_votes_appended_from_many_threads_are_whole_lines_each_once(tmp_path: Path):
    path = tmp_path / "audience_votes.jsonl"
    barrier = threading.Barrier(8)

    def cast(worker: int) -> None:
        barrier.wait()
        for i in range(50):
            append_vote(path, _vote(f"w{worker}-{i}", f"a{i % 6}", f"voter{worker}", i % 11))

    threads = [threading.Thread(target=cast, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 400
    ids = [AudienceVoteRecord.model_validate_json(line).vote_id for line in lines]
    assert len(set(ids)) == 400


def test_a_vote_written_twice_is_counted_once_and_a_torn_last_line_not_yet(tmp_path: Path):
    path = tmp_path / "audience_votes.jsonl"
    assert read_tally(path) == Tally()
    append_vote(path, _vote("x", "a0", "me"))
    append_vote(path, _vote("x", "a0", "me"))
    append_vote(path, _vote("y", "a1", "you"))
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"vote_id": "z", "answer_id": "a2"')
    tally = read_tally(path)
    assert tally.votes == Counter({"a0": 1, "a1": 1})
    assert tally.scored == {"me": {"a0"}, "you": {"a1"}}
