{#- The strategies an agent's play is compared with, as P(C | context): the six classic
    policies by their definitions, and the policies played in the run (Axelrod strategies
    among them) by their pooled memory-one profile as played. -#}
with

contexts as (
    select * from {{ ref('int_pd_strategy_contexts') }}
),

run_manifest as (
    select * from {{ ref('stg_pd_run_manifest') }}
),

probe_points as (
    select * from {{ ref('stg_pd_probe_points') }}
),

generosity as (
    -- GTFT's default forgiveness (Nowak and Sigmund): min(1 - (T-R)/(R-S), (R-P)/(T-P)),
    -- and 0 when R <= S or T <= P (not a PD: none defined, none given), as the engine plays
    -- it; a division by 0 there must not leave a NULL term that least() would skip
    select
        case
            when payoff_r <= payoff_s or payoff_t <= payoff_p then 0.0
            else greatest(
                0.0,
                least(
                    1.0,
                    1 - (payoff_t - payoff_r) / (payoff_r - payoff_s),
                    (payoff_r - payoff_p) / (payoff_t - payoff_p)
                )
            )
        end as generous_prob
    from run_manifest
),

previous_rounds as (
    select unnest(['FIRST', 'CC', 'CD', 'DC', 'DD']) as previous_round
),

flags as (
    select unnest([false, true]) as opponent_has_defected
),

all_contexts as (
    select
        previous_rounds.previous_round,
        flags.opponent_has_defected
    from previous_rounds
    cross join flags
),

classic_names as (
    select unnest(['ALLC', 'ALLD', 'TFT', 'GRIM', 'WSLS', 'GTFT']) as reference
),

classic as (
    select
        classic_names.reference,
        'classic' as reference_kind,
        all_contexts.previous_round,
        all_contexts.opponent_has_defected,
        case
            when classic_names.reference = 'ALLC' then 1.0
            when classic_names.reference = 'ALLD' then 0.0
            when all_contexts.previous_round = 'FIRST' then 1.0
            when classic_names.reference = 'TFT'
                then (all_contexts.previous_round[2] = 'C')::double
            when classic_names.reference = 'GRIM'
                then (not all_contexts.opponent_has_defected)::double
            when classic_names.reference = 'WSLS'
                then (all_contexts.previous_round in ('CC', 'DD'))::double
            when all_contexts.previous_round[2] = 'C' then 1.0
            else generosity.generous_prob
        end as p_cooperate
    from classic_names
    cross join all_contexts
    cross join generosity
),

played_profiles as (
    select
        contexts.agent_name as reference,
        contexts.previous_round,
        sum(contexts.n_cooperate) / sum(contexts.n_rounds) as p_cooperate
    from contexts
    left join probe_points
        on
            contexts.condition = probe_points.condition
            and contexts.side = probe_points.probe_side
    left join classic_names
        on contexts.agent_name = classic_names.reference
    where
        contexts.kind = 'policy'
        and probe_points.condition is null
        and classic_names.reference is null
    group by contexts.agent_name, contexts.previous_round
),

played_policies as (
    select distinct reference
    from played_profiles
),

played as (
    select
        played_policies.reference,
        'played' as reference_kind,
        all_contexts.previous_round,
        all_contexts.opponent_has_defected,
        -- a context the policy never met carries no evidence either way
        coalesce(played_profiles.p_cooperate, 0.5) as p_cooperate
    from played_policies
    cross join all_contexts
    left join played_profiles
        on
            played_policies.reference = played_profiles.reference
            and all_contexts.previous_round = played_profiles.previous_round
)

select * from classic
union all
select * from played
