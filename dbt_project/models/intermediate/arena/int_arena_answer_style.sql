{{ config(materialized='table') }}

-- The style of each valid, non-void answer as its judges saw it (shown_text): its words (runs
-- of non-space characters, as the mock's length_preference counts them) and its markdown,
-- counted per line: headers (a line opening with 1 to 6 # and a space), list items (a line
-- opening with -, * or + and a space, or a number, a dot and a space), bold spans (**...** or
-- __...__ on one line) and code blocks (pairs of lines opening with ```). The style
-- covariates of the joint model (int_arena_joint_design).

with answers as (
    select * from {{ ref('stg_arena_answers') }}
),

styled as (
    select
        answer_id,
        question_id,
        answerer,
        len(regexp_extract_all(shown_text, '\S+')) as n_words,
        len(regexp_extract_all(shown_text, '(?m)^#{1,6}\s')) as n_headers,
        len(regexp_extract_all(shown_text, '(?m)^[ \t]*(?:[-*+]|[0-9]+\.)[ \t]')) as n_list_items,
        len(regexp_extract_all(shown_text, '\*\*[^*\n]+\*\*|__[^_\n]+__')) as n_bold,
        len(regexp_extract_all(shown_text, '(?m)^```')) // 2 as n_code_blocks
    from answers
    where is_valid and not is_void and shown_text is not null
)

select * from styled
