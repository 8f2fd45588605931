{#- Macros of the arena models (prefixed arena_ so they never clash with the PD ones). -#}

{#- CTEs that normalise the scores of one phase (question ratings or answer judgements).

    `scores` names a CTE with at least item_id, judge, score and is_valid (every other
    column passes through); `method` names a one-row CTE with a `normalization` column (stg_arena_scoring). Every
    method is computed (score_none .. score_fixed_effects) and `normalized_score` is the
    chosen one, so a reader can compare methods on the same rows. Ends with a CTE named
    `normalized_scores`.

    fixed_effects fits score = item effect + judge offset by alternating means (Gauss-Seidel
    least squares) for `iterations` steps from zero offsets, as a recursive CTE (the model
    opens with `with recursive`); the change of the
    offsets in the last step is kept in fixed_effects_last_change. The offsets and the
    fixed-effects scores are rounded to 1e-9: digits below that are the noise of stopping
    after a fixed number of steps, and rounding makes them reproducible. -#}
{% macro arena_normalized_scores(scores, method, iterations=40) -%}
    valid_scores as (
        select
            item_id,
            judge,
            score::double as score
        from {{ scores }}
        where is_valid and score is not null
    ),

    judge_moments as (
        select
            judge,
            count(*) as judge_n_valid,
            avg(score) as judge_mean,
            stddev_samp(score) as judge_stddev
        from valid_scores
        group by judge
    ),

    -- the alternating means as a recursive CTE: each pass reads the previous step's judge
    -- offsets (the working table), takes every item's mean score net of them, and writes
    -- the next step's offsets from those item effects
    fixed_effects_steps as (
        select
            0 as step,
            judge,
            0.0::double as judge_offset
        from judge_moments
        union all
        select
            any_value(item_effects.step) + 1 as step,
            valid_scores.judge,
            avg(valid_scores.score - item_effects.item_effect) as judge_offset
        from valid_scores
        inner join (
            select
                any_value(offsets.step) as step,
                valid_scores.item_id,
                avg(valid_scores.score - offsets.judge_offset) as item_effect
            from valid_scores
            inner join fixed_effects_steps as offsets
                on valid_scores.judge = offsets.judge
            where offsets.step < {{ iterations }}
            group by valid_scores.item_id
        ) as item_effects
            on valid_scores.item_id = item_effects.item_id
        group by valid_scores.judge
    ),

    fixed_effects_judges as (
        select
            final_step.judge,
            round(
                final_step.judge_offset - avg(final_step.judge_offset) over (), 9
            ) as judge_offset,
            max(abs(final_step.judge_offset - previous_step.judge_offset)) over ()
                as fixed_effects_last_change
        from fixed_effects_steps as final_step
        inner join fixed_effects_steps as previous_step
            on
                final_step.judge = previous_step.judge
                and previous_step.step = {{ iterations - 1 }}
        where final_step.step = {{ iterations }}
    ),

    fixed_effects_centre as (
        select avg(valid_scores.score - offsets.judge_offset) as debiased_mean
        from valid_scores
        inner join fixed_effects_judges as offsets
            on valid_scores.judge = offsets.judge
    ),

    scores_with_judge_terms as (
        select
            all_scores.*,
            chosen.normalization,
            case when all_scores.is_valid then all_scores.score::double end as valid_score,
            moments.judge_n_valid,
            moments.judge_mean,
            moments.judge_stddev,
            offsets.judge_offset,
            offsets.fixed_effects_last_change,
            centre.debiased_mean
        from {{ scores }} as all_scores
        cross join {{ method }} as chosen
        cross join fixed_effects_centre as centre
        left join judge_moments as moments
            on all_scores.judge = moments.judge
        left join fixed_effects_judges as offsets
            on all_scores.judge = offsets.judge
    ),

    scores_by_method as (
        select
            * exclude (debiased_mean),
            valid_score as score_none,
            valid_score - judge_mean + 5 as score_shift,
            case
                when valid_score is null then null
                when judge_mean = 0 then 5.0
                else valid_score * 5 / judge_mean
            end as score_scale,
            case
                when valid_score is null then null
                when coalesce(judge_stddev, 0) = 0 then 5.0
                else 5 + 2.5 * (valid_score - judge_mean) / judge_stddev
            end as score_zscore,
            round(valid_score - judge_offset - debiased_mean + 5, 9) as score_fixed_effects
        from scores_with_judge_terms
    ),

    normalized_scores as (
        select
            * exclude (valid_score),
            case normalization
                when 'none' then score_none
                when 'shift' then score_shift
                when 'scale' then score_scale
                when 'zscore' then score_zscore
                when 'fixed_effects' then score_fixed_effects
            end as normalized_score
        from scores_by_method
    )
{%- endmacro %}

{#- The verdicts printed beside an interval (docs/arena_scoring.md, "Labels"): a claim only
    when the 95% interval supports it, 'inconclusive' otherwise.

    arena_label_margin: the points (0..10 scale) within which a difference counts as none:
    "robust" needs the interval's low end at or above -margin, "calibrated" the whole
    interval within -margin..+margin. arena_few_data_n: below this many observations (per
    side, per player or per answer, as each mart says) a verdict carries is_few_data;
    arena_few_data_agreement_n: the same for the audience-models agreement, over answers.
    Each can be set with dbt --vars. -#}
{% macro arena_label_margin() -%}
    {{ return(var('arena_label_margin', 1.0)) }}
{%- endmacro %}

{% macro arena_few_data_n() -%}
    {{ return(var('arena_few_data_n', 5)) }}
{%- endmacro %}

{#- arena_few_questions_n: under this many questions (kept, for the leaderboard; holding
    scored verdicts, for Bradley-Terry) the intervals of leaderboard and bradley_terry are
    flagged is_few_questions: their coverage was measured from 10 questions up
    (docs/arena_ratings.md, "Few questions"), and below it each arm's stretch grows fast
    (1.58 at 5 questions, 2.69 at 3). The one place this threshold is written. -#}
{% macro arena_few_questions_n() -%}
    {{ return(var('arena_few_questions_n', 10)) }}
{%- endmacro %}

{% macro arena_few_data_agreement_n() -%}
    {{ return(var('arena_few_data_agreement_n', 10)) }}
{%- endmacro %}

{#- How far a bootstrap interval over `n` resampled units (questions) stretches each arm:
    sqrt(n / (n - 1)) * t(0.975, n - 1) / z(0.975). The bootstrap of a mean spreads
    sqrt((n - 1) / n) times too little, and the normal quantile ignores that the spread is
    estimated (Hesterberg's expansion). Rounded to 1e-9, so that it reads the same
    everywhere; NULL under 2 units (no spread to estimate). -#}
{% macro arena_interval_arm_factor(n) -%}
    case
        when ({{ n }}) >= 2
            then round(
                sqrt(({{ n }}) / (({{ n }}) - 1)) * t_quantile_975(({{ n }}) - 1) / 1.959964,
                9
            )
    end
{%- endmacro %}

{#- One end (`side`: 'low' or 'high') of the 95% Agresti-Caffo interval of a difference of
    two shares, successes_1 / trials_1 - successes_2 / trials_2: each share is taken with one
    success and one failure added, which keeps the interval honest for a handful of trials
    (a share of 1 out of 1 has no zero-width interval); clipped to [-1, 1], the range of a
    difference of two shares, and rounded as every interval bound (interval_bound). NULL
    when either side has no trial. -#}
{% macro arena_share_difference_ci(successes_1, trials_1, successes_2, trials_2, side) -%}
    {%- set z = 1.959963984540054 -%}
    {%- set sign = '-' if side == 'low' else '+' -%}
    {%- set p1 = '((' ~ successes_1 ~ ') + 1.0) / ((' ~ trials_1 ~ ') + 2)' -%}
    {%- set p2 = '((' ~ successes_2 ~ ') + 1.0) / ((' ~ trials_2 ~ ') + 2)' -%}
    case
        when coalesce({{ trials_1 }}, 0) > 0 and coalesce({{ trials_2 }}, 0) > 0 then
            {{ 'greatest(-1.0' if side == 'low' else 'least(1.0' }}, interval_bound(
                {{ p1 }} - {{ p2 }}
                {{ sign }} {{ z }} * sqrt(
                    {{ p1 }} * (1 - {{ p1 }}) / (({{ trials_1 }}) + 2)
                    + {{ p2 }} * (1 - {{ p2 }}) / (({{ trials_2 }}) + 2)
                )
            ))
    end
{%- endmacro %}

{#- A CTE `name` with one row per item (`item_column`) of the normalised scores `scores`
    (int_arena_ratings_normalized or int_arena_judgments_normalized): how many were valid
    and invalid, the mean raw and normalised score and the normalised scores' sample standard
    deviation, under the column names `columns` gives (n_valid, n_invalid, raw_mean, mean,
    stddev), the words each phase speaks in. -#}
{% macro arena_scores_per_item(name, scores, item_column, columns) -%}
    {{ name }} as (
        select
            {{ item_column }},
            count(*) filter (where is_valid) as {{ columns['n_valid'] }},
            count(*) filter (where not is_valid) as {{ columns['n_invalid'] }},
            avg(score) as {{ columns['raw_mean'] }},
            avg(normalized_score) as {{ columns['mean'] }},
            stddev_samp(normalized_score) as {{ columns['stddev'] }}
        from {{ scores }}
        group by {{ item_column }}
    )
{%- endmacro %}

{#- The columns of a table of pairwise verdicts split in two arms by `condition` (true: the
    arm `arm`, false: `other`), within a group by: n_<arm> and <arm>_wins (the sum of the
    verdicts' scores, a tie counting half), the same for `other`. -#}
{% macro arena_arm_wins(condition, arm, other) -%}
    count(*) filter (where {{ condition }}) as n_{{ arm }},
    sum(score) filter (where {{ condition }}) as {{ arm }}_wins,
    count(*) filter (where not {{ condition }}) as n_{{ other }},
    sum(score) filter (where not {{ condition }}) as {{ other }}_wins
{%- endmacro %}

{#- From the columns of arena_arm_wins (an arm with at least one verdict): each arm's count and
    win rate, the difference of the two rates as `difference` with its 95% Agresti-Caffo
    interval (<difference>_ci_low, <difference>_ci_high). -#}
{% macro arena_arm_win_rates(arm, other, difference) -%}
    {%- set arm_rate = arm ~ '_wins / n_' ~ arm -%}
    {%- set other_rate = other ~ '_wins / nullif(n_' ~ other ~ ', 0)' -%}
    n_{{ arm }},
    {{ arm_rate }} as {{ arm }}_win_rate,
    n_{{ other }},
    {{ other_rate }} as {{ other }}_win_rate,
    {{ arm_rate }} - {{ other_rate }} as {{ difference }},
    {% for side in ['low', 'high'] -%}
        {{ arena_share_difference_ci(arm ~ '_wins', 'n_' ~ arm, other ~ '_wins', 'n_' ~ other, side) }}
            as {{ difference }}_ci_{{ side }}{{ ',' if not loop.last }}
    {% endfor -%}
{%- endmacro %}

{#- The judge x player cells of the bias test, from the centred deviations `deviations` (one
    row per judgement, with judge, player and centred_deviation) labelled by the permutation
    `permutation` (a column, or 0 for the observed labels): each cell's n_answers, pair_mean
    and pair_variance (sample variance, 0 for a single answer). -#}
{% macro arena_bias_cells(deviations, permutation) -%}
    select
        judge,
        player,
        {{ permutation }} as permutation,
        count(*) as n_answers,
        avg(centred_deviation) as pair_mean,
        coalesce(var_samp(centred_deviation), 0) as pair_variance
    from {{ deviations }}
    group by judge, player{{ ', permutation' if permutation != 0 }}
{%- endmacro %}

{#- The columns of a bootstrap's 95% percentiles, within a group by player over its replicates:
    `value`_q025 and `value`_q975 (linear interpolation between order statistics), the rank's
    rank_ci_low and rank_ci_high (the nearest order statistic: a rank is an integer), and
    n_replicates. -#}
{% macro arena_bootstrap_percentiles(value) -%}
    quantile_cont({{ value }}, 0.025) as {{ value }}_q025,
    quantile_cont({{ value }}, 0.975) as {{ value }}_q975,
    quantile_disc(rank, 0.025) as rank_ci_low,
    quantile_disc(rank, 0.975) as rank_ci_high,
    count(*) as n_replicates
{%- endmacro %}

{#- The columns every staged arena reply ends on (after its keys and attempt counts): the
    prompt's hash, the reply as written, the run and schema version, then whether it counts,
    a reply being valid only when `value` was read from it, and `value`, kept only then. -#}
{% macro arena_reply_columns(value) -%}
    prompt_sha256,
    raw_reply,
    run_id,
    schema_version,
    coalesce(is_valid and {{ value }} is not null, false) as is_valid,
    case when is_valid then {{ value }} end as {{ value }}
{%- endmacro %}
