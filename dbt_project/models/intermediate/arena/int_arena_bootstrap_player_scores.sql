{{ config(materialized='table') }}

-- Each replicate normalises again the judgements of the questions it drew: a judge's mean
-- (and standard deviation) are taken over that judge's valid judgements of the drawn
-- questions, with their multiplicity, as a new tournament with those questions would. With
-- the judge means of the full run held fixed, a replicate of hard questions lowered every
-- score, which normalisation removes in a real tournament: the intervals came out about 1.5
-- times too wide (docs/arena_scoring.md). Under fixed_effects the judge offsets stay those
-- of the full fit and the centring on 5 is taken again.

with draws as (
    select * from {{ ref('int_arena_bootstrap_draws') }}
),

judgments as (
    select * from {{ ref('int_arena_judgments_normalized') }}
),

answers as (
    select * from {{ ref('int_arena_answer_scores') }}
),

player_scores as (
    select * from {{ ref('int_arena_player_scores') }}
),

draw_counts as (
    select
        replicate,
        question_id,
        count(*) as n_drawn
    from draws
    group by replicate, question_id
),

valid_judgments as (
    select
        answer_id,
        question_id,
        judge,
        normalization,
        judge_offset,
        score::double as score
    from judgments
    where is_valid and score is not null
),

drawn_judgments as (
    select
        draw_counts.replicate,
        draw_counts.n_drawn,
        valid_judgments.*
    from draw_counts
    inner join valid_judgments
        on draw_counts.question_id = valid_judgments.question_id
),

judge_means as (
    select
        replicate,
        judge,
        sum(n_drawn) as judge_n,
        sum(n_drawn * score) / sum(n_drawn) as judge_mean
    from drawn_judgments
    group by replicate, judge
),

-- two passes (mean, then squared deviations) so that equal scores give exactly 0
judge_moments as (
    select
        judge_means.replicate,
        judge_means.judge,
        judge_means.judge_mean,
        sqrt(
            sum(drawn_judgments.n_drawn * (drawn_judgments.score - judge_means.judge_mean) ^ 2)
            / nullif(judge_means.judge_n - 1, 0)
        ) as judge_stddev
    from judge_means
    inner join drawn_judgments
        on
            judge_means.replicate = drawn_judgments.replicate
            and judge_means.judge = drawn_judgments.judge
    group by judge_means.replicate, judge_means.judge, judge_means.judge_mean, judge_means.judge_n
),

fixed_effects_centres as (
    select
        replicate,
        sum(n_drawn * (score - judge_offset)) / sum(n_drawn) as debiased_mean
    from drawn_judgments
    group by replicate
),

renormalized as (
    select
        drawn_judgments.replicate,
        drawn_judgments.answer_id,
        case drawn_judgments.normalization
            when 'none' then drawn_judgments.score
            when 'shift' then drawn_judgments.score - judge_moments.judge_mean + 5
            when 'scale'
                then
                    case
                        when judge_moments.judge_mean = 0 then 5.0
                        else drawn_judgments.score * 5 / judge_moments.judge_mean
                    end
            when 'zscore'
                then
                    case
                        when coalesce(judge_moments.judge_stddev, 0) = 0 then 5.0
                        else
                            5 + 2.5 * (drawn_judgments.score - judge_moments.judge_mean)
                            / judge_moments.judge_stddev
                    end
            when 'fixed_effects' then
                drawn_judgments.score - drawn_judgments.judge_offset
                - fixed_effects_centres.debiased_mean + 5
        end as normalized_score
    from drawn_judgments
    inner join judge_moments
        on
            drawn_judgments.replicate = judge_moments.replicate
            and drawn_judgments.judge = judge_moments.judge
    inner join fixed_effects_centres
        on drawn_judgments.replicate = fixed_effects_centres.replicate
),

replicate_answer_scores as (
    select
        replicate,
        answer_id,
        avg(normalized_score) as score
    from renormalized
    group by replicate, answer_id
),

replicate_scores as (
    select
        draw_counts.replicate,
        answers.answerer as player,
        sum(draw_counts.n_drawn * replicate_answer_scores.score) / sum(draw_counts.n_drawn)
            as score
    from draw_counts
    inner join answers
        on draw_counts.question_id = answers.question_id
    inner join replicate_answer_scores
        on
            draw_counts.replicate = replicate_answer_scores.replicate
            and answers.answer_id = replicate_answer_scores.answer_id
    inner join player_scores
        on answers.answerer = player_scores.player
    where answers.is_scored and player_scores.has_enough_data
    group by draw_counts.replicate, answers.answerer
),

ranked as (
    select
        *,
        rank() over (partition by replicate order by {{ comparable('score') }} desc) as rank
    from replicate_scores
)

select * from ranked
