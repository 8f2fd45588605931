-- The parameters of the style-controlled Bradley-Terry fit, one row per player and feature:
-- every player's strength but the reference's (the first by name, held at 0), then every
-- feature that can be fitted, numbered 1..n in that order (parameter_index). A separated
-- player (int_arena_pairwise_bounds) has no finite strength, with or without style: its
-- verdicts are left out, which is the limit of the fit as its strength runs off (they then
-- tell nothing about the others). A feature is fitted when every verdict left has its value
-- and the value differs between the two answers of at least one of them; else it has no
-- index and style_note says why.

with features as (
    select * from {{ ref('int_arena_pairwise_style_features') }}
),

bounds as (
    select * from {{ ref('int_arena_pairwise_bounds') }}
),

separated as (
    select player from bounds
    where is_separated
),

fitted as (
    select *
    from features
    where
        first_player not in (select separated.player from separated)
        and second_player not in (select separated.player from separated)
),

players as (
    select first_player as player from fitted
    union
    select second_player as player from fitted
),

player_parameters as (
    select
        'player' as parameter_kind,
        player as parameter,
        0 as feature_order,
        row_number() over (order by player) = 1 as is_reference,
        true as is_fitted,
        null::varchar as style_note
    from players
),

feature_parameters as (
    select
        'feature' as parameter_kind,
        feature as parameter,
        any_value(feature_order) as feature_order,
        false as is_reference,
        count(*) filter (where feature_difference is null) = 0
        and coalesce(max(abs(feature_difference)), 0) > 0 as is_fitted,
        case
            when count(*) filter (where feature_difference is null) > 0
                then
                    'not fitted: the answer text of '
                    || count(*) filter (where feature_difference is null)
                    || ' verdicts is unknown'
            when coalesce(max(abs(feature_difference)), 0) = 0
                then 'not fitted: no variation, every pair of answers had the same value'
        end as style_note
    from fitted
    group by feature
),

parameters as (
    select * from player_parameters
    union all
    select * from feature_parameters
),

indexed as (
    select
        *,
        case when is_fitted and not is_reference then row_number() over (
            partition by is_fitted and not is_reference
            order by parameter_kind desc, feature_order asc, parameter asc
        ) end as parameter_index
    from parameters
)

select * from indexed
