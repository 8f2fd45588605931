{{ config(materialized='table') }}

-- The logistic fits of the pairwise verdicts: P(first wins) = sigmoid(sum x * estimate) over
-- the fit's parameters (int_arena_pairwise_style_parameters): for the style-controlled
-- Bradley-Terry fit theta_first - theta_second + beta . x, x the style differences (first
-- minus second); the joint fit adds the judge's position, self and name terms. The
-- reference player's theta is held at 0. Each fit is fitted in every replicate by maximum
-- likelihood with a tie half a win (y = 0.5) and each verdict weighted as
-- int_arena_pairwise_style_design says.
-- Boehning's (1988) fixed-Hessian steps, from 0: estimate += 4 (X'WX)^-1 X'W (y - p), the
-- inverse from int_arena_pairwise_style_information. Each step raises the likelihood (4 X'WX
-- bounds its curvature), so no step is halved. The steps run as a recursive CTE:
-- style_iterations (80) for the style-controlled fit in each replicate, joint_iterations
-- (600) for the joint fit, fitted once (replicate 0) with more parameters, some of them far
-- from 0 (a judge that nearly always prefers the first answer), where the steps are slow (at
-- 0.977 per step on the pairwise demo); style_last_change is the largest change of an
-- estimate in the last one, and the replicate's fit is_converged when it is at most
-- style_tolerance (1e-6; a field with a player that won or lost every verdict has no finite
-- maximum and keeps moving).
-- Estimates are rounded to 1e-12, as the plain fit's strengths are. One row per fit,
-- replicate and parameter; parameter_last_change is the change of the parameter's own
-- estimate in the last step.

{%- set style_iterations = 80 %}
{%- set joint_iterations = 600 %}
{%- set style_tolerance = 1e-6 %}

with recursive design as (
    select * from {{ ref('int_arena_pairwise_style_design') }}
),

inverse as (
    select * from {{ ref('int_arena_pairwise_style_information') }}
),

style_steps as (
    select distinct
        0 as step,
        fit,
        replicate,
        row_index as parameter_index,
        0.0::double as estimate
    from inverse
    union all
    select
        any_value(gradients.step) + 1 as step,
        inverse.fit,
        inverse.replicate,
        inverse.row_index as parameter_index,
        any_value(current_step.estimate)
        + 4 * sum(inverse.inverse_entry * gradients.gradient) as estimate
    from (
        select
            any_value(predictions.step) as step,
            design.fit,
            design.replicate,
            design.parameter_index,
            sum(
                design.verdict_weight * design.design_value
                * (design.outcome - predictions.first_win_probability)
            ) as gradient
        from design
        inner join (
            select
                any_value(steps.step) as step,
                verdict_rows.fit,
                verdict_rows.replicate,
                verdict_rows.verdict_id,
                1 / (1 + exp(-sum(verdict_rows.design_value * steps.estimate)))
                    as first_win_probability
            from design as verdict_rows
            inner join style_steps as steps
                on
                    verdict_rows.fit = steps.fit
                    and verdict_rows.replicate = steps.replicate
                    and verdict_rows.parameter_index = steps.parameter_index
            where
                steps.step < case steps.fit
                    when 'joint' then {{ joint_iterations }} else {{ style_iterations }}
                end
            group by verdict_rows.fit, verdict_rows.replicate, verdict_rows.verdict_id
        ) as predictions
            on
                design.fit = predictions.fit
                and design.replicate = predictions.replicate
                and design.verdict_id = predictions.verdict_id
        group by design.fit, design.replicate, design.parameter_index
    ) as gradients
    inner join inverse
        on
            gradients.fit = inverse.fit
            and gradients.replicate = inverse.replicate
            and gradients.parameter_index = inverse.column_index
    inner join style_steps as current_step
        on
            inverse.fit = current_step.fit
            and inverse.replicate = current_step.replicate
            and inverse.row_index = current_step.parameter_index
            and gradients.step = current_step.step
    group by inverse.fit, inverse.replicate, inverse.row_index
),

style_fit as (
    select
        final_step.fit,
        final_step.replicate,
        final_step.parameter_index,
        round(final_step.estimate, 12) as estimate,
        abs(final_step.estimate - previous_step.estimate) as parameter_last_change,
        max(abs(final_step.estimate - previous_step.estimate))
            over (partition by final_step.fit, final_step.replicate) as style_last_change,
        diagonal.inverse_entry = 0 as is_aliased
    from style_steps as final_step
    inner join style_steps as previous_step
        on
            final_step.fit = previous_step.fit
            and final_step.replicate = previous_step.replicate
            and final_step.parameter_index = previous_step.parameter_index
            and previous_step.step = final_step.step - 1
    inner join inverse as diagonal
        on
            final_step.fit = diagonal.fit
            and final_step.replicate = diagonal.replicate
            and final_step.parameter_index = diagonal.row_index
            and final_step.parameter_index = diagonal.column_index
    where
        final_step.step = case final_step.fit
            when 'joint' then {{ joint_iterations }} else {{ style_iterations }}
        end
),

final as (
    select
        *,
        style_last_change <= {{ style_tolerance }} as is_converged
    from style_fit
)

select * from final
