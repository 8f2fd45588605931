"""The audience page driven with Streamlit's AppTest: what it shows when it cannot serve a
run, when the voter has scored everything, that a click appends exactly one vote, and that
only an invite of the run votes."""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path

import pytest
from pdbench import cli
from pdbench.arena.audience.ballot import open_audience_run
from pdbench.arena.audience.invites import NO_INVITE, UNKNOWN_INVITE, issue_invites
from pdbench.arena.audience.votes import append_vote, read_tally
from pdbench.arena.records import AudienceVoteRecord
from streamlit.testing.v1 import AppTest

from tests.servers.local import SAFETY_NET_S


def _page(
    monkeypatch: pytest.MonkeyPatch, run_dir: Path, *, invite: str | None = None, **params: str
) -> AppTest:
    """A new browser session of the page on ``run_dir``, opened with ``?invite=`` (and any
    other ``params`` in its address)."""
    monkeypatch.setattr(sys, "argv", ["page.py", "--run-dir", str(run_dir)])
    at = AppTest.from_file(str(cli.AUDIENCE_APP), default_timeout=SAFETY_NET_S)
    for name, value in {"invite": invite, **params}.items():
        if value is not None:
            at.query_params[name] = value
    at.run()
    assert not at.exception
    return at


def _voter(token: str) -> str:
    """The voter id of an invite: the first 32 hex digits of its sha256, computed here."""
    return hashlib.sha256(token.encode()).hexdigest()[:32]


def test_a_folder_that_is_no_run_gets_one_warning(tmp_path: Path, monkeypatch):
    at = _page(monkeypatch, tmp_path / "nowhere")
    assert [w.value for w in at.warning] == [
        f"{(tmp_path / 'nowhere').resolve()}: no such run directory"
    ]
    assert len(at.button) == 0


def test_a_click_appends_one_vote_and_shows_the_next_answer(
    arena_run: Path, tmp_path: Path, monkeypatch
):
    run_dir = tmp_path / "run"
    shutil.copytree(arena_run, run_dir)
    (token,) = issue_invites(run_dir, 1)
    at = _page(monkeypatch, run_dir, invite=token)
    VOTER = _voter(token)
    assert [b.label for b in at.button] == [str(score) for score in range(11)]
    shown = at.session_state["ballot"]
    at.button(key="score_9").click().run()
    assert not at.exception
    run = open_audience_run(run_dir)
    tally = read_tally(run.votes_path)
    assert tally.votes == {shown["answer_id"]: 1}
    (line,) = run.votes_path.read_text(encoding="utf-8").splitlines()
    vote = AudienceVoteRecord.model_validate_json(line)
    assert (vote.vote_id, vote.voter, vote.score) == (shown["vote_id"], VOTER, 9)
    assert tally.scored_by(VOTER) == {shown["answer_id"]}
    assert at.session_state["ballot"]["answer_id"] != shown["answer_id"]
    assert at.session_state["ballot"]["vote_id"] != shown["vote_id"]
    assert any("You have scored 1 of" in c.value for c in at.caption)


def test_a_voter_who_scored_every_answer_is_thanked(arena_run: Path, tmp_path: Path, monkeypatch):
    run_dir = tmp_path / "run"
    shutil.copytree(arena_run, run_dir)
    run = open_audience_run(run_dir)
    (token,) = issue_invites(run_dir, 1)
    at = _page(monkeypatch, run_dir, invite=token)
    VOTER = _voter(token)
    for index, answer in enumerate(run.answers):
        vote = AudienceVoteRecord(
            vote_id=f"v{index}",
            run_id=run.run_id,
            answer_id=answer.answer_id,
            voter=VOTER,
            score=5,
            created_at="2026-01-01T00:00:00Z",
        )
        append_vote(run.votes_path, vote)
    at.run()  # the same session, the same invite
    assert [s.value for s in at.success] == ["You have scored every answer of this run. Thank you."]
    assert len(at.button) == 0
    assert len(read_tally(run.votes_path).scored_by(VOTER)) == len(run.answers)


def test_a_damaged_votes_file_gets_one_warning(arena_run: Path, tmp_path: Path, monkeypatch):
    run_dir = tmp_path / "run"
    shutil.copytree(arena_run, run_dir)
    run = open_audience_run(run_dir)
    run.votes_path.write_text("not json\n{}\n", encoding="utf-8")
    (token,) = issue_invites(run_dir, 1)
    at = _page(monkeypatch, run_dir, invite=token)
    assert [w.value for w in at.warning] == [f"{run.votes_path}: line 1: not a JSON record"]


def _snapshot(run_dir: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(run_dir.iterdir())}


def test_without_a_valid_invite_the_page_takes_no_vote(
    arena_run: Path, tmp_path: Path, monkeypatch
):
    # one client opening a new session with a fresh voter id (or a made-up invite) for every
    # vote wrote as many votes as it liked: a voter must be an invite of the run
    run_dir = tmp_path / "run"
    shutil.copytree(arena_run, run_dir)
    before = _snapshot(run_dir)
    for n in range(4):
        at = _page(monkeypatch, run_dir, voter=f"{n:032x}")
        assert [w.value for w in at.warning] == [NO_INVITE]
        assert len(at.button) == 0
    (token,) = issue_invites(run_dir, 1)
    before = _snapshot(run_dir)
    for made_up in ("A" * 22, token[:-1] + ("B" if token[-1] != "B" else "C"), token + "x"):
        at = _page(monkeypatch, run_dir, invite=made_up)
        assert [w.value for w in at.warning] == [UNKNOWN_INVITE]
        assert len(at.button) == 0
    assert _snapshot(run_dir) == before, "a page without a valid invite wrote something"


def test_one_invite_votes_once_per_answer_whatever_the_sessions(
    arena_run: Path, tmp_path: Path, monkeypatch
):
    run_dir = tmp_path / "run"
    shutil.copytree(arena_run, run_dir)
    run = open_audience_run(run_dir)
    tokens = issue_invites(run_dir, 2)
    # two sessions of one invite (two tabs, or the link opened in a second browser) show the
    # same answer; the second click is refused and the first vote stands
    first, second = (_page(monkeypatch, run_dir, invite=tokens[0]) for _ in range(2))
    assert first.session_state["ballot"]["answer_id"] == second.session_state["ballot"]["answer_id"]
    first.button(key="score_7").click().run()
    second.button(key="score_2").click().run()
    assert [w.value for w in second.warning] == [
        "Your last score was not counted: you have already scored this answer (in another "
        "tab?); it counts once."
    ]
    votes = [AudienceVoteRecord.model_validate_json(line) for line in
             run.votes_path.read_text(encoding="utf-8").splitlines()]  # fmt: skip
    assert [(v.voter, v.score) for v in votes] == [(_voter(tokens[0]), 7)]

    # a new session for every vote: still one voter, never an answer twice
    for _ in range(3):
        _page(monkeypatch, run_dir, invite=tokens[0]).button(key="score_5").click().run()
    votes = [AudienceVoteRecord.model_validate_json(line) for line in
             run.votes_path.read_text(encoding="utf-8").splitlines()]  # fmt: skip
    assert [v.voter for v in votes] == [_voter(tokens[0])] * 4
    assert len({v.answer_id for v in votes}) == 4
    # the other invite is another voter
    _page(monkeypatch, run_dir, invite=tokens[1]).button(key="score_1").click().run()
    assert len(read_tally(run.votes_path).scored_by(_voter(tokens[1]))) == 1
