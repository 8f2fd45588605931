{{ config(tags=['arena_questions']) }}

-- a void question (identity_leaks: void) was never rated or answered and is not scored
with questions as (
    select * from {{ ref('stg_arena_questions') }}
    where is_void is not true
),

ratings as (
    select * from {{ ref('int_arena_ratings_normalized') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

{{ arena_scores_per_item('ratings_per_question', 'ratings', 'question_id', {
    'n_valid': 'n_raters', 'n_invalid': 'n_ratings_invalid',
    'raw_mean': 'raw_quality', 'mean': 'quality', 'stddev': 'quality_stddev'}) }},

questions_with_quality as (
    select
        questions.question_id,
        questions.author,
        questions.category,
        ratings_per_question.raw_quality,
        ratings_per_question.quality,
        ratings_per_question.quality_stddev,
        coalesce(ratings_per_question.n_raters, 0) as n_raters,
        coalesce(ratings_per_question.n_ratings_invalid, 0) as n_ratings_invalid
    from questions
    left join ratings_per_question
        on questions.question_id = ratings_per_question.question_id
),

-- Lowest quality first; a question nobody rated validly counts as the lowest; equal
-- qualities (compared at 9 decimals, macros/compare.sql) are ordered by the opaque
-- question_id, so the cut is deterministic.
ordered_for_filter as (
    select
        questions_with_quality.*,
        scoring.question_filter_kind,
        scoring.question_filter_fraction,
        scoring.question_filter_min_score,
        row_number() over (
            order by
                {{ comparable('questions_with_quality.quality') }} asc nulls first,
                questions_with_quality.question_id asc
        ) as drop_order,
        count(*) over () as n_questions
    from questions_with_quality
    cross join scoring
),

filtered as (
    select
        *,
        case question_filter_kind
            when 'none' then true
            when 'bottom_fraction'
                then drop_order > floor(question_filter_fraction * n_questions + 1e-9)
            when 'min_score'
                then coalesce({{ comparable('quality') }} >= question_filter_min_score, false)
        end as is_kept
    from ordered_for_filter
),

kept_quality as (
    select
        *,
        case when is_kept then greatest(coalesce(quality, 0), 0) end as kept_quality
    from filtered
),

-- Weights average 1 over the kept questions; all 1 when no kept question has quality > 0.
weighted as (
    select
        *,
        case
            when not is_kept then 0.0
            when coalesce(avg(kept_quality) over (), 0) = 0 then 1.0
            else kept_quality / avg(kept_quality) over ()
        end as quality_weight
    from kept_quality
),

final as (
    select
        question_id,
        author,
        category,
        n_raters,
        n_ratings_invalid,
        raw_quality,
        quality,
        quality_stddev,
        drop_order,
        is_kept,
        quality_weight,
        question_filter_kind
    from weighted
)

select * from final
