"""Which bootstrap interval of the Bradley-Terry Elo reaches its nominal 95%: a numpy study.

Not a test, and without the engine or dbt. The design of ``calibration_pairwise.py``'s
``--numpy`` mode: five players of planted Elo 1250, 1100, 1000, 950, 700 (centred on 1000),
every pair on every one of n questions judged 6 times (3 judges, 2 orders) by Bradley-Terry,
no ties, no preferences. Per seed: the fit (Newton's method on the log-likelihood), B
bootstrap replicates over questions and the n leave-one-question-out fits (for BCa), then
for each method the share of intervals that hold the planted Elo, its 95% Wilson interval
(the five checks of a seed counted as independent) and the mean width in Elo points.

Methods (q_lo, q_hi the 2.5% and 97.5% bootstrap quantiles, e the fit's Elo):

- ``percentile``: [q_lo, q_hi] (the marts before this study);
- ``basic``: [2 e - q_hi, 2 e - q_lo] (the percentile interval reflected about e);
- ``BCa``: Efron's bias-corrected and accelerated percentiles (jackknife acceleration);
- ``expanded percentile``: each arm of the percentile interval stretched about e by
  sqrt(n / (n - 1)) t(0.975, n - 1) / z(0.975) (Hesterberg's expansion; the leaderboard's);
- ``normal-t``: e -+ t(0.975, n - 1) sqrt(n / (n - 1)) sd of the replicates;
- ``expanded basic``: the basic interval's arms stretched the same way;
- ``pseudo-ties a``: a fit with a pseudo-ties added to every pair (a / 2 wins each way, a
  prior pulling the strengths together), percentile interval of the same fit.

Also, for the percentile-bootstrap ranks: the share of rank intervals (2.5% and 97.5%
quantiles of the replicates' ranks, nearest order statistic) that hold the planted rank, and
of rank intervals read off the Elo intervals as LMArena does (1 + the players whose interval
lies wholly above, to the players count minus those wholly below).

Usage::

    uv run --frozen python benchmarks/calibration_bt_intervals.py --seeds 200 \\
        [--questions 10 20 40 80] [--bootstrap 200]
"""

from __future__ import annotations

import argparse
import math
import sys
from itertools import combinations
from pathlib import Path

import numpy as np
from scipy import stats

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.calibration_arena import wilson  # noqa: E402

PLANTED = np.array([1250.0, 1100.0, 1000.0, 950.0, 700.0])
ELO_PER_LN = 400 / math.log(10)
VERDICTS_PER_PAIR = 6
PER_PLAYER_METHODS = ("percentile", "expanded percentile", "normal-t", "expanded basic")
PAIRS = np.array(list(combinations(range(len(PLANTED)), 2)))


def fit(wins: np.ndarray, games: np.ndarray, *, pseudo_ties: float = 0.0) -> np.ndarray:
    """Elo of the Bradley-Terry fits of many tables at once: ``wins`` and ``games`` are
    (tables, pairs), the first player's wins and the verdicts; Newton's method, centred on
    1000 (the mean ln-strength 0, as the SQL's geometric mean 1)."""
    wins = wins + pseudo_ties / 2
    games = games + pseudo_ties
    k = len(PLANTED)
    theta = np.zeros((wins.shape[0], k))
    first, second = PAIRS[:, 0], PAIRS[:, 1]
    for _ in range(40):
        p = 1 / (1 + np.exp(theta[:, second] - theta[:, first]))
        residual = wins - games * p
        curvature = games * p * (1 - p)
        gradient = np.zeros_like(theta)
        np.add.at(gradient.T, first, residual.T)
        np.add.at(gradient.T, second, -residual.T)
        hessian = np.zeros((wins.shape[0], k, k))
        for index, (i, j) in enumerate(PAIRS):
            c = curvature[:, index]
            hessian[:, i, i] += c
            hessian[:, j, j] += c
            hessian[:, i, j] -= c
            hessian[:, j, i] -= c
        step = np.linalg.solve(hessian + 1.0 / k, gradient[..., None])[..., 0]
        theta = np.clip(theta + step, -30, 30)
        theta -= theta.mean(axis=1, keepdims=True)
    return 1000 + ELO_PER_LN * theta


def expansion(n: int) -> float:
    """sqrt(n / (n - 1)) t(0.975, n - 1) / z(0.975)."""
    return math.sqrt(n / (n - 1)) * stats.t.ppf(0.975, n - 1) / stats.norm.ppf(0.975)


def bca(estimate: np.ndarray, replicates: np.ndarray, jackknife: np.ndarray) -> np.ndarray:
    """(2, players) BCa ends."""
    below = (replicates < estimate).mean(axis=0) + 0.5 * (replicates == estimate).mean(axis=0)
    z0 = stats.norm.ppf(np.clip(below, 1e-6, 1 - 1e-6))
    spread = jackknife.mean(axis=0) - jackknife
    acceleration = (spread**3).sum(axis=0) / (6 * ((spread**2).sum(axis=0)) ** 1.5)
    ends = []
    for alpha in (0.025, 0.975):
        z = stats.norm.ppf(alpha)
        level = stats.norm.cdf(z0 + (z0 + z) / (1 - acceleration * (z0 + z)))
        ends.append([np.quantile(replicates[:, k], level[k]) for k in range(len(estimate))])
    return np.array(ends)


def ranks(elo: np.ndarray) -> np.ndarray:
    """Rank 1 = strongest, along the last axis."""
    return (-elo).argsort(axis=-1).argsort(axis=-1) + 1


def intervals(wins: np.ndarray, n: int, bootstrap: int, rng) -> dict[str, np.ndarray]:
    """Method -> (2, players) interval ends of one seed."""
    games = np.full_like(wins, VERDICTS_PER_PAIR)
    estimate = fit(wins.sum(axis=0, keepdims=True), games.sum(axis=0, keepdims=True))[0]
    counts = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(bootstrap)])
    boot_wins, boot_games = counts @ wins, counts @ games
    replicates = fit(boot_wins, boot_games)
    keep = 1 - np.eye(n)
    jackknife = fit(keep @ wins, keep @ games)
    low, high = np.quantile(replicates, [0.025, 0.975], axis=0)
    c = expansion(n)
    sd = replicates.std(axis=0, ddof=1)
    t = stats.t.ppf(0.975, n - 1) * math.sqrt(n / (n - 1))
    out = {
        "percentile": np.array([low, high]),
        "basic": np.array([2 * estimate - high, 2 * estimate - low]),
        "BCa": bca(estimate, replicates, jackknife),
        "expanded percentile": np.array(
            [estimate - c * (estimate - low), estimate + c * (high - estimate)]
        ),
        "normal-t": np.array([estimate - t * sd, estimate + t * sd]),
        "expanded basic": np.array(
            [estimate - c * (high - estimate), estimate + c * (estimate - low)]
        ),
    }
    for a in (1.0, 3.0):
        shrunk = fit(boot_wins, boot_games, pseudo_ties=a)
        out[f"pseudo-ties {a:g}"] = np.quantile(shrunk, [0.025, 0.975], axis=0)
    rank_draws = ranks(replicates)
    out["rank: percentile"] = np.quantile(rank_draws, [0.025, 0.975], axis=0, method="nearest")
    return out


def lmarena_ranks(ends: np.ndarray) -> np.ndarray:
    """(2, players) rank intervals read off Elo intervals."""
    low, high = ends
    above = (low[None, :] > high[:, None]).sum(axis=1)
    below = (high[None, :] < low[:, None]).sum(axis=1)
    return np.array([1 + above, len(low) - below])


def study(n: int, seeds: int, bootstrap: int, *, stream: int = 0) -> dict:
    """Method -> (held, checked, mean width); and (method, player index) -> held."""
    rng = np.random.default_rng([n, stream])
    planted = PLANTED - PLANTED.mean() + 1000
    p_win = 1 / (1 + 10 ** ((planted[PAIRS[:, 1]] - planted[PAIRS[:, 0]]) / 400))
    true_rank = ranks(planted)
    held: dict = {}
    widths: dict[str, float] = {}
    for _ in range(seeds):
        wins = rng.binomial(VERDICTS_PER_PAIR, p_win, size=(n, len(PAIRS))).astype(float)
        ends = intervals(wins, n, bootstrap, rng)
        for method in [m for m in ends if not m.startswith("rank")]:
            ends[f"rank: from {method}"] = lmarena_ranks(ends[method])
        for method, (low, high) in ends.items():
            truth = true_rank if method.startswith("rank") else planted
            inside = (low <= truth) & (truth <= high)
            held[method] = held.get(method, 0) + int(inside.sum())
            for player, hit in enumerate(inside):
                held[(method, player)] = held.get((method, player), 0) + int(hit)
            widths[method] = widths.get(method, 0.0) + float((high - low).sum())
    checked = seeds * len(PLANTED)
    per_player = {key: held.pop(key) for key in [k for k in held if isinstance(k, tuple)]}
    return {m: (held[m], checked, widths[m] / checked) for m in held}, per_player


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--questions", type=int, nargs="+", default=[10, 20, 40, 80])
    parser.add_argument("--bootstrap", type=int, default=200)
    parser.add_argument("--stream", type=int, default=0, help="another batch of seeds")
    args = parser.parse_args(argv)
    studies = {n: study(n, args.seeds, args.bootstrap, stream=args.stream) for n in args.questions}
    results = {n: overall for n, (overall, _) in studies.items()}
    print(
        f"{args.seeds} seeds per size, {args.bootstrap} bootstrap replicates, "
        f"{len(PLANTED)} players: coverage of the planted Elo (rank) [95% Wilson], "
        "mean width in Elo points (ranks)\n"
    )
    print("| method | " + " | ".join(f"{n} questions" for n in args.questions) + " |")
    print("| --- |" + " ---: |" * len(args.questions))
    for method in results[args.questions[0]]:
        cells = []
        for n in args.questions:
            hits, checked, width = results[n][method]
            low, high = wilson(hits, checked)
            digits = 2 if method.startswith("rank") else 0
            cells.append(f"{hits / checked:.1%} [{low:.1%}, {high:.1%}], {width:.{digits}f}")
        print(f"| {method} | " + " | ".join(cells) + " |")
    print("\nPer player (planted Elo), coverage of the Elo intervals:\n")
    print("| method | player | " + " | ".join(f"{n} questions" for n in args.questions) + " |")
    print("| --- | --- |" + " ---: |" * len(args.questions))
    for method in PER_PLAYER_METHODS:
        for player, planted in enumerate(PLANTED):
            cells = [f"{studies[n][1][(method, player)] / args.seeds:.1%}" for n in args.questions]
            print(f"| {method} | {planted:.0f} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
