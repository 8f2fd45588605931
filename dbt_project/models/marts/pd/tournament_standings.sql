{{ config(location=mart_location()) }}

with

match_scores as (
    select * from {{ ref('tournament_match_scores') }}
    -- as in Axelrod's ResultSet, an agent's games against itself do not count
    where not is_self_play
),

run_payoffs as (
    select
        lowest_payoff,
        highest_payoff
    from {{ ref('stg_pd_run_manifest') }}
),

per_replicate as (
    select
        agent,
        replicate,
        -- floating-point sums in a fixed order, so every build gives the same last bit
        avg(score_per_round order by match_id, side) as score_per_round
    from match_scores
    group by agent, replicate
),

replicate_ranks as (
    select
        agent,
        replicate,
        rank() over (partition by replicate order by score_per_round desc) as rank_in_replicate
    from per_replicate
),

median_ranks as (
    select
        agent,
        median(rank_in_replicate) as median_rank
    from replicate_ranks
    group by agent
),

-- the interval's unit is the replicate, not the match: an agent's matches in one replicate
-- differ by opponent on purpose (a fixed effect of the field, not noise), while the
-- replicates replay the whole round robin with independent seeds
replicate_spread as (
    select
        agent,
        count(*) as n_replicates,
        stddev_samp(score_per_round order by replicate) as replicate_score_sd
    from per_replicate
    group by agent
),

half_widths as (
    select
        agent,
        n_replicates,
        case
            when n_replicates >= 2 and round(replicate_score_sd, 12) > 0
                then
                    t_quantile_975(n_replicates - 1)
                    * replicate_score_sd / sqrt(n_replicates)
        end as half_width,
        case
            when n_replicates < 2 then 'fewer than 2 replicates define it'
            when round(replicate_score_sd, 12) = 0 then 'every replicate gave the same value'
        end as ci_note
    from replicate_spread
),

totals as (
    select
        agent,
        count(*) as n_matches,
        avg(score_per_round order by match_id, side) as mean_score_per_round,
        count(*) filter (where is_win) as n_wins,
        sum(cooperation_rate * n_rounds order by match_id, side) / sum(n_rounds)
            as cooperation_rate,
        -- an LLM agent's fallback moves over its rounds, in the matches that recorded them
        -- (NULL for a policy): the summaries mark an agent whose moves are mostly fallbacks
        sum(n_fallback_moves) / sum(n_rounds) filter (where n_fallback_moves is not null)
            as agent_fallback_move_share
    from match_scores
    group by agent
),

-- Student's t over the replicates' means, around the mean over matches (the same number
-- when every replicate played all its matches)
t_intervals as (
    select
        totals.agent,
        interval_bound(totals.mean_score_per_round - half_widths.half_width) as raw_low,
        interval_bound(totals.mean_score_per_round + half_widths.half_width) as raw_high,
        run_payoffs.lowest_payoff,
        run_payoffs.highest_payoff
    from totals
    inner join half_widths
        on totals.agent = half_widths.agent
    cross join run_payoffs
),

-- a score per round lies within the run's payoffs: the interval is clipped to them, and its
-- note says so
clipped as (
    select
        agent,
        greatest(raw_low, lowest_payoff) as ci_low,
        least(raw_high, highest_payoff) as ci_high,
        case
            when raw_low < lowest_payoff or raw_high > highest_payoff
                then
                    'clipped to ['
                    || printf('%g', lowest_payoff)
                    || ', '
                    || printf('%g', highest_payoff)
                    || ']'
        end as clip_note
    from t_intervals
    where raw_low is not null
),

standings as (
    select
        totals.agent,
        totals.n_matches,
        half_widths.n_replicates,
        totals.mean_score_per_round,
        clipped.ci_low as mean_score_per_round_ci_low,
        clipped.ci_high as mean_score_per_round_ci_high,
        coalesce(half_widths.ci_note, clipped.clip_note) as mean_score_per_round_ci_note,
        totals.n_wins,
        median_ranks.median_rank,
        totals.cooperation_rate,
        totals.agent_fallback_move_share,
        rank() over (order by totals.mean_score_per_round desc) as overall_rank
    from totals
    inner join median_ranks
        on totals.agent = median_ranks.agent
    inner join half_widths
        on totals.agent = half_widths.agent
    left join clipped
        on totals.agent = clipped.agent
)

select * from standings
order by overall_rank, agent
