{{ config(materialized='table') }}

-- The joint model of absolute judging (int_arena_joint_design) fitted by least squares,
-- replicate 0 on the judgements as they are, replicates 1..bootstrap_n on the kept questions
-- resampled by int_arena_bootstrap_draws (a question drawn k times counts its judgements k
-- times, as the leaderboard's bootstrap does). Within a question the centred values are the
-- same in every replicate, so a replicate's cross-products are the questions' own, each
-- times its draws. The matrix [X'X X'y; y'X y'y] (response last, index n + 1) is swept on
-- parameters 1..n in turn (the sweep operator: Goodnight 1979), after which column n + 1
-- holds the coefficients (X'X)^-1 X'y. A pivot below 1e-9 of its parameter's starting
-- diagonal (a parameter the others already explain: collinear in this replicate) is not
-- swept; that parameter has no coefficient in the replicate.

with recursive design_rows as (
    select * from {{ ref('int_arena_joint_design') }}
),

design as (
    select * from design_rows
    where parameter_index is not null
),

draws as (
    select * from {{ ref('int_arena_bootstrap_draws') }}
),

parameter_count as (
    select max(parameter_index) as n_parameters from design
),

-- the response's index is n + 1, after every parameter
positioned as (
    select
        design.observation_id,
        design.question_id,
        case
            when design.parameter_index = 0 then parameter_count.n_parameters + 1
            else design.parameter_index
        end as matrix_index,
        design.centred_value
    from design
    cross join parameter_count
),

question_products as (
    select
        left_values.question_id,
        left_values.matrix_index as row_index,
        right_values.matrix_index as column_index,
        sum(left_values.centred_value * right_values.centred_value) as product
    from positioned as left_values
    inner join positioned as right_values
        on left_values.observation_id = right_values.observation_id
    group by all
),

replicate_weights as (
    select
        0 as replicate,
        question_id,
        1 as n_drawn
    from (select distinct question_id from design) as observed
    union all
    select
        replicate,
        question_id,
        count(*) as n_drawn
    from draws
    group by replicate, question_id
),

products as (
    select
        replicate_weights.replicate,
        question_products.row_index,
        question_products.column_index,
        sum(replicate_weights.n_drawn * question_products.product) as entry
    from question_products
    inner join replicate_weights
        on question_products.question_id = replicate_weights.question_id
    group by all
),

sweep as (
    select
        0 as step,
        products.replicate,
        products.row_index,
        products.column_index,
        parameter_count.n_parameters,
        products.entry,
        products.entry as starting_entry,
        false as is_swept
    from products
    cross join parameter_count
    union all
    select
        step + 1 as step,
        replicate,
        row_index,
        column_index,
        n_parameters,
        case
            when not is_pivot_usable then entry
            when row_index = step + 1 and column_index = step + 1 then -1 / pivot_entry
            when row_index = step + 1 or column_index = step + 1 then entry / pivot_entry
            else entry - pivot_row * pivot_column / pivot_entry
        end as entry,
        starting_entry,
        is_swept or (is_pivot_usable and row_index = step + 1 and column_index = step + 1)
            as is_swept
    from (
        select
            *,
            coalesce(pivot_entry > 1e-9 * pivot_start, false) as is_pivot_usable
        from (
            select
                *,
                max(entry) filter (where row_index = step + 1 and column_index = step + 1)
                    over (partition by replicate) as pivot_entry,
                max(starting_entry) filter (
                    where row_index = step + 1 and column_index = step + 1
                ) over (partition by replicate) as pivot_start,
                max(entry) filter (where row_index = step + 1)
                    over (partition by replicate, column_index) as pivot_row,
                max(entry) filter (where column_index = step + 1)
                    over (partition by replicate, row_index) as pivot_column
            from sweep
            where step < n_parameters
        ) as pivot_entries
    ) as pivots
),

swept as (
    select
        replicate,
        row_index as parameter_index,
        max(entry) filter (where column_index = n_parameters + 1) as coefficient,
        bool_or(is_swept) filter (where column_index = row_index) as is_estimable
    from sweep
    where step = n_parameters and row_index <= n_parameters
    group by replicate, row_index
),

parameters as (
    select distinct
        parameter_index,
        effect_kind,
        effect_name,
        is_varying,
        is_reference,
        has_unknown_value
    from design_rows
    where effect_kind <> 'score'
),

replicates as (
    select distinct replicate from replicate_weights
)

select
    replicates.replicate,
    parameters.effect_kind,
    parameters.effect_name,
    parameters.parameter_index,
    parameters.is_varying,
    parameters.is_reference,
    parameters.has_unknown_value,
    parameters.is_reference or coalesce(swept.is_estimable, false) as is_estimable,
    case
        when parameters.is_reference then 0.0
        when swept.is_estimable then round(swept.coefficient, 12)
    end as coefficient
from parameters
cross join replicates
left join swept
    on
        parameters.parameter_index = swept.parameter_index
        and replicates.replicate = swept.replicate
