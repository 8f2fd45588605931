{{ config(materialized='table') }}

-- The judgements the judge x player bias test is built on: each judgement's deviation from
-- the other judges of the same answer, centred within its stratum. A stratum is a judge and
-- a consensus level (floor of the other judges' mean fixed-effects score): a judge whose
-- response is not a plain shift of the others' (clamped at 0 or 10, say, when it is
-- lenient) deviates by the level of the answer, and players of different skill sit at
-- different levels; comparing each answer only with the judge's other answers of the same
-- level keeps that out of the pair statistic. The median, not the mean, of the stratum: a
-- judge's favoured answers, a minority of a stratum, barely move it, so the favour does not
-- leak onto the judge's other players. The permutation test shuffles the authors of
-- the answers to each question (int_arena_bias_permutations).

with consensus as (
    select * from {{ ref('int_arena_judgment_consensus') }}
),

judged_answers as (
    select
        judge,
        answerer as player,
        answer_id,
        question_id,
        deviation,
        floor(others_mean_score)::integer as consensus_level
    from consensus
    where deviation is not null
),

centred as (
    select
        *,
        deviation - median(deviation) over (partition by judge, consensus_level)
            as centred_deviation,
        count(*) over (partition by judge, consensus_level) as stratum_size
    from judged_answers
)

select * from centred
