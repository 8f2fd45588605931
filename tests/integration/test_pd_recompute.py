"""A mock PD experiment (noise, LLM agents with invalid replies) played by the engine and
aggregated by dbt; a few metrics are recomputed here, in plain Python from ``rounds.jsonl``,
and compared with ``aggregates.parquet`` for every (condition, replicate).

This is a test-only reference implementation of the definitions in ``docs/metrics.md``,
written independently of the SQL: if the two disagree, one of them is wrong.
"""

from __future__ import annotations

import itertools
import json
import math
import shutil
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pytest
from pdbench.aggregate import AggregateSummary, aggregate_run
from pdbench.games import load_config
from pdbench.pd.experiment import run_experiment
from pdbench.pd.marts import PDMart
from pdbench.pd.records import PDFiles
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.schema import RunFiles

from tests.conftest import CONFIGS, write_experiment


@dataclass(frozen=True)
class PlayedRun:
    run_dir: Path
    summary: AggregateSummary
    k: int
    threshold: float


@pytest.fixture(scope="session")
def played(tmp_path_factory: pytest.TempPathFactory) -> PlayedRun:
    folder = tmp_path_factory.mktemp("pd_recompute")
    shutil.copytree(CONFIGS, folder / "configs")
    config = write_experiment(
        folder / "configs",
        replicates=3,
        noise=0.1,
        max_concurrency=1,
        horizon={"type": "geometric", "stop_prob": 0.05, "max_rounds": 40},
        metrics={"collapse": {"k": 4, "threshold": 0.25}},
    )
    text = config.read_text()
    for strategy in ("TFT", "WSLS", "ALLD"):  # every LLM agent replies invalidly at times,
        text = text.replace(  # and runs past its token limit at times
            f"strategy: {strategy}",
            f"strategy: {strategy}\n        invalid_rate: 0.3\n        truncated_rate: 0.2",
        )
    config.write_text(text)
    result = run_experiment(load_config(config), output_dir=folder / "run")
    assert result.manifest.status == "completed"
    params = json.loads((folder / "run" / RunFiles.MANIFEST).read_text())["metric_params"]
    return PlayedRun(
        run_dir=folder / "run",
        summary=aggregate_run(folder / "run"),
        k=params["collapse_k"],
        threshold=params["collapse_threshold"],
    )


# --- the reference implementation ------------------------------------------------------------


def _share(hits: int, total: int) -> float | None:
    return hits / total if total else None


def _responses(own: list[str], other: list[str]) -> tuple[float | None, float | None]:
    """(retaliation, forgiveness): over rounds t >= 2 after the opponent defected at t-1, the
    share of D, and of C, in one's own action at t."""
    after_defection = [own[t] for t in range(1, len(own)) if other[t - 1] == "D"]
    return (
        _share(after_defection.count("D"), len(after_defection)),
        _share(after_defection.count("C"), len(after_defection)),
    )


def _time_to_collapse(a: list[str], b: list[str], *, k: int, threshold: float) -> int | None:
    """The first 1-based round starting a whole k-round window whose cooperation over both
    agents is <= threshold; a match shorter than k is one window."""
    n = len(a)
    starts = range(1) if n < k else range(n - k + 1)
    for start in starts:
        end = min(start + k, n)
        cooperations = a[start:end].count("C") + b[start:end].count("C")
        if cooperations / (2 * (end - start)) <= threshold:
            return start + 1
    return None


def recompute(run: PlayedRun) -> dict[tuple[str, int], dict]:
    matches: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for line in read_jsonl(run.run_dir / PDFiles.ROUNDS):
        matches[(line["condition"], line["replicate"])].append(line)
    expected = {}
    for key, lines in matches.items():
        lines.sort(key=lambda r: r["round_index"])
        a = [r["agent_a_action"] for r in lines]
        b = [r["agent_b_action"] for r in lines]
        n = len(lines)
        retaliation_a, forgiveness_a = _responses(a, b)
        retaliation_b, forgiveness_b = _responses(b, a)
        total_a = sum(r["agent_a_payoff"] for r in lines)
        total_b = sum(r["agent_b_payoff"] for r in lines)
        llm_a = lines[0]["agent_a_kind"] == "llm"
        valid_a = [r["agent_a_action"] for r in lines if r["agent_a_valid"]]
        valid_b = [r["agent_b_action"] for r in lines if r["agent_b_valid"]]
        attempts_a = sum(r["agent_a_attempts"] for r in lines)
        # every attempt of a fallback round was invalid; all but the last of a valid one
        invalid_attempts_a = sum(r["agent_a_attempts"] - r["agent_a_valid"] for r in lines)
        expected[key] = {
            "rounds_played": n,
            "cooperation_rate_a": a.count("C") / n,
            "cooperation_rate_b": b.count("C") / n,
            "cooperation_rate": (a.count("C") + b.count("C")) / (2 * n),
            "retaliation_rate_a": retaliation_a,
            "retaliation_rate_b": retaliation_b,
            "forgiveness_rate_a": forgiveness_a,
            "forgiveness_rate_b": forgiveness_b,
            "exploitability_payoff_gap_a": total_b - total_a,
            "exploitability_payoff_gap_b": total_a - total_b,
            "fallback_move_share_a": (
                sum(not r["agent_a_valid"] for r in lines) / n if llm_a else None
            ),
            "cooperation_rate_valid_a": _share(valid_a.count("C"), len(valid_a)),
            "cooperation_rate_valid_b": _share(valid_b.count("C"), len(valid_b)),
            "invalid_attempt_share_a": _share(invalid_attempts_a, attempts_a) if llm_a else None,
            "n_truncated_rounds_a": (sum(r["agent_a_truncated"] for r in lines) if llm_a else None),
            "time_to_collapse": _time_to_collapse(a, b, k=run.k, threshold=run.threshold),
        }
    return expected


# --- the comparison ---------------------------------------------------------------------------


def _replicate_rows(run: PlayedRun, columns: list[str]) -> dict[tuple[str, int], dict]:
    path = run.run_dir / PDMart.AGGREGATES
    rows = duckdb.execute(
        f"select condition, replicate, {', '.join(columns)} from read_parquet(?) "
        "where level = 'replicate'",
        [str(path)],
    ).fetchall()
    return {(r[0], r[1]): dict(zip(columns, r[2:], strict=True)) for r in rows}


def test_the_run_exercises_noise_invalid_replies_and_both_collapse_outcomes(played: PlayedRun):
    rounds = list(read_jsonl(played.run_dir / PDFiles.ROUNDS))
    assert any(r["agent_a_action"] != r["agent_a_intended_action"] for r in rounds)  # noise
    assert any(r["agent_a_kind"] == "llm" and not r["agent_a_valid"] for r in rounds)
    assert any(r["agent_a_truncated"] for r in rounds)
    calls = list(read_jsonl(played.run_dir / RunFiles.CALLS))
    cut = [c for c in calls if c["truncated"]]
    # a reply cut at the token limit is never read as a move
    assert cut and all((c["status"], c["parse_rule"]) == ("invalid", None) for c in cut)
    collapses = [m["time_to_collapse"] for m in recompute(played).values()]
    assert None in collapses and any(c is not None for c in collapses)


def test_every_replicate_matches_the_reference_implementation(played: PlayedRun):
    expected = recompute(played)
    columns = list(next(iter(expected.values())))
    actual = _replicate_rows(played, columns)
    assert set(actual) == set(expected) and len(expected) == 3 * 3
    for key, values in expected.items():
        for column, value in values.items():
            got = actual[key][column]
            if value is None:
                assert got is None, (key, column, got)
            else:
                assert got == pytest.approx(value, abs=1e-12), (key, column, got, value)


def test_the_summary_prints_collapse_rounds_and_what_the_fraction_counts(played: PlayedRun):
    by_condition: dict[str, list[int | None]] = defaultdict(list)
    for (condition, _), values in recompute(played).items():
        by_condition[condition].append(values["time_to_collapse"])
    lines = played.summary.text.splitlines()
    assert any("collapse at round (replicates collapsed)" in line for line in lines)
    for condition, collapses in by_condition.items():
        rounds = [c for c in collapses if c is not None]
        fraction = f"({len(rounds)}/{len(collapses)} replicates)"
        if not rounds:
            shown = f"never {fraction}"
        else:
            mean = sum(rounds) / len(rounds)
            number = str(int(mean)) if mean == int(mean) else f"{mean:.2f}".rstrip("0")
            shown = f"round {number} {fraction}"
        (line,) = [line for line in lines if line.startswith(condition + " ")]
        assert line.endswith(shown), (line, shown)


# --- intervals and paired comparisons ---------------------------------------------------------

_COMPARED = (
    "cooperation_rate",
    "cooperation_rate_a",
    "cooperation_rate_b",
    "retaliation_rate_a",
    "retaliation_rate_b",
    "forgiveness_rate_b",
    "exploitability_payoff_gap_a",
    "fallback_move_share_a",
    "cooperation_rate_valid_a",
    "time_to_collapse",
)


def _mart(run: PlayedRun, mart: PDMart, where: str = "true") -> list[dict]:
    cursor = duckdb.execute(
        f"select * from read_parquet(?) where {where}", [str(run.run_dir / mart)]
    )
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _sign_flip_p(differences: list[float]) -> float:
    """Exact two-sided sign-flip p-value: every one of the 2^n sign patterns."""
    observed = abs(sum(differences) / len(differences))
    flips = list(itertools.product((1, -1), repeat=len(differences)))
    extreme = sum(
        abs(sum(s * d for s, d in zip(signs, differences, strict=True)) / len(differences))
        >= observed - 1e-12
        for signs in flips
    )
    return extreme / len(flips)


def _benjamini_hochberg(p_values: list[float]) -> list[float]:
    order = np.argsort(p_values, kind="stable")
    ranked = np.asarray(p_values)[order] * len(p_values) / np.arange(1, len(p_values) + 1)
    adjusted_sorted = np.minimum(1.0, np.minimum.accumulate(ranked[::-1])[::-1])
    adjusted = np.empty(len(p_values))
    adjusted[order] = adjusted_sorted
    return adjusted.tolist()


def test_paired_differences_and_p_values_match_a_recomputation(played: PlayedRun):
    expected = recompute(played)
    conditions = sorted({condition for condition, _ in expected})
    rows = {
        (r["condition_1"], r["condition_2"], r["metric"]): r
        for r in _mart(played, PDMart.COMPARISONS)
    }
    # three conditions (at most 4): every pair is compared
    assert {(c1, c2) for c1, c2, _ in rows} == set(itertools.combinations(conditions, 2))
    checked = 0
    for first, second in itertools.combinations(conditions, 2):
        for metric in _COMPARED:
            differences = [
                expected[(first, r)][metric] - expected[(second, r)][metric]
                for r in range(3)
                if expected[(first, r)][metric] is not None
                and expected[(second, r)][metric] is not None
            ]
            row = rows.get((first, second, metric))
            if not differences:
                assert row is None, (first, second, metric)
                continue
            checked += 1
            assert row["n_pairs"] == len(differences)
            assert abs(row["mean_difference"] - float(np.mean(differences))) <= 1e-9
            assert abs(row["p_value"] - _sign_flip_p(differences)) <= 1e-9
            assert row["is_exact_test"] and row["n_flips"] == 2**3
    assert checked >= 15


def test_benjamini_hochberg_within_each_family(played: PlayedRun):
    """The config names no primary metrics: the default family is the cooperation of each
    seat, and every other metric is exploratory, each family corrected on its own."""
    rows = _mart(played, PDMart.COMPARISONS)
    assert len(rows) > 20
    families = {
        "primary": [r for r in rows if r["metric"] in ("cooperation_rate_a", "cooperation_rate_b")],
        "exploratory": [
            r for r in rows if r["metric"] not in ("cooperation_rate_a", "cooperation_rate_b")
        ],
    }
    assert families["primary"] and families["exploratory"]
    for family, members in families.items():
        adjusted = _benjamini_hochberg([row["p_value"] for row in members])
        for row, value in zip(members, adjusted, strict=True):
            assert row["family"] == family and row["family_size"] == len(members), row
            assert abs(row["p_value_bh"] - value) <= 1e-9, row


# Student's t(0.975, df), from a printed table (Fisher and Yates), to 3 decimals
_T_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571}
_RATES = {"cooperation_rate", "cooperation_rate_a", "cooperation_rate_b"}


def _possible_range(
    played: PlayedRun, metric: str, rounds: list[int]
) -> tuple[float, float] | None:
    """The range a condition's metric can take, as the catalogue's bounds say: a share
    [0, 1]; the exploitability gap -+ (highest - lowest payoff) x the most rounds played; a
    round 1 to the most rounds played; None for the others compared here."""
    if metric in _RATES:
        return (0.0, 1.0)
    payoffs = json.loads((played.run_dir / RunFiles.MANIFEST).read_text())["config"]["payoffs"]
    values = [value for pair in payoffs.values() for value in pair]
    if metric == "exploitability_payoff_gap_a":
        width = (max(values) - min(values)) * max(rounds)
        return (-width, width)
    if metric == "time_to_collapse":
        return (1.0, float(max(rounds)))
    return None


_RATES |= {"retaliation_rate_a", "retaliation_rate_b", "forgiveness_rate_b"}
_RATES |= {"fallback_move_share_a", "cooperation_rate_valid_a"}


_FLOOR = "widened to the binomial floor (Wilson on the pooled trials)"


def _trials(run: PlayedRun) -> dict[tuple[str, int], dict[str, int]]:
    """Per condition and replicate: the trials each rate of _RATES counts its events over
    (both agents' moves, the rounds after an opponent's defection, the valid moves)."""
    matches: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for line in read_jsonl(run.run_dir / PDFiles.ROUNDS):
        matches[(line["condition"], line["replicate"])].append(line)
    trials = {}
    for key, lines in matches.items():
        lines.sort(key=lambda r: r["round_index"])
        n = len(lines)
        after = {
            side: sum(lines[t - 1][f"agent_{other}_action"] == "D" for t in range(1, n))
            for side, other in (("a", "b"), ("b", "a"))
        }
        trials[key] = {
            "cooperation_rate": 2 * n,
            "cooperation_rate_a": n,
            "cooperation_rate_b": n,
            "retaliation_rate_a": after["a"],
            "retaliation_rate_b": after["b"],
            "forgiveness_rate_b": after["b"],
            "fallback_move_share_a": n,
            "cooperation_rate_valid_a": sum(bool(r["agent_a_valid"]) for r in lines),
        }
    return trials


def _wilson(successes: float, trials: float) -> tuple[float, float]:
    """The 95% Wilson score interval, in its count form (k + z^2/2 -+ z sqrt(k (n - k) / n +
    z^2 / 4)) / (n + z^2), k possibly fractional."""
    z = 1.959963984540054
    half = z * math.sqrt(successes * (trials - successes) / trials + z * z / 4)
    return (
        (successes + z * z / 2 - half) / (trials + z * z),
        (successes + z * z / 2 + half) / (trials + z * z),
    )


def test_condition_intervals_are_t_intervals_with_a_binomial_floor(played: PlayedRun):
    """mean -+ t(0.975, n - 1) sd / sqrt(n) over the replicates that define the metric,
    clipped to the range the metric can take with a note; a rate's widened, end by end, to
    the Wilson interval of the mean at the effective trials n^2 / sum(1 / trials), with a
    note; NULL with a note
    for fewer than two values or no spread and no floor; bounds to 9 decimals."""
    expected, trials = recompute(played), _trials(played)
    checked = floored = 0
    for row in _mart(played, PDMart.AGGREGATES, "level = 'condition'"):
        for metric in _COMPARED:
            low, high = row[f"{metric}_ci_low"], row[f"{metric}_ci_high"]
            note = row[f"{metric}_ci_note"]
            keys = [
                key
                for key, values in expected.items()
                if key[0] == row["condition"] and values[metric] is not None
            ]
            defined = [expected[key][metric] for key in keys]
            if len(defined) < 2:
                assert (low, high, note) == (None, None, "fewer than 2 replicates define it")
                continue
            n = len(defined)
            mean = sum(defined) / n
            sd = math.sqrt(sum((v - mean) ** 2 for v in defined) / (n - 1))
            notes = []
            want_low = want_high = None
            if sd < 1e-12:
                notes.append("every replicate gave the same value")
            else:
                half = _T_975[n - 1] * sd / math.sqrt(n)
                want_low, want_high = mean - half, mean + half
                rounds = [
                    v["rounds_played"] for k, v in expected.items() if k[0] == row["condition"]
                ]
                bounds = _possible_range(played, metric, rounds)
                if bounds is not None and (want_low < bounds[0] or want_high > bounds[1]):
                    notes.append(f"clipped to [{bounds[0]:g}, {bounds[1]:g}]")
                    want_low, want_high = max(bounds[0], want_low), min(bounds[1], want_high)
            if metric in _RATES:
                effective = n * n / sum(1 / trials[key][metric] for key in keys)
                floor_low, floor_high = _wilson(mean * effective, effective)
                if want_low is None or floor_low < want_low - 1e-9 or floor_high > want_high + 1e-9:
                    notes.append(_FLOOR)
                    floored += 1
                want_low = floor_low if want_low is None else min(want_low, floor_low)
                want_high = floor_high if want_high is None else max(want_high, floor_high)
            where = (row["condition"], metric)
            if want_low is None:
                assert (low, high, note) == (None, None, notes[0]), where
                continue
            assert low == pytest.approx(want_low, abs=1e-9), where
            assert high == pytest.approx(want_high, abs=1e-9), where
            assert note == ("; ".join(notes) or None), where
            checked += 1
    assert checked >= 10 and floored >= 1


def test_paired_intervals_agree_with_their_p_values(played: PlayedRun):
    """Three common replicates: 8 sign flips, so no 95% interval exists (the smallest p is
    2 / 8); each row says why."""
    rows = _mart(played, PDMart.COMPARISONS)
    assert rows
    for row in rows:
        assert row["ci_low"] is None and row["ci_high"] is None
        assert row["ci_note"] in {
            "too few replicates for a 95% interval of the sign-flip test",
            "fewer than 2 paired replicates",
            "every paired difference is the same",
        }
        assert row["p_value"] >= 0.25 and row["verdict"] == "inconclusive" and row["is_few_data"]
