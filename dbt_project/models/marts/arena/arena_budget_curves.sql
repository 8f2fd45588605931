{{ config(location=mart_location()) }}

{#- Score against what it cost: every player's leaderboard score next to the tokens and
    dollars its calls spent answering (the phase its score measures) and over every phase,
    whether no other player scored at least as much for at most as much spent answering
    (the cost-efficiency frontier), and, along a family of budget variants, what each step
    up bought. -#}
with

players as (
    select * from {{ ref('stg_arena_players') }}
),

leaderboard as (
    select * from {{ ref('arena_leaderboard') }}
    where player is not null
),

calls as (
    select * from {{ ref('stg_calls') }}
    where game = 'arena'
),

spend as (
    select
        agent as player,
        count(*) as n_calls,
        sum(coalesce(tokens_in, 0) + coalesce(tokens_out, 0))::bigint as tokens_total,
        -- a cost is known when every call's is
        case when count(cost_usd) = count(*) then sum(cost_usd order by call_id) end
            as cost_usd,
        count(*) filter (where phase = 'answer') as n_answer_calls,
        coalesce(
            sum(coalesce(tokens_in, 0) + coalesce(tokens_out, 0)) filter (
                where phase = 'answer'
            ),
            0
        )::bigint as answer_tokens,
        sum(tokens_out) filter (where phase = 'answer') as answer_tokens_out,
        sum(tokens_reasoning) filter (where phase = 'answer') as answer_tokens_reasoning,
        case
            when
                count(cost_usd) filter (where phase = 'answer')
                = count(*) filter (where phase = 'answer')
                then sum(cost_usd order by call_id) filter (where phase = 'answer')
        end as answer_cost_usd
    from calls
    group by agent
),

scored as (
    select
        players.player,
        players.family_name,
        players.budget,
        players.provider,
        players.model,
        leaderboard.score,
        leaderboard.ci_low,
        leaderboard.ci_high,
        leaderboard.rank,
        coalesce(spend.n_calls, 0) as n_calls,
        coalesce(spend.tokens_total, 0) as tokens_total,
        spend.cost_usd,
        coalesce(spend.n_answer_calls, 0) as n_answer_calls,
        coalesce(spend.answer_tokens, 0) as answer_tokens,
        spend.answer_tokens_out,
        spend.answer_tokens_reasoning,
        spend.answer_cost_usd
    from players
    inner join leaderboard
        on players.player = leaderboard.player
    left join spend
        on players.player = spend.player
    where leaderboard.score is not null
),

frontier as (
    select
        scored.*,
        not exists (
            select 1
            from scored as rival
            where
                rival.answer_tokens <= scored.answer_tokens
                and rival.score >= scored.score
                and (rival.answer_tokens < scored.answer_tokens or rival.score > scored.score)
        ) as is_token_frontier,
        case
            when scored.answer_cost_usd is not null
                then not exists (
                    select 1
                    from scored as rival
                    where
                        rival.answer_cost_usd <= scored.answer_cost_usd
                        and rival.score >= scored.score
                        and (
                            rival.answer_cost_usd < scored.answer_cost_usd
                            or rival.score > scored.score
                        )
                )
        end as is_cost_frontier
    from scored
),

steps as (
    select
        *,
        score - lag(score) over family_by_tokens as score_gain,
        answer_tokens - lag(answer_tokens) over family_by_tokens as tokens_added,
        (score - lag(score) over family_by_tokens)
        / nullif(answer_tokens - lag(answer_tokens) over family_by_tokens, 0)
        * 1000 as score_gain_per_1k_tokens
    from frontier
    window family_by_tokens as (partition by family_name order by answer_tokens, player)
)

select * from steps
order by family_name, answer_tokens, player
