-- The pairs of conditions comparisons.parquet compares. With at most 4 conditions, every
-- pair; otherwise the pairs that share an agent (the same name) on the same side, so that the
-- difference isolates what changed: the other side. condition_1 sorts before condition_2.

with

replicate_metrics as (
    select * from {{ ref('int_pd_replicate_metrics') }}
),

conditions as (
    select distinct
        condition,
        agent_a_name,
        agent_b_name
    from replicate_metrics
),

condition_count as (
    select count(*) as n_conditions from conditions
),

all_pairs as (
    select
        first_conditions.condition as condition_1,
        second_conditions.condition as condition_2,
        first_conditions.agent_a_name as agent_a_name_1,
        first_conditions.agent_b_name as agent_b_name_1,
        second_conditions.agent_a_name as agent_a_name_2,
        second_conditions.agent_b_name as agent_b_name_2
    from conditions as first_conditions
    inner join conditions as second_conditions
        on first_conditions.condition < second_conditions.condition
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
    where condition_count.n_conditions <= 4 or pairs.shared_side is not null
)

select * from chosen_pairs
