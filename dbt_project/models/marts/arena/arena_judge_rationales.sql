{{ config(location=mart_location()) }}

with judgments as (
    select * from {{ ref('stg_arena_judgments') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

-- extreme = at or below rationale_low, or at or above rationale_high (a NULL threshold
-- marks nothing)
flagged as (
    select
        judgments.judge,
        judgments.score,
        judgments.rationale_asked,
        judgments.rationale,
        judgments.rationale_length,
        scoring.rationale_low,
        scoring.rationale_high,
        coalesce(judgments.score <= scoring.rationale_low, false) as is_low,
        coalesce(judgments.score >= scoring.rationale_high, false) as is_high
    from judgments
    cross join scoring
    where judgments.is_valid
),

judge_rationales as (
    select
        judge,
        count(*) as n_judgments,
        count(*) filter (where is_low) as n_low,
        count(*) filter (where is_high) as n_high,
        count(*) filter (where is_low) / count(*) as low_rate,
        count(*) filter (where is_high) / count(*) as high_rate,
        count(*) filter (where is_low or is_high) / count(*) as extreme_rate,
        count(*) filter (where rationale_asked) as n_rationales_asked,
        count(rationale) as n_rationales,
        avg(rationale_length) as mean_rationale_length,
        any_value(rationale_low) as rationale_low,
        any_value(rationale_high) as rationale_high
    from flagged
    group by judge
    order by judge
)

select * from judge_rationales
