"""The audience page: one blinded answer at a time, scored 0..10 with one click.

Run as ``streamlit run page.py -- --run-dir <run_dir>`` (``pdbench audience <run_dir>``).
A voter opens the page through the invite link the organiser gave them (``?invite=<token>``,
:mod:`pdbench.arena.audience.invites`): the token is the voter, checked on every page run and again
when a score is clicked, so a reload, a second tab or another browser is the same voter and
is never shown an answer they already scored. Without a token, or with one that is not an
invite of this run, the page says so and takes no vote. The answer on screen carries the id
its vote will have; the vote is cast once, when a score is clicked, under the rule of
:func:`pdbench.arena.audience.votes.cast_vote` (one vote per voter per answer: a second one is
refused and the first stands; a rate limit), and the page moves on to the answer with the
fewest votes (:func:`pdbench.arena.audience.ballot.next_answer`).
"""

from __future__ import annotations

import argparse
import sys
import uuid
from pathlib import Path

import streamlit as st

from pdbench.arena.audience.ballot import (
    AudienceAnswer,
    AudienceRun,
    next_answer,
    open_audience_run,
)
from pdbench.arena.audience.invites import INVITE_PARAM, NO_INVITE, UNKNOWN_INVITE, invited_voter
from pdbench.arena.audience.votes import cast_vote, read_tally
from pdbench.arena.records import AudienceVoteRecord
from pdbench.clock import utc_timestamp
from pdbench.errors import RunDirError
from pdbench.model_text import show_model_text
from pdbench.number_text import plural

__all__ = ["SCORES", "main"]

SCORES = tuple(range(11))
_INSTRUCTION = (
    "A question and one answer to it, both written by models; who wrote them is hidden. "
    "Score the answer from 0 (very poor) to 10 (excellent) for correctness, completeness and "
    "clarity. The next answer follows at once."
)


def _run_dir(argv: list[str]) -> Path:
    parser = argparse.ArgumentParser(prog="pdbench-audience")
    parser.add_argument("--run-dir", type=Path, required=True)
    args, _ = parser.parse_known_args(argv)
    run_dir: Path = args.run_dir
    return run_dir


@st.cache_resource(show_spinner=False)
def _audience_run(run_dir: str) -> AudienceRun:
    """The run's blinded answers, read once per server (a finished run's answers do not
    change)."""
    return open_audience_run(Path(run_dir))


def _token() -> str | None:
    """The invite token in this page's address, if any."""
    return st.query_params.get(INVITE_PARAM)


def _cast(run: AudienceRun, voter: str, score: int) -> None:
    """Append the vote on the answer shown (once per ballot: a second click is ignored), if
    the address still carries the invite of ``voter``."""
    ballot = st.session_state.get("ballot")
    cast: set[str] = st.session_state.setdefault("cast", set())
    if ballot is None or ballot["vote_id"] in cast:
        return
    if invited_voter(run.run_dir, _token()) != voter:
        st.session_state["refused"] = "the address no longer carries your invite"
        return
    vote = AudienceVoteRecord(
        vote_id=ballot["vote_id"],
        run_id=run.run_id,
        answer_id=ballot["answer_id"],
        voter=voter,
        score=score,
        created_at=utc_timestamp(),
    )
    refused = cast_vote(run.votes_path, vote)
    if refused:
        st.session_state["refused"] = refused
    cast.add(ballot["vote_id"])
    del st.session_state["ballot"]


def _ballot(run: AudienceRun, voter: str, scored: set[str]) -> AudienceAnswer | None:
    """The answer on screen: the one already drawn for this session, unless the voter has
    scored it since; else the next one, with a new vote id."""
    by_id = {item.answer_id: item for item in run.answers}
    ballot = st.session_state.get("ballot")
    if ballot is not None and ballot["answer_id"] not in scored:
        return by_id[ballot["answer_id"]]
    chosen = next_answer(run.answers, tally=read_tally(run.votes_path), voter=voter)
    if chosen is None:
        st.session_state.pop("ballot", None)
        return None
    st.session_state["ballot"] = {"vote_id": uuid.uuid4().hex, "answer_id": chosen.answer_id}
    return chosen


def _show(run: AudienceRun, voter: str, item: AudienceAnswer) -> None:
    st.subheader("Question")
    show_model_text(item.question, where=st.container(border=True, key="question"))
    st.subheader("Answer")
    show_model_text(item.answer, where=st.container(border=True, key="answer"))
    st.write("**Your score** (0 very poor, 10 excellent)")
    for column, score in zip(st.columns(len(SCORES)), SCORES, strict=True):
        column.button(
            str(score),
            key=f"score_{score}",
            on_click=_cast,
            args=(run, voter, score),
            width="stretch",
        )


def main(argv: list[str] | None = None) -> None:
    """Draw the page for the run given with ``--run-dir``."""
    st.set_page_config(page_title="pdbench audience", page_icon="🗳️", layout="centered")
    run_dir = _run_dir(sys.argv[1:] if argv is None else argv)
    st.title("Score an answer")
    try:
        run = _audience_run(str(run_dir.expanduser().resolve()))
        _vote_page(run)
    except RunDirError as exc:
        # not an arena run, or a damaged votes file: one line, no trace
        st.warning(str(exc))


def _vote_page(run: AudienceRun) -> None:
    token = _token()
    voter = invited_voter(run.run_dir, token)
    if voter is None:
        st.warning(NO_INVITE if token is None else UNKNOWN_INVITE)
        return
    if refused := st.session_state.pop("refused", None):
        st.warning(f"Your last score was not counted: {refused}.")
    scored = read_tally(run.votes_path).scored_by(voter)
    st.caption(_INSTRUCTION)
    item = _ballot(run, voter, scored)
    if item is None:
        st.success("You have scored every answer of this run. Thank you.")
    else:
        _show(run, voter, item)
    st.caption(f"You have scored {len(scored)} of {plural(len(run.answers), 'answer')}.")


main()
