"""Asking until a reply is usable: re-asks, invalid records, the recorded attempt."""

from pathlib import Path

from pdbench.arena.context import PhaseContext
from pdbench.arena.phases import (
    EMPTY_ANSWER_PROBLEM,
    SCORE_PROBLEM,
    answer_tasks,
    generate_tasks,
    judge_tasks,
    rate_tasks,
    read_answer,
    read_score,
    reader_for,
)
from pdbench.arena.plan import calls_per_phase
from pdbench.arena.prompts import ArenaTemplates
from pdbench.arena.self_assess import self_assess_tasks, self_assessment_records
from pdbench.arena.tasks import CallTask, PlayerClient, Reading, ask
from pdbench.games import load_config
from pdbench.providers.gateway import ProviderGateway

from tests.conftest import write_arena


class Scripted:
    """Replies from a script, in order; remembers every prompt."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.prompts: list[str] = []

    def complete(self, *, system: str, prompt: str, temperature: float, max_tokens: int) -> str:
        self.prompts.append(prompt)
        return self.replies.pop(0)


def _client(replies: list[str]) -> tuple[PlayerClient, Scripted, list[dict]]:
    script, calls = Scripted(replies), []
    gateway = ProviderGateway(
        client=script, provider="mock", model="m", run_id="r", record=calls.append
    )
    return PlayerClient(gateway=gateway, temperature=0.0), script, calls


TASK = CallTask(phase="rate", player="p1", prompt="Rate it.", max_tokens=4, item_id="q_1")


def test_an_invalid_score_is_re_asked_until_valid():
    client, script, calls = _client(["great!", "11", "7"])
    outcome = ask(TASK, client=client, read=read_score, max_retries=2)
    assert (outcome.is_valid, outcome.value, len(outcome.attempts), outcome.used) == (
        True, 7, 3, 2,
    )  # fmt: skip
    assert script.prompts == [
        "Rate it.",
        f"{SCORE_PROBLEM}\n\nRate it.",
        f"{SCORE_PROBLEM}\n\nRate it.",
    ]
    assert [c["status"] for c in calls] == ["invalid", "invalid", "ok"]
    assert [c["attempt"] for c in calls] == [1, 2, 3]
    assert {c["call_id"] for c in calls} == {"rate/q_1/p1/1", "rate/q_1/p1/2", "rate/q_1/p1/3"}
    assert outcome.recorded.reply == "7"
    assert outcome.recorded.prompt_sha256 == calls[2]["prompt_sha256"]


def test_a_score_still_invalid_after_the_retries_is_recorded_invalid():
    client, script, calls = _client(["ten", "10/10"])
    outcome = ask(TASK, client=client, read=read_score, max_retries=1)
    assert (outcome.is_valid, outcome.value, len(outcome.attempts)) == (False, None, 2)
    assert outcome.recorded.reply == "ten"  # the first of equally bad replies
    assert len(script.replies) == 0 and [c["status"] for c in calls] == ["invalid", "invalid"]


def test_no_retries_means_one_call():
    client, _, calls = _client(["x"])
    assert not ask(TASK, client=client, read=read_score, max_retries=0).is_valid
    assert len(calls) == 1


def test_the_best_unusable_reply_is_kept():
    def count_lines(reply: str) -> Reading:
        found = len(reply.split())
        return Reading(value=found, problem=None if found >= 3 else "more!", rank=found)

    client, _, _ = _client(["a", "a b", "a"])
    outcome = ask(TASK, client=client, read=count_lines, max_retries=2)
    assert (outcome.is_valid, outcome.value, outcome.used) == (False, 2, 1)


def test_an_empty_answer_is_re_asked():
    client, script, _ = _client(["  ", "Yes."])
    task = CallTask(phase="answer", player="p1", prompt="Answer.", max_tokens=9)
    outcome = ask(task, client=client, read=read_answer, max_retries=2)
    assert (outcome.is_valid, outcome.value) == (True, "Yes.")
    assert script.prompts[1] == f"{EMPTY_ANSWER_PROBLEM}\n\nAnswer."


def test_a_self_assessment_is_read_re_asked_and_recorded_like_a_judgement():
    loaded = load_config(Path(__file__).resolve().parents[2] / "configs" / "arena.yaml")
    templates = ArenaTemplates.from_files(root=loaded.root, paths=loaded.config.prompts.paths())
    context = PhaseContext(config=loaded.config, templates=templates)
    question = {"question_id": "q_1", "shown_text": "Is 7 prime?"}
    answer = {
        "answer_id": "a_1",
        "question_id": "q_1",
        "answerer": "atlas",
        "is_valid": True,
        "is_void": False,
        "text": "Yes, atlas says.",
        "shown_text": "Yes, [redacted] says.",
    }
    invalid = answer | {"answer_id": "a_2", "is_valid": False}
    (task,) = self_assess_tasks([answer, invalid], questions=[question], context=context)
    assert (task.phase, task.player, task.item_id) == ("self_assess", "atlas", "a_1")
    assert task.max_tokens == loaded.config.max_tokens.self_assess
    assert "Your answer: Yes, [redacted] says." in task.prompt and "atlas" not in task.prompt
    client, script, calls = _client(["about 8", "8"])
    outcome = ask(task, client=client, read=reader_for(task, context=context), max_retries=2)
    assert script.prompts[1] == f"{SCORE_PROBLEM}\n\n{task.prompt}"
    (record,) = self_assessment_records([outcome], context=context)
    kept = ("answer_id", "answerer", "predicted_score", "is_valid", "attempts")
    assert [record[key] for key in kept] == ["a_1", "atlas", 8, True, 2]
    assert [c["phase"] for c in calls] == ["self_assess", "self_assess"]


def test_each_phase_asks_only_the_roles_that_take_part(project: Path):
    roles = {"p0": "player", "ref": "judge", "p1": "player", "ans": "answerer"}
    path = write_arena(
        project / "configs",
        players=[
            {"ref": "agents/arena_player.yaml", "overrides": {"name": name, "role": role}}
            for name, role in roles.items()
        ],
    )
    loaded = load_config(path)
    templates = ArenaTemplates.from_files(root=loaded.root, paths=loaded.config.prompts.paths())
    context = PhaseContext(config=loaded.config, templates=templates)
    assert [t.player for t in generate_tasks(context)] == ["p0", "p1"]
    questions = [
        {"question_id": f"q_{author}_{i}", "author": author, "is_void": False,
         "shown_text": f"Question {i}?"}
        for author in ("p0", "p1") for i in range(3)
    ]  # fmt: skip
    raters: dict[str, set[str]] = {}
    for task in rate_tasks(questions, context=context):
        raters.setdefault(task.item_id, set()).add(task.player)
    assert raters == {q["question_id"]: {"p0", "p1", "ref"} - {q["author"]} for q in questions}
    answer_plan = answer_tasks(questions, context=context)
    assert {t.player for t in answer_plan} == {"p0", "p1", "ans"}
    answers = [
        {"answer_id": t.item_id, "question_id": t.question_id, "answerer": t.player,
         "is_valid": True, "is_void": False, "shown_text": "An answer."}
        for t in answer_plan
    ]  # fmt: skip
    judges: dict[str, set[str]] = {}
    for task in judge_tasks(answers, questions=questions, context=context):
        judges.setdefault(task.item_id, set()).add(task.player)
    assert judges == {a["answer_id"]: {"p0", "p1", "ref"} - {a["answerer"]} for a in answers}
    # P = 2 players, J = 1 judge, A' = 1 answerer, Q = 3, K = 6: generate 2,
    # rate 2*3*(3-1) = 12, answer 3*6 = 18, judge 6*(3*3 - 2) = 42, self_assess 18
    counts = calls_per_phase(players=2, judges=1, answerers=1, questions_per_player=3, kept=6)
    assert counts == {"generate": 2, "rate": 12, "answer": 18, "judge": 42, "self_assess": 18}
    assert (len(answer_plan), sum(len(j) for j in judges.values())) == (18, 42)
    assert sum(len(r) for r in raters.values()) == 12
    # every participant's name is a leak, the referee's included
    assert context.leak_rule.check("I am ref.").leaked
