{{ config(location=mart_location()) }}

{#- One row per player of the series: its level (mean adjusted score, 95% t interval over its
    tournaments), its trend (least-squares slope of the adjusted score on the tournament's
    number, 95% t interval), its consistency (standard deviation around the mean, and around
    the trend), and the combined rank with its interval. -#}
with

progression as (
    select * from {{ ref('series_progression') }}
),

fits as (
    select
        player,
        provider,
        model,
        count(*) as n_tournaments,
        min(tournament_index) as first_tournament,
        max(tournament_index) as last_tournament,
        -- floating-point sums in a fixed order, so every build gives the same last bit
        avg(adjusted_score order by tournament_index) as mean_score,
        stddev_samp(adjusted_score order by tournament_index) as score_sd,
        regr_slope(adjusted_score, tournament_index) as trend,
        regr_intercept(adjusted_score, tournament_index) as intercept,
        regr_sxx(adjusted_score, tournament_index) as sxx
    from progression
    group by player, provider, model
),

residuals as (
    select
        fits.player,
        fits.provider,
        fits.model,
        sum(
            power(
                progression.adjusted_score
                - (fits.intercept + fits.trend * progression.tournament_index),
                2
            )
            order by progression.tournament_index
        ) as residual_ss
    from fits
    inner join progression
        on
            fits.player = progression.player
            and fits.provider = progression.provider
            and fits.model = progression.model
    group by fits.player, fits.provider, fits.model
),

intervals as (
    select
        fits.player,
        fits.provider,
        fits.model,
        fits.n_tournaments,
        fits.first_tournament,
        fits.last_tournament,
        fits.mean_score,
        fits.mean_score
        - t_quantile_975(fits.n_tournaments - 1)
        * fits.score_sd / sqrt(fits.n_tournaments) as ci_low,
        fits.mean_score
        + t_quantile_975(fits.n_tournaments - 1)
        * fits.score_sd / sqrt(fits.n_tournaments) as ci_high,
        fits.score_sd,
        case when fits.n_tournaments >= 3 then fits.trend end as trend,
        case
            when fits.n_tournaments >= 3
                then sqrt(residuals.residual_ss / (fits.n_tournaments - 2))
        end as residual_sd,
        case
            when fits.n_tournaments >= 3
                then sqrt(residuals.residual_ss / (fits.n_tournaments - 2) / fits.sxx)
        end as trend_se
    from fits
    inner join residuals
        on
            fits.player = residuals.player
            and fits.provider = residuals.provider
            and fits.model = residuals.model
),

ranked as (
    select
        *,
        trend - t_quantile_975(n_tournaments - 2) * trend_se as trend_ci_low,
        trend + t_quantile_975(n_tournaments - 2) * trend_se as trend_ci_high,
        rank() over (order by round(mean_score, 9) desc) as overall_rank
    from intervals
),

rank_intervals as (
    select
        ranked.*,
        -- best rank: behind only the players surely better (their interval wholly above);
        -- worst: behind every player not surely worse
        1 + (
            select count(*) from ranked as rival
            where rival.ci_low > ranked.ci_high
        ) as rank_ci_low,
        (
            select count(*) from ranked as rival
            where
                rival.ci_high >= ranked.ci_low
                or rival.ci_high is null
                or ranked.ci_low is null
        ) as rank_ci_high
    from ranked
)

select
    overall_rank,
    player,
    provider,
    model,
    n_tournaments,
    first_tournament,
    last_tournament,
    mean_score,
    ci_low,
    ci_high,
    rank_ci_low,
    rank_ci_high,
    trend,
    trend_ci_low,
    trend_ci_high,
    score_sd,
    residual_sd
from rank_intervals
order by overall_rank, player, provider, model
