-- Every judgement is of an answer in answers.jsonl, by a player who did not write it. A
-- player judging its own answer is a bias the arena's blind judging rules out; an arm that
-- studies it (a `self` bias arm) sets the var arena_allow_self_judging to true, which relaxes
-- that check alone.
{{ config(tags=['arena']) }}

with

judgments as (
    select
        answer_id,
        judge
    from {{ ref('stg_arena_judgments') }}
),

answers as (
    select
        answer_id,
        answerer
    from {{ ref('stg_arena_answers') }}
),

problems as (
    select
        case
            when answers.answer_id is null
                then
                    'judgments.jsonl: ' || judgments.judge || ' judged answer '
                    || judgments.answer_id || ', which is not in answers.jsonl'
            when
                judgments.judge = answers.answerer
                and not {{ var('arena_allow_self_judging', false) }}
                then
                    'judgments.jsonl: ' || judgments.judge || ' judged its own answer '
                    || judgments.answer_id || ' (no arm of this run allows self-judging)'
        end as problem
    from judgments
    left join answers
        on judgments.answer_id = answers.answer_id
)

select problem from problems
where problem is not null and {{ fail_with('problem') }}
