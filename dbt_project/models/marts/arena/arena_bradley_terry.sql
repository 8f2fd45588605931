{{ config(location=mart_location()) }}

-- Elo-style scale: 1000 + 400 log10(p / p_anchor), the anchor being the baseline player's
-- strength in the same replicate, or 1 (the geometric mean of all strengths) without one.
-- A strength of 0 (a player who never won in a replicate) is floored at 1e-12.
-- The Elo interval is the bootstrap's reflected (basic) interval, [e - (q975 - e), e + (e -
-- q025)] around the fit e, each arm stretched by int_arena_pairwise_interval_expansion: the
-- fit is biased outward at a few questions and its replicates again, so the plain
-- percentile interval sat outward of the truth and held 91% at 20 questions, the stretched
-- reflected one 94% (docs/pairwise_judging.md, "Which interval"). The win rate against the
-- baseline is a monotone function of the Elo, 1 / (1 + 10^((1000 - elo) / 400)), and its
-- interval is that function of the Elo interval's ends. Ranks keep the percentile interval.

with fits as (
    select * from {{ ref('int_arena_bradley_terry_fits') }}
),

outcomes as (
    select * from {{ ref('int_arena_pairwise_outcomes') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

expansion as (
    select * from {{ ref('int_arena_pairwise_interval_expansion') }}
),

anchors as (
    select
        fits.replicate,
        coalesce(
            max(case when fits.player = scoring.pairwise_baseline then fits.strength end), 1.0
        ) as anchor_strength
    from fits
    cross join scoring
    group by fits.replicate
),

rated as (
    select
        fits.replicate,
        fits.player,
        fits.strength,
        fits.rank,
        fits.bt_last_change,
        1000 + 400 * log10(greatest(fits.strength, 1e-12) / anchors.anchor_strength) as elo,
        fits.strength / (fits.strength + anchors.anchor_strength) as win_rate_vs_baseline
    from fits
    inner join anchors
        on fits.replicate = anchors.replicate
),

bootstrap_quantiles as (
    select
        player,
        {{ arena_bootstrap_percentiles('elo') }}
    from rated
    where replicate > 0
    group by player
),

elo_intervals as (
    select
        bootstrap_quantiles.player,
        bootstrap_quantiles.rank_ci_low,
        bootstrap_quantiles.rank_ci_high,
        bootstrap_quantiles.n_replicates,
        observed.elo
        - expansion.arm_factor * (bootstrap_quantiles.elo_q975 - observed.elo) as elo_ci_low,
        observed.elo
        + expansion.arm_factor * (observed.elo - bootstrap_quantiles.elo_q025) as elo_ci_high
    from bootstrap_quantiles
    inner join rated as observed
        on bootstrap_quantiles.player = observed.player and observed.replicate = 0
    cross join expansion
),

bootstrap_intervals as (
    select
        *,
        1 / (1 + 10 ^ ((1000 - elo_ci_low) / 400)) as win_rate_ci_low,
        1 / (1 + 10 ^ ((1000 - elo_ci_high) / 400)) as win_rate_ci_high
    from elo_intervals
),

scored_sides as (
    select
        first_player as player,
        second_player as opponent,
        weight,
        first_score as score
    from outcomes
    where is_scored
    union all
    select
        second_player as player,
        first_player as opponent,
        weight,
        1 - first_score as score
    from outcomes
    where is_scored
),

verdict_counts as (
    select
        scored_sides.player,
        count(*) as n_verdicts,
        sum(scored_sides.weight * scored_sides.score) / sum(scored_sides.weight) as win_rate,
        count(*)
        filter (where scored_sides.opponent = scoring.pairwise_baseline) as n_vs_baseline,
        sum(scored_sides.weight * scored_sides.score)
        filter (where scored_sides.opponent = scoring.pairwise_baseline)
        / sum(scored_sides.weight)
        filter (
            where scored_sides.opponent = scoring.pairwise_baseline
        ) as observed_win_rate_vs_baseline
    from scored_sides
    cross join scoring
    group by scored_sides.player
),

final as (
    select
        observed.player,
        observed.strength,
        observed.elo,
        bootstrap_intervals.elo_ci_low,
        bootstrap_intervals.elo_ci_high,
        observed.rank,
        bootstrap_intervals.rank_ci_low,
        bootstrap_intervals.rank_ci_high,
        scoring.pairwise_baseline as baseline,
        observed.win_rate_vs_baseline,
        bootstrap_intervals.win_rate_ci_low,
        bootstrap_intervals.win_rate_ci_high,
        verdict_counts.n_verdicts,
        verdict_counts.win_rate,
        verdict_counts.n_vs_baseline,
        verdict_counts.observed_win_rate_vs_baseline,
        observed.bt_last_change,
        scoring.pairwise_strong_weight as strong_weight,
        scoring.bootstrap_n,
        coalesce(bootstrap_intervals.n_replicates, 0) as n_replicates,
        expansion.n_questions,
        expansion.arm_factor as interval_expansion
    from rated as observed
    cross join scoring
    cross join expansion
    left join bootstrap_intervals
        on observed.player = bootstrap_intervals.player
    left join verdict_counts
        on observed.player = verdict_counts.player
    where observed.replicate = 0
    order by observed.rank asc, observed.player asc
)

select * from final
