{{ config(location=mart_location()) }}

-- Paired comparisons of conditions (int_pd_condition_pairs says which): one row per pair of
-- conditions and metric, with the mean paired difference, the sign-flip p-value and the
-- interval that inverts it, the Benjamini-Hochberg adjusted p-value within the row's family
-- (the primary metrics of the config's analysis.primary, or the exploratory rest) and a
-- verdict: 'higher' or 'lower' (condition_1 than condition_2) when p_value_bh <= 0.05, else
-- 'inconclusive'; is_few_data below pd_few_data_replicates() (10) paired replicates; and what
-- the run could have detected: the minimum detectable difference at 80% power.

with

differences as (
    select * from {{ ref('int_pd_paired_differences') }}
),

pairs as (
    select * from {{ ref('int_pd_condition_pairs') }}
),

run_manifest as (
    select * from {{ ref('stg_pd_run_manifest') }}
),

described as (
    select
        differences.*,
        pairs.shared_side,
        case
            when differences.metric like '%\_a' escape '\' then 'a'
            when differences.metric like '%\_b' escape '\' then 'b'
        end as agent_side,
        pairs.agent_a_name_1,
        pairs.agent_b_name_1,
        pairs.agent_a_name_2,
        pairs.agent_b_name_2,
        case
            when list_contains(run_manifest.primary_metrics, differences.metric) then 'primary'
            else 'exploratory'
        end as family  -- noqa: RF04
    from differences
    inner join pairs
        on
            differences.condition_1 = pairs.condition_1
            and differences.condition_2 = pairs.condition_2
    cross join run_manifest
),

-- Benjamini-Hochberg within each family: rank the family's p-values (ties by pair and
-- metric), p * m / rank, then the running minimum from the largest rank down, capped at 1. m
-- counts the family's rows that have a p-value; a row without one (no test could run) gets no
-- adjusted p, not least()'s 1.0
p_ranked as (
    select
        *,
        row_number() over (
            partition by family order by p_value, condition_1, condition_2, metric
        ) as p_rank,
        count(p_value) over (partition by family) as n_tests
    from described
),

adjusted as (
    select
        * exclude (p_rank, n_tests),
        n_tests as family_size,
        case
            when p_value is not null
                then least(
                    1.0,
                    min(p_value * n_tests / p_rank) over (
                        partition by family
                        order by p_rank desc rows between unbounded preceding and current row
                    )
                )
        end as p_value_bh
    from p_ranked
),

final as (
    select
        run_manifest.run_id,
        adjusted.condition_1,
        adjusted.condition_2,
        adjusted.shared_side,
        adjusted.metric,
        adjusted.agent_side,
        case adjusted.agent_side
            when 'a' then adjusted.agent_a_name_1
            when 'b' then adjusted.agent_b_name_1
        end as agent_name_1,
        case adjusted.agent_side
            when 'a' then adjusted.agent_a_name_2
            when 'b' then adjusted.agent_b_name_2
        end as agent_name_2,
        adjusted.n_pairs,
        adjusted.mean_difference,
        adjusted.ci_low,
        adjusted.ci_high,
        adjusted.ci_note,
        adjusted.p_value,
        adjusted.p_value_is_bound,
        adjusted.family,
        adjusted.family_size,
        adjusted.p_value_bh,
        -- p_value_bh <= 0.05 implies p_value <= 0.05, so the interval (when there is one)
        -- then excludes 0 on the same side
        case
            when adjusted.p_value_bh <= 0.05 and adjusted.mean_difference > 0 then 'higher'
            when adjusted.p_value_bh <= 0.05 and adjusted.mean_difference < 0 then 'lower'
            else 'inconclusive'
        end as verdict,
        adjusted.n_pairs < {{ pd_few_data_replicates() }} as is_few_data,
        adjusted.test_method,
        adjusted.n_flips,
        adjusted.is_exact_test,
        adjusted.sd_difference,
        adjusted.resolution,
        minimum_detectable_difference(
            adjusted.n_pairs, adjusted.sd_difference, adjusted.resolution
        ) as minimum_detectable_difference,
        -- the sign-flip test of 5 or fewer replicates cannot reach p <= 0.05 (2 / 32 at best):
        -- the replicates that would give it an interval
        case
            when adjusted.n_pairs <= {{ pd_fewest_replicates_for_interval() }} - 1
                then {{ pd_fewest_replicates_for_interval() }}
        end as replicates_for_interval,
        run_manifest.bootstrap_n,
        run_manifest.bootstrap_seed
    from adjusted
    cross join run_manifest
)

select * from final
order by condition_1, condition_2, metric
