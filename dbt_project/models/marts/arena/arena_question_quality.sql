{{ config(location=mart_location(), tags=['arena_questions']) }}

with question_quality as (
    select * from {{ ref('int_arena_question_quality') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

final as (
    select
        question_quality.question_id,
        question_quality.author,
        question_quality.category,
        question_quality.n_raters,
        question_quality.n_ratings_invalid,
        question_quality.raw_quality,
        question_quality.quality,
        question_quality.quality_stddev,
        question_quality.drop_order,
        question_quality.is_kept,
        question_quality.quality_weight,
        question_quality.question_filter_kind,
        scoring.normalization
    from question_quality
    cross join scoring
)

select * from final
order by question_id
