{{ config(tags=['arena_questions']) }}

with source as (
    select *
    from {{ read_run_source('arena', 'questions') }}
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
        schema_version,
        coalesce(shown_text, text) as shown_text,
        coalesce(json_array_length(leaked_identities), 0) as n_leaked_identities,
        coalesce(leaked_identities, '[]'::json) as leaked_identities,
        coalesce(is_void, false) as is_void,
        trick_kind,
        trick_note,
        trick_kind is not null as is_trick
    from source
    where question_id is not null
)

select * from renamed
