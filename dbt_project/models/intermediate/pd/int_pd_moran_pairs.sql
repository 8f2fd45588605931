-- Every ordered pair of distinct agents of the payoff matrix that a Moran process can be
-- played on: one mutant among N - 1 residents needs the four payoffs of the pair, self-play
-- included (a mutant meets other mutants, a resident residents). N and the number of seeded
-- runs come from the manifest.

with

run_manifest as (
    select * from {{ ref('stg_pd_run_manifest') }}
),

payoff_matrix as (
    select * from {{ ref('tournament_payoff_matrix') }}
),

agent_pairs as (
    select
        mutant_vs_resident.agent as mutant,
        mutant_vs_resident.opponent as resident,
        run_manifest.moran_population as population_size,
        run_manifest.moran_repetitions,
        mutant_vs_mutant.mean_score_per_round as mutant_vs_mutant,
        mutant_vs_resident.mean_score_per_round as mutant_vs_resident,
        resident_vs_mutant.mean_score_per_round as resident_vs_mutant,
        resident_vs_resident.mean_score_per_round as resident_vs_resident
    from payoff_matrix as mutant_vs_resident
    inner join payoff_matrix as resident_vs_mutant
        on
            mutant_vs_resident.opponent = resident_vs_mutant.agent
            and mutant_vs_resident.agent = resident_vs_mutant.opponent
    inner join payoff_matrix as mutant_vs_mutant
        on
            mutant_vs_resident.agent = mutant_vs_mutant.agent
            and mutant_vs_resident.agent = mutant_vs_mutant.opponent
    inner join payoff_matrix as resident_vs_resident
        on
            mutant_vs_resident.opponent = resident_vs_resident.agent
            and mutant_vs_resident.opponent = resident_vs_resident.opponent
    cross join run_manifest
    where mutant_vs_resident.agent <> mutant_vs_resident.opponent
)

select * from agent_pairs
