{{ config(tags=['arena_questions']) }}

with source as (
    select *
    from {{ read_run_jsonl('questions.jsonl', {
        'schema_version': 'integer',
        'run_id': 'varchar',
        'question_id': 'varchar',
        'author': 'varchar',
        'category': 'varchar',
        'text': 'varchar',
        'position': 'integer',
        'attempts': 'integer',
        'prompt_sha256': 'varchar',
        'raw_line': 'varchar',
    }, required=false) }}
),

renamed as (
    select
        question_id,
        author,
        category,
        text as question_text,
        position as author_position,
        attempts as n_attempts,
        prompt_sha256,
        raw_line,
        run_id,
        schema_version
    from source
    where question_id is not null
)

select * from renamed
