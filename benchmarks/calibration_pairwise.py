"""Calibration study of the pairwise marts' intervals: coverage of planted truths over seeds.

Not a test. Plays K seeded tournaments of the Bradley-Terry mock
(:mod:`pdbench.arena.mock_verdicts`: planted Elo strengths, a judge preferring the first
answer, one preferring its own, one preferring a player by name) through the real engine
(``tests/integration/bt_mock_runs.py``: all pairs, both orders, the self and name arms),
builds the pairwise marts with dbt and checks, per tournament, whether each 95% interval holds
its truth:

- ``elo``: ``bradley_terry.elo_ci_low/high`` per player (the stretched reflected interval);
- ``elo: percentile``: the plain percentile interval of the same replicates, read back from
  the mart (q2.5 = elo - (elo_ci_high - elo) / interval_expansion, q97.5 likewise): the
  interval the mart gave before, on the same tournaments;
- ``win rate vs mean``: ``bradley_terry.win_rate_ci_low/high`` (no baseline: against a
  player of the field's geometric-mean strength), truth 1 / (1 + 10^((1000 - Elo) / 400));
- ``rank``: ``bradley_terry.rank_ci_low/high``, truth the rank of the Elo truth;
- ``first-position rate`` and ``flip rate``: ``pairwise_position`` per judge;
- ``self bias``: ``pairwise_self_bias`` per judge;
- ``name bias``: ``pairwise_name_bias`` per judge and player.

The truths are computed here, independently of the SQL, by enumerating every showing the
tournament asks (pair, judge, order, blind or named) with its probability of preferring the
first answer (the mock's four draws in closed form) and averaging as each mart counts. The
Elo truth is the Bradley-Terry fit (Newton's method, numpy) to the expected shares of the
scored verdicts: the planted strengths themselves when no judge prefers a position, moved
a few points by the first-preferring judge otherwise (printed).

Printed: per arm, intervals checked, coverage with a 95% Wilson interval against the nominal
95% (checks within a tournament are counted as independent; they are not quite), and the
same for the planted rows only (the biased judge or favoured player).

With ``--tie-share t --strong-share g`` every judge also answers ``A=B`` on a share t of the
verdicts its strengths decide and strongly on a share g of the others
(:mod:`pdbench.arena.mock_verdicts`); the truths count a tie half a win and a strong
verdict 3 verdicts in the Elo, a tie half in the arms, and a flip as the marts do (the two
first-position scores of a pair not adding up to 1).

Usage::

    uv run --frozen python benchmarks/calibration_pairwise.py --tournaments 30 [--questions 4]
        [--bootstrap 200] [--first-seed 7000] [--first-preference 0.4]
        [--tie-share 0.2 --strong-share 0.3]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections import defaultdict
from itertools import combinations
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pdbench.arena.mock_verdicts import elo_win_probability  # noqa: E402

from benchmarks.calibration_arena import wilson  # noqa: E402
from benchmarks.calibration_bt_intervals import expansion  # noqa: E402
from tests.integration.bt_mock_runs import play_bt_tournament, read_marts  # noqa: E402

PLAYERS: dict[str, dict] = {
    "atlas": {"strength": 1250, "favours": "ember", "name_preference": 0.5},
    "borealis": {"strength": 1100, "first_preference": 0.4},
    "cirrus": {"strength": 1000, "self_preference": 0.5},
    "dynamo": {"strength": 950},
    "ember": {"strength": 700},
}
PLANTED_ROWS = {"first-position rate": {"borealis"}, "flip rate": {"borealis"},
                "self bias": {"cirrus"}, "name bias": {("atlas", "ember")}}  # fmt: skip
"""The rows where a bias is planted (every row has a truth; most truths are 0 or 0.5)."""
ELO_PER_LN = 400 / math.log(10)
STRONG_WEIGHT = 3
"""How the marts count a strong verdict (``pairwise.strong_weight``, its default)."""


def outcomes(judge: str, first: str, second: str, *, named: bool) -> tuple[float, ...]:
    """The mock's probabilities (its four draws) that ``judge`` answers, on ``first`` shown
    before ``second``: first strongly preferred, first preferred, a tie, second preferred,
    second strongly preferred."""
    traits = PLAYERS[judge]
    p = elo_win_probability(PLAYERS[first]["strength"], PLAYERS[second]["strength"])
    t, g = traits.get("tie_share", 0.0), traits.get("strong_share", 0.0)
    dist = [(1 - t) * g * p, (1 - t) * (1 - g) * p, t, (1 - t) * (1 - g) * (1 - p),
            (1 - t) * g * (1 - p)]  # fmt: skip
    favoured = traits.get("favours")
    decided = [(traits.get("first_preference", 0.0), True)]
    if named and favoured in (first, second):
        decided.append((traits.get("name_preference", 0.0), first == favoured))
    if judge in (first, second):
        decided.append((traits.get("self_preference", 0.0), first == judge))
    for share, first_wins in decided:
        dist = [(1 - share) * x for x in dist]
        dist[1 if first_wins else 3] += share
    return tuple(dist)


def p_first(judge: str, first: str, second: str, *, named: bool) -> float:
    """The expected score of ``first`` (a tie half), as the bias arms count it."""
    strong, plain, tie, _, _ = outcomes(judge, first, second, named=named)
    return strong + plain + tie / 2


def flip_probability(judge: str, a: str, b: str, *, named: bool) -> float:
    """The chance that the two first-position scores of a pair do not add up to 1."""
    one, two = outcomes(judge, a, b, named=named), outcomes(judge, b, a, named=named)
    wins_1, wins_2 = one[0] + one[1], two[0] + two[1]
    losses_1, losses_2 = one[3] + one[4], two[3] + two[4]
    return 1 - wins_1 * losses_2 - losses_1 * wins_2 - one[2] * two[2]


def expected_record(kinds: list) -> dict[tuple[str, str], list[float]]:
    """(a, b) -> [a's expected weighted wins, expected weighted verdicts] over the scored
    showings (a tie half a win, a strong verdict STRONG_WEIGHT verdicts)."""
    record: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for judge, a, b, named, _, _ in kinds:
        if named or judge in (a, b):
            continue
        for first, second in ((a, b), (b, a)):
            sf, f, t, sl, ss = outcomes(judge, first, second, named=False)
            a_strong, a_plain = (sf, f) if first == a else (ss, sl)
            record[(a, b)][0] += STRONG_WEIGHT * a_strong + a_plain + t / 2
            record[(a, b)][1] += STRONG_WEIGHT * (sf + ss) + f + t + sl
    return record


def showings() -> list[tuple[str, str, str, bool, float, float]]:
    """(judge, a, b, named, P(a wins shown first), P(a wins shown second)) of every showing
    kind; each occurs equally often (once per question)."""
    rows = []
    for a, b in combinations(sorted(PLAYERS), 2):
        for judge in PLAYERS:
            for named in (False, True):
                first = p_first(judge, a, b, named=named)
                second = 1 - p_first(judge, b, a, named=named)
                rows.append((judge, a, b, named, first, second))
    return rows


def bt_truth(record: dict[tuple[str, str], list[float]]) -> dict[str, float]:
    """Elo of the Bradley-Terry fit (Newton's method) to ``record``: (a, b) -> [a's weighted
    wins, weighted verdicts]."""
    players = sorted(PLAYERS)
    index = {p: i for i, p in enumerate(players)}
    theta = np.zeros(len(players))
    for _ in range(100):
        gradient = np.zeros(len(players))
        hessian = np.zeros((len(players), len(players)))
        for (a, b), (wins, games) in record.items():
            i, j = index[a], index[b]
            p = 1 / (1 + math.exp(theta[j] - theta[i]))
            residual, curvature = wins - games * p, games * p * (1 - p)
            gradient[[i, j]] += [residual, -residual]
            hessian[i, i] += curvature
            hessian[j, j] += curvature
            hessian[i, j] -= curvature
            hessian[j, i] -= curvature
        theta = theta + np.linalg.lstsq(hessian, gradient, rcond=None)[0]
        theta -= theta.mean()
    return {p: 1000 + ELO_PER_LN * theta[index[p]] for p in players}


def truths() -> dict[str, dict]:
    """Arm -> row key -> truth, in each mart's unit (shares, not percent)."""
    kinds = showings()
    first_rate, flips = defaultdict(list), defaultdict(list)
    own, peer = defaultdict(list), defaultdict(list)
    named, blind = defaultdict(list), defaultdict(list)
    for judge, a, b, is_named, first, second in kinds:
        if judge in (a, b):
            if not is_named:
                other = b if judge == a else a
                own[judge] += [first, second] if judge == a else [1 - first, 1 - second]
                own[(judge, "opponents")].append(other)
            continue
        # a shown first: P(first wins) = first; b shown first: P(first wins) = 1 - second
        first_rate[judge] += [first, 1 - second]
        flips[judge].append(flip_probability(judge, a, b, named=is_named))
        for player, wins in ((a, [first, second]), (b, [1 - first, 1 - second])):
            (named if is_named else blind)[(judge, player)] += wins
            if not is_named:
                peer[player] += wins
    mean = lambda values: sum(values) / len(values)  # noqa: E731
    self_bias = {}
    for judge in PLAYERS:
        opponents = set(own[(judge, "opponents")])
        peers = [
            w
            for judge_k, a, b, is_named, first, second in kinds
            if not is_named and judge_k not in (a, b) and judge in (a, b)
            and ({a, b} - {judge}) <= opponents
            for w in ([first, second] if a == judge else [1 - first, 1 - second])
        ]  # fmt: skip
        self_bias[judge] = mean(own[judge]) - mean(peers)
    elo = bt_truth(expected_record(kinds))
    order = sorted(elo, key=elo.get, reverse=True)
    return {
        "elo": elo,
        "elo: percentile": elo,
        "win rate vs mean": {p: 1 / (1 + 10 ** ((1000 - e) / 400)) for p, e in elo.items()},
        "rank": {p: order.index(p) + 1 for p in elo},
        "first-position rate": {j: mean(v) for j, v in first_rate.items()},
        "flip rate": {j: mean(v) for j, v in flips.items()},
        "self bias": self_bias,
        "name bias": {k: mean(named[k]) - mean(blind[k]) for k in named},
    }


def percentile(row: dict) -> tuple[float | None, float | None]:
    """The 2.5% and 97.5% bootstrap quantiles of a player's Elo, read back from the
    stretched reflected interval [e - f (q97.5 - e), e + f (e - q2.5)]."""
    elo, low, high, stretch = (row[c] for c in ("elo", "elo_ci_low", "elo_ci_high",
                                                "interval_expansion"))  # fmt: skip
    if low is None:
        return None, None
    return elo - (high - elo) / stretch, elo + (elo - low) / stretch


def observed(marts: dict[str, list[dict]]) -> dict[str, dict]:
    """Arm -> row key -> (low, high) of one tournament."""
    board = marts["bradley_terry"]
    rows = {
        "elo": {r["player"]: (r["elo_ci_low"], r["elo_ci_high"]) for r in board},
        "elo: percentile": {r["player"]: percentile(r) for r in board},
        "win rate vs mean": {r["player"]: (r["win_rate_ci_low"], r["win_rate_ci_high"])
                             for r in board},
        "rank": {r["player"]: (r["rank_ci_low"], r["rank_ci_high"]) for r in board},
        "first-position rate": {}, "flip rate": {}, "self bias": {}, "name bias": {},
    }  # fmt: skip
    for r in marts["pairwise_position"]:
        if not r["is_all_judges"]:
            rows["first-position rate"][r["judge"]] = (r["first_win_rate_ci_low"],
                                                       r["first_win_rate_ci_high"])  # fmt: skip
            rows["flip rate"][r["judge"]] = (r["flip_rate_ci_low"], r["flip_rate_ci_high"])
    for r in marts["pairwise_self_bias"]:
        if not r["is_all_judges"]:
            rows["self bias"][r["judge"]] = (r["self_bias_ci_low"], r["self_bias_ci_high"])
    for r in marts["pairwise_name_bias"]:
        if not r["is_all_judges"]:
            key = (r["judge"], r["player"])
            rows["name bias"][key] = (r["name_bias_ci_low"], r["name_bias_ci_high"])
    return rows


def report(hits: dict, checks: dict, widths: dict, truth: dict, args: argparse.Namespace) -> None:
    planted = {p: traits["strength"] for p, traits in PLAYERS.items()}
    centre = sum(planted.values()) / len(planted)
    print(
        f"{args.tournaments} tournaments of {len(PLAYERS)} mock players, "
        f"{args.questions} questions each, bootstrap n {args.bootstrap}, "
        f"seeds from {args.first_seed}, borealis's first preference {args.first_preference}, "
        f"every judge's tie share {args.tie_share} and strong share {args.strong_share}\n"
    )
    print("Elo truth (fit to expected shares) against planted strength - mean + 1000:")
    for player, elo in truth["elo"].items():
        print(f"  {player}: {elo:.1f} against {planted[player] - centre + 1000:.1f}")
    print("\n| arm | rows | mean width | intervals | coverage [95% Wilson] | planted rows: "
          "intervals | coverage [95% Wilson] |\n| --- | ---: | ---: | ---: | ---: | ---: "
          "| ---: |")  # fmt: skip
    for arm in truth:
        width = widths[arm] / checks[(arm, "all")] if checks[(arm, "all")] else math.nan
        cells = [arm, str(len(truth[arm])), f"{width:.3g}"]
        for scope in ("all", "planted"):
            n, k = checks[(arm, scope)], hits[(arm, scope)]
            if n == 0:
                cells += ["-", "-"]
                continue
            low, high = wilson(k, n)
            cells += [str(n), f"{k / n:.1%} [{low:.1%}, {high:.1%}]"]
        print("| " + " | ".join(cells) + " |")
    print("\nnominal: 95.0%")


def numpy_elo_coverage(*, questions: int, seeds: int, bootstrap: int) -> dict[str, float]:
    """The same check of the Elo intervals without the engine or dbt: per seed, blind
    verdicts drawn for every pair on ``questions`` questions (3 judges x 2 orders, no
    preferences), ``bootstrap`` resamples of the questions refitted by Newton's method
    (:func:`bt_truth`'s); the share of intervals that hold the planted Elo, for the plain
    percentile interval and for the marts' stretched reflected one."""
    rng = np.random.default_rng(0)
    players = sorted(PLAYERS)
    planted = np.array([PLAYERS[p]["strength"] for p in players], dtype=float)
    planted += 1000 - planted.mean()
    pairs = list(combinations(range(len(players)), 2))
    p_win = np.array([elo_win_probability(planted[a], planted[b]) for a, b in pairs])
    stretch = expansion(questions)
    held = {"percentile": 0, "stretched reflected (the marts')": 0}
    for _ in range(seeds):
        wins = rng.binomial(6, p_win, size=(questions, len(pairs))).astype(float)
        fits = []
        for replicate in range(bootstrap + 1):
            drawn = wins[rng.integers(0, questions, questions)] if replicate else wins
            record = {(players[a], players[b]): [w, 6 * questions]
                      for (a, b), w in zip(pairs, drawn.sum(axis=0), strict=True)}  # fmt: skip
            fit = bt_truth(record)
            fits.append([fit[p] for p in players])
        estimate, fits = np.array(fits[0]), np.array(fits[1:])
        low, high = np.quantile(fits, 0.025, axis=0), np.quantile(fits, 0.975, axis=0)
        reflected = (estimate - stretch * (high - estimate), estimate + stretch * (estimate - low))
        for method, (lo, hi) in (("percentile", (low, high)),
                                 ("stretched reflected (the marts')", reflected)):  # fmt: skip
            held[method] += int(((lo <= planted) & (planted <= hi)).sum())
    return {method: hits / (seeds * len(players)) for method, hits in held.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=30, help="K")
    parser.add_argument("--questions", type=int, default=4, help="questions per player")
    parser.add_argument("--bootstrap", type=int, default=200, help="bootstrap replicates")
    parser.add_argument("--first-seed", type=int, default=7000)
    parser.add_argument(
        "--first-preference", type=float, default=0.4, help="borealis's (0: Elo truth = planted)"
    )
    parser.add_argument(
        "--numpy", action="store_true", help="only the Elo check, without engine or dbt"
    )
    parser.add_argument("--tie-share", type=float, default=0.0, help="every judge's")
    parser.add_argument("--strong-share", type=float, default=0.0, help="every judge's")
    args = parser.parse_args(argv)
    PLAYERS["borealis"]["first_preference"] = args.first_preference
    for traits in PLAYERS.values():
        for trait, share in (("tie_share", args.tie_share), ("strong_share", args.strong_share)):
            if share:
                traits[trait] = share
    if args.numpy:
        questions = args.questions * len(PLAYERS)
        rates = numpy_elo_coverage(
            questions=questions, seeds=args.tournaments, bootstrap=args.bootstrap
        )
        for method, rate in rates.items():
            print(f"{questions} questions, {args.tournaments} seeds, {method}: {rate:.1%}")
        return 0
    truth = truths()
    hits: dict = defaultdict(int)
    checks: dict = defaultdict(int)
    widths: dict = defaultdict(float)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="calibration_pairwise_") as tmp:
        for k in range(args.tournaments):
            run_dir = play_bt_tournament(
                Path(tmp) / f"t{k}",
                PLAYERS,
                seed=args.first_seed + k,
                questions=args.questions,
                bootstrap=args.bootstrap,
            )
            for arm, rows in observed(read_marts(run_dir)).items():
                for key, (low, high) in rows.items():
                    inside = low is not None and low <= truth[arm][key] <= high
                    widths[arm] += 0.0 if low is None else high - low
                    scopes = ["all"] + (["planted"] if key in PLANTED_ROWS.get(arm, ()) else [])
                    for scope in scopes:
                        hits[(arm, scope)] += inside
                        checks[(arm, scope)] += 1
            elapsed = time.perf_counter() - start
            print(f"{k + 1} tournaments, {elapsed:.0f} s", file=sys.stderr, flush=True)
    report(hits, checks, widths, truth, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
