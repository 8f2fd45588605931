{{ config(location=mart_location()) }}

-- Axelrod's Ecosystem without its sampling: each generation, an agent's fitness is its mean
-- score per round against the population (its row of the payoff matrix times the shares) and
-- its next share is proportional to share x fitness. Axelrod draws each payoff from a normal
-- around the mean with the replicates' spread; the mean itself is used here, which is what
-- Axelrod does when the spread is zero (deterministic matches).

with recursive

run_manifest as (
    select * from {{ ref('stg_pd_run_manifest') }}
),

payoff_matrix as (
    select * from {{ ref('tournament_payoff_matrix') }}
),

matrix_size as (
    select
        count(distinct agent) as n_agents,
        count(*) as n_pairs
    from payoff_matrix
),

-- the dynamics need every ordered pair, self-play included: an incomplete matrix gives no rows
complete_matrix as (
    select
        payoff_matrix.agent,
        payoff_matrix.opponent,
        payoff_matrix.mean_score_per_round,
        matrix_size.n_agents,
        run_manifest.ecosystem_generations
    from payoff_matrix
    cross join matrix_size
    cross join run_manifest
    where matrix_size.n_pairs = matrix_size.n_agents * matrix_size.n_agents
),

shares as (
    select
        0 as generation,
        agent,
        1.0 / n_agents as population_share
    from complete_matrix
    where agent = opponent
    union all
    select
        generation,
        agent,
        -- floating-point sums in a fixed order, so every build gives the same last bit
        grown / sum(grown order by agent) over (partition by generation) as population_share
    from (
        select
            opponent_shares.generation + 1 as generation,
            complete_matrix.agent,
            any_value(own_shares.population_share)
            * sum(
                complete_matrix.mean_score_per_round * opponent_shares.population_share
                order by complete_matrix.opponent
            ) as grown
        from shares as opponent_shares
        inner join complete_matrix
            on opponent_shares.agent = complete_matrix.opponent
        inner join shares as own_shares
            on complete_matrix.agent = own_shares.agent
        where opponent_shares.generation < complete_matrix.ecosystem_generations
        group by opponent_shares.generation, complete_matrix.agent
    ) as next_generation
)

select * from shares
order by generation, agent
