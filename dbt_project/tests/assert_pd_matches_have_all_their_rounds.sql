-- Every finished match (a line of matches.jsonl, ok or aborted) has exactly rounds_played
-- rounds in rounds.jsonl, numbered 1 .. rounds_played: a lost or doubled round line fails
-- the build instead of quietly changing every metric of its match. The message names every
-- short or long match (the first five) in one line; `pdbench aggregate` adds the torn line it
-- cut, if any, and the `--resume` command that replays the matches.
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
),

wrong as (
    select
        match_id,
        match_id || ' (' || n_rounds || ' of its ' || rounds_played || ' rounds'
        || case
            when n_round_indices != n_rounds then ', some numbered twice'
            else ''
        end || ')' as described
    from compared
    where
        n_rounds != rounds_played
        or n_round_indices != rounds_played
        or last_round_index != rounds_played
),

first_wrong as (
    select
        match_id,
        described
    from wrong
    order by match_id
    limit 5
),

problems as (
    select
        'rounds.jsonl: '
        || (select count(*) from wrong)
        || ' match(es) of matches.jsonl without exactly their rounds: '
        || string_agg(described, ', ' order by match_id) as problem
    from first_wrong
)

select problem from problems
where problem is not null and {{ fail_with('problem') }}
