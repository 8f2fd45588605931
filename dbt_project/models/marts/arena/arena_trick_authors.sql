{{ config(location=mart_location()) }}

with outcomes as (
    select * from {{ ref('arena_trick_outcomes') }}
),

per_author as (
    select
        author,
        count(*) as n_tricks,
        count(*) filter (where n_answerers > 0) as n_tricks_answered,
        sum(n_answerers)::bigint as n_trick_answers,
        sum(n_fell)::bigint as n_fell,
        count(*) filter (where outcome = 'nobody_fell') as n_nobody_fell,
        count(*) filter (where outcome = 'everybody_fell') as n_everybody_fell,
        count(*) filter (where outcome = 'discriminating') as n_discriminating
    from outcomes
    group by author
),

final as (
    select
        author,
        n_tricks,
        n_tricks_answered,
        n_trick_answers,
        n_fell,
        n_fell::double / nullif(n_trick_answers, 0) as share_fell,
        n_nobody_fell,
        n_everybody_fell,
        n_discriminating
    from per_author
    order by author
)

select * from final
