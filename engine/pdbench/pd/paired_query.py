"""The paired differences of two conditions a run did not compare, read from the replicate
rows of ``aggregates.parquet`` (no replay): the very test of ``comparisons.parquet``, the
DuckDB macro ``paired_sign_flip_test`` (``dbt_project/macros/sign_flip_test.sql``, over the
statistics macros of ``statistics.sql``) that ``int_pd_paired_differences`` calls, here with
every subset of the sign flips enumerated up to :data:`EXACT_FLIP_MAX` common replicates (as
the mart's default); past it, the normal limit of the sign-flip test. No Benjamini-Hochberg:
the pair is outside the run's family of comparisons."""

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

_MACROS = (
    (DBT_PROJECT_DIR / "macros" / "statistics.sql", "define_statistics"),
    (DBT_PROJECT_DIR / "macros" / "sign_flip_test.sql", "define_sign_flip_test"),
)
"""The on-run-start hooks whose statements the query needs, in their order: the statistics
macros, then the sign-flip test that calls them."""

_QUERY = """
with

common_replicates as (
    select
        first_side.replicate,
        row_number() over (order by first_side.replicate) as pair_position,
        count(*) over () as n_common
    from read_parquet($path) as first_side
    inner join read_parquet($path) as second_side
        on first_side.replicate = second_side.replicate
    where
        first_side.level = 'replicate' and first_side.condition = $first
        and second_side.level = 'replicate' and second_side.condition = $second
),

first_values as (
    select replicate, metric, metric_value
    from (
        select replicate, {columns} from read_parquet($path)
        where level = 'replicate' and condition = $first
    ) unpivot include nulls (metric_value for metric in ({columns}))
),

second_values as (
    select replicate, metric, metric_value
    from (
        select replicate, {columns} from read_parquet($path)
        where level = 'replicate' and condition = $second
    ) unpivot include nulls (metric_value for metric in ({columns}))
),

paired_rows as (
    select
        $first as condition_1,
        $second as condition_2,
        first_values.metric,
        common_replicates.replicate,
        common_replicates.pair_position,
        common_replicates.n_common,
        first_values.metric_value - second_values.metric_value as difference,
        common_replicates.n_common > {exact_max} as is_normal_limit
    from common_replicates
    inner join first_values
        on common_replicates.replicate = first_values.replicate
    inner join second_values
        on
            first_values.metric = second_values.metric
            and first_values.replicate = second_values.replicate
),

sample_sizes as (
    select distinct n_common as sample_size
    from common_replicates
    where n_common <= {exact_max}
),

flips as (
    select
        sample_size,
        unnest(range(0, (1::bigint << sample_size))) as flip
    from sample_sizes
),

exact_flips as (
    select
        sample_size,
        flip,
        unnest(range(1, sample_size + 1)) as slot
    from flips
),

signs as (
    select
        sample_size,
        flip,
        slot,
        1 - 2 * ((flip >> (slot - 1)) & 1) as sign,
        true as is_exact
    from exact_flips
)

select
    metric,
    n_pairs,
    mean_difference,
    ci_low,
    ci_high,
    ci_note,
    p_value
from paired_sign_flip_test(paired_rows, signs)
order by metric
"""


def _statistics() -> str:
    """The statements of the project's statistics macros and of its sign-flip test, as the
    build's on-run-start hooks run them."""
    statements = []
    for path, name in _MACROS:
        body = re.compile(rf"\{{% macro {name}\(\) -%\}}(.*?)\{{%- endmacro %\}}", re.DOTALL)
        match = body.search(path.read_text(encoding="utf-8"))
        if match is None:  # pragma: no cover - the project's own files
            raise RuntimeError(f"{path}: {name}() not found")
        statements.append(match.group(1))
    return "\n".join(statements)


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
