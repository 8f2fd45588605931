"""What a PD run's report says of its setup and its methods (:mod:`pdbench.pd.report_sections`):
the payoff table, horizon, noise, replicates and agents from the run's manifest (the config it
played, or the one its import wrote); the invalid replies and fallback moves of each LLM agent
beside the cooperation they change; and the methods, written from what the run used: the
interval kind of each metric (``pd_metrics.csv``), the paired tests and the Benjamini-Hochberg
family as ``comparisons.parquet`` holds them, the resampling size and the collapse window of
the manifest."""

from __future__ import annotations

from collections import Counter
from html import escape
from pathlib import Path
from typing import Any

from pdbench.column_labels import MISSING
from pdbench.findings import read_rows
from pdbench.metric_catalogue import INTERVAL_METHODS
from pdbench.number_text import plural
from pdbench.pd.compare import ALPHA
from pdbench.pd.marts import PDMart
from pdbench.pd.metrics import pd_metrics
from pdbench.report_svg import Section, fact_list_html, mart_table_html, table_html

__all__ = ["fallback_section", "methods_section", "setup_sections"]

_ACTIONS = ("C", "D")


def _span(values: list[int], noun: str) -> str:
    """``4 replicates``, ``2 to 5 replicates``; ``noun`` singular for one."""
    low, high = min(values), max(values)
    plural = noun if high == 1 else f"{noun}s"
    return f"{low} {plural}" if low == high else f"{low} to {high} {plural}"


def _number(value: Any) -> str:
    """A config number without a spurious ``.0``."""
    return f"{value:g}" if isinstance(value, int | float) else str(value)


def _payoff_matrix(payoffs: dict[str, Any]) -> str:
    """The 2 x 2 table: A's action in the rows, B's in the columns, each cell "A's, B's"."""
    rows = []
    for own in _ACTIONS:
        cells = [f"A plays {own}"]
        for other in _ACTIONS:
            pair = payoffs.get(f"{own}{other}")
            cells.append(
                f"{_number(pair[0])}, {_number(pair[1])}"
                if isinstance(pair, list | tuple) and len(pair) == 2
                else MISSING
            )
        rows.append(cells)
    return table_html(["points (A's, B's)", "B plays C", "B plays D"], rows, row_headers=True)


def horizon_text(horizon: Any) -> str:
    """The horizon as the config gives it."""
    if not isinstance(horizon, dict):
        return MISSING
    if horizon.get("type") == "fixed":
        return f"fixed, {_number(horizon.get('n'))} rounds"
    if horizon.get("type") == "geometric":
        stop = horizon.get("stop_prob")
        mean = f" (mean {1 / stop:.3g} rounds)" if isinstance(stop, int | float) and stop else ""
        return (
            f"geometric: stops after each round with probability {_number(stop)}{mean}, "
            f"at most {_number(horizon.get('max_rounds'))} rounds"
        )
    return str(horizon.get("type", MISSING))


def _replicates(run_dir: Path, config: dict[str, Any]) -> str:
    """The replicates the config asked for; for a run without that number (an import),
    those its conditions hold."""
    if "replicates" in config:
        return _number(config["replicates"])
    held = [
        int(row["n_replicates"])
        for row in read_rows(
            run_dir / PDMart.AGGREGATES,
            ("n_replicates",),
            where="level = 'condition' and n_replicates is not null",
            order_by="n_replicates",
        )
    ]
    return f"{_span(held, 'replicate')} (as the source holds them)" if held else MISSING


def _noise_text(config: dict[str, Any]) -> str:
    overrides = [
        f"{condition.get('name')} {_number(condition['noise'])}"
        for condition in config.get("conditions") or []
        if isinstance(condition, dict) and condition.get("noise") is not None
    ]
    shown = _number(config["noise"]) if "noise" in config else "not recorded"
    text = f"{shown} (probability of flipping each intended action)"
    return f"{text}; per condition: {', '.join(overrides)}" if overrides else text


def _agent_settings(agent: dict[str, Any]) -> tuple[str, str, str]:
    """(kind, model, settings) of one agent of the config."""
    kind = str(agent.get("type", MISSING))
    if kind == "llm":
        on_invalid = agent.get("on_invalid")
        after = (
            f"then the fallback move {agent.get('fallback_action')}"
            if on_invalid == "fallback"
            else "then the match is aborted"
            if on_invalid == "abort"
            else f"then {on_invalid}"
        )
        settings = [
            f"temperature {_number(agent.get('temperature'))}",
            f"reply format {agent.get('output_format')}",
            f"{agent.get('max_retries')} retries of an invalid reply, {after}",
            f"history window {agent.get('history_window')}",
        ]
        if agent.get("persona"):
            settings.append(f"persona {agent['persona']}")
        mock = agent.get("mock")
        if agent.get("provider") == "mock" and isinstance(mock, dict):
            settings.append(f"mock strategy {mock.get('strategy')}")
        return "LLM", f"{agent.get('provider')}/{agent.get('model')}", "; ".join(settings)
    if kind == "policy":
        params = {
            key: value
            for key, value in agent.items()
            if key not in ("type", "policy", "name") and value not in (None, {}, [])
        }
        shown = ", ".join(f"{key} {value}" for key, value in sorted(params.items()))
        return "policy", str(agent.get("policy", MISSING)), shown or "defaults"
    if kind == "imported":
        return f"imported ({agent.get('kind', 'kind not recorded')})", "not recorded", ""
    return kind, MISSING, ""


def _agents(run_dir: Path, config: dict[str, Any]) -> list[list[str]]:
    """One row per distinct agent: its name (as the marts name it), kind, model, settings."""
    names = {
        row["condition"]: (row["agent_a_name"], row["agent_b_name"])
        for row in read_rows(
            run_dir / PDMart.AGGREGATES,
            ("condition", "agent_a_name", "agent_b_name"),
            where="level = 'condition'",
            order_by="condition",
        )
    }
    rows: list[list[str]] = []
    for condition in config.get("conditions") or []:
        if not isinstance(condition, dict):
            continue
        shown = names.get(condition.get("name"), (None, None))
        for side, name in zip(("agent_a", "agent_b"), shown, strict=True):
            agent = condition.get(side)
            if not isinstance(agent, dict):
                continue
            row = [str(name or agent.get("name") or MISSING), *_agent_settings(agent)]
            if row not in rows:
                rows.append(row)
    return rows


def setup_sections(run_dir: Path, manifest: dict[str, Any]) -> list[Section]:
    """The run's setup: its payoff table, and its horizon, noise, replicates and agents."""
    config = manifest.get("config")
    if not isinstance(config, dict):
        return []
    payoffs = config.get("payoffs") if isinstance(config.get("payoffs"), dict) else {}
    round_robin = config.get("round_robin")
    facts = [
        ("horizon", horizon_text(config.get("horizon"))),
        ("noise", _noise_text(config)),
        ("replicates per condition", _replicates(run_dir, config)),
        ("conditions", str(len(config.get("conditions") or []))),
    ]
    if isinstance(round_robin, dict):
        facts.append(
            (
                "round robin",
                f"{len(round_robin.get('agents') or [])} agents, every pairing"
                + (" and each against itself" if round_robin.get("self_play") else ""),
            )
        )
    params = manifest.get("metric_params") or {}
    facts.append(
        (
            "collapse window",
            f"{params.get('collapse_k', MISSING)} rounds at cooperation ≤ "
            f"{params.get('collapse_threshold', MISSING)}",
        )
    )
    agents = _agents(run_dir, config)
    scored = "was scored (from its source)" if manifest.get("source") == "imported" else "played"
    sections = [
        Section(
            "Payoff table",
            f"Points of each agent for each pair of actions, as the run {scored}.",
            _payoff_matrix(payoffs or {}),
            place="setup",
        ),
        Section("Setup", "What the run played, from its manifest.", fact_list_html(facts), "setup"),
    ]
    if agents:
        sections.append(
            Section(
                "Agents",
                "Every agent of the run: a policy with its parameters, an LLM with its model "
                "and what happens to its invalid replies.",
                table_html(["agent", "kind", "model", "settings"], agents),
                place="setup",
            )
        )
    return sections


_FALLBACK_COLUMNS = ("agent_name", "condition", "side", "n_rounds", "invalid_attempt_share",
                     "n_fallback_moves", "fallback_move_share", "cooperation_rate",
                     "cooperation_rate_valid")  # fmt: skip


def fallback_rows(run_dir: Path) -> list[dict[str, Any]]:
    """The condition rows of ``agent_metrics.parquet`` of every LLM agent (an agent with an
    invalid-reply share, or with fallback moves)."""
    return read_rows(
        run_dir / PDMart.AGENT_METRICS,
        _FALLBACK_COLUMNS,
        where="level = 'condition' and (invalid_attempt_share is not null "
        "or fallback_move_share is not null)",
        order_by="agent_name, condition, side",
    )


def fallback_section(run_dir: Path) -> Section | None:
    """Invalid replies and fallback moves of each LLM agent in each condition, beside the
    cooperation they change (with and without the fallback moves); None without an LLM
    agent whose validity was recorded."""
    rows = fallback_rows(run_dir)
    if not rows:
        return None
    moves = sum(int(row["n_fallback_moves"] or 0) for row in rows)
    return Section(
        "Invalid replies and fallback moves",
        f"{moves} fallback moves in all. For each LLM agent and condition: the share of its "
        "attempts (retries included) whose reply was invalid, its moves that were the "
        "fallback after every retry stayed invalid, and its cooperation with the fallback "
        "moves and without them (valid moves only); means over replicates.",
        mart_table_html(_FALLBACK_COLUMNS, rows, per_agent=True),
    )


def _interval_items() -> list[str]:
    """Which metric has which interval, from the catalogue."""
    by_kind: dict[str, list[str]] = {}
    for metric in pd_metrics().metrics:
        if metric.interval != "none":
            by_kind.setdefault(metric.interval, []).append(metric.label)
    items = []
    for kind, labels in by_kind.items():
        how = INTERVAL_METHODS.get(kind, kind)
        if kind == "t":
            how += (
                " over the replicates of a condition (each replicate weighs the same), clipped "
                "to the metric's range; a rate counted over known trials is widened to the "
                "binomial floor where the t interval is narrower"
            )
        elif kind == "wilson":
            how += " over the replicates of a condition"
        items.append(f"{how}: {', '.join(dict.fromkeys(labels))}.")
    return items


def _comparison_items(run_dir: Path, manifest: dict[str, Any]) -> list[str]:
    rows = read_rows(
        run_dir / PDMart.COMPARISONS,
        ("condition_1", "condition_2", "metric", "p_value", "test_method", "n_flips",
         "n_pairs", "bootstrap_n", "family"),
        where="condition_1 is not null",
        order_by="condition_1, condition_2, metric",
    )  # fmt: skip
    if not rows:
        return ["Paired comparisons: none (the run compares no two conditions)."]
    tests = [row for row in rows if row["p_value"] is not None]
    pairs = {(row["condition_1"], row["condition_2"]) for row in rows}
    metrics = {row["metric"] for row in rows}
    methods = Counter(str(row["test_method"]) for row in tests)
    flips = sorted({int(row["n_flips"]) for row in tests if row["n_flips"] is not None})
    flip_text = f" ({_span(flips, 'sign flip')} a test)" if flips else ""
    config = manifest.get("config") or {}
    chosen = (
        "the pairs the config names"
        if config.get("comparisons")
        else "every pair when the run has at most 4 conditions, otherwise the pairs that "
        "share an agent on the same side"
    )
    replicates = [int(row["n_pairs"]) for row in rows]
    bootstrap = {row["bootstrap_n"] for row in rows if row["bootstrap_n"] is not None}
    return [
        f"Paired comparisons ({chosen}): {_span([len(pairs)], 'pair')} of conditions × "
        f"{_span([len(metrics)], 'metric')}, each difference first minus second replicate by "
        f"replicate (a replicate's conditions share its horizon and seeds), over "
        f"{_span(replicates, 'paired replicate')}; two-sided sign-flip test ("
        + ", ".join(f"{method}: {count}" for method, count in sorted(methods.items()))
        + f"){flip_text}, and the 95% interval that inverts the same test.",
        _family_text(tests),
        "What each comparison could have detected: the smallest true mean difference its "
        f"paired test finds with 80% power at a two-sided {ALPHA:g} level (unadjusted), given "
        "the run's own variation, (t(0.975, n − 1) + t(0.80, n − 1)) × s / √n for n paired "
        "replicates whose differences have sample SD s; where s is 0 (agents without "
        "variation), the metric's smallest step (1/T for a rate over T trials). With 5 paired "
        "replicates or fewer the sign-flip test cannot reach p ≤ 0.05 at all: 6 give an "
        "interval. Replicates for a smaller target scale as n × (detectable / target)², "
        "approximately.",
        _resampling_text(methods, bootstrap),
    ]


def _family_text(tests: list[dict[str, Any]]) -> str:
    """The Benjamini-Hochberg families and their sizes, in a sentence."""
    primary = [row for row in tests if row["family"] == "primary"]
    exploratory = len(tests) - len(primary)
    metrics = ", ".join(dict.fromkeys(str(row["metric"]) for row in primary)) or "none tested"
    return (
        f"Benjamini-Hochberg within two families: primary, {plural(len(primary), 'test')} "
        f"(the compared pairs × the config's analysis.primary: {metrics}), and exploratory, "
        f"{plural(exploratory, 'test')} (every other metric), each corrected on its own; a "
        f"difference is called real when its adjusted p (BH p) is ≤ {ALPHA:g}. p-values "
        "below 0.001 are written < 0.001."
    )


def _resampling_text(methods: Counter[str], bootstrap: set[Any]) -> str:
    size = ", ".join(str(n) for n in sorted(bootstrap)) or MISSING
    if "random sign flips" not in methods:
        return (
            f"Resampling: no test needed random sign flips (metrics.bootstrap.n = {size} "
            "would set their fewest): every test enumerated its flips or took their normal "
            "limit."
        )
    return (
        f"Resampling: random sign flips are at least metrics.bootstrap.n = {size} (and 400 × "
        "the run's tests when that is more), seeded from the run's seed."
    )


def _fallbacks_of_this_run(run_dir: Path) -> str:
    """What this run's LLM seats recorded of their replies' validity, in one sentence."""
    seats = read_rows(
        run_dir / PDMart.AGENT_METRICS,
        ("agent_kind", "fallback_move_share", "n_fallback_moves"),
        where="level = 'condition' and agent_kind = 'llm'",
        order_by="agent_kind",
    )
    if not seats:
        return "This run has no LLM agent, so no fallback move."
    recorded = [seat for seat in seats if seat["fallback_move_share"] is not None]
    if not recorded:
        return (
            f"This run's source did not record whether its {_span([len(seats)], 'LLM seat')}' "
            "replies were valid: its fallback moves and invalid replies are not recorded (not 0)."
        )
    moves = sum(int(seat["n_fallback_moves"] or 0) for seat in recorded)
    return (
        f"This run: {moves} fallback moves by its {_span([len(recorded)], 'LLM seat')} "
        "(condition and seat), each shown under Invalid replies and fallback moves."
    )


def methods_section(run_dir: Path, manifest: dict[str, Any]) -> Section:
    """How the numbers of the report were computed, from the catalogue, the marts and the
    manifest of this run."""
    catalogue = pd_metrics()
    fallback = catalogue.metric_of("fallback_move_share_a")
    valid = catalogue.metric_of("cooperation_rate_valid_a")
    params = manifest.get("metric_params") or {}
    items = [
        "Every interval is a 95% interval.",
        *_interval_items(),
        "Normalisation: a rate is a share of the agent's actions (or rounds) in its match, a "
        "payoff per round is the match's points over its rounds played; a condition's value "
        "is the mean over its replicates, each replicate weighing the same; aborted matches "
        "are left out.",
        *_comparison_items(run_dir, manifest),
        f"Fallback moves: {fallback.definition} Cooperation counts them as played; "
        f"{valid.label}: {valid.definition} {_fallbacks_of_this_run(run_dir)}",
        f"Collapse: {params.get('collapse_k', MISSING)} rounds in a row at "
        f"a cooperation rate ≤ {params.get('collapse_threshold', MISSING)}.",
    ]
    body = "<ul class='methods'>" + "".join(f"<li>{escape(item)}</li>" for item in items)
    return Section(
        "Methods",
        "Written from the metric catalogue (dbt_project/seeds/pd_metrics.csv), the run's "
        "marts and its manifest.",
        body + "</ul>",
        place="methods",
    )
