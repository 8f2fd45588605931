{{ config(location=mart_location()) }}

with questions as (
    select * from {{ ref('stg_arena_questions') }}
),

answers as (
    select * from {{ ref('stg_arena_answers') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

-- every text a player wrote that others were to see: its questions and its valid answers
texts as (
    select
        author as player,
        'question' as kind,
        n_leaked_identities > 0 as is_leaked,
        is_void,
        leaked_identities
    from questions
    union all
    select
        answerer as player,
        'answer' as kind,
        n_leaked_identities > 0 as is_leaked,
        is_void,
        leaked_identities
    from answers
    where is_valid
),

terms as (
    select
        player,
        unnest(from_json(leaked_identities, '["VARCHAR"]')) as term
    from texts
),

leaked_terms as (
    select
        player,
        string_agg(distinct term, ', ' order by term) as leaked_terms
    from terms
    group by player
),

counts as (
    select
        player,
        count(*) filter (where kind = 'question') as n_questions,
        count(*) filter (where kind = 'question' and is_leaked) as n_questions_leaked,
        count(*) filter (where kind = 'question' and is_void) as n_questions_void,
        count(*) filter (where kind = 'answer') as n_answers,
        count(*) filter (where kind = 'answer' and is_leaked) as n_answers_leaked,
        count(*) filter (where kind = 'answer' and is_void) as n_answers_void
    from texts
    group by player
),

identity_leaks as (
    select
        counts.player,
        counts.n_questions,
        counts.n_questions_leaked,
        counts.n_questions_void,
        counts.n_answers,
        counts.n_answers_leaked,
        counts.n_answers_void,
        counts.n_questions_leaked / nullif(counts.n_questions, 0) as question_leak_rate,
        counts.n_answers_leaked / nullif(counts.n_answers, 0) as answer_leak_rate,
        (counts.n_questions_leaked + counts.n_answers_leaked)
        / nullif(counts.n_questions + counts.n_answers, 0) as leak_rate,
        leaked_terms.leaked_terms,
        scoring.identity_leaks
    from counts
    cross join scoring
    left join leaked_terms
        on counts.player = leaked_terms.player
    order by counts.player
)

select * from identity_leaks
