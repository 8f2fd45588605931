"""The audience page driven with Streamlit's AppTest: what it shows when it cannot serve a
run, when the voter has scored everything, and that a click appends exactly one vote."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from pdbench import cli
from pdbench.arena.records import AudienceVoteRecord
from pdbench.audience.ballot import open_audience_run
from pdbench.audience.votes import append_vote, read_tally
from streamlit.testing.v1 import AppTest

from tests.servers.local import SAFETY_NET_S

FORGED = "b" * 32


def _page(monkeypatch: pytest.MonkeyPatch, run_dir: Path, *, voter: str | None = None) -> AppTest:
    monkeypatch.setattr(sys, "argv", ["page.py", "--run-dir", str(run_dir)])
    at = AppTest.from_file(str(cli.AUDIENCE_APP), default_timeout=SAFETY_NET_S)
    if voter is not None:
        at.query_params["voter"] = voter
    at.run()
    assert not at.exception
    return at


def _voter(at: AppTest) -> str:
    """The voter id the page issued to this session (the part of its token before the dot)."""
    token = at.query_params["voter"]
    token = token[0] if isinstance(token, list) else token
    voter, _, signature = token.partition(".")
    assert len(voter) == 32 and signature
    return voter


def test_a_folder_that_is_no_run_gets_one_warning(tmp_path: Path, monkeypatch):
    at = _page(monkeypatch, tmp_path / "nowhere")
    assert [w.value for w in at.warning] == [
        f"{(tmp_path / 'nowhere').resolve()}: not a run directory (no run_manifest.json)"
    ]
    assert len(at.button) == 0


def test_a_click_appends_one_vote_and_shows_the_next_answer(
    arena_run: Path, tmp_path: Path, monkeypatch
):
    run_dir = tmp_path / "run"
    shutil.copytree(arena_run, run_dir)
    at = _page(monkeypatch, run_dir, voter=FORGED)
    VOTER = _voter(at)
    assert VOTER != FORGED  # an id the page did not sign is replaced
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
    at = _page(monkeypatch, run_dir)
    VOTER = _voter(at)
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
    at.run()  # the same session, the same signed voter
    assert [s.value for s in at.success] == ["You have scored every answer of this run. Thank you."]
    assert len(at.button) == 0
    assert len(read_tally(run.votes_path).scored_by(VOTER)) == len(run.answers)


def test_a_damaged_votes_file_gets_one_warning(arena_run: Path, tmp_path: Path, monkeypatch):
    run_dir = tmp_path / "run"
    shutil.copytree(arena_run, run_dir)
    run = open_audience_run(run_dir)
    run.votes_path.write_text("not json\n{}\n", encoding="utf-8")
    at = _page(monkeypatch, run_dir)
    assert [w.value for w in at.warning] == [f"{run.votes_path}: line 1: not a JSON record"]
