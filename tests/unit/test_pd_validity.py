"""The fallback share beside cooperation and the warnings of the PD summary, from marts
written by hand."""

from pathlib import Path

import duckdb
from pdbench.pd.marts import PDMart
from pdbench.pd.summary import condition_table
from pdbench.pd.validity import FALLBACK_WARNING_SHARE, fallback_warnings

# (condition, a, b, n_rounds, fallbacks of a, of b (None: a policy), cooperation among
# a's valid moves)
CONDITIONS = [
    ("smollm2_vs_smollm2", "smollm2", "smollm2", 36, 36, 36, None),
    ("t02_vs_tft", "smollm2", "TFT", 36, 3, None, 0.5),  # 3/36 = 8.3%: below
    ("t10_vs_tft", "smollm2", "TFT", 36, 4, None, 0.25),  # 4/36 = 11.1%: above
    ("edge_vs_tft", "smollm2", "TFT", 50, 5, None, 1.0),  # exactly 10%: not above
    ("tft_vs_alld", "TFT", "ALLD", 36, None, None, None),
]


def _marts(run_dir: Path, pairs: list[tuple[str, str]]) -> dict[str, int]:
    rows = ", ".join(
        f"('condition', '{c}', 2, 0, '{a}', '{b}', {n}, {'null' if fa is None else fa}, "
        f"{'null' if fb is None else fb}, {'null' if va is None else va}, null, 0.5, null, "
        "null, 0.5, 0.5, 1.0)"
        for c, a, b, n, fa, fb, va in CONDITIONS
    )
    columns = (
        "level, condition, n_replicates, n_aborted, agent_a_name, agent_b_name, n_rounds, "
        "n_fallback_moves_a, n_fallback_moves_b, cooperation_rate_valid_a, "
        "cooperation_rate_valid_b, cooperation_rate, cooperation_rate_ci_low, "
        "cooperation_rate_ci_high, payoff_per_round_a, payoff_per_round_b, time_to_collapse"
    )
    pair_rows = ", ".join(f"('{one}', '{two}', 'cooperation_rate')" for one, two in pairs)
    with duckdb.connect() as con:
        con.execute(
            f"copy (select * from (values {rows}) t({columns}), (select 0 as n_collapsed)) "
            f"to '{run_dir / PDMart.AGGREGATES}' (format parquet)"
        )
        if pairs:
            con.execute(
                f"copy (select * from (values {pair_rows}) t(condition_1, condition_2, metric)) "
                f"to '{run_dir / PDMart.COMPARISONS}' (format parquet)"
            )
    return {PDMart.AGGREGATES: len(CONDITIONS), PDMart.COMPARISONS: len(pairs)}


def test_the_threshold_is_a_tenth_of_the_moves():
    assert FALLBACK_WARNING_SHARE == 0.10


def test_agents_above_a_tenth_of_fallback_moves_are_warned_about(tmp_path: Path):
    # in the order of the conditions' names; 3/36 and 5/50 are not above a tenth
    tables = _marts(tmp_path, [])
    assert fallback_warnings(tmp_path, tables) == [
        "warning: 36 of 36 moves of smollm2 (agent_a in smollm2_vs_smollm2) were fallback "
        "moves after invalid replies; cooperation here measures reply validity, not behaviour "
        "(cooperation among its valid moves: -)",
        "warning: 36 of 36 moves of smollm2 (agent_b in smollm2_vs_smollm2) were fallback "
        "moves after invalid replies; cooperation here measures reply validity, not behaviour "
        "(cooperation among its valid moves: -)",
        "warning: 4 of 36 moves of smollm2 (agent_a in t10_vs_tft) were fallback moves after "
        "invalid replies; cooperation here measures reply validity, not behaviour "
        "(cooperation among its valid moves: 0.250)",
    ]


def test_a_comparison_whose_fallback_shares_differ_by_more_than_a_tenth_is_warned_about(
    tmp_path: Path,
):
    # 3/36 vs 4/36 differ by 2.8 points: no pair warning; 3/36 vs 36/36 by 91.7 points
    # on side a, and 0 (a policy) vs 36/36 on side b
    tables = _marts(tmp_path, [("t02_vs_tft", "t10_vs_tft"), ("t02_vs_tft", "smollm2_vs_smollm2")])
    pair_lines = [line for line in fallback_warnings(tmp_path, tables) if " vs " in line]
    assert pair_lines == [
        "warning: t02_vs_tft vs smollm2_vs_smollm2: agent_a fell back in 3/36 (8%) vs "
        "36/36 (100%) of its moves; a difference in cooperation between them measures reply "
        "validity as much as behaviour (compare cooperation_rate_valid)",
        "warning: t02_vs_tft vs smollm2_vs_smollm2: agent_b fell back in none (a policy) vs "
        "36/36 (100%) of its moves; a difference in cooperation between them measures reply "
        "validity as much as behaviour (compare cooperation_rate_valid)",
    ]


def test_the_condition_table_shows_fallback_moves_beside_cooperation(tmp_path: Path):
    lines = condition_table(tmp_path, _marts(tmp_path, []))
    header, *rows = lines[: 1 + len(CONDITIONS)]
    assert "A's fallback moves; B's (LLM agents)" in header
    by_condition = {row.split()[0]: row for row in rows}
    assert "36/36 (100%); 36/36 (100%)" in by_condition["smollm2_vs_smollm2"]
    assert "4/36 (11%); -" in by_condition["t10_vs_tft"]
    assert "-; -" in by_condition["tft_vs_alld"]
    assert lines[1 + len(CONDITIONS)].startswith("warning: 36 of 36 moves of smollm2")
