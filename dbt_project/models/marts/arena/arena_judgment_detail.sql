{{ config(location=mart_location()) }}

with

judgments as (
    select * from {{ ref('stg_arena_judgments') }}
),

normalized_judgments as (
    select * from {{ ref('int_arena_judgments_normalized') }}
),

judgment_detail as (
    select
        judgments.answer_id,
        judgments.question_id,
        normalized_judgments.answerer,
        judgments.judge,
        judgments.score,
        normalized_judgments.normalized_score,
        judgments.is_valid,
        judgments.n_attempts,
        judgments.raw_reply,
        judgments.rationale_asked,
        judgments.rationale
    from judgments
    inner join normalized_judgments
        on
            judgments.answer_id = normalized_judgments.answer_id
            and judgments.judge = normalized_judgments.judge
)

select * from judgment_detail
order by answer_id, judge
