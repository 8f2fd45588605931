with source as (
    select *
    from {{ read_run_source('arena', 'answers') }}
),

renamed as (
    select
        answer_id,
        question_id,
        answerer,
        text as answer_text,
        attempts as n_attempts,
        prompt_sha256,
        raw_reply,
        run_id,
        schema_version,
        coalesce(is_valid, false) as is_valid,
        -- NULL in lines of schema version 1, which did not record truncation
        truncated as is_truncated,
        coalesce(shown_text, text) as shown_text,
        coalesce(json_array_length(leaked_identities), 0) as n_leaked_identities,
        coalesce(leaked_identities, '[]'::json) as leaked_identities,
        coalesce(is_void, false) as is_void
    from source
    where answer_id is not null
)

select * from renamed
