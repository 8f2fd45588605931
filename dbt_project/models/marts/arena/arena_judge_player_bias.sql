{{ config(location=mart_location()) }}

-- For each judge and each player it judged: how far the judge's normalised scores on the
-- player's answers sit from the other judges' on the same answers, once the judge's level
-- (the consensus level of the answer, int_arena_bias_deviations), the judge's overall
-- deviation and the player's common deviation are taken out (int_arena_bias_residuals),
-- with a two-sided permutation p-value of that residual over its standard error (authors
-- shuffled within questions, int_arena_bias_permutations) for a bias larger than the
-- manifest's min_effect: the observed |residual| less min_effect, over its standard error,
-- against the permuted |studentized residual|, and a Benjamini-Hochberg q-value
-- over all pairs. Pairs with q <= the manifest's fdr are flagged.

with consensus as (
    select * from {{ ref('int_arena_judgment_consensus') }}
),

residuals as (
    select * from {{ ref('int_arena_bias_residuals') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

observed_deviations as (
    select
        judge,
        answerer as player,
        count(*) as n_answers,
        avg(deviation) as mean_deviation
    from consensus
    where deviation is not null
    group by judge, answerer
),

observed_relative as (
    select
        observed_deviations.*,
        residuals.pair_mean as centred_deviation,
        residuals.judge_effect,
        residuals.player_effect,
        residuals.residual as relative_deviation,
        residuals.standard_error,
        residuals.studentized_residual,
        case
            when residuals.standard_error > 0
                then
                    greatest(abs(residuals.residual) - scoring.anomaly_min_effect, 0)
                    / residuals.standard_error
            else 0
        end as margin_statistic
    from observed_deviations
    cross join scoring
    inner join residuals
        on
            observed_deviations.judge = residuals.judge
            and observed_deviations.player = residuals.player
            and residuals.permutation = 0
),

-- 1e-12 absorbs floating-point noise so an equal permuted statistic counts as extreme.
exceedances as (
    select
        observed_relative.judge,
        observed_relative.player,
        count(permuted.permutation) as n_permutations,
        count(permuted.permutation) filter (
            where abs(permuted.studentized_residual)
            >= observed_relative.margin_statistic - 1e-12
        ) as n_as_extreme
    from observed_relative
    left join residuals as permuted
        on
            observed_relative.judge = permuted.judge
            and observed_relative.player = permuted.player
            and permuted.permutation > 0
    group by observed_relative.judge, observed_relative.player
),

tested as (
    select
        observed_relative.judge,
        observed_relative.player,
        observed_relative.n_answers,
        observed_relative.mean_deviation,
        observed_relative.centred_deviation,
        observed_relative.judge_effect,
        observed_relative.player_effect,
        observed_relative.relative_deviation,
        observed_relative.standard_error,
        observed_relative.studentized_residual,
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
        centred_deviation,
        judge_effect,
        player_effect,
        relative_deviation,
        standard_error,
        studentized_residual,
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
