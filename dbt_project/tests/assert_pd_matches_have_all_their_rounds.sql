-- Every finished match (a line of matches.jsonl, ok or aborted) has exactly rounds_played
-- rounds in rounds.jsonl, numbered 1 .. rounds_played: a lost or doubled round line fails
-- the build instead of quietly changing every metric of its match.
{{ config(tags=['pd']) }}

with

matches as (
    select
        match_id,
        rounds_played
    from {{ ref('stg_pd_matches') }}
),

rounds_per_match as (
    select
        match_id,
        count(*) as n_rounds,
        count(distinct round_index) as n_round_indices,
        max(round_index) as last_round_index
    from {{ ref('int_pd_round_features') }}
    group by match_id
),

compared as (
    select
        matches.match_id,
        matches.rounds_played,
        coalesce(rounds_per_match.n_rounds, 0) as n_rounds,
        coalesce(rounds_per_match.n_round_indices, 0) as n_round_indices,
        coalesce(rounds_per_match.last_round_index, 0) as last_round_index
    from matches
    left join rounds_per_match
        on matches.match_id = rounds_per_match.match_id
)

select * from compared
where
    n_rounds != rounds_played
    or n_round_indices != rounds_played
    or last_round_index != rounds_played
