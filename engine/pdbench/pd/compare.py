"""``pdbench compare``: two conditions of a PD run side by side, as ``comparisons.parquet``
holds them (a pair it does not hold: the same test from ``aggregates.parquet``'s replicate
rows, :mod:`pdbench.pd.paired_query`) (docs/metrics.md, "Is the difference real?"): each
metric's mean in both conditions, the paired difference (first minus second) with its 95%
interval, the sign-flip p and the Benjamini-Hochberg adjusted p, a verdict, and the LLM
agents' fallback-move shares of both conditions beside them (``aggregates.parquet``). Python
only reads and formats."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from pdbench.column_labels import format_cell, label_catalogue, number_spec
from pdbench.errors import RunDirError, unknown
from pdbench.number_text import p_value_text, plural
from pdbench.pd.detectable import detectable_text, magnitude_text
from pdbench.pd.marts import PDMart
from pdbench.pd.metrics import pd_metrics
from pdbench.storage.duckdb_paths import duckdb_path
from pdbench.storage.marts_check import check_marts, mart_read_errors
from pdbench.tables import aligned, mart_rows

__all__ = ["ALPHA", "METRICS", "RATE", "compare_lines", "difference_text", "mean_text"]

ALPHA = 0.05
"""A difference is called real when its BH-adjusted p is below this."""

RATE = "%"

FEW_DATA_REPLICATES = 10
"""Below this many paired replicates a difference is marked few data (as the mart's)."""

METRICS: dict[str, tuple[str, str]] = {
    column: (label, RATE if metric.format == "percent" else metric.unit)
    for metric in pd_metrics().where(interval=("t", "wilson"))
    for column, label in metric.labelled_columns()
}
"""Each metric of ``comparisons.parquet``: its human label and unit, in the order shown (the
metric catalogue's)."""

_COMPARISON_COLUMNS = (
    "metric", "n_pairs", "mean_difference", "ci_low", "ci_high", "p_value", "p_value_bh",
    "verdict", "is_few_data", "ci_note", "family", "minimum_detectable_difference",
    "replicates_for_interval",
)  # fmt: skip
_FLIPPED_VERDICT = {"higher": "lower", "lower": "higher"}
_MISSING = "—"


@dataclass(frozen=True)
class _Difference:
    """One row of ``comparisons.parquet``, turned to read first minus second."""

    metric: str
    n_pairs: int
    mean: float
    low: float | None
    high: float | None
    p: float
    p_bh: float | None
    """None for a pair outside the run's comparisons (no family to adjust over)."""
    mart_verdict: str
    """The mart's: ``higher`` / ``lower`` (condition_1 than condition_2) or ``inconclusive``."""
    is_few_data: bool
    ci_note: str | None
    """Why there is no interval, when there is none."""
    family: str | None = None
    """``primary`` or ``exploratory``: the Benjamini-Hochberg family (None outside the run's
    comparisons)."""
    detectable: float | None = None
    """The minimum detectable difference at 80% power (None outside the run's comparisons)."""
    replicates_for_interval: int | None = None
    """6 when the pair has too few replicates for the sign-flip test to reject at all."""

    def flipped(self) -> _Difference:
        """The same difference read second minus first (p values unchanged)."""
        low, high = (None, None) if self.low is None else (-self.high, -self.low)  # type: ignore[operator]
        verdict = _FLIPPED_VERDICT.get(self.mart_verdict, self.mart_verdict)
        return _Difference(
            self.metric, self.n_pairs, -self.mean, low, high, self.p, self.p_bh, verdict,
            self.is_few_data, self.ci_note, self.family, self.detectable,
            self.replicates_for_interval,
        )  # fmt: skip

    def verdict(self) -> str:
        """The mart's verdict, first against second, with its few-data warning."""
        if self.p_bh is None:
            text = {
                "higher": "first higher (p, unadjusted)",
                "lower": "first lower (p, unadjusted)",
            }.get(self.mart_verdict, "inconclusive")
            return f"{text} (few data)" if self.is_few_data else text
        text = {"higher": "real: first higher", "lower": "real: first lower"}.get(
            self.mart_verdict, "inconclusive"
        )
        return f"{text} (few data)" if self.is_few_data else text

    def detectable_cell(self) -> str:
        """The table's cell: the minimum detectable difference, or the replicates an interval
        needs."""
        if self.replicates_for_interval is not None:
            return f"needs {self.replicates_for_interval} replicates"
        if self.detectable is None:
            return _MISSING
        return magnitude_text(self.detectable, self.metric)

    def detectable_line(self) -> str:
        """What an inconclusive primary difference could have found, in a sentence."""
        text = detectable_text(
            metric=self.metric,
            n_pairs=self.n_pairs,
            detectable=self.detectable,
            replicates_for_interval=self.replicates_for_interval,
        )
        label = METRICS.get(self.metric, (self.metric, ""))[0]
        return f"{label} ({self.family}): inconclusive; {text}" if text else ""


def compare_lines(run_dir: Path, first: str, second: str) -> list[str]:
    """What ``pdbench compare run_dir first second`` prints: a heading, the aligned table,
    the legend. Marts missing, damaged or older than the run's raw files
    (:func:`pdbench.storage.marts_check.check_marts`), an unknown condition or two conditions
    without a common replicate is a :class:`RunDirError` of one line."""
    check_marts(run_dir, (PDMart.AGGREGATES, PDMart.COMPARISONS))
    with mart_read_errors(run_dir):
        return _compare_lines(run_dir, first, second)


def _compare_lines(run_dir: Path, first: str, second: str) -> list[str]:
    aggregates, comparisons = run_dir / PDMart.AGGREGATES, run_dir / PDMart.COMPARISONS
    known = [row[0] for row in mart_rows(
        aggregates, columns=("condition",), where="level = 'condition'", order_by="condition"
    )]  # fmt: skip
    for name in (first, second):
        if name not in known:
            raise RunDirError(f"{aggregates}: condition: {unknown('condition', name, known)}")
    if first == second:
        raise RunDirError(f"compare: {first!r} is compared with itself; name two conditions")
    differences = _differences(comparisons, first, second)
    in_family = bool(differences)
    if not differences:
        differences = _uncompared(aggregates, first, second)
    if not differences:
        raise RunDirError(
            f"{aggregates}: {first} and {second} finished no replicate in common: nothing to pair"
        )
    means = _means(aggregates, (first, second), [d.metric for d in differences])
    n_pairs = max(d.n_pairs for d in differences)
    if in_family:
        legend = (
            f"interval: 95%, the values the sign-flip test beside it does not reject; p: "
            f"two-sided sign-flip test; BH p: Benjamini-Hochberg within the family, primary "
            f"(the config's analysis.primary) or exploratory (every other metric); real: BH p "
            f"<= {ALPHA}; detectable: the smallest true difference the run's test finds with "
            f"80% power at p <= {ALPHA}, given its own variation"
        )
    else:
        legend = (
            f"not among the run's comparisons: computed now from the replicate rows of "
            f"{aggregates.name} (no replay); interval: 95%, the values the sign-flip test "
            f"beside it does not reject; p: two-sided sign-flip test, not adjusted (the pair "
            f"is outside the run's Benjamini-Hochberg family); first higher/lower: p <= {ALPHA}"
        )
    return [
        f"{first} (first) minus {second} (second), paired by replicate: "
        f"{plural(n_pairs, 'replicate')} "
        f"({run_dir})",
        *aligned(_table(differences, means, first, second)),
        f"{legend}; few data: under 10 replicates; {_MISSING}: not defined (fallback moves: "
        "policies make none)",
        *_pooling_note(aggregates, first, second, min(d.n_pairs for d in differences)),
        *_detectable_lines(differences),
        *_interval_notes(differences),
    ]


def _uncompared(aggregates: Path, first: str, second: str) -> list[_Difference]:
    """The differences of a pair the run did not compare, from the marts' replicate rows."""
    from pdbench.pd.paired_query import paired_differences

    columns = _mart_columns(aggregates)
    rows = paired_differences(aggregates, first, second, columns)
    differences = [
        _Difference(
            row["metric"],
            int(row["n_pairs"]),
            row["mean_difference"],
            row["ci_low"],
            row["ci_high"],
            row["p_value"],
            None,
            _unadjusted_verdict(row),
            row["n_pairs"] < FEW_DATA_REPLICATES,
            row["ci_note"],
        )
        for row in rows
    ]
    order = list(METRICS)
    return sorted(differences, key=lambda d: order.index(d.metric))


def _mart_columns(aggregates: Path) -> list[str]:
    """The metrics of :data:`METRICS` that ``aggregates`` holds."""
    with duckdb.connect() as con:
        held = {
            row[0]
            for row in con.execute(
                "select name from parquet_schema($path)", {"path": duckdb_path(aggregates)}
            ).fetchall()
        }
    return [metric for metric in METRICS if metric in held]


def _unadjusted_verdict(row: dict[str, Any]) -> str:
    if row["p_value"] is None or row["p_value"] > ALPHA or not row["mean_difference"]:
        return "inconclusive"
    return "higher" if row["mean_difference"] > 0 else "lower"


def _pooling_note(aggregates: Path, first: str, second: str, n_pairs: int) -> list[str]:
    """Why the means beside a difference need not add up to it: the means are over every
    finished replicate of each condition (where the metric is defined), a difference over the
    replicates both finished and define it; ``n_pairs``: the fewest of any row."""
    counts = dict(
        mart_rows(
            aggregates,
            columns=("condition", "n_replicates"),
            where="level = 'condition' and condition in ($first, $second)",
            order_by="condition",
            params={"first": first, "second": second},
        )
    )
    n_first, n_second = counts.get(first, 0), counts.get(second, 0)
    if n_pairs >= max(n_first, n_second):
        return []
    return [
        f"means: over every finished replicate ({n_first} of {first}, {n_second} of {second}) "
        "where the metric is defined; difference: over the replicates both finished and define "
        f"it (as few as {n_pairs} paired of {max(n_first, n_second)}: the replicates column), "
        "so it need not equal the difference of the means"
    ]


def _detectable_lines(differences: list[_Difference]) -> list[str]:
    """One sentence per inconclusive primary difference: what the run could have found."""
    lines = [
        d.detectable_line()
        for d in differences
        if d.family == "primary" and d.mart_verdict == "inconclusive"
    ]
    return [line for line in lines if line]


def _interval_notes(differences: list[_Difference]) -> list[str]:
    """Why intervals are missing, once per reason."""
    notes = dict.fromkeys(d.ci_note for d in differences if d.low is None and d.ci_note)
    return [f"no interval ({_MISSING}): {note}" for note in notes]


def _differences(path: Path, first: str, second: str) -> list[_Difference]:
    """The rows of the pair in ``comparisons.parquet``, as first minus second, in the order of
    :data:`METRICS`."""
    rows = mart_rows(
        path,
        columns=("condition_1", *_COMPARISON_COLUMNS),
        where="(condition_1 = $first and condition_2 = $second)"
        " or (condition_1 = $second and condition_2 = $first)",
        order_by="metric",
        params={"first": first, "second": second},
    )
    differences = []
    for condition_1, *values in rows:
        difference = _Difference(*values)
        differences.append(difference if condition_1 == first else difference.flipped())
    order = list(METRICS)
    return sorted(
        differences, key=lambda d: order.index(d.metric) if d.metric in order else len(order)
    )


def _means(
    path: Path, conditions: tuple[str, str], metrics: list[str]
) -> dict[tuple[str, str], Any]:
    """``(condition, column) -> condition mean`` of ``aggregates.parquet`` for ``metrics``
    and the fallback-move shares."""
    columns = tuple(dict.fromkeys([*metrics, "fallback_move_share_a", "fallback_move_share_b"]))
    rows = mart_rows(
        path,
        columns=("condition", *columns),
        where="level = 'condition' and condition in ($first, $second)",
        order_by="condition",
        params={"first": conditions[0], "second": conditions[1]},
    )
    return {
        (row[0], column): value
        for row in rows
        for column, value in zip(columns, row[1:], strict=True)
    }


def _table(
    differences: list[_Difference], means: dict[tuple[str, str], Any], first: str, second: str
) -> list[tuple[str, ...]]:
    header = (
        "metric",
        "unit",
        f"mean {first}",
        f"mean {second}",
        "difference [95% interval]",
        "replicates",
        "p",
        "BH p",
        "family",
        "verdict",
        "detectable",
        "fallback moves A; B (first | second)",
    )
    table: list[tuple[str, ...]] = [header]
    for d in differences:
        label, unit = METRICS.get(d.metric, (d.metric.replace("_", " "), ""))
        fallback = " | ".join(_fallback(means, name) for name in (first, second))
        table.append((
            label, unit, mean_text(means.get((first, d.metric)), d.metric),
            mean_text(means.get((second, d.metric)), d.metric), _interval(d), str(d.n_pairs),
            p_value_text(d.p), _MISSING if d.p_bh is None else p_value_text(d.p_bh),
            d.family or _MISSING, d.verdict(), d.detectable_cell(), fallback,
        ))  # fmt: skip
    return table


def _fallback(means: dict[tuple[str, str], Any], condition: str) -> str:
    columns = [f"fallback_move_share_{side}" for side in "ab"]
    return "; ".join(mean_text(means.get((condition, column)), column) for column in columns)


def mean_text(value: float | None, column: str) -> str:
    """A mean of ``column`` as the catalogue writes it: a rate as a percentage, a number with
    its decimals (points: 3)."""
    return _MISSING if value is None else format_cell(column, value)


def _is_rate(column: str) -> bool:
    found = label_catalogue().get(column)
    return found is not None and found.format == "percent"


def _signed(value: float, column: str) -> str:
    """A difference of ``column``: a rate in percentage points, anything else with the
    catalogue's decimals."""
    if _is_rate(column):
        return f"{100 * value:+.1f}"
    return format(value, number_spec(column, signed=True))


def _interval(d: _Difference) -> str:
    return difference_text(d.mean, d.low, d.high, d.metric)


def difference_text(mean: float, low: float | None, high: float | None, column: str) -> str:
    """A paired difference of ``column`` with its interval: ``+62.5 pp [+50.0, +75.0]`` (a
    rate, in percentage points), ``+1.200 [+0.400, +2.000]`` (the catalogue's decimals);
    ``[—]`` without an interval."""
    suffix = " pp" if _is_rate(column) else ""
    text = _signed(mean, column) + suffix
    if low is None or high is None:
        return f"{text} [{_MISSING}]"
    return f"{text} [{_signed(low, column)}, {_signed(high, column)}]"
