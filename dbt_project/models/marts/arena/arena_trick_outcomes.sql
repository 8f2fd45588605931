{{ config(location=mart_location()) }}

with tricks as (
    select * from {{ ref('stg_arena_questions') }}
    where is_trick
),

answers as (
    select * from {{ ref('int_arena_trick_answers') }}
    where is_trick
),

per_trick as (
    select
        question_id,
        count(*) as n_answerers,
        count(*) filter (where fell_for_trick) as n_fell,
        avg(score) as mean_score
    from answers
    group by question_id
),

final as (
    select
        tricks.question_id,
        tricks.author,
        tricks.trick_kind,
        tricks.category,
        tricks.question_text,
        tricks.trick_note,
        per_trick.mean_score,
        coalesce(per_trick.n_answerers, 0) as n_answerers,
        coalesce(per_trick.n_fell, 0) as n_fell,
        per_trick.n_fell::double / per_trick.n_answerers as share_fell,
        case
            when per_trick.n_answerers is null then 'not answered'
            when per_trick.n_fell = 0 then 'nobody_fell'
            when per_trick.n_fell = per_trick.n_answerers then 'everybody_fell'
            else 'discriminating'
        end as outcome
    from tricks
    left join per_trick
        on tricks.question_id = per_trick.question_id
    order by tricks.author, tricks.author_position
)

select * from final
