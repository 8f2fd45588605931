"""The audience's rule: one vote per voter per answer, a rate limit per voter, and voters who
are the organiser's invites, which a client can neither choose nor forge."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from pdbench.arena.audience.invites import INVITES_FILE, invite_links, invited_voter, issue_invites
from pdbench.arena.audience.votes import MAX_VOTES_PER_MINUTE, cast_vote, read_tally
from pdbench.arena.records import AudienceVoteRecord
from pdbench.errors import RunDirError


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


def test_an_invite_is_a_voter_and_anything_else_is_none(tmp_path: Path):
    tokens = issue_invites(tmp_path, 3)
    assert len(set(tokens)) == 3
    lines = [json.loads(line) for line in (tmp_path / INVITES_FILE).read_text().splitlines()]
    # only the sha256 of each token is kept: the file holds no token
    assert [line["invite_sha256"] for line in lines] == [
        hashlib.sha256(token.encode()).hexdigest() for token in tokens
    ]
    assert not any(token in (tmp_path / INVITES_FILE).read_text() for token in tokens)
    voters = [invited_voter(tmp_path, token) for token in tokens]
    assert voters == [hashlib.sha256(t.encode()).hexdigest()[:32] for t in tokens]
    # more invites later: the earlier ones still hold
    later = issue_invites(tmp_path, 1)
    assert invited_voter(tmp_path, later[0]) is not None
    assert invited_voter(tmp_path, tokens[0]) == voters[0]

    made_up = "A" * 22
    for token in (None, "", made_up, tokens[0][:-1], tokens[0] + "x", lines[0]["invite_sha256"],
                  voters[0], tokens[0] + "\n", ["list"], "é" * 22):  # fmt: skip
        assert invited_voter(tmp_path, token) is None, token
    assert invited_voter(tmp_path / "elsewhere", tokens[0]) is None  # another run's


def test_the_invite_links_carry_the_token():
    assert invite_links(["t1", "t2"], base_url="https://vote.example.org/") == [
        "https://vote.example.org/?invite=t1",
        "https://vote.example.org/?invite=t2",
    ]


def test_a_damaged_invites_file_is_one_line_naming_the_line_and_field(tmp_path: Path):
    (token,) = issue_invites(tmp_path, 1)
    with (tmp_path / INVITES_FILE).open("a") as handle:
        handle.write('{"invite_sha256": "not hex"}\n')
    with pytest.raises(RunDirError) as raised:
        invited_voter(tmp_path, token)
    assert (
        str(raised.value)
        == f"{tmp_path / INVITES_FILE}: line 2: invite_sha256: not a sha256 in hex"
    )
