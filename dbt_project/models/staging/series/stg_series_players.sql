{#- Every player of every tournament of the series, with the provider and model it played
    as (a player is the same across tournaments when its name, provider and model are). -#}
with

tournaments as (
    select * from {{ ref('stg_series_tournaments') }}
),

players as (
    select
        tournament_folder,
        unnest(from_json(config -> 'players', '["JSON"]')) as player_config
    from tournaments
),

renamed as (
    select
        tournament_folder,
        player_config ->> 'name' as player,
        player_config ->> 'provider' as provider,
        player_config ->> 'model' as model
    from players
)

select * from renamed
