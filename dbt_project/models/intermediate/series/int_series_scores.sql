{#- One row per tournament and player with a score on enough judgements: the player is its
    name, provider and model. -#}
with

tournaments as (
    select * from {{ ref('stg_series_tournaments') }}
),

players as (
    select * from {{ ref('stg_series_players') }}
),

leaderboards as (
    select * from {{ ref('stg_series_leaderboards') }}
),

scores as (
    select
        tournaments.tournament_index,
        tournaments.run_id,
        leaderboards.player,
        players.provider,
        players.model,
        leaderboards.score,
        leaderboards.ci_low,
        leaderboards.ci_high,
        leaderboards.normalization
    from leaderboards
    inner join tournaments
        on leaderboards.tournament_folder = tournaments.tournament_folder
    inner join players
        on
            leaderboards.tournament_folder = players.tournament_folder
            and leaderboards.player = players.player
    where leaderboards.has_enough_data and leaderboards.score is not null
)

select * from scores
