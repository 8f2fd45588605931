{{ config(location=mart_location()) }}

with pairs as (
    select * from {{ ref('int_arena_self_assessment_pairs') }}
),

final as (
    select
        answer_id,
        question_id,
        player,
        is_valid,
        is_paired,
        predicted_score,
        actual_score,
        actual_normalized_score,
        signed_error,
        signed_error_normalized
    from pairs
    order by player, answer_id
)

select * from final
