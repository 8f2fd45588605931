{{ config(location=mart_location()) }}

-- The exact fixation probability of one mutant in a population of N - 1 residents under
-- Axelrod's MoranProcess (birth-death): every individual plays every other once (no
-- self-interaction) and its fitness is the sum of its mean scores per round; one individual
-- reproduces with probability proportional to fitness and its copy replaces one of all N,
-- chosen uniformly (the parent included). With m mutants, the chance of one more over one
-- fewer is f_m / g_m, so rho = 1 / (1 + sum_{k=1}^{N-1} prod_{m=1}^{k} g_m / f_m)
-- (Nowak 2006, eq. 6.13).

with

moran_pairs as (
    select * from {{ ref('int_pd_moran_pairs') }}
),

moran_simulations as (
    select * from {{ ref('tournament_moran_simulations') }}
),

mutant_counts as (
    select
        *,
        unnest(generate_series(1, population_size - 1)) as n_mutants
    from moran_pairs
),

fitnesses as (
    select
        mutant,
        resident,
        population_size,
        n_mutants,
        (n_mutants - 1) * mutant_vs_mutant
        + (population_size - n_mutants) * mutant_vs_resident as mutant_fitness,
        n_mutants * resident_vs_mutant
        + (population_size - n_mutants - 1) * resident_vs_resident as resident_fitness
    from mutant_counts
),

ratio_products as (
    select
        *,
        product(
            case when mutant_fitness > 0 then resident_fitness / mutant_fitness end
        ) over (
            partition by mutant, resident
            order by n_mutants
            rows between unbounded preceding and current row
        ) as ratio_product
    from fitnesses
),

fixation as (
    select
        mutant,
        resident,
        population_size,
        case
            -- fitness-proportional selection is undefined for a negative fitness, or when
            -- every individual's fitness is zero
            when bool_or(
                mutant_fitness < 0
                or resident_fitness < 0
                or (mutant_fitness = 0 and resident_fitness = 0)
            ) then null
            -- a mutant with zero fitness never reproduces: it cannot take over
            when bool_or(mutant_fitness = 0) then 0.0
            -- floating-point sums in a fixed order, so every build gives the same last bit
            else 1.0 / (1.0 + sum(ratio_product order by n_mutants))
        end as fixation_probability,
        1.0 / population_size as neutral_fixation_probability
    from ratio_products
    group by mutant, resident, population_size
),

with_selection as (
    select
        fixation.*,
        fixation.fixation_probability > fixation.neutral_fixation_probability as is_favoured,
        moran_simulations.n_repetitions as n_simulations,
        moran_simulations.simulated_fixation_rate
    from fixation
    left join moran_simulations
        on
            fixation.mutant = moran_simulations.mutant
            and fixation.resident = moran_simulations.resident
)

select * from with_selection
order by mutant, resident
