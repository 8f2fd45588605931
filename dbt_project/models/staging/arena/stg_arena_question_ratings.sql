{{ config(tags=['arena_questions']) }}

with source as (
    select *
    from {{ read_run_jsonl('question_ratings.jsonl', {
        'schema_version': 'integer',
        'run_id': 'varchar',
        'question_id': 'varchar',
        'rater': 'varchar',
        'score': 'integer',
        'is_valid': 'boolean',
        'attempts': 'integer',
        'presentation_index': 'integer',
        'prompt_sha256': 'varchar',
        'raw_reply': 'varchar',
    }, required=false) }}
),

renamed as (
    select
        question_id,
        rater,
        attempts as n_attempts,
        presentation_index,
        prompt_sha256,
        raw_reply,
        run_id,
        schema_version,
        coalesce(is_valid and score is not null, false) as is_valid,
        case when is_valid then score end as score
    from source
    where question_id is not null and rater is not null
)

select * from renamed
