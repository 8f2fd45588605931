{{ config(location=mart_location()) }}

-- Axelrod's MoranProcess (birth-death, no mutation) run `moran_repetitions` times per pair
-- from one mutant among N - 1 residents, on the payoff matrix, with seeded draws: the
-- simulated counterpart of tournament_fixation's exact probabilities. Each step, with m
-- mutants, a mutant reproduces if u_birth x (m f_m + (N - m) g_m) < m f_m and a mutant dies
-- if d mod N < m (death uniform over all N, the parent included), where u_birth =
-- h(key, 1) / 2^32, d = h(key, 2), and key chains the lowbias32 hash (macros/hashing.sql)
-- over the manifest's bootstrap_seed (stream 3), the pair, the repetition and the step.

with recursive

run_manifest as (
    select * from {{ ref('stg_pd_run_manifest') }}
),

moran_pairs as (
    select * from {{ ref('int_pd_moran_pairs') }}
),

-- stream 3: the Moran runs (the bootstrap draws use stream 1, the sign flips stream 2)
{{ seed_key_ctes('run_manifest', 3) }},

agent_indexes as (
    select
        agent,
        row_number() over (order by agent) as agent_index
    from (select distinct mutant as agent from moran_pairs) as agents
),

-- fitness-proportional selection needs non-negative payoffs, and not both cross payoffs 0
-- (every fitness would be 0)
agent_pairs as (
    select
        moran_pairs.*,
        mutant_indexes.agent_index as mutant_index,
        resident_indexes.agent_index as resident_index,
        (mutant_indexes.agent_index * 65536 + resident_indexes.agent_index)::ubigint
            as pair_number
    from moran_pairs
    inner join agent_indexes as mutant_indexes
        on moran_pairs.mutant = mutant_indexes.agent
    inner join agent_indexes as resident_indexes
        on moran_pairs.resident = resident_indexes.agent
    where
        least(
            moran_pairs.mutant_vs_mutant,
            moran_pairs.mutant_vs_resident,
            moran_pairs.resident_vs_mutant,
            moran_pairs.resident_vs_resident
        ) >= 0
        and (moran_pairs.mutant_vs_resident > 0 or moran_pairs.resident_vs_mutant > 0)
),

pair_keys as (
    select
        agent_pairs.*,
        mix32(xor(seed_key.seed_key, agent_pairs.pair_number)) as pair_key
    from agent_pairs
    cross join seed_key
),

repetitions as (
    select
        *,
        unnest(generate_series(1, moran_repetitions)) as repetition
    from pair_keys
),

run_keys as (
    select
        *,
        mix32(xor(pair_key, repetition::ubigint)) as run_key
    from repetitions
),

moran_steps as (
    select
        mutant,
        resident,
        repetition,
        run_key,
        population_size,
        mutant_vs_mutant,
        mutant_vs_resident,
        resident_vs_mutant,
        resident_vs_resident,
        0 as step,
        1 as n_mutants
    from run_keys
    union all
    -- the step's own columns, one step on
    select
        * exclude (
            step_key, birth_draw, death_draw, mutant_fitness, resident_fitness, mutant_weight,
            total_weight
        )
        replace (
            step + 1 as step,
            n_mutants
            + (birth_draw::double / 4294967296 * total_weight < mutant_weight)::integer
            - (death_draw % population_size < n_mutants)::integer as n_mutants
        )
    from (
        select
            *,
            n_mutants * mutant_fitness as mutant_weight,
            n_mutants * mutant_fitness
            + (population_size - n_mutants) * resident_fitness as total_weight
        from (
            select
                *,
                mix32(xor(step_key, 1)) as birth_draw,
                mix32(xor(step_key, 2)) as death_draw,
                (n_mutants - 1) * mutant_vs_mutant
                + (population_size - n_mutants) * mutant_vs_resident as mutant_fitness,
                n_mutants * resident_vs_mutant
                + (population_size - n_mutants - 1) * resident_vs_resident as resident_fitness
            from (
                select
                    *,
                    mix32(xor(run_key, (step + 1)::ubigint)) as step_key
                from moran_steps
                where n_mutants between 1 and population_size - 1
            ) as keyed_steps
        ) as drawn_steps
    ) as weighed_steps
),

absorbed as (
    select
        mutant,
        resident,
        population_size,
        n_mutants = population_size as is_fixated,
        step as n_steps
    from moran_steps
    where n_mutants in (0, population_size)
),

simulations as (
    select
        mutant,
        resident,
        population_size,
        count(*) as n_repetitions,
        count(*) filter (where is_fixated) as n_fixations,
        avg(is_fixated::double) as simulated_fixation_rate,
        avg(n_steps::double) as mean_steps
    from absorbed
    group by mutant, resident, population_size
)

select * from simulations
order by mutant, resident
