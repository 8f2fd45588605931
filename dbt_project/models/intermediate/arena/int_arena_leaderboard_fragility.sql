{{ config(materialized='table') }}

-- How few valid judgements hold each ranked player above the next one down (see the YAML):
-- per answer, the drop of the upper player's score from removing its k highest normalised
-- scores (the rise of the lower one's from removing its k lowest), then the fewest removals
-- over both players' answers whose summed change passes the gap, by dynamic programming.

with recursive players as (
    select * from {{ ref('int_arena_player_scores') }}
),

answers as (
    select * from {{ ref('int_arena_answer_scores') }}
),

judgments as (
    select * from {{ ref('int_arena_judgments_normalized') }}
),

ordered as (
    select
        player,
        score,
        n_answers,
        row_number() over (order by rank, player) as place
    from players
    where rank is not null
),

pairs as (
    select
        upper_player.place,
        upper_player.player,
        lower_player.player as next_player,
        upper_player.score - lower_player.score as gap
    from ordered as upper_player
    inner join ordered as lower_player
        on upper_player.place + 1 = lower_player.place
),

-- each judgement of a scored answer of either player, sorted so that the first ones removed
-- are the upper player's highest and the lower player's lowest
sorted as (
    select
        pairs.place,
        answers.answer_id,
        ordered.n_answers,
        case when answers.answerer = pairs.player then 1 else -1 end as direction,
        judgments.normalized_score as score,
        count(*) over (partition by pairs.place, answers.answer_id) as n_judgments,
        sum(judgments.normalized_score) over (partition by pairs.place, answers.answer_id)
            as score_sum,
        sum(judgments.normalized_score) over (
            partition by pairs.place, answers.answer_id
            order by
                case when answers.answerer = pairs.player then -1 else 1 end
                * judgments.normalized_score,
                judgments.judge
            rows between unbounded preceding and current row
        ) as removed_sum,
        row_number() over (
            partition by pairs.place, answers.answer_id
            order by
                case when answers.answerer = pairs.player then -1 else 1 end
                * judgments.normalized_score,
                judgments.judge
        ) as n_removed
    from pairs
    inner join answers
        on answers.answerer in (pairs.player, pairs.next_player) and answers.is_scored
    inner join ordered
        on answers.answerer = ordered.player
    inner join judgments
        on answers.answer_id = judgments.answer_id and judgments.normalized_score is not null
),

-- removing the first k of an answer's n judgements (k < n: an answer keeps one) moves its
-- player's score by (mean - mean of the rest) / n_answers, towards the other player's
options as (
    select
        place,
        answer_id,
        n_removed,
        direction * (
            score_sum / n_judgments - (score_sum - removed_sum) / (n_judgments - n_removed)
        ) / n_answers as gain
    from sorted
    where n_removed < n_judgments
    union all
    select distinct
        place,
        answer_id,
        0 as n_removed,
        0.0 as gain
    from sorted
),

indexed as (
    select
        *,
        dense_rank() over (partition by place order by answer_id) as answer_index
    from options
),

best as (
    select
        place,
        0::bigint as answer_index,
        0::bigint as n_removed,
        0.0::double as gain
    from pairs
    union all
    select
        best.place,
        any_value(best.answer_index) + 1 as answer_index,
        best.n_removed + indexed.n_removed as n_removed,
        max(best.gain + indexed.gain) as gain
    from best
    inner join indexed
        on best.place = indexed.place and best.answer_index + 1 = indexed.answer_index
    group by best.place, best.n_removed + indexed.n_removed
),

last_answer as (
    select
        place,
        max(answer_index) as answer_index
    from indexed
    group by place
),

final as (
    select
        pairs.player,
        pairs.next_player,
        min(best.n_removed) filter (where best.gain > pairs.gap + 1e-9) as n_to_flip_next
    from pairs
    left join last_answer
        on pairs.place = last_answer.place
    left join best
        on pairs.place = best.place and last_answer.answer_index = best.answer_index
    group by pairs.player, pairs.next_player
)

select * from final
