-- Krippendorff's alpha, interval metric, over all judges of all answers, on the raw scores
-- and on the normalised ones. alpha = 1 - D_o / D_e with, over the answers judged at
-- least twice (pairable values, n in all):
--   D_o = (1/n) sum_u (1/(m_u - 1)) sum_{i != j in u} (v_i - v_j)^2
--   D_e = (1/(n (n - 1))) sum_{i != j} (v_i - v_j)^2
-- and, for a set of m values, sum_{i != j} (v_i - v_j)^2 = 2 m sum v^2 - 2 (sum v)^2.
-- With one pairable answer D_o = D_e whatever the values (alpha is 0 by construction, not a
-- measure of agreement), so alpha needs at least two; krippendorff_alpha_note says why an
-- alpha is NULL.

with judgments as (
    select * from {{ ref('int_arena_judgments_normalized') }}
),

values_by_scale as (
    select
        'raw' as value_scale,
        answer_id,
        score::double as judged_value
    from judgments
    where is_valid
    union all
    select
        'normalized' as value_scale,
        answer_id,
        normalized_score as judged_value
    from judgments
    where is_valid
),

pairable_units as (
    select
        value_scale,
        answer_id,
        count(*) as n_values,
        sum(judged_value) as sum_values,
        sum(judged_value * judged_value) as sum_squares
    from values_by_scale
    group by value_scale, answer_id
    having count(*) >= 2
),

disagreement as (
    select
        value_scale,
        count(*) as n_units,
        sum(n_values) as n_pairable_values,
        sum((2 * n_values * sum_squares - 2 * sum_values * sum_values) / (n_values - 1))
        / sum(n_values) as observed_disagreement,
        (2 * sum(n_values) * sum(sum_squares) - 2 * sum(sum_values) * sum(sum_values))
        / (sum(n_values) * (sum(n_values) - 1)) as expected_disagreement
    from pairable_units
    group by value_scale
),

alphas as (
    select
        value_scale,
        n_units,
        n_pairable_values,
        case
            when n_units >= 2 and expected_disagreement > 0
                then 1 - observed_disagreement / expected_disagreement
        end as krippendorff_alpha
    from disagreement
),

final as (
    select
        max(n_units) as n_units_pairable,
        max(n_pairable_values) as n_values_pairable,
        max(krippendorff_alpha) filter (where value_scale = 'raw') as krippendorff_alpha_raw,
        max(krippendorff_alpha) filter (where value_scale = 'normalized')
            as krippendorff_alpha_normalized,
        -- no alphas row at all when no answer was judged twice
        case
            when coalesce(max(n_units), 0) < 2
                then 'fewer than 2 answers judged validly at least twice'
            when max(krippendorff_alpha) filter (where value_scale = 'raw') is null
                then 'every raw judgement equal: no spread to agree on'
            when max(krippendorff_alpha) filter (where value_scale = 'normalized') is null
                then 'every normalised judgement equal: no spread to agree on'
        end as krippendorff_alpha_note
    from alphas
)

select * from final
