{#- How much easier each tournament scored than the series, read off the anchors: the
    players scored in every tournament. A tournament's offset is the median, over the
    anchors, of the anchor's score there minus its mean over the series (a median, so that
    one anchor that improves or declines does not move every other player). No anchor: 0. -#}
with

scores as (
    select * from {{ ref('int_series_scores') }}
),

tournaments as (
    select distinct tournament_index from scores
),

anchors as (
    select
        player,
        provider,
        model
    from scores
    group by player, provider, model
    having count(*) = (select count(*) from tournaments)
),

deviations as (
    select
        scores.tournament_index,
        scores.score - avg(scores.score) over (
            partition by scores.player, scores.provider, scores.model
        ) as deviation
    from scores
    inner join anchors
        on
            scores.player = anchors.player
            and scores.provider = anchors.provider
            and scores.model = anchors.model
),

offsets as (
    select
        tournaments.tournament_index,
        count(deviations.deviation) as n_anchors,
        coalesce(median(deviations.deviation), 0.0) as offset_score
    from tournaments
    left join deviations
        on tournaments.tournament_index = deviations.tournament_index
    group by tournaments.tournament_index
)

select * from offsets
