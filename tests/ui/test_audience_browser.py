"""The real ``pdbench audience`` server used by two people at once in headless Chromium: every
vote arrives exactly once, nobody is shown an answer twice, and the marts count them; an
invite is one voter in any number of browsers, and an address without one takes no vote.

Chromium as in ``test_browser.py``: Debian's ``chromium``, driven by Playwright.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import duckdb
import pytest
from pdbench import cli
from pdbench.arena.audience.invites import UNKNOWN_INVITE, issue_invites
from pdbench.arena.marts import ArenaMart
from pdbench.arena.records import ArenaFiles
from pdbench.storage.jsonl import read_jsonl
from typer.testing import CliRunner

from tests.servers.local import SAFETY_NET_S
from tests.servers.pages import CHROMIUM_ARGS, chromium, pdbench_page
from tests.ui.test_browser import REPO

pytestmark = pytest.mark.browser

VOTES_PER_SESSION = 6
SCORES = ([8, 2, 9, 0, 10, 5], [3, 7, 1, 6, 4, 10])
VIEWPORT = {"width": 900, "height": 740}
SCREENSHOTS = [REPO / "tests" / "artifacts" / "audience.png"]
if os.environ.get("PDBENCH_UPDATE_SCREENSHOT"):
    SCREENSHOTS.append(REPO / "docs" / "audience.png")


@dataclass(frozen=True)
class AudienceServer:
    run_dir: Path
    url: str
    invites: list[str]

    def link(self, voter: int) -> str:
        """The invite link of voter ``voter``, as the organiser hands it out."""
        return f"{self.url}/?invite={self.invites[voter]}"

    @property
    def votes(self) -> list[dict]:
        path = self.run_dir / ArenaFiles.AUDIENCE_VOTES
        return list(read_jsonl(path)) if path.is_file() else []


@pytest.fixture
def audience(arena_run: Path, tmp_path: Path) -> Iterator[AudienceServer]:
    """``pdbench audience`` serving a copy of the arena run (the other tests read it as is)."""
    run_dir = tmp_path / "audience-run"
    shutil.copytree(arena_run, run_dir)
    invites = issue_invites(run_dir, 2)
    with pdbench_page("audience", run_dir) as url:
        yield AudienceServer(run_dir=run_dir, url=url, invites=invites)


async def _scored(page, count: int) -> None:
    """Until the page says the voter has scored ``count`` answers (the script run is over:
    this line is the page's last)."""
    await page.get_by_text(f"You have scored {count} of", exact=False).wait_for(
        timeout=SAFETY_NET_S * 1000
    )


async def _vote(page, *, scores: list[int], start: int = 0) -> list[str]:
    """Score the answers shown one after the other (the voter has scored ``start`` before);
    the question and answer texts seen."""
    seen = []
    for count, score in enumerate(scores, start=start):
        await _scored(page, count)
        question = await page.locator(".st-key-question").inner_text()
        answer = await page.locator(".st-key-answer").inner_text()
        seen.append(f"{question}\n{answer}")
        await page.get_by_role("button", name=str(score), exact=True).click()
    await _scored(page, start + len(scores))
    return seen


def _token(page) -> str:
    """The invite token in the page's address."""
    (token,) = parse_qs(urlparse(page.url).query)["invite"]
    return token


def _voter(page) -> str:
    """The voter id of the page's invite: the first 32 hex digits of its sha256."""
    return hashlib.sha256(_token(page).encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Sessions:
    voters: list[str]
    """Each session's voter id, from its address."""
    seen: list[list[str]]
    """Each session's question and answer texts, in the order shown."""
    first_page: str
    """The text of the first session's first page."""


async def _two_sessions(server: AudienceServer) -> Sessions:
    """Two browser sessions vote at once."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
        try:
            pages = []
            for voter in range(2):
                context = await browser.new_context(viewport=VIEWPORT)
                page = await context.new_page()
                await page.goto(server.link(voter))
                await _scored(page, 0)
                pages.append(page)
            first_text = await pages[0].locator("body").inner_text()
            for path in SCREENSHOTS:
                path.parent.mkdir(parents=True, exist_ok=True)
                await pages[0].screenshot(path=str(path), full_page=True)
            seen = await asyncio.gather(
                _vote(pages[0], scores=SCORES[0]), _vote(pages[1], scores=SCORES[1])
            )
            return Sessions([_voter(page) for page in pages], list(seen), first_text)
        finally:
            await browser.close()


def test_two_sessions_vote_at_once_and_every_vote_counts_once(audience: AudienceServer):
    sessions = asyncio.run(_two_sessions(audience))
    voters = sessions.voters

    # blind: no player's name on the page
    answerers = {a["answerer"] for a in read_jsonl(audience.run_dir / ArenaFiles.ANSWERS)}
    assert answerers and not any(name in sessions.first_page for name in answerers)
    assert "Question" in sessions.first_page and "Answer" in sessions.first_page
    for seen in sessions.seen:
        assert len(seen) == len(set(seen)) == VOTES_PER_SESSION

    votes = audience.votes
    assert len(votes) == 2 * VOTES_PER_SESSION
    assert len({vote["vote_id"] for vote in votes}) == len(votes)
    assert len(set(voters)) == 2
    for voter in voters:
        mine = [vote["answer_id"] for vote in votes if vote["voter"] == voter]
        assert len(mine) == VOTES_PER_SESSION
        assert len(set(mine)) == VOTES_PER_SESSION, "a session was shown an answer twice"
    for voter, scores in zip(voters, SCORES, strict=True):
        assert Counter(v["score"] for v in votes if v["voter"] == voter) == Counter(scores)

    # a vote sent twice (the same vote_id) is counted once
    path = audience.run_dir / ArenaFiles.AUDIENCE_VOTES
    with path.open("a", encoding="utf-8") as handle:
        handle.write(path.read_text(encoding="utf-8").splitlines()[0] + "\n")
    result = CliRunner().invoke(cli.app, ["aggregate", str(audience.run_dir)])
    assert result.exit_code == 0, result.output
    assert f"audience: {2 * VOTES_PER_SESSION} votes on " in result.output

    per_answer = Counter(vote["answer_id"] for vote in votes)
    with duckdb.connect() as con:
        answers = dict(
            con.execute(
                "select answer_id, n_votes from read_parquet(?) where n_votes > 0",
                [str(audience.run_dir / ArenaMart.AUDIENCE_ANSWER_SCORES)],
            ).fetchall()
        )
        players = con.execute(
            "select sum(n_votes), count(*) filter (where audience_score is not null), "
            "max(n_answers_compared) from read_parquet(?)",
            [str(audience.run_dir / ArenaMart.AUDIENCE_SCORES)],
        ).fetchone()
    assert answers == dict(per_answer)
    assert players[0] == 2 * VOTES_PER_SESSION
    assert players[1] >= 2
    assert players[2] == len(per_answer)
    assert all(path.stat().st_size > 20_000 for path in SCREENSHOTS)


async def _vote_reload_vote(server: AudienceServer) -> tuple[str, list[int]]:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page(viewport=VIEWPORT)
            await page.goto(server.link(0))
            await _vote(page, scores=[7])
            lines = [len(server.votes)]
            await page.reload()
            await _scored(page, 1)  # the same voter: the address keeps the invite
            lines.append(len(server.votes))
            await _vote(page, scores=[1], start=1)
            lines.append(len(server.votes))
            return _voter(page), lines
        finally:
            await browser.close()


def test_a_reload_keeps_the_voter_and_adds_no_vote(audience: AudienceServer):
    voter, lines = asyncio.run(_vote_reload_vote(audience))

    assert lines == [1, 1, 2]
    votes = audience.votes
    assert [vote["voter"] for vote in votes] == [voter, voter]
    assert [vote["score"] for vote in votes] == [7, 1]
    assert votes[0]["answer_id"] != votes[1]["answer_id"]
    assert votes[0]["vote_id"] != votes[1]["vote_id"]


async def _answer_text(page) -> str:
    """The answer on the page, once its text is drawn."""
    await page.wait_for_function(
        "document.querySelector('.st-key-answer')?.innerText.trim().length > 0",
        timeout=SAFETY_NET_S * 1000,
    )
    return await page.locator(".st-key-answer").inner_text()


async def _two_tabs_of_one_voter(server: AudienceServer) -> dict:
    """One voter's invite opened in a second browser context (a second tab, or the link sent
    to another browser), both scoring the answer they show; then a made-up invite."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
        try:
            first = await (await browser.new_context(viewport=VIEWPORT)).new_page()
            await first.goto(server.link(0))
            await _scored(first, 0)
            second = await (await browser.new_context(viewport=VIEWPORT)).new_page()
            await second.goto(server.link(0))
            await _scored(second, 0)
            shown = [await _answer_text(p) for p in (first, second)]
            await first.get_by_role("button", name="7", exact=True).click()
            await _scored(first, 1)
            await second.get_by_role("button", name="3", exact=True).click()
            refusal = second.get_by_text("Your last score was not counted", exact=False)
            await refusal.wait_for(timeout=SAFETY_NET_S * 1000)
            forged = await (await browser.new_context(viewport=VIEWPORT)).new_page()
            await forged.goto(f"{server.url}/?invite={'f' * 22}")
            unknown = forged.get_by_text("This invite is not one of this run's", exact=False)
            await unknown.wait_for(timeout=SAFETY_NET_S * 1000)
            return {
                "voter": _voter(first),
                "second": _voter(second),
                "shown": shown,
                "refusal": await refusal.inner_text(),
                "forged": await unknown.inner_text(),
                "forged_buttons": await forged.get_by_role("button", name="7").count(),
            }
        finally:
            await browser.close()


def test_one_voter_in_two_browser_contexts_counts_once(audience: AudienceServer):
    seen = asyncio.run(_two_tabs_of_one_voter(audience))

    assert seen["second"] == seen["voter"]
    assert seen["shown"][0] == seen["shown"][1]  # the same voter is shown the same answer
    votes = audience.votes
    assert [(v["voter"], v["score"]) for v in votes] == [(seen["voter"], 7)]  # the first stands
    assert "already scored this answer" in seen["refusal"]
    # an invite the client made up is not taken: no ballot, no vote
    assert seen["forged"] == UNKNOWN_INVITE
    assert seen["forged_buttons"] == 0
    assert len(audience.votes) == 1
