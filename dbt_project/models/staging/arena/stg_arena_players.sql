{#- The players of the run from the manifest's config: provider, model, role (`player` when
    the manifest predates roles), and for a variant of a `budgets` entry its family and budget
    label (a player that is no variant is its own family, with no label). -#}
with

manifest as (
    select config
    from {{ read_run_source('run', 'manifest') }}
),

players as (
    select unnest(from_json(config -> 'players', '["JSON"]')) as player_config
    from manifest
),

renamed as (
    select
        player_config ->> 'name' as player,
        player_config ->> 'provider' as provider,
        player_config ->> 'model' as model,
        coalesce(player_config ->> 'role', 'player') as role,
        coalesce(player_config ->> 'family', player_config ->> 'name') as family_name,
        player_config ->> 'budget' as budget
    from players
)

select * from renamed
