-- Every round belongs to a match of the run: its match_id is its condition and replicate,
-- the condition is one the run's config plays and the replicate one it plays; in a
-- completed run, the match also has its line in matches.jsonl. Rounds of a match that does
-- not exist would otherwise be counted in every metric of their condition.
{{ config(tags=['pd']) }}

with

rounds as (
    select distinct
        match_id,
        condition,
        replicate
    from {{ ref('int_pd_round_features') }}
),

matches as (
    select match_id
    from {{ ref('stg_pd_matches') }}
),

run as (
    select
        run_status,
        planned_conditions,
        planned_replicates
    from {{ ref('stg_pd_run_manifest') }}
),

checked as (
    select
        rounds.match_id,
        case
            when rounds.match_id != rounds.condition || '/' || rounds.replicate
                then
                    'its match_id is not its condition and replicate ('
                    || rounds.condition || '/' || rounds.replicate || ')'
            when
                run.planned_conditions is not null
                and not list_contains(run.planned_conditions, rounds.condition)
                then 'condition ' || rounds.condition || ' is not in the run''s config'
            when
                run.planned_replicates is not null
                and (rounds.replicate < 0 or rounds.replicate >= run.planned_replicates)
                then
                    'replicate ' || rounds.replicate || ' is not one of the run''s '
                    || run.planned_replicates || ' replicates'
            when run.run_status = 'completed' and matches.match_id is null
                then 'the match has no line in matches.jsonl, yet the run is completed'
        end as reason
    from rounds
    cross join run
    left join matches
        on rounds.match_id = matches.match_id
),

problems as (
    select
        'rounds.jsonl: rounds of match ' || match_id || ', which does not exist: '
        || reason as problem
    from checked
    where reason is not null
)

select problem from problems
where {{ fail_with('problem') }}
