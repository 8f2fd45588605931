{{ config(location=mart_location()) }}

with judgments as (
    select * from {{ ref('stg_arena_judgment_arms') }}
    where is_valid
),

plain as (
    select * from judgments
    where arm = 'plain'
),

treated as (
    select * from judgments
    where arm != 'plain'
),

paired as (
    select
        treated.judge,
        treated.arm,
        treated.score - plain.score as score_difference
    from treated
    inner join plain
        on
            treated.answer_id = plain.answer_id
            and treated.judge = plain.judge
),

per_judge as (
    select
        judge,
        arm,
        count(*) as n_scored_pairs,
        avg(score_difference) as arm_score_difference,
        stddev_samp(score_difference) as arm_score_difference_stddev
    from paired
    group by judge, arm
),

intervals as (
    select
        *,
        t_quantile_975(n_scored_pairs - 1)
        * arm_score_difference_stddev / sqrt(n_scored_pairs) as half_width
    from per_judge
),

final as (
    select
        judge,
        arm,
        case arm
            when 'named' then 'name bias (named minus anonymous)'
            when 'fixed_order' then 'position bias (fixed minus shuffled order)'
        end as arm_label,
        n_scored_pairs,
        arm_score_difference,
        arm_score_difference - half_width as arm_score_difference_ci_low,
        arm_score_difference + half_width as arm_score_difference_ci_high
    from intervals
)

select * from final
order by arm, judge
