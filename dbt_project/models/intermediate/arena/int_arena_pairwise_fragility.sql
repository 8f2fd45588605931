{{ config(materialized='table') }}

-- How few scored verdicts hold each player above the next one down (see the YAML): the
-- verdicts ordered by how much their removal narrows the pair's gap to first order, the top
-- m removed and Bradley-Terry refitted, m = 1..50 and then every 5% further.

{%- set bt_iterations = 100 %}
{%- set every_count_up_to = 50 %}

with recursive outcomes as (
    select * from {{ ref('int_arena_pairwise_outcomes') }}
),

fits as (
    select * from {{ ref('int_arena_bradley_terry_fits') }}
    where replicate = 0
),

separation as (
    select * from {{ ref('int_arena_pairwise_separation') }}
),

verdicts as (
    select
        row_number() over (
            order by pair_id, judge, order_index, first_player, second_player
        ) as verdict_index,
        first_player,
        second_player,
        weight::double as weight,
        first_score
    from outcomes
    where is_scored
),

ordered as (
    select
        fits.player,
        fits.strength,
        coalesce(separation.is_separated, false) as is_separated,
        row_number() over (order by fits.rank, fits.player) as place
    from fits
    left join separation
        on fits.player = separation.player
),

pairs as (
    select
        upper_player.place,
        upper_player.player,
        lower_player.player as next_player
    from ordered as upper_player
    inner join ordered as lower_player
        on upper_player.place + 1 = lower_player.place
    where not upper_player.is_separated and not lower_player.is_separated
),

-- residual w (s - P(first wins)) of each verdict at the fit, and each player's information
residuals as (
    select
        verdicts.*,
        verdicts.weight * (
            verdicts.first_score - first_fit.strength / (first_fit.strength + second_fit.strength)
        ) as residual,
        verdicts.weight * first_fit.strength * second_fit.strength
        / (first_fit.strength + second_fit.strength) ^ 2 as information
    from verdicts
    inner join fits as first_fit
        on verdicts.first_player = first_fit.player
    inner join fits as second_fit
        on verdicts.second_player = second_fit.player
),

information as (
    select
        player,
        sum(information) as information
    from (
        select
            first_player as player,
            information
        from residuals
        union all
        select
            second_player as player,
            information
        from residuals
    ) as sides
    group by player
),

helps as (
    select
        pairs.place,
        residuals.verdict_index,
        (
            case
                when residuals.first_player = pairs.player then residuals.residual
                when residuals.second_player = pairs.player then -residuals.residual
                else 0
            end / upper_info.information
            - case
                when residuals.first_player = pairs.next_player then residuals.residual
                when residuals.second_player = pairs.next_player then -residuals.residual
                else 0
            end / lower_info.information
        ) as gap_help
    from pairs
    inner join residuals
        on
            pairs.player in (residuals.first_player, residuals.second_player)
            or pairs.next_player in (residuals.first_player, residuals.second_player)
    inner join information as upper_info
        on pairs.player = upper_info.player
    inner join information as lower_info
        on pairs.next_player = lower_info.player
),

candidates as (
    select
        place,
        verdict_index,
        row_number() over (
            partition by place order by gap_help desc, verdict_index asc
        ) as removal_order
    from helps
    where gap_help > 0
),

candidate_totals as (
    select
        place,
        max(removal_order) as n_candidates
    from candidates
    group by place
),

counts as (
    select
        candidate_totals.place,
        grid.n_removed
    from candidate_totals
    cross join lateral generate_series(1, candidate_totals.n_candidates) as grid (n_removed)
    where
        grid.n_removed <= {{ every_count_up_to }}
        or grid.n_removed = candidate_totals.n_candidates
        or floor(ln(grid.n_removed / {{ every_count_up_to }}) / ln(1.05))
        > floor(ln(greatest(grid.n_removed - 1, 1) / {{ every_count_up_to }}) / ln(1.05))
),

kept as (
    select
        counts.place,
        counts.n_removed,
        verdicts.*
    from counts
    cross join verdicts
    where not exists (
        select 1
        from candidates
        where
            candidates.place = counts.place
            and candidates.verdict_index = verdicts.verdict_index
            and candidates.removal_order <= counts.n_removed
    )
),

edges as (
    select
        place,
        n_removed,
        player,
        opponent,
        sum(weight) as n_games,
        sum(wins) as wins
    from (
        select
            place,
            n_removed,
            first_player as player,
            second_player as opponent,
            weight,
            weight * first_score as wins
        from kept
        union all
        select
            place,
            n_removed,
            second_player as player,
            first_player as opponent,
            weight,
            weight * (1 - first_score) as wins
        from kept
    ) as sides
    group by place, n_removed, player, opponent
),

totals as (
    select
        place,
        n_removed,
        player,
        sum(wins) as total_wins
    from edges
    group by place, n_removed, player
),

steps as (
    select
        0 as step,
        place,
        n_removed,
        player,
        1.0::double as strength
    from totals
    union all
    select
        any_value(own.step) + 1 as step,
        edges.place,
        edges.n_removed,
        edges.player,
        any_value(totals.total_wins)
        / sum(edges.n_games / (own.strength + other.strength)) as strength
    from edges
    inner join totals
        on
            edges.place = totals.place
            and edges.n_removed = totals.n_removed
            and edges.player = totals.player
    inner join steps as own
        on
            edges.place = own.place
            and edges.n_removed = own.n_removed
            and edges.player = own.player
    inner join steps as other
        on
            edges.place = other.place
            and edges.n_removed = other.n_removed
            and edges.opponent = other.player
    where own.step < {{ bt_iterations }}
    group by edges.place, edges.n_removed, edges.player
),

flips as (
    select
        pairs.place,
        min(counts.n_removed) as n_to_flip_next
    from pairs
    inner join counts
        on pairs.place = counts.place
    inner join steps as upper_fit
        on
            counts.place = upper_fit.place
            and counts.n_removed = upper_fit.n_removed
            and pairs.player = upper_fit.player
            and upper_fit.step = {{ bt_iterations }}
    inner join steps as lower_fit
        on
            counts.place = lower_fit.place
            and counts.n_removed = lower_fit.n_removed
            and pairs.next_player = lower_fit.player
            and lower_fit.step = {{ bt_iterations }}
    where round(lower_fit.strength / upper_fit.strength, 9) > 1
    group by pairs.place
),

final as (
    select
        pairs.player,
        pairs.next_player,
        flips.n_to_flip_next,
        coalesce(flips.n_to_flip_next = 1, false) as is_flip_count_exact
    from pairs
    left join flips
        on pairs.place = flips.place
)

select * from final
