{{ config(location=mart_location()) }}

with answers as (
    select * from {{ ref('int_arena_trick_answers') }}
),

per_answerer as (
    select
        answerer,
        count(*) filter (where is_trick) as n_trick_answers,
        count(*) filter (where not is_trick) as n_ordinary_answers,
        count(*) filter (where fell_for_trick) as n_fell,
        avg(score) filter (where is_trick) as mean_trick_score,
        avg(score) filter (where not is_trick) as mean_ordinary_score,
        var_samp(score) filter (where is_trick) as trick_variance,
        var_samp(score) filter (where not is_trick) as ordinary_variance
    from answers
    group by answerer
),

-- Welch: the standard error of the difference of two means with unequal variances, and
-- the Welch-Satterthwaite degrees of freedom (rounded down: a wider, safer interval)
welch as (
    select
        *,
        mean_trick_score - mean_ordinary_score as robustness_gap,
        trick_variance / n_trick_answers as trick_se2,
        ordinary_variance / n_ordinary_answers as ordinary_se2
    from per_answerer
),

welch_df as (
    select
        *,
        sqrt(trick_se2 + ordinary_se2) as gap_se,
        (trick_se2 + ordinary_se2) ^ 2 / nullif(
            trick_se2 ^ 2 / (n_trick_answers - 1)
            + ordinary_se2 ^ 2 / (n_ordinary_answers - 1),
            0
        ) as welch_df
    from welch
    where n_trick_answers >= 2 and n_ordinary_answers >= 2
),

half_widths as (
    select
        answerer,
        welch_df,
        -- no Welch df when neither side varies (gap_se = 0): no interval, never a zero-width
        -- one (greatest() would skip the NULL df and take t(0.975, 1) x 0)
        case
            when welch_df is not null
                then t_quantile_975(greatest(floor(welch_df + 1e-9), 1)) * gap_se
        end as gap_half
    from welch_df
),

gaps as (
    select
        per_answerer.answerer,
        per_answerer.n_trick_answers,
        per_answerer.n_ordinary_answers,
        per_answerer.mean_trick_score,
        per_answerer.mean_ordinary_score,
        per_answerer.mean_trick_score - per_answerer.mean_ordinary_score as robustness_gap,
        per_answerer.mean_trick_score - per_answerer.mean_ordinary_score
        - half_widths.gap_half as gap_ci_low,
        per_answerer.mean_trick_score - per_answerer.mean_ordinary_score
        + half_widths.gap_half as gap_ci_high,
        half_widths.welch_df,
        per_answerer.n_fell,
        per_answerer.n_fell::double / nullif(per_answerer.n_trick_answers, 0) as share_fell,
        coalesce(
            per_answerer.n_trick_answers < {{ arena_few_data_n() }}
            or per_answerer.n_ordinary_answers < {{ arena_few_data_n() }},
            true
        ) as is_few_data
    from per_answerer
    left join half_widths
        on per_answerer.answerer = half_widths.answerer
),

-- robust only when the interval rules out a loss of more than the margin; caught or better
-- only when it excludes 0; anything else is inconclusive
final as (
    select
        *,
        case
            when n_trick_answers < 2 or n_ordinary_answers < 2 then 'insufficient data'
            when gap_ci_low is null then 'inconclusive'
            when gap_ci_high < 0 then 'caught by tricks'
            when gap_ci_low > 0 then 'better on tricks'
            when gap_ci_low >= -{{ arena_label_margin() }} then 'robust'
            else 'inconclusive'
        end as robustness,
        {{ arena_label_margin() }}::double as label_margin
    from gaps
    order by answerer
)

select * from final
