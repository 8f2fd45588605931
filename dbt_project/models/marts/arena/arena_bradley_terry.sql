{{ config(location=mart_location()) }}

-- Elo-style scale: 1000 + 400 log10(p / p_anchor), the anchor the baseline's strength in the
-- same replicate, or 1 without one; a strength of 0 is floored at 1e-12. The Elo interval is
-- the bootstrap's reflected interval, each arm stretched (docs/pairwise_judging.md, "Which
-- interval"); the win rate's is its image. A player without a finite strength
-- (int_arena_pairwise_bounds) has no Elo, and a one-sided interval where it has a bound.

with fits as (
    select * from {{ ref('int_arena_bradley_terry_fits') }}
),

verdict_counts as (
    select * from {{ ref('int_arena_pairwise_records') }}
),

ties as (
    select * from {{ ref('int_arena_pairwise_ties') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

expansion as (
    select * from {{ ref('int_arena_pairwise_interval_expansion') }}
),

separation as (
    select * from {{ ref('int_arena_pairwise_bounds') }}
),

fragility as (
    select * from {{ ref('int_arena_pairwise_fragility') }}
),

style_ratings as (
    select * from {{ ref('int_arena_pairwise_style_ratings') }}
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
        fits.is_converged,
        1000 + 400 * log10(greatest(fits.strength, 1e-12) / anchors.anchor_strength) as elo,
        fits.strength / (fits.strength + anchors.anchor_strength) as win_rate_vs_baseline
    from fits
    inner join anchors
        on fits.replicate = anchors.replicate
),

observed_fits as (
    select
        rated.*,
        coalesce(separation.is_separated, false) as is_separated,
        separation.separation_note
    from rated
    left join separation
        on rated.player = separation.player
    where rated.replicate = 0
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

final as (
    select
        observed.player,
        observed.strength,
        case when not observed.is_separated then observed.elo end as elo,
        case
            when not observed.is_separated then elo_intervals.elo_ci_low
            when bounds.has_won_all then bounds.elo_bound
        end as elo_ci_low,
        case
            when not observed.is_separated then elo_intervals.elo_ci_high
            when not bounds.has_won_all then bounds.elo_bound
        end as elo_ci_high,
        observed.rank,
        elo_intervals.rank_ci_low,
        elo_intervals.rank_ci_high,
        style_ratings.* exclude (player),  -- noqa: RF02
        scoring.pairwise_baseline as baseline,
        case
            when not observed.is_separated then observed.win_rate_vs_baseline
        end as win_rate_vs_baseline,
        null::double as win_rate_ci_low,
        null::double as win_rate_ci_high,
        verdict_counts.n_verdicts,
        verdict_counts.win_rate,
        verdict_counts.n_vs_baseline,
        verdict_counts.observed_win_rate_vs_baseline,
        observed.bt_last_change,
        observed.is_converged,
        observed.is_separated,
        case
            when observed.is_separated then observed.separation_note
            when not observed.is_converged
                then
                    'the fit was still moving at its last step: the Elo is where it stopped, '
                    || 'not an estimate'
        end as elo_note,
        ties.tie_model,
        ties.tie_parameter,
        ties.tie_parameter_ci_low,
        ties.tie_parameter_ci_high,
        fragility.n_to_flip_next,
        fragility.is_flip_count_exact,
        scoring.pairwise_strong_weight as strong_weight,
        scoring.bootstrap_n,
        coalesce(elo_intervals.n_replicates, 0) as n_replicates,
        expansion.n_questions,
        {{ arena_few_questions_n() }} as min_questions,
        expansion.n_questions < {{ arena_few_questions_n() }} as is_few_questions,
        expansion.arm_factor as interval_expansion
    from observed_fits as observed
    cross join scoring
    cross join expansion
    cross join ties
    left join elo_intervals
        on observed.player = elo_intervals.player
    left join verdict_counts
        on observed.player = verdict_counts.player
    left join separation as bounds
        on observed.player = bounds.player
    left join fragility
        on observed.player = fragility.player
    left join style_ratings
        on observed.player = style_ratings.player
)

select
    * replace (
        1 / (1 + 10 ^ ((1000 - elo_ci_low) / 400)) as win_rate_ci_low,
        1 / (1 + 10 ^ ((1000 - elo_ci_high) / 400)) as win_rate_ci_high
    )
from final
order by rank asc, player asc
