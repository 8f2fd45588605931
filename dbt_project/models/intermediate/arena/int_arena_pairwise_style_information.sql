{{ config(materialized='table') }}

-- The inverse of X'WX, the weighted cross-products of the logistic fits' design
-- (int_arena_pairwise_style_design), one row per fit, replicate and pair of parameters. Four
-- times it bounds the inverse of the log-likelihood's curvature (p (1 - p) <= 1/4), so
-- Boehning's fixed-Hessian steps (int_arena_pairwise_style_fits) invert it once per
-- replicate. The sweep operator inverts it, one pivot per step, as int_pd_sfem_information
-- does; a pivot under 1e-9 (a parameter the replicate cannot tell from the ones swept
-- before it: a player without verdicts, a feature that follows the players) is skipped,
-- its row and column set to 0, so its estimate stays at 0 and is_aliased says so. Entries are
-- rounded to 1e-12: the steps' fixed point does not depend on them, only their speed.

with recursive design as (
    select * from {{ ref('int_arena_pairwise_style_design') }}
),

parameters as (
    select
        fit,
        parameter_index
    from {{ ref('int_arena_pairwise_style_parameters') }}
    where parameter_index is not null
),

replicates as (
    select distinct
        fit,
        replicate
    from design
),

grid as (
    select
        replicates.fit,
        replicates.replicate,
        row_parameters.parameter_index as row_index,
        column_parameters.parameter_index as column_index,
        count(*) over (
            partition by replicates.fit, replicates.replicate, row_parameters.parameter_index
        ) as n_parameters
    from replicates
    inner join parameters as row_parameters
        on replicates.fit = row_parameters.fit
    inner join parameters as column_parameters
        on replicates.fit = column_parameters.fit
),

cross_products as (
    select
        row_values.fit,
        row_values.replicate,
        row_values.parameter_index as row_index,
        column_values.parameter_index as column_index,
        sum(row_values.verdict_weight * row_values.design_value * column_values.design_value)
            as cross_product
    from design as row_values
    inner join design as column_values
        on
            row_values.fit = column_values.fit
            and row_values.replicate = column_values.replicate
            and row_values.verdict_id = column_values.verdict_id
    group by all
),

-- after a sweep on every pivot the matrix is minus the inverse
sweep as (
    select
        0 as step,
        grid.fit,
        grid.replicate,
        grid.row_index,
        grid.column_index,
        grid.n_parameters,
        coalesce(cross_products.cross_product, 0)::double as entry
    from grid
    left join cross_products
        on
            grid.fit = cross_products.fit
            and grid.replicate = cross_products.replicate
            and grid.row_index = cross_products.row_index
            and grid.column_index = cross_products.column_index
    union all
    select
        step + 1 as step,
        fit,
        replicate,
        row_index,
        column_index,
        n_parameters,
        case
            when abs(pivot_entry) < 1e-9
                then case when step + 1 in (row_index, column_index) then 0 else entry end
            when row_index = step + 1 and column_index = step + 1 then -1 / pivot_entry
            when row_index = step + 1 or column_index = step + 1 then entry / pivot_entry
            else entry - pivot_row * pivot_column / pivot_entry
        end as entry
    from (
        select
            *,
            max(entry) filter (where row_index = step + 1 and column_index = step + 1)
                over (partition by fit, replicate) as pivot_entry,
            max(entry) filter (where row_index = step + 1)
                over (partition by fit, replicate, column_index) as pivot_row,
            max(entry) filter (where column_index = step + 1)
                over (partition by fit, replicate, row_index) as pivot_column
        from sweep
        where step < n_parameters
    ) as pivot_entries
),

inverse as (
    select
        fit,
        replicate,
        row_index,
        column_index,
        round(0 - entry, 12) as inverse_entry
    from sweep
    where step = n_parameters
)

select * from inverse
