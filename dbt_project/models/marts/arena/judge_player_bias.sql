{{ config(location=mart_location()) }}

-- For each judge and each player it judged: how far the judge's normalised scores on the
-- player's answers sit from the other judges' mean on the same answers, relative to the
-- judge's deviation on all the answers it judged, with a two-sided permutation p-value
-- (labels shuffled, int_arena_bias_permutations) and a Benjamini-Hochberg q-value over all
-- pairs. Pairs with q <= the manifest's fdr are flagged.

with consensus as (
    select * from {{ ref('int_arena_judgment_consensus') }}
),

permutations as (
    select * from {{ ref('int_arena_bias_permutations') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

observed as (
    select
        judge,
        answerer as player,
        count(*) as n_answers,
        avg(deviation) as mean_deviation
    from consensus
    where deviation is not null
    group by judge, answerer
),

judge_baselines as (
    select
        judge,
        avg(deviation) as judge_mean_deviation
    from consensus
    where deviation is not null
    group by judge
),

observed_relative as (
    select
        observed.*,
        judge_baselines.judge_mean_deviation,
        observed.mean_deviation - judge_baselines.judge_mean_deviation as relative_deviation
    from observed
    inner join judge_baselines
        on observed.judge = judge_baselines.judge
),

-- 1e-12 absorbs floating-point noise so an equal permuted statistic counts as extreme.
exceedances as (
    select
        observed_relative.judge,
        observed_relative.player,
        count(permutations.permutation) as n_permutations,
        count(permutations.permutation) filter (
            where abs(permutations.mean_deviation - observed_relative.judge_mean_deviation)
            >= abs(observed_relative.relative_deviation) - 1e-12
        ) as n_as_extreme
    from observed_relative
    left join permutations
        on
            observed_relative.judge = permutations.judge
            and observed_relative.player = permutations.player
    group by observed_relative.judge, observed_relative.player
),

tested as (
    select
        observed_relative.judge,
        observed_relative.player,
        observed_relative.n_answers,
        observed_relative.mean_deviation,
        observed_relative.relative_deviation,
        exceedances.n_permutations,
        (1 + exceedances.n_as_extreme) / (1 + exceedances.n_permutations) as p_value
    from observed_relative
    inner join exceedances
        on
            observed_relative.judge = exceedances.judge
            and observed_relative.player = exceedances.player
),

p_ranked as (
    select
        *,
        row_number() over (order by p_value, judge, player) as p_rank,
        count(*) over () as n_tests
    from tested
),

with_q_values as (
    select
        * exclude (p_rank, n_tests),
        least(
            1.0,
            min(p_value * n_tests / p_rank) over (
                order by p_rank desc rows between unbounded preceding and current row
            )
        ) as q_value
    from p_ranked
),

with_reverse as (
    select
        pairs.*,
        reverse_pairs.relative_deviation as reverse_relative_deviation,
        reverse_pairs.q_value as reverse_q_value,
        scoring.anomaly_fdr
    from with_q_values as pairs
    cross join scoring
    left join with_q_values as reverse_pairs
        on
            pairs.judge = reverse_pairs.player
            and pairs.player = reverse_pairs.judge
),

flagged as (
    select
        * exclude (anomaly_fdr),
        case
            when q_value > anomaly_fdr then null
            when
                relative_deviation > 0
                and reverse_q_value <= anomaly_fdr
                and reverse_relative_deviation > 0
                then 'mutual_inflation'
            when relative_deviation > 0 then 'favouritism'
            when relative_deviation < 0 then 'disfavour'
        end as flag_kind
    from with_reverse
),

final as (
    select
        judge,
        player,
        n_answers,
        mean_deviation,
        relative_deviation,
        p_value,
        q_value,
        reverse_relative_deviation,
        reverse_q_value,
        flag_kind,
        n_permutations,
        flag_kind is not null as is_flagged,
        row_number() over (
            order by p_value asc, abs(relative_deviation) desc, judge asc, player asc
        ) as anomaly_rank
    from flagged
    order by anomaly_rank asc
)

select * from final
