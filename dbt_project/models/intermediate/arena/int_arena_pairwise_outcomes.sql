-- One row per valid verdict, read as the first player's score in the pair: 1 a win, 0.5 a
-- tie (half a win to each side, as Arena-Hard-Auto and Chatbot Arena count a tie), 0 a
-- loss. A strong verdict (A>>B, B>>A) counts as strong_weight verdicts, as in
-- Arena-Hard-Auto. A verdict on a pair holding the judge's own answer (the self arm) or
-- shown with the authors' names (the named arm) is recorded but never scored.

with verdicts as (
    select * from {{ ref('stg_arena_pairwise_judgments') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

read_verdicts as (
    select
        verdicts.pair_id,
        verdicts.question_id,
        verdicts.judge,
        verdicts.first_player,
        verdicts.second_player,
        verdicts.first_answer_id,
        verdicts.second_answer_id,
        verdicts.order_index,
        verdicts.is_named,
        verdicts.verdict,
        verdicts.judge in (verdicts.first_player, verdicts.second_player) as is_self,
        case
            when verdicts.verdict in ('A>>B', 'A>B') then 1.0
            when verdicts.verdict = 'A=B' then 0.5
            else 0.0
        end as first_score,
        case
            when verdicts.verdict in ('A>>B', 'B>>A') then scoring.pairwise_strong_weight
            else 1
        end as weight
    from verdicts
    cross join scoring
    where verdicts.is_valid
),

outcomes as (
    select
        *,
        not is_self and not is_named as is_scored
    from read_verdicts
)

select * from outcomes
