"""``pdbench compare-runs``: several PD runs side by side in one table, e.g. the games of a
published study (``pdbench import``) and a new model played on its replicate config
(``configs/replicate/``). A row per run and condition: where it comes from, who played, how
many replicates, each chosen metric's condition mean with its 95% interval
(``aggregates.parquet``), and agent A's fallback-move share. Rows of different runs line up
by their condition's name after agent A's name (``gpt35t_vs_urnd0.3`` and
``llm_vs_urnd0.3`` are both ``vs_urnd0.3``). Python only reads and formats."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pdbench.errors import RunDirError, unknown
from pdbench.number_text import plural
from pdbench.pd.compare import METRICS, RATE, mean_text
from pdbench.pd.config import PayoffsConfig
from pdbench.pd.marts import PDMart
from pdbench.pd.payoff import PayoffView
from pdbench.storage.manifest import read_manifest, require_run_dir
from pdbench.storage.marts_check import check_marts, mart_read_errors
from pdbench.storage.schema import RunFiles
from pdbench.tables import aligned, mart_columns, mart_rows, number

__all__ = ["DEFAULT_METRICS", "compare_runs_lines"]

DEFAULT_METRICS = ("cooperation_rate_a",)
"""What the table shows when no ``--metric`` is named."""

_FALLBACK = "fallback_move_share_a"
_NOT_RECORDED = "not recorded"
_MISSING = "—"


@dataclass(frozen=True)
class _Run:
    """One aggregated PD run: its id, where it comes from, its folder, its payoff table."""

    run_dir: Path
    run_id: str
    source: str
    payoffs: str
    """Its payoff table as :func:`_payoff_text` writes it."""

    @property
    def imported(self) -> bool:
        return self.source != "played"


def compare_runs_lines(run_dirs: list[Path], metrics: list[str]) -> list[str]:
    """What ``pdbench compare-runs`` prints: a heading, the aligned table, the legend. A
    folder that is not an aggregated PD run, marts missing, damaged or older than a run's
    raw files (:func:`pdbench.storage.marts_check.check_marts`), a metric without intervals,
    or a metric in points of runs scored under different payoff tables is a
    :class:`RunDirError` of one line; rates of such runs come with a heading that says so.
    A folder that is not there is named first, whichever place it has."""
    for run_dir in run_dirs:
        require_run_dir(run_dir)
    runs = [_run(run_dir) for run_dir in run_dirs]
    chosen = list(dict.fromkeys(metrics or DEFAULT_METRICS))
    tables = dict.fromkeys(run.payoffs for run in runs)
    if len(tables) > 1:
        _refuse_points(runs, chosen)
    rows = []
    for position, run in enumerate(runs):
        with mart_read_errors(run.run_dir):
            _check_metrics(run, chosen)
            rows += [(_key(row), position, row) for row in _rows(run, chosen)]
    rows.sort(key=lambda keyed: (keyed[0], keyed[1]))
    header = (
        "matched as", "run", "source", "condition", "agents", "replicates",
        *(_heading(metric) for metric in chosen), f"{METRICS[_FALLBACK][0]} (%)",
    )  # fmt: skip
    table = [header, *(row["cells"] for _, _, row in rows)]
    scored = (
        f"payoff table (R/S/T/P) {next(iter(tables))} in every run"
        if len(tables) == 1
        else "note: the runs were scored under different payoff tables (R/S/T/P: "
        f"{_by_run(runs)}): the rates are comparable as rates, but the incentives the "
        "players met were not the same"
    )
    return [
        f"{plural(len(runs), 'run')}, {plural(len(rows), 'condition')}, rows matched by "
        "condition name after "
        f"agent A's name; {scored}",
        *aligned(table),
        "mean over replicates [95% interval over replicates: t, a rate's widened to its "
        "binomial floor]; "
        f"{_MISSING}: no interval (reason given) or no fallback moves (agent A is a policy); "
        f"{_NOT_RECORDED}: the imported source does not say",
    ]


def _run(run_dir: Path) -> _Run:
    """The run at ``run_dir``, if it is a PD run with its marts built, readable and current."""
    hint = f"{run_dir}: not an aggregated PD run (build its tables: pdbench aggregate {run_dir})"
    try:
        manifest = read_manifest(run_dir)
    except RunDirError:
        raise RunDirError(hint) from None
    if manifest.game != "pd":
        raise RunDirError(f"{run_dir}: compare-runs reads PD runs; this one is {manifest.game}")
    check_marts(run_dir, (PDMart.AGGREGATES, PDMart.MATCH_LIST))
    source: str = manifest.source
    if manifest.imported is not None:
        source = f"imported ({manifest.imported.format})"
    return _Run(run_dir, manifest.run_id, source, _payoff_text(run_dir, manifest.config))


def _payoff_text(run_dir: Path, config: dict[Any, Any]) -> str:
    """The payoff table the run was scored under (its manifest's, as the marts read it):
    R/S/T/P, ``3/0/5/1`` when both sides are paid alike, ``A 3/0/5/1, B 2/0/4/1`` when not."""
    where = f"{run_dir / RunFiles.MANIFEST}: config.payoffs"
    try:
        matrix = PayoffsConfig.model_validate(config.get("payoffs") or {}).to_matrix()
    except ValidationError as err:
        first = err.errors()[0]
        raise RunDirError(f"{where}: {first['msg']}") from None
    a, b = matrix.view("agent_a"), matrix.view("agent_b")
    if a == b:
        return _rstp(a)
    return f"A {_rstp(a)}, B {_rstp(b)}"


def _rstp(view: PayoffView) -> str:
    return "/".join(number(value) for value in (view.R, view.S, view.T, view.P))


def _by_run(runs: list[_Run]) -> str:
    return "; ".join(f"{run.run_id} {run.payoffs}" for run in runs)


def _refuse_points(runs: list[_Run], metrics: list[str]) -> None:
    """A metric in points means nothing across payoff tables: a one-line refusal naming it,
    each run's table, and the rates that can still be compared."""
    points = [metric for metric in metrics if _in_points(metric)]
    if points:
        rates = [m for m in METRICS if METRICS[m][1] == RATE and m.endswith("_a")][:3]
        raise RunDirError(
            f"compare-runs: {', '.join(points)} counts points, and the runs were scored under "
            f"different payoff tables (R/S/T/P: {_by_run(runs)}): not comparable; "
            f"compare rates (e.g. {', '.join(rates)}) or runs of one payoff table"
        )


def _in_points(metric: str) -> bool:
    """Whether ``metric``'s value is a number of points, so depends on the payoff table."""
    return METRICS[metric][1].startswith("points") if metric in METRICS else False


def _check_metrics(run: _Run, metrics: list[str]) -> None:
    """Every metric of ``metrics`` has a label and a condition interval in ``run``."""
    aggregates = run.run_dir / PDMart.AGGREGATES
    columns = set(mart_columns(aggregates))
    known = [m for m in METRICS if f"{m}_ci_low" in columns]
    for metric in metrics:
        if metric not in known:
            raise RunDirError(f"{aggregates}: metric: {unknown('metric', metric, known)}")


def _key(row: dict[str, Any]) -> str:
    """The condition's name after agent A's name and ``_``, or the whole name."""
    condition: str = row["condition"]
    agent_a: str = row["agent_a"]
    prefix = f"{agent_a}_"
    return condition.removeprefix(prefix) if agent_a and condition.startswith(prefix) else condition


def _agents(run: _Run) -> dict[str, tuple[str, str]]:
    """``condition -> (agent A, agent B)`` of ``match_list.parquet``."""
    rows = mart_rows(
        run.run_dir / PDMart.MATCH_LIST,
        columns=("condition", "agent_a_name", "agent_b_name"),
        where="true",
        order_by="condition, replicate",
    )
    return {condition: (a, b) for condition, a, b in rows}


def _rows(run: _Run, metrics: list[str]) -> list[dict[str, Any]]:
    """One row per condition of ``run``: its name, agent A, and its cells."""
    agents = _agents(run)
    triples = [(m, f"{m}_ci_low", f"{m}_ci_high", f"{m}_ci_note") for m in metrics]
    columns = ("condition", "n_replicates", _FALLBACK, *(c for t in triples for c in t))
    found = mart_rows(
        run.run_dir / PDMart.AGGREGATES,
        columns=columns,
        where="level = 'condition'",
        order_by="condition",
    )
    rows = []
    for condition, n_replicates, fallback, *values in found:
        agent_a, agent_b = agents.get(condition, (None, None))
        cells = [_interval(metric, *values[4 * i : 4 * i + 4]) for i, metric in enumerate(metrics)]
        row = {"condition": condition, "agent_a": agent_a}
        row["cells"] = (
            _key(row), run.run_id, run.source, condition,
            f"{agent_a or '?'} vs {agent_b or '?'}", str(n_replicates), *cells,
            _NOT_RECORDED if run.imported else mean_text(fallback, "fallback_move_share_a"),
        )  # fmt: skip
        rows.append(row)
    return rows


def _heading(metric: str) -> str:
    label, unit = METRICS[metric]
    return f"{label} ({unit}) [95% interval]"


def _interval(metric: str, mean: Any, low: Any, high: Any, note: Any) -> str:
    """``62.5% [50.0%, 75.0%]``; without an interval, the mean and the reason."""
    if low is None or high is None:
        return f"{mean_text(mean, metric)} [{_MISSING}: {note or 'no interval'}]"
    return f"{mean_text(mean, metric)} [{mean_text(low, metric)}, {mean_text(high, metric)}]"
