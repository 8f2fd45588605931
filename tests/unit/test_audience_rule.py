"""The audience's rule: one vote per voter per answer, a rate limit per voter, and voter ids
the page signs, which a client can neither choose nor forge."""

from __future__ import annotations

from pathlib import Path

from pdbench.arena.records import AudienceVoteRecord
from pdbench.audience.voters import VoterDesk
from pdbench.audience.votes import MAX_VOTES_PER_MINUTE, cast_vote, read_tally


def vote(n: int, *, voter: str = "a" * 32, answer: str | None = None, second: float = 0.0):
    return AudienceVoteRecord(
        vote_id=f"v{n}",
        run_id="r",
        answer_id=answer or f"ans{n}",
        voter=voter,
        score=5,
        created_at=f"2026-01-01T00:{int(second) // 60:02d}:{second % 60:06.3f}Z",
    )


def test_a_second_vote_of_a_voter_on_an_answer_is_refused_and_the_first_stands(tmp_path: Path):
    path = tmp_path / "votes.jsonl"
    assert cast_vote(path, vote(1, answer="x")) is None
    refused = cast_vote(path, vote(2, answer="x", second=30))
    assert refused is not None and "already scored this answer" in refused
    assert cast_vote(path, vote(3, answer="x", voter="b" * 32)) is None  # another voter
    tally = read_tally(path)
    assert tally.votes == {"x": 2}
    assert [line.count('"v1"') for line in path.read_text().splitlines()] == [1, 0]


def test_a_voter_casts_at_most_the_limit_in_any_minute(tmp_path: Path):
    path = tmp_path / "votes.jsonl"
    limit = MAX_VOTES_PER_MINUTE
    # the scripted client of the report: 47 votes in 10 s
    outcomes = [cast_vote(path, vote(n, second=n * 10 / 47)) for n in range(47)]
    assert outcomes[:limit] == [None] * limit
    assert all(o is not None and f"at most {limit} votes a minute" in o for o in outcomes[limit:])
    assert sum(read_tally(path).votes.values()) == limit
    # a minute after the first vote, the window has room again
    assert cast_vote(path, vote(99, second=60.5)) is None
    # other voters are not slowed down by this one
    assert cast_vote(path, vote(100, voter="c" * 32, second=5)) is None


def test_voter_ids_are_signed_and_a_forged_one_is_not_taken():
    desk = VoterDesk(key=b"k" * 32)
    token = desk.issue(address="10.0.0.1", now=0.0)
    assert token is not None
    voter = desk.voter_of(token)
    assert voter is not None and token.startswith(voter + ".")
    assert desk.voter_of(voter) is None  # the bare id the client saw
    assert desk.voter_of("b" * 32 + "." + "0" * 32) is None  # a made-up signature
    assert VoterDesk(key=b"j" * 32).voter_of(token) is None  # another server's key
    assert desk.voter_of(None) is None and desk.voter_of("") is None


def test_new_voter_ids_per_address_are_limited_per_hour():
    desk = VoterDesk(key=b"k" * 32, per_hour=3)
    assert all(desk.issue(address="10.0.0.1", now=float(i)) for i in range(3))
    assert desk.issue(address="10.0.0.1", now=10.0) is None
    assert desk.issue(address="10.0.0.2", now=10.0) is not None
    assert desk.issue(address="10.0.0.1", now=3601.0) is not None
