{#- Macros of the arena models (prefixed arena_ so they never clash with the PD ones). -#}

{#- CTEs that normalise the scores of one phase (question ratings or answer judgements).

    `scores` names a CTE with at least item_id, judge, score and is_valid (every other
    column passes through); `method` names a one-row CTE with a `chosen_method` column. Every
    method is computed (score_none .. score_fixed_effects) and `normalized_score` is the
    chosen one, so a reader can compare methods on the same rows. Ends with a CTE named
    `normalized_scores`.

    fixed_effects fits score = item effect + judge offset by alternating means (Gauss-Seidel
    least squares) for `iterations` unrolled steps from zero offsets; the change of the
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

    fixed_effects_judge_0 as (
        select
            judge,
            0.0::double as judge_offset
        from judge_moments
    ),
    {% for step in range(1, iterations + 1) %}
    fixed_effects_item_{{ step }} as (
        select
            valid_scores.item_id,
            avg(valid_scores.score - offsets.judge_offset) as item_effect
        from valid_scores
        inner join fixed_effects_judge_{{ step - 1 }} as offsets
            on valid_scores.judge = offsets.judge
        group by valid_scores.item_id
    ),

    fixed_effects_judge_{{ step }} as (
        select
            valid_scores.judge,
            avg(valid_scores.score - effects.item_effect) as judge_offset
        from valid_scores
        inner join fixed_effects_item_{{ step }} as effects
            on valid_scores.item_id = effects.item_id
        group by valid_scores.judge
    ),
    {% endfor %}
    fixed_effects_judges as (
        select
            final_step.judge,
            round(
                final_step.judge_offset - avg(final_step.judge_offset) over (), 9
            ) as judge_offset,
            max(abs(final_step.judge_offset - previous_step.judge_offset)) over ()
                as fixed_effects_last_change
        from fixed_effects_judge_{{ iterations }} as final_step
        inner join fixed_effects_judge_{{ iterations - 1 }} as previous_step
            on final_step.judge = previous_step.judge
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
            chosen.chosen_method as normalization,
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

{% macro arena_few_data_agreement_n() -%}
    {{ return(var('arena_few_data_agreement_n', 10)) }}
{%- endmacro %}
