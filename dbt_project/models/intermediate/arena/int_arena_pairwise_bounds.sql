-- Which players get no Elo, and the one-sided bound of each separated one (see the YAML).

with fits as (
    select * from {{ ref('int_arena_bradley_terry_fits') }}
    where replicate = 0
),

-- each scored verdict from both of its sides
sides as (
    select * from {{ ref('int_arena_pairwise_sides') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

separation as (
    select * from {{ ref('int_arena_pairwise_separation') }}
),

any_separation as (
    select coalesce(bool_or(is_separated), false) as has_separated_player
    from separation
),

flagged as (
    select
        fits.player,
        1000 + 400 * log10(
            greatest(fits.strength, 1e-12)
            / coalesce(
                max(case when fits.player = scoring.pairwise_baseline then fits.strength end)
                    over (),
                1.0
            )
        ) as elo,
        coalesce(separation.is_separated, false)
        or (not fits.is_converged and not any_separation.has_separated_player) as is_separated,
        case
            when separation.is_separated then separation.separation_note
            when not fits.is_converged and not any_separation.has_separated_player
                then
                    'the fit was still moving at its last step though every player is linked '
                    || 'both ways: no estimate'
        end as separation_note
    from fits
    cross join scoring
    cross join any_separation
    left join separation
        on fits.player = separation.player
),

scored_sides as (
    select
        player,
        opponent,
        score
    from sides
    where is_scored
),

-- a separated player's verdicts against the players with an Elo: all won, or all lost
anchored_records as (
    select
        scored_sides.player,
        count(*) as n_anchored_verdicts,
        avg(opponent.elo) as opponent_mean_elo,
        bool_and(scored_sides.score = 1) as has_won_all
    from scored_sides
    inner join flagged as own
        on scored_sides.player = own.player
    inner join flagged as opponent
        on scored_sides.opponent = opponent.player
    where own.is_separated and not opponent.is_separated
    group by scored_sides.player
),

bounds as (
    select
        flagged.player,
        flagged.is_separated,
        flagged.separation_note,
        anchored_records.has_won_all,
        anchored_records.n_anchored_verdicts,
        anchored_records.opponent_mean_elo
        + case when anchored_records.has_won_all then 1 else -1 end * 400 * log10(
            0.025 ^ (1 / anchored_records.n_anchored_verdicts)
            / (1 - 0.025 ^ (1 / anchored_records.n_anchored_verdicts))
        ) as elo_bound
    from flagged
    left join anchored_records
        on flagged.player = anchored_records.player
)

select * from bounds
