-- How far the audience and the models agree, over the answers both scored: Pearson's r of
-- the two scores, and Spearman's rho (Pearson's r of their ranks, ties given their mean
-- rank). One row; NULL with fewer than 3 answers or when either score does not vary (the
-- reason says which), flagged as few data under arena_few_data_agreement_n answers.
-- Rounded to 1e-9: the digits below are the noise of summing in floating point.
with answers as (
    select * from {{ ref('int_arena_audience_answer_scores') }}
    where n_votes > 0 and model_score is not null
),

ranked as (
    select
        audience_score,
        model_score,
        rank() over (order by audience_score)
        + (count(*) over (partition by audience_score) - 1) / 2.0 as audience_rank,
        rank() over (order by model_score)
        + (count(*) over (partition by model_score) - 1) / 2.0 as model_rank
    from answers
),

summary as (
    select
        count(*) as n_answers_compared,
        stddev_pop(audience_score) > 0 and stddev_pop(model_score) > 0 as is_varied,
        corr(audience_score, model_score) as pearson,
        corr(audience_rank, model_rank) as spearman
    from ranked
),

final as (
    select
        n_answers_compared,
        case
            when n_answers_compared >= 3 and is_varied then round(pearson, 9)
        end as agreement_pearson,
        case
            when n_answers_compared >= 3 and is_varied then round(spearman, 9)
        end as agreement_spearman,
        n_answers_compared < {{ arena_few_data_agreement_n() }} as agreement_is_few_data,
        case
            when n_answers_compared < 3 then 'fewer than 3 answers compared'
            when not is_varied then 'a score does not vary'
        end as agreement_null_reason
    from summary
)

select * from final
