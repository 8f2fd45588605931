-- The pairs of conditions comparisons.parquet compares: those of the config's `comparisons`
-- section, first minus second as written; without it, every pair when at most 4 conditions
-- take part, otherwise the pairs that share an agent (the same name) on the same side, so
-- that the difference isolates what changed: the other side (condition_1 sorts before
-- condition_2). The conditions of a fingerprint (a probe on one side) take no part in the
-- automatic choice: their differences are the fingerprint itself.

with

replicate_metrics as (
    select * from {{ ref('int_pd_replicate_metrics') }}
),

configured as (
    select * from {{ ref('stg_pd_configured_comparisons') }}
),

probe_points as (
    select * from {{ ref('stg_pd_probe_points') }}
),

conditions as (
    select distinct
        condition,
        agent_a_name,
        agent_b_name
    from replicate_metrics
),

automatic_conditions as (
    select conditions.*
    from conditions
    left join probe_points
        on conditions.condition = probe_points.condition
    where probe_points.condition is null
),

condition_count as (
    select count(*) as n_conditions from automatic_conditions
),

automatic_pairs as (
    select
        first_conditions.condition as condition_1,
        second_conditions.condition as condition_2
    from automatic_conditions as first_conditions
    inner join automatic_conditions as second_conditions
        on first_conditions.condition < second_conditions.condition
),

candidate_pairs as (
    select
        condition_1,
        condition_2
    from configured
    union all
    select
        automatic_pairs.condition_1,
        automatic_pairs.condition_2
    from automatic_pairs
    -- the automatic choice only when the config names no pair
    where not exists (select 1 from configured)
),

all_pairs as (
    select
        candidate_pairs.condition_1,
        candidate_pairs.condition_2,
        first_conditions.agent_a_name as agent_a_name_1,
        first_conditions.agent_b_name as agent_b_name_1,
        second_conditions.agent_a_name as agent_a_name_2,
        second_conditions.agent_b_name as agent_b_name_2
    from candidate_pairs
    inner join conditions as first_conditions
        on candidate_pairs.condition_1 = first_conditions.condition
    inner join conditions as second_conditions
        on candidate_pairs.condition_2 = second_conditions.condition
),

pairs as (
    select
        all_pairs.*,
        case
            when
                all_pairs.agent_a_name_1 = all_pairs.agent_a_name_2
                and all_pairs.agent_b_name_1 = all_pairs.agent_b_name_2
                then 'both'
            when all_pairs.agent_a_name_1 = all_pairs.agent_a_name_2 then 'a'
            when all_pairs.agent_b_name_1 = all_pairs.agent_b_name_2 then 'b'
        end as shared_side
    from all_pairs
),

chosen_pairs as (
    select pairs.*
    from pairs
    cross join condition_count
    where
        exists (select 1 from configured)
        or condition_count.n_conditions <= 4
        or pairs.shared_side is not null
)

select * from chosen_pairs
