-- Each player's style-controlled Elo (int_arena_pairwise_style_fits), on the plain Elo's
-- scale: 1000 + 400 log10(e) (theta - anchor), the anchor the baseline's theta in the same
-- replicate, or without a baseline the mean theta of the fitted players (so their mean is
-- 1000; the plain fit's geometric mean of strengths). The interval is the bootstrap's
-- reflected interval, each arm stretched as the plain Elo's
-- (int_arena_pairwise_interval_expansion); the rank interval the 2.5% and 97.5% quantiles
-- of the player's rank among the fitted players in the replicates. Elos are rounded to
-- 1e-9 points. One row per fitted player; a separated player has none.

with fits as (
    select * from {{ ref('int_arena_pairwise_style_fits') }}
    where fit = 'style_controlled'
),

parameters as (
    select * from {{ ref('int_arena_pairwise_style_parameters') }}
    where fit = 'style_controlled' and parameter_kind = 'player'
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

expansion as (
    select * from {{ ref('int_arena_pairwise_interval_expansion') }}
),

replicates as (
    select distinct replicate from fits
),

thetas as (
    select
        replicates.replicate,
        parameters.parameter as player,
        coalesce(fits.estimate, 0.0) as theta
    from replicates
    cross join parameters
    left join fits
        on
            replicates.replicate = fits.replicate
            and parameters.parameter_index = fits.parameter_index
),

rated as (
    select
        thetas.replicate,
        thetas.player,
        round(1000 + 400 / ln(10) * (
            thetas.theta
            - coalesce(
                max(case when thetas.player = scoring.pairwise_baseline then thetas.theta end)
                    over (partition by thetas.replicate),
                avg(thetas.theta) over (partition by thetas.replicate)
            )
        ), 9) as elo_style_controlled,
        rank() over (partition by thetas.replicate order by round(thetas.theta, 9) desc)
            as rank_style_controlled
    from thetas
    cross join scoring
),

bootstrap_quantiles as (
    select
        player,
        quantile_cont(elo_style_controlled, 0.025) as elo_q025,
        quantile_cont(elo_style_controlled, 0.975) as elo_q975,
        quantile_disc(rank_style_controlled, 0.025) as rank_style_controlled_ci_low,
        quantile_disc(rank_style_controlled, 0.975) as rank_style_controlled_ci_high
    from rated
    where replicate > 0
    group by player
),

ratings as (
    select
        observed.player,
        observed.elo_style_controlled,
        round(
            observed.elo_style_controlled
            - expansion.arm_factor * (bootstrap_quantiles.elo_q975 - observed.elo_style_controlled),
            9
        ) as elo_style_controlled_ci_low,
        round(
            observed.elo_style_controlled
            + expansion.arm_factor * (observed.elo_style_controlled - bootstrap_quantiles.elo_q025),
            9
        ) as elo_style_controlled_ci_high,
        observed.rank_style_controlled,
        bootstrap_quantiles.rank_style_controlled_ci_low,
        bootstrap_quantiles.rank_style_controlled_ci_high
    from rated as observed
    cross join expansion
    left join bootstrap_quantiles
        on observed.player = bootstrap_quantiles.player
    where observed.replicate = 0
)

select * from ratings
