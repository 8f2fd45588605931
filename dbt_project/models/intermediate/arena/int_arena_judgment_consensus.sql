-- Each valid judgement beside the consensus of the other judges of the same answer, the
-- basis of judge agreement and of the bias table. Always on the fixed-effects scores
-- (score - judge offset), whatever the leaderboard's normalisation: with shift, scale or
-- zscore a judge's correction depends on the pool it judged (never its own answers), and
-- that pool effect would show up as spurious judge x player deviations.

with judgments as (
    select * from {{ ref('int_arena_judgments_normalized') }}
),

valid_judgments as (
    select
        answer_id,
        question_id,
        answerer,
        judge,
        score_fixed_effects as debiased_score
    from judgments
    where is_valid
),

answer_totals as (
    select
        answer_id,
        count(*) as n_judges,
        sum(debiased_score) as total_score
    from valid_judgments
    group by answer_id
),

with_consensus as (
    select
        valid_judgments.*,
        answer_totals.n_judges - 1 as n_other_judges,
        case
            when answer_totals.n_judges > 1
                then
                    (answer_totals.total_score - valid_judgments.debiased_score)
                    / (answer_totals.n_judges - 1)
        end as others_mean_score
    from valid_judgments
    inner join answer_totals
        on valid_judgments.answer_id = answer_totals.answer_id
),

final as (
    select
        *,
        debiased_score - others_mean_score as deviation
    from with_consensus
)

select * from final
