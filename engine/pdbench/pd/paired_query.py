"""The paired differences of two conditions a run did not compare, read from the replicate
rows of ``aggregates.parquet`` (no replay): the same test as ``comparisons.parquet``
(``int_pd_paired_differences``), in one DuckDB query with the project's statistics macros
(``dbt_project/macros/statistics.sql``). Every subset of the sign flips is enumerated up to
:data:`EXACT_FLIP_MAX` common replicates (as the mart's default); past it, the normal limit
of the sign-flip test. No Benjamini-Hochberg: the pair is outside the run's family of
comparisons."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import duckdb

from pdbench.dbt_project import DBT_PROJECT_DIR
from pdbench.storage.duckdb_paths import duckdb_path

__all__ = ["EXACT_FLIP_MAX", "paired_differences"]

EXACT_FLIP_MAX = 12
"""The most common replicates whose 2^n sign flips are all enumerated."""

_STATISTICS = DBT_PROJECT_DIR / "macros" / "statistics.sql"
_BODY = re.compile(r"\{% macro define_statistics\(\) -%\}(.*?)\{%- endmacro %\}", re.DOTALL)

_QUERY = """
with

first_values as (
    unpivot (
        select replicate, {columns} from read_parquet($path)
        where level = 'replicate' and condition = $first
    ) on {columns} into name metric value metric_value
),

second_values as (
    unpivot (
        select replicate, {columns} from read_parquet($path)
        where level = 'replicate' and condition = $second
    ) on {columns} into name metric value metric_value
),

paired as (
    select
        first_values.metric,
        first_values.replicate,
        first_values.metric_value - second_values.metric_value as difference,
        row_number() over (
            partition by first_values.metric order by first_values.replicate
        ) as pair_position
    from first_values
    inner join second_values
        on
            first_values.metric = second_values.metric
            and first_values.replicate = second_values.replicate
),

per_metric as (
    select
        metric,
        count(*) as n_pairs,
        avg(difference order by replicate) as mean_difference,
        sum(difference order by replicate) as sum_of_differences,
        sum(difference * difference order by replicate) as sum_of_squares,
        var_pop(difference order by replicate) as variance
    from paired
    group by metric
),

flips as (
    select
        metric,
        unnest(range(0, (1::bigint << n_pairs))) as flip
    from per_metric
    where n_pairs <= {exact_max}
),

subset_means as (
    select
        flips.metric,
        flips.flip,
        round(
            sum(paired.difference) filter (where (flips.flip >> (paired.pair_position - 1)) & 1 = 1)
            / nullif(
                count(*) filter (where (flips.flip >> (paired.pair_position - 1)) & 1 = 1), 0
            ),
            9
        ) as subset_mean
    from flips
    inner join paired
        on flips.metric = paired.metric
    group by flips.metric, flips.flip
),

flip_tallies as (
    select
        metric,
        count(*) as n_total,
        count(*) filter (where subset_mean is null) as n_unmoved,
        count(*) filter (where subset_mean <= 0) as n_at_or_below_0,
        count(*) filter (where subset_mean >= 0) as n_at_or_above_0
    from subset_means
    group by metric
),

ranked_means as (
    select
        metric,
        subset_mean,
        row_number() over (partition by metric order by subset_mean) as rank_from_low,
        row_number() over (partition by metric order by subset_mean desc) as rank_from_high
    from subset_means
    where subset_mean is not null
),

flip_intervals as (
    select
        flip_tallies.metric,
        max(ranked_means.subset_mean) filter (
            where ranked_means.rank_from_low
            = flip_tallies.n_total // 40 - flip_tallies.n_unmoved + 1
        ) as ci_low,
        max(ranked_means.subset_mean) filter (
            where ranked_means.rank_from_high
            = flip_tallies.n_total // 40 - flip_tallies.n_unmoved + 1
        ) as ci_high
    from flip_tallies
    inner join ranked_means
        on flip_tallies.metric = ranked_means.metric
    where flip_tallies.n_total // 40 - flip_tallies.n_unmoved >= 0
    group by flip_tallies.metric
),

normal_limits as (
    select
        metric,
        abs(sum_of_differences) / sqrt(sum_of_squares) as z,
        case
            when n_pairs > z_975() ^ 2
                then z_975() * sqrt(variance / (n_pairs - z_975() ^ 2))
        end as half_width
    from per_metric
    where n_pairs > {exact_max} and sum_of_squares > 0
)

select
    per_metric.metric,
    per_metric.n_pairs,
    per_metric.mean_difference,
    case
        when per_metric.n_pairs < 2 or round(per_metric.variance, 12) = 0 then null
        when per_metric.n_pairs > {exact_max}
            then interval_bound(per_metric.mean_difference - normal_limits.half_width)
        else flip_intervals.ci_low
    end as ci_low,
    case
        when per_metric.n_pairs < 2 or round(per_metric.variance, 12) = 0 then null
        when per_metric.n_pairs > {exact_max}
            then interval_bound(per_metric.mean_difference + normal_limits.half_width)
        else flip_intervals.ci_high
    end as ci_high,
    case
        when per_metric.n_pairs < 2 then 'fewer than 2 paired replicates'
        when round(per_metric.variance, 12) = 0 then 'every paired difference is the same'
        when
            per_metric.n_pairs > {exact_max} and normal_limits.half_width is null
            or per_metric.n_pairs <= {exact_max} and flip_intervals.ci_low is null
            then 'too few replicates for a 95% interval of the sign-flip test'
    end as ci_note,
    case
        when flip_tallies.metric is not null
            then least(
                1.0,
                2 * least(
                    flip_tallies.n_unmoved + flip_tallies.n_at_or_below_0,
                    flip_tallies.n_unmoved + flip_tallies.n_at_or_above_0
                ) / flip_tallies.n_total
            )
        when per_metric.sum_of_squares = 0 then 1.0
        else normal_two_sided_p(normal_limits.z)
    end as p_value
from per_metric
left join flip_tallies on per_metric.metric = flip_tallies.metric
left join flip_intervals on per_metric.metric = flip_intervals.metric
left join normal_limits on per_metric.metric = normal_limits.metric
order by per_metric.metric
"""


def _statistics() -> str:
    """The statements of the project's statistics macros, as the build runs them."""
    match = _BODY.search(_STATISTICS.read_text(encoding="utf-8"))
    if match is None:  # pragma: no cover - the project's own file
        raise RuntimeError(f"{_STATISTICS}: define_statistics() not found")
    return match.group(1)


def paired_differences(
    aggregates: Path, first: str, second: str, columns: list[str]
) -> list[dict[str, Any]]:
    """Per metric of ``columns`` defined in a replicate both conditions finished: the mean
    paired difference (first minus second), its 95% interval (or why none), the two-sided
    sign-flip p and the number of pairs."""
    names = ", ".join(f'"{column}"' for column in columns)
    query = _QUERY.format(columns=names, exact_max=EXACT_FLIP_MAX)
    with duckdb.connect() as con:
        con.execute(_statistics())
        cursor = con.execute(
            query, {"path": duckdb_path(aggregates), "first": first, "second": second}
        )
        fields = [description[0] for description in cursor.description]
        return [dict(zip(fields, row, strict=True)) for row in cursor.fetchall()]
