{{ config(materialized='table') }}

-- The covariance of the joint fit's estimates (int_arena_pairwise_style_fits, fit joint),
-- one row per pair of parameters: the sandwich H^-1 M H^-1 clustered by question, the
-- analytic counterpart of a bootstrap over questions. At the estimates, with p a verdict's
-- fitted probability that the first answer wins, y its outcome, w its weight and x its
-- design values:
--   H = sum over verdicts of w p (1 - p) x x' (the information);
--   M = sum over questions of s s', s = sum over the question's verdicts of w (y - p) x (the
--       scores a question contributes, so verdicts on one question may be correlated).
-- H is inverted by the sweep operator, one pivot per step, as
-- int_arena_pairwise_style_information inverts its bound; a pivot under 1e-9 (a parameter
-- the others explain) is skipped with its row and column set to 0. The small-sample factor
-- G / (G - 1) and the t quantile are applied where the interval is drawn
-- (int_arena_pairwise_joint_effects, with the Elo's arm factor).

with recursive design as (
    select * from {{ ref('int_arena_pairwise_style_design') }}
    where fit = 'joint' and replicate = 0
),

fits as (
    select * from {{ ref('int_arena_pairwise_style_fits') }}
    where fit = 'joint' and replicate = 0
),

verdict_questions as (
    select distinct
        verdict_id,
        question_id
    from {{ ref('int_arena_pairwise_style_features') }}
),

predictions as (
    select
        design.verdict_id,
        any_value(design.outcome) as outcome,
        any_value(design.verdict_weight) as verdict_weight,
        1 / (1 + exp(-sum(design.design_value * fits.estimate))) as first_win_probability
    from design
    inner join fits
        on design.parameter_index = fits.parameter_index
    group by design.verdict_id
),

terms as (
    select
        design.verdict_id,
        verdict_questions.question_id,
        design.parameter_index,
        design.design_value,
        predictions.verdict_weight,
        predictions.outcome - predictions.first_win_probability as residual,
        predictions.first_win_probability * (1 - predictions.first_win_probability) as variance
    from design
    inner join predictions
        on design.verdict_id = predictions.verdict_id
    inner join verdict_questions
        on design.verdict_id = verdict_questions.verdict_id
),

grid as (
    select
        row_parameters.parameter_index as row_index,
        column_parameters.parameter_index as column_index,
        count(*) over (partition by row_parameters.parameter_index) as n_parameters
    from fits as row_parameters
    cross join fits as column_parameters
),

information as (
    select
        row_terms.parameter_index as row_index,
        column_terms.parameter_index as column_index,
        sum(
            row_terms.verdict_weight * row_terms.variance
            * row_terms.design_value * column_terms.design_value
        ) as information
    from terms as row_terms
    inner join terms as column_terms
        on row_terms.verdict_id = column_terms.verdict_id
    group by all
),

question_scores as (
    select
        question_id,
        parameter_index,
        sum(verdict_weight * residual * design_value) as score
    from terms
    group by question_id, parameter_index
),

meat as (
    select
        row_scores.parameter_index as row_index,
        column_scores.parameter_index as column_index,
        sum(row_scores.score * column_scores.score) as meat_entry
    from question_scores as row_scores
    inner join question_scores as column_scores
        on row_scores.question_id = column_scores.question_id
    group by all
),

-- after a sweep on every pivot the matrix is minus the inverse
sweep as (
    select
        0 as step,
        grid.row_index,
        grid.column_index,
        grid.n_parameters,
        coalesce(information.information, 0)::double as entry
    from grid
    left join information
        on
            grid.row_index = information.row_index
            and grid.column_index = information.column_index
    union all
    select
        step + 1 as step,
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
                over () as pivot_entry,
            max(entry) filter (where row_index = step + 1)
                over (partition by column_index) as pivot_row,
            max(entry) filter (where column_index = step + 1)
                over (partition by row_index) as pivot_column
        from sweep
        where step < n_parameters
    ) as pivot_entries
),

inverse as (
    select
        row_index,
        column_index,
        0 - entry as inverse_entry
    from sweep
    where step = n_parameters
),

-- H^-1 M, then (H^-1 M) H^-1
left_product as (
    select
        inverse.row_index,
        meat.column_index,
        sum(inverse.inverse_entry * meat.meat_entry) as product_entry
    from inverse
    inner join meat
        on inverse.column_index = meat.row_index
    group by all
),

covariance as (
    select
        left_product.row_index,
        inverse.column_index,
        round(sum(left_product.product_entry * inverse.inverse_entry), 12) as covariance
    from left_product
    inner join inverse
        on left_product.column_index = inverse.row_index
    group by all
)

select * from covariance
