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
-- A separated player (int_arena_pairwise_separation: it won, or lost, every verdict against
-- part of the field) has no finite strength: its fit is where the MM steps stopped, so its
-- Elo and win rate are NULL and elo_note says why; its strength and rank stay, for the order
-- only. Its interval is one-sided: all its verdicts against the anchored players (those with
-- an Elo) are wins, or all are losses, and over n of them P(win) >= 0.025^(1/n) is the
-- one-sided 97.5% Clopper-Pearson bound of all n won; put on the Elo scale against the mean
-- Elo of the opponents of those verdicts, m + 400 log10(b / (1 - b)) is elo_ci_low (elo_ci_high
-- NULL: no upper end), or m - 400 log10(b / (1 - b)) is elo_ci_high for a player who lost them
-- all. The opponents' own uncertainty is left out. A fit that had not converged by its last
-- step though no player is separated has no estimate either: every player is_separated, no
-- Elo, no interval. When some player is separated the others keep their numbers, with
-- is_converged false and elo_note saying they are where the fit stopped.

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

separation as (
    select * from {{ ref('int_arena_pairwise_separation') }}
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

any_separation as (
    select coalesce(bool_or(is_separated), false) as has_separated_player
    from separation
),

observed_fits as (
    select
        rated.*,
        coalesce(separation.is_separated, false)
        or (not rated.is_converged and not any_separation.has_separated_player) as is_separated,
        case
            when separation.is_separated then separation.separation_note
            when not rated.is_converged and not any_separation.has_separated_player
                then
                    'the fit was still moving at its last step though every player is linked '
                    || 'both ways: no estimate'
        end as separation_note
    from rated
    cross join any_separation
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

-- a separated player's verdicts against the anchored players: all won, or all lost
anchored_records as (
    select
        scored_sides.player,
        count(*) as n_anchored_verdicts,
        avg(opponent.elo) as opponent_mean_elo,
        bool_and(scored_sides.score = 1) as has_won_all
    from scored_sides
    inner join observed_fits as own
        on scored_sides.player = own.player
    inner join observed_fits as opponent
        on scored_sides.opponent = opponent.player
    where own.is_separated and not opponent.is_separated
    group by scored_sides.player
),

separation_bounds as (
    select
        player,
        case when has_won_all then 1 else -1 end
        * 400 * log10(0.025 ^ (1 / n_anchored_verdicts) / (1 - 0.025 ^ (1 / n_anchored_verdicts)))
        + opponent_mean_elo as elo_bound,
        has_won_all
    from anchored_records
),

final as (
    select
        observed.player,
        observed.strength,
        case when not observed.is_separated then observed.elo end as elo,
        case
            when not observed.is_separated then bootstrap_intervals.elo_ci_low
            when bounds.has_won_all then bounds.elo_bound
        end as elo_ci_low,
        case
            when not observed.is_separated then bootstrap_intervals.elo_ci_high
            when not bounds.has_won_all then bounds.elo_bound
        end as elo_ci_high,
        observed.rank,
        bootstrap_intervals.rank_ci_low,
        bootstrap_intervals.rank_ci_high,
        scoring.pairwise_baseline as baseline,
        case
            when not observed.is_separated then observed.win_rate_vs_baseline
        end as win_rate_vs_baseline,
        case
            when not observed.is_separated then bootstrap_intervals.win_rate_ci_low
            when bounds.has_won_all then 1 / (1 + 10 ^ ((1000 - bounds.elo_bound) / 400))
        end as win_rate_ci_low,
        case
            when not observed.is_separated then bootstrap_intervals.win_rate_ci_high
            when not bounds.has_won_all then 1 / (1 + 10 ^ ((1000 - bounds.elo_bound) / 400))
        end as win_rate_ci_high,
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
        scoring.pairwise_strong_weight as strong_weight,
        scoring.bootstrap_n,
        coalesce(bootstrap_intervals.n_replicates, 0) as n_replicates,
        expansion.n_questions,
        expansion.arm_factor as interval_expansion
    from observed_fits as observed
    cross join scoring
    cross join expansion
    left join bootstrap_intervals
        on observed.player = bootstrap_intervals.player
    left join verdict_counts
        on observed.player = verdict_counts.player
    left join separation_bounds as bounds
        on observed.player = bounds.player
    order by observed.rank asc, observed.player asc
)

select * from final
