"""The round inspector of a PD match with an LLM agent: for one round, what each LLM agent
was told, every reply it gave, what the extraction rules read in each, and its provider
calls. Read from the raw records (``rounds.jsonl``, ``calls.jsonl``): no mart holds them.
What a run never recorded (an imported run's attempts, reply validity, prompts and replies) is
said to be "not recorded", never read as 0 or as invalid.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from pdbench.model_text import escaped, show_model_text
from pdbench.number_text import plural
from pdbench.ui.page_parts import show_table
from pdbench.ui.pd import reader
from pdbench.ui.pd.reader import RoundTalk

__all__ = ["move_line", "round_inspector"]


def round_inspector(
    run_dir: Path, match_id: str, rounds: pd.DataFrame, *, imported_from: str | None = None
) -> None:
    """The inspector of the match ``match_id``, whose ``rounds`` (one row per round and side,
    with ``agent`` labels) are drawn above it; the round is chosen on the page.
    ``imported_from``: the format an imported run came from (``None``: played here)."""
    st.subheader("Round inspector")
    last = int(rounds["round_index"].max())
    round_index = int(
        st.number_input("Round", min_value=1, max_value=last, value=1, step=1, key="round")
    )
    talk = reader.round_talk(run_dir, match_id, round_index)
    calls = reader.round_calls(run_dir, match_id, round_index)
    llm_agents = rounds[(rounds["round_index"] == round_index) & (rounds["agent_kind"] == "llm")]
    if llm_agents.empty:
        return
    for column, (_, agent) in zip(st.columns(len(llm_agents)), llm_agents.iterrows(), strict=True):
        with column:
            _agent_round(
                agent, talk, calls[calls["agent"] == agent["side"]], imported_from=imported_from
            )


def move_line(agent: pd.Series) -> str:
    """The Markdown line of one agent's move in one round: what it played, after how many
    attempts and whether its reply was valid, each "not recorded" when the run lacks it."""
    attempts, valid = agent["attempts"], agent["is_valid"]
    tried = (
        " · attempts not recorded"
        if pd.isna(attempts)
        else f" after {plural(int(attempts), 'attempt')}"
    )
    if pd.isna(valid):
        validity = "reply validity not recorded"
    else:
        validity = "valid reply" if bool(valid) else ":red[invalid: fallback played]"
    played = f"**{escaped(agent['agent'])}** played **{escaped(agent['action'])}**"
    return f"{played}{tried} · {validity}"


def _agent_round(
    agent: pd.Series, talk: RoundTalk, calls: pd.DataFrame, *, imported_from: str | None
) -> None:
    """One LLM agent in one round: its move, its prompts, each reply and what was read in
    it, and its provider calls."""
    side = str(agent["side"])
    st.markdown(move_line(agent))
    prompts, replies = talk.prompts.get(side), talk.replies.get(side)
    if prompts is None and replies is None:
        st.info(
            "Prompts and replies: not recorded"
            + (
                f" (this run was imported from {escaped(imported_from)} records)."
                if imported_from is not None
                else " (this run did not store them: `store_prompts: false`)."
            )
        )
    if prompts is not None:
        with st.expander("System prompt"):
            show_model_text(prompts.get("system", ""))
        st.markdown("Round prompt")
        show_model_text(prompts.get("round", ""))
    rules = dict(zip(calls["attempt"], calls["parse_rule"], strict=True))
    for attempt, reply in enumerate(replies or [], 1):
        st.markdown(f"Reply, attempt {attempt}")
        show_model_text(reply)
        st.markdown(_reading(rules.get(attempt), agent["intended_action"]))
    if not calls.empty:
        show_table(calls, [c for c in calls.columns if c != "agent"], pinned=("attempt",))


def _reading(rule: object, action: object) -> str:
    """What the extraction rules made of one reply: the move and the rule, or nothing."""
    if isinstance(rule, str) and rule:
        return f"→ read as **{escaped(action)}** (rule {escaped(rule)})"
    return "→ :red[not read as a move (invalid)]"
