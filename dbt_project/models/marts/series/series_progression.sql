{{ config(location=mart_location()) }}

{#- Every player's score in every tournament of the series, as the tournament scored it and
    adjusted by the tournament's offset (int_series_offsets), with its interval moved alike. -#}
with

scores as (
    select * from {{ ref('int_series_scores') }}
),

offsets as (
    select * from {{ ref('int_series_offsets') }}
),

progression as (
    select
        scores.tournament_index,
        scores.run_id,
        scores.player,
        scores.provider,
        scores.model,
        scores.score,
        scores.ci_low,
        scores.ci_high,
        offsets.offset_score,
        offsets.n_anchors,
        scores.score - offsets.offset_score as adjusted_score,
        scores.ci_low - offsets.offset_score as adjusted_ci_low,
        scores.ci_high - offsets.offset_score as adjusted_ci_high,
        rank() over (
            partition by scores.tournament_index order by round(scores.score, 9) desc
        ) as rank_in_tournament,
        scores.normalization
    from scores
    inner join offsets
        on scores.tournament_index = offsets.tournament_index
)

select * from progression
order by tournament_index, rank_in_tournament, player, provider, model
