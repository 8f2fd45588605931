{#- The bootstrap over matches behind the SFEM intervals: replicates 1 .. pd_sfem_draws
    (default 50) each draw as many of the agent's match sides as it has, with replacement,
    and weigh each by how often it was drawn. Draw i of agent a in replicate b picks the side
    at position 1 + h mod n (sides in match_id, side order), h chaining the lowbias32 hash
    (macros/hashing.sql) over the run's bootstrap seed (stream 4), b, a's position among
    the agents and i: the same draws on every build. The drawn sides' weights are summed by
    their count vector (int_pd_sfem_choices.vector_id): one row per replicate, agent and
    vector drawn, the weight the fit of that replicate gives the vector. -#}
{{ config(materialized='table') }}
{%- set sfem_draws = var('pd_sfem_draws', 50) %}

with

choices as (
    select * from {{ ref('int_pd_sfem_choices') }}
),

run_manifest as (
    select * from {{ ref('stg_pd_run_manifest') }}
),

match_sides as (
    select
        agent_name,
        match_id,
        side,
        vector_id,
        row_number() over (partition by agent_name order by match_id, side) as side_position,
        count(*) over (partition by agent_name) as n_sides,
        dense_rank() over (order by agent_name) as agent_position
    from (
        select distinct
            agent_name,
            match_id,
            side,
            vector_id
        from choices
    ) as distinct_sides
),

{{ seed_key_ctes('run_manifest', 4) }},

replicate_keys as (
    select
        replicate,
        mix32(xor(seed_key, replicate::ubigint)) as replicate_key
    from (
        select
            seed_key,
            unnest(generate_series(1, {{ sfem_draws }})) as replicate
        from seed_key
    ) as replicates
),

agent_keys as (
    select
        replicate,
        agent_position,
        n_sides,
        mix32(agent_mix) as agent_key
    from (
        select
            replicate_keys.replicate,
            agents.agent_position,
            agents.n_sides,
            xor(replicate_keys.replicate_key, agents.agent_position::ubigint) as agent_mix
        from replicate_keys
        cross join (
            select distinct
                agent_position,
                n_sides
            from match_sides
        ) as agents
    ) as mixed
),

drawn_positions as (
    select
        replicate,
        agent_position,
        1 + (mix32(slot_mix) % n_sides)::bigint as side_position,
        count(*) as weight
    from (
        select
            agent_keys.replicate,
            agent_keys.agent_position,
            agent_keys.n_sides,
            xor(agent_keys.agent_key, match_sides.side_position::ubigint) as slot_mix
        from agent_keys
        inner join match_sides
            on agent_keys.agent_position = match_sides.agent_position
    ) as slots
    group by all
),

weights as (
    select
        drawn_positions.replicate,
        match_sides.agent_name,
        match_sides.vector_id,
        sum(drawn_positions.weight)::bigint as weight
    from drawn_positions
    inner join match_sides
        on
            drawn_positions.agent_position = match_sides.agent_position
            and drawn_positions.side_position = match_sides.side_position
    group by drawn_positions.replicate, match_sides.agent_name, match_sides.vector_id
)

select * from weights
