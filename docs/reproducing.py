"""Put pdbench's metrics of imported runs beside the tables the studies published
(docs/reproducing.md). Reads the aggregated run directories and the published CSVs from
where the fetched repositories are; copies nothing of them.

    uv run python docs/reproducing.py fontana RUN_DIR MAIN_RUNS_COPIES [MODEL...]
    uv run python docs/reproducing.py akata RUN_DIR [AGENT]
    uv run python docs/reproducing.py shares RUN_DIR AGENT...

``MAIN_RUNS_COPIES``: the folder ``relevant_runs_copies/main_runs_copies`` of Fontana et al.'s
repository (it holds ``<model>_URNDx_ws10/coop_probability_vs_urnd_alpha.csv`` and
``behavioral_profile_vs_urnd_alpha.csv``).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import duckdb

MODELS = ("gpt35t", "llama2", "llama3")


def _published(folder: Path, model: str, table: str) -> dict[float, dict[str, float]]:
    path = folder / f"{model}_URNDx_ws10" / f"{table}_vs_urnd_alpha.csv"
    with path.open(newline="") as handle:
        return {
            round(float(row["URND_alpha"]), 1): {k: float(v) for k, v in row.items() if k}
            for row in csv.DictReader(handle)
        }


def _ours(run_dir: Path, model: str) -> dict[float, dict[str, float | None]]:
    rows = duckdb.sql(
        f"""
        select condition, cooperation_rate_a, cooperation_rate_a_ci_low,
            cooperation_rate_a_ci_high, retaliation_rate_a, forgiveness_rate_a, nice_rate_a,
            n_replicates
        from '{run_dir / "aggregates.parquet"}'
        where level = 'condition' and agent_a_name = '{model}'
        """
    ).fetchall()
    names = ("coop", "coop_low", "coop_high", "retaliation", "forgiveness", "nice", "n")
    return {
        float(row[0].rsplit("urnd", 1)[1]): dict(zip(names, row[1:], strict=True)) for row in rows
    }


def _f(value: float | None) -> str:
    return "not defined" if value is None else f"{value:.4f}"


def fontana(run_dir: Path, folder: Path, models: list[str]) -> None:
    print("### Cooperation of the model (share of rounds it cooperated), per alpha\n")
    print("| model | alpha | published model_coop | ours | same to 1e-12 | published 95% interval "
          "| our 95% interval (t, binomial floor) |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for model in models:
        theirs, ours = _published(folder, model, "coop_probability"), _ours(run_dir, model)
        for alpha in sorted(theirs):
            t, o = theirs[alpha], ours[alpha]
            same = abs(t["model_coop"] - o["coop"]) < 1e-12
            print(
                f"| {model} | {alpha:.1f} | {t['model_coop']:.4f} | {_f(o['coop'])} | "
                f"{'yes' if same else 'NO'} | [{t['ci_lb']:.4f}, {t['ci_ub']:.4f}] | "
                f"[{_f(o['coop_low'])}, {_f(o['coop_high'])}] |"
            )
    print("\n### Behavioural profile: theirs beside ours (means over the 100 games)\n")
    print("| model | alpha | their retaliatory | our retaliation_rate_a | their forgiving "
          "| our forgiveness_rate_a | their nice | our nice_rate_a |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for model in models:
        theirs, ours = _published(folder, model, "behavioral_profile"), _ours(run_dir, model)
        for alpha in sorted(theirs):
            t, o = theirs[alpha], ours[alpha]
            print(
                f"| {model} | {alpha:.1f} | {t['retaliatory_mean']:.3f} | {_f(o['retaliation'])} "
                f"| {t['forgiving_mean']:.3f} | {_f(o['forgiveness'])} | {t['nice_mean']:.2f} "
                f"| {_f(o['nice'])} |"
            )


def akata(run_dir: Path, agent: str) -> None:
    print(f"### Strategy fit of {agent} over all its rounds (strategy_fit.parquet, level agent)\n")
    rows = duckdb.sql(
        f"""
        select reference, reference_kind, n_rounds, distance, posterior, fit_rank
        from '{run_dir / "strategy_fit.parquet"}'
        where level = 'agent' and agent_name = '{agent}'
        order by fit_rank, reference
        """
    ).fetchall()
    print("| rank | reference | kind | rounds | distance (share of moves unlike it) | posterior |")
    print("| --- | --- | --- | --- | --- | --- |")
    for reference, kind, n, distance, posterior, rank in rows:
        print(f"| {rank} | {reference} | {kind} | {n} | {distance:.3f} | {posterior:.3f} |")
    profile = duckdb.sql(
        f"""
        select side, condition, round(cooperation_rate, 3), round(p_c_after_cd, 3),
            round(p_c_after_dd, 3), round(p_c_after_dc, 3), round(p_c_after_cc, 3)
        from '{run_dir / "agent_metrics.parquet"}'
        where level = 'condition' and agent_name = '{agent}'
        order by condition, side
        """
    ).fetchall()
    print(f"\n### {agent}'s memory-one profile per condition (P(C) after CC, CD, DC, DD)\n")
    print("| condition | side | cooperation | P(C after CC) | P(C after CD) | P(C after DC) "
          "| P(C after DD) |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for side, condition, coop, cd, dd, dc, cc in profile:
        cells = " | ".join("not visited" if v is None else f"{v:.3f}" for v in (cc, cd, dc, dd))
        print(f"| {condition} | {side} | {coop:.3f} | {cells} |")


def shares(run_dir: Path, agent: str, *, shown: float = 0.0) -> None:
    """The agent's strategy shares by SFEM (strategy_shares.parquet), largest first; with
    ``shown``, only the shares of at least that much."""
    print(f"### Strategy shares of {agent} by SFEM (strategy_shares.parquet)\n")
    rows = duckdb.sql(
        f"""
        select strategy, share, share_ci_low, share_ci_high, tremble, tremble_ci_low,
            tremble_ci_high, n_matches
        from '{run_dir / "strategy_shares.parquet"}'
        where agent_name = '{agent}' and share >= {shown}
        order by share desc, strategy
        """
    ).fetchall()
    print("| strategy | share of matches | 95% interval | tremble [95%] | matches |")
    print("| --- | --- | --- | --- | --- |")
    for strategy, share, low, high, tremble, t_low, t_high, n in rows:
        print(
            f"| {strategy} | {share:.1%} | [{low:.1%}, {high:.1%}] "
            f"| {tremble:.1%} [{t_low:.1%}, {t_high:.1%}] | {n} |"
        )


def main(argv: list[str]) -> None:
    if len(argv) >= 3 and argv[0] == "fontana":
        fontana(Path(argv[1]), Path(argv[2]), argv[3:] or list(MODELS))
    elif len(argv) >= 2 and argv[0] == "akata":
        akata(Path(argv[1]), argv[2] if len(argv) > 2 else "act_gpt4")
        print()
        shares(Path(argv[1]), argv[2] if len(argv) > 2 else "act_gpt4")
    elif len(argv) >= 3 and argv[0] == "shares":
        for agent in argv[2:]:
            shares(Path(argv[1]), agent, shown=0.01)
            print()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
