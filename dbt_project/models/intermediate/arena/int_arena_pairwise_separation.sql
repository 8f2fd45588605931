-- Which players' Bradley-Terry strength has a finite estimate. Read "i beat j" as i scoring
-- more than nothing against j in a scored verdict (a win, or a tie: half a win to each side,
-- so a tie links the two both ways). The maximum-likelihood strengths exist exactly when
-- every player can reach every other along such links (Ford 1957; Hunter 2004): otherwise
-- some group of players won every verdict against the rest, or lost every one, and its
-- strength relative to the rest runs off to infinity while the MM steps only slow down (a
-- fit stopped after its last step is then where it stopped, not an estimate).
-- The players linked both ways to one another form a component; the Elo scale is anchored
-- in the baseline's component, or in the largest one without a baseline (none when two
-- are the largest), and every player outside it is separated. A player who won (lost)
-- every one of its verdicts is a component of its own, the common case.

with recursive

-- each scored verdict from both of its sides
sides as (
    select * from {{ ref('int_arena_pairwise_sides') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

scored_sides as (
    select
        player,
        opponent,
        score
    from sides
    where is_scored
),

records as (
    select
        player,
        count(*) as n_verdicts,
        count(*) filter (where score = 1) as n_wins,
        count(*) filter (where score = 0) as n_losses
    from scored_sides
    group by player
),

beats as (
    select distinct
        player,
        opponent
    from scored_sides
    where score > 0
),

-- union (not union all): a pair already reached is not walked again, so the walk stops
reaches as (
    select
        player,
        opponent as reached
    from beats
    union
    select
        reaches.player,
        beats.opponent as reached
    from reaches
    inner join beats
        on reaches.reached = beats.player
),

components as (
    select
        records.player,
        least(records.player, coalesce(min(reaching_back.player), records.player)) as component
    from records
    left join reaches as reached_from
        on records.player = reached_from.player
    left join reaches as reaching_back
        on
            reached_from.reached = reaching_back.player
            and records.player = reaching_back.reached
    group by records.player
),

component_sizes as (
    select
        component,
        count(*) as n_component_players
    from components
    group by component
),

baseline_component as (
    select components.component
    from components
    inner join scoring
        on components.player = scoring.pairwise_baseline
),

largest_size as (
    select max(n_component_players) as n_component_players
    from component_sizes
),

largest_component as (
    select any_value(component_sizes.component) as component
    from component_sizes
    inner join largest_size
        on component_sizes.n_component_players = largest_size.n_component_players
    having count(*) = 1
),

anchor_component as (
    select component from baseline_component
    union all
    select component from largest_component
    where not exists (select 1 from baseline_component)
),

separation as (
    select
        components.player,
        records.n_verdicts,
        records.n_wins,
        records.n_losses,
        components.component,
        component_sizes.n_component_players,
        anchor_component.component is null as is_separated,
        case
            when anchor_component.component is not null then null
            when records.n_wins = records.n_verdicts
                then 'won every verdict: strength has no finite estimate'
            when records.n_losses = records.n_verdicts
                then 'lost every verdict: strength has no finite estimate'
            else
                'is in a group that won or lost every verdict against part of the field: '
                || 'strength has no finite estimate'
        end as separation_note
    from components
    inner join records
        on components.player = records.player
    inner join component_sizes
        on components.component = component_sizes.component
    left join anchor_component
        on components.component = anchor_component.component
)

select * from separation
