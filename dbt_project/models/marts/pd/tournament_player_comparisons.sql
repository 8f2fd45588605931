{{ config(location=mart_location()) }}

-- Paired comparisons of players across their matches: one row per pair of agents of the
-- standings (agent_1 the better placed), the difference of their mean scores per round
-- paired by replicate (each replicate replays the whole round robin, so both agents met the
-- same field under the same seeds) with its Student's t 95% interval over the replicates.

with

match_scores as (
    select * from {{ ref('tournament_match_scores') }}
    -- as in the standings, an agent's games against itself do not count
    where not is_self_play
),

standings as (
    select * from {{ ref('tournament_standings') }}
),

-- each agent's place in the standings' order (ties by name), to find the next place down
placed as (
    select
        *,
        row_number() over (order by overall_rank, agent) as place
    from standings
),

per_replicate as (
    select
        agent,
        replicate,
        avg(score_per_round order by match_id, side) as score_per_round
    from match_scores
    group by agent, replicate
),

agent_pairs as (
    select
        first_agent.agent as agent_1,
        second_agent.agent as agent_2,
        first_agent.overall_rank as rank_1,
        second_agent.overall_rank as rank_2,
        first_agent.mean_score_per_round as mean_score_per_round_1,
        second_agent.mean_score_per_round as mean_score_per_round_2,
        first_agent.place + 1 = second_agent.place as is_adjacent
    from placed as first_agent
    inner join placed as second_agent
        on
            first_agent.overall_rank < second_agent.overall_rank
            or (
                first_agent.overall_rank = second_agent.overall_rank
                and first_agent.agent < second_agent.agent
            )
),

paired as (
    select
        agent_pairs.agent_1,
        agent_pairs.agent_2,
        first_scores.replicate,
        first_scores.score_per_round - second_scores.score_per_round as difference
    from agent_pairs
    inner join per_replicate as first_scores
        on agent_pairs.agent_1 = first_scores.agent
    inner join per_replicate as second_scores
        on
            agent_pairs.agent_2 = second_scores.agent
            and first_scores.replicate = second_scores.replicate
),

spread as (
    select
        agent_1,
        agent_2,
        count(*) as n_replicates,
        avg(difference order by replicate) as mean_difference,
        stddev_samp(difference order by replicate) as difference_sd
    from paired
    group by agent_1, agent_2
),

half_widths as (
    select
        *,
        case
            when n_replicates >= 2 and round(difference_sd, 12) > 0
                then t_quantile_975(n_replicates - 1) * difference_sd / sqrt(n_replicates)
        end as half_width,
        n_replicates >= 2 and round(difference_sd, 12) = 0 as is_constant
    from spread
),

compared as (
    select
        agent_pairs.agent_1,
        agent_pairs.agent_2,
        agent_pairs.rank_1,
        agent_pairs.rank_2,
        agent_pairs.mean_score_per_round_1,
        agent_pairs.mean_score_per_round_2,
        half_widths.n_replicates,
        interval_bound(half_widths.mean_difference) as mean_difference,
        interval_bound(half_widths.mean_difference - half_widths.half_width) as ci_low,
        interval_bound(half_widths.mean_difference + half_widths.half_width) as ci_high,
        case
            when half_widths.n_replicates < 2 then 'fewer than 2 paired replicates'
            when half_widths.is_constant then 'every replicate gave the same difference'
        end as ci_note,
        -- a difference the same in every replicate (deterministic play) has no spread to
        -- doubt: its sign is the verdict; otherwise the interval must exclude 0
        case
            when half_widths.is_constant and round(half_widths.mean_difference, 9) = 0
                then 'tied'
            when
                half_widths.is_constant and half_widths.mean_difference > 0
                or round(half_widths.mean_difference - half_widths.half_width, 9) > 0
                then 'first ahead'
            when
                half_widths.is_constant and half_widths.mean_difference < 0
                or round(half_widths.mean_difference + half_widths.half_width, 9) < 0
                then 'first behind'
            else 'not separated'
        end as verdict,
        agent_pairs.is_adjacent
    from agent_pairs
    inner join half_widths
        on
            agent_pairs.agent_1 = half_widths.agent_1
            and agent_pairs.agent_2 = half_widths.agent_2
)

select * from compared
order by rank_1, agent_1, rank_2, agent_2
