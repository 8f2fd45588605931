{{ config(location=mart_location()) }}

-- The joint models of the judgements, one row per effect: of absolute judging
-- (int_arena_joint_effects, in points of 0..10) and of pairwise judging
-- (int_arena_pairwise_joint_effects, in Elo points, its intervals from the sandwich clustered
-- by question); docs/arena_ratings.md, "One model for the biases".

with absolute as (
    select * from {{ ref('int_arena_joint_effects') }}
),

pairwise as (
    select * from {{ ref('int_arena_pairwise_joint_effects') }}
),

final as (
    select * from absolute
    union all by name
    select * from pairwise
)

select
    *,
    coalesce(joint_effect_ci_low > 0 or joint_effect_ci_high < 0, false) as is_clear_of_zero
from final
order by
    judging asc,
    list_position(
        [
            'quality', 'leniency', 'named', 'fixed_order',
            'strength', 'position', 'self', 'name', 'style'
        ],
        effect_kind
    ),
    joint_effect desc nulls last,
    effect_name asc
