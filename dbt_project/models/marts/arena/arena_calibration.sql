{{ config(location=mart_location()) }}

with pairs as (
    select * from {{ ref('int_arena_self_assessment_pairs') }}
),

assessment_counts as (
    select
        player,
        count(*) as n_assessments,
        count(*) filter (where not is_valid) as n_assessments_invalid
    from pairs
    group by player
),

player_moments as (
    select
        player,
        count(*) as n,
        avg(predicted_score) as mean_predicted,
        avg(actual_score) as mean_actual,
        avg(actual_normalized_score) as mean_actual_normalized,
        avg(signed_error) as mean_signed_error,
        stddev_samp(signed_error) as signed_error_stddev,
        avg(abs(signed_error)) as mean_absolute_error,
        stddev_samp(abs(signed_error)) as absolute_error_stddev,
        avg(signed_error_normalized) as mean_signed_error_normalized,
        corr(predicted_score, actual_score) as pearson_r
    from pairs
    where is_paired
    group by player
),

-- t-intervals over answers for the two mean errors; Fisher's z for the correlation
-- (needs n > 3 and |r| < 1)
half_widths as (
    select
        *,
        t_quantile_975(n - 1) * signed_error_stddev / sqrt(n) as signed_error_half,
        t_quantile_975(n - 1) * absolute_error_stddev / sqrt(n) as absolute_error_half,
        case
            when n > 3 and abs(pearson_r) < 1 then atanh(pearson_r)
        end as pearson_z,
        case when n > 3 then 1.959964 / sqrt(n - 3) end as pearson_z_half
    from player_moments
),

intervals as (
    select
        player,
        n,
        mean_predicted,
        mean_actual,
        mean_actual_normalized,
        mean_signed_error,
        mean_signed_error - signed_error_half as signed_error_ci_low,
        mean_signed_error + signed_error_half as signed_error_ci_high,
        mean_absolute_error,
        -- DuckDB's greatest skips NULLs: one pair (no interval) must stay NULL
        case
            when absolute_error_half is not null
                then greatest(mean_absolute_error - absolute_error_half, 0)
        end as absolute_error_ci_low,
        mean_absolute_error + absolute_error_half as absolute_error_ci_high,
        case when n >= 3 then pearson_r end as pearson_r,
        tanh(pearson_z - pearson_z_half) as pearson_r_ci_low,
        tanh(pearson_z + pearson_z_half) as pearson_r_ci_high,
        mean_signed_error_normalized,
        mean_absolute_error - absolute_error_half < 0 as is_absolute_error_ci_clipped,
        -- calibrated only when the interval keeps the mean error within the margin
        case
            when signed_error_half is null then 'insufficient data'
            when mean_signed_error - signed_error_half > 0 then 'overconfident'
            when mean_signed_error + signed_error_half < 0 then 'underconfident'
            when
                mean_signed_error - signed_error_half >= -{{ arena_label_margin() }}
                and mean_signed_error + signed_error_half <= {{ arena_label_margin() }}
                then 'calibrated'
            else 'inconclusive'
        end as confidence
    from half_widths
),

final as (
    select
        assessment_counts.player,
        assessment_counts.n_assessments,
        assessment_counts.n_assessments_invalid,
        intervals.mean_predicted,
        intervals.mean_actual,
        intervals.mean_actual_normalized,
        intervals.mean_signed_error,
        intervals.signed_error_ci_low,
        intervals.signed_error_ci_high,
        {{ arena_label_margin() }}::double as label_margin,
        coalesce(intervals.confidence, 'insufficient data') as confidence,
        coalesce(intervals.n, 0) < {{ arena_few_data_n() }} as is_few_data,
        intervals.mean_absolute_error,
        intervals.absolute_error_ci_low,
        intervals.absolute_error_ci_high,
        intervals.is_absolute_error_ci_clipped,
        intervals.pearson_r,
        intervals.pearson_r_ci_low,
        intervals.pearson_r_ci_high,
        intervals.mean_signed_error_normalized,
        coalesce(intervals.n, 0) as n
    from assessment_counts
    left join intervals
        on assessment_counts.player = intervals.player
    order by assessment_counts.player
)

select * from final
