-- The parameters of the two logistic fits of the pairwise verdicts, one row per fit and
-- parameter, numbered 1..n within the fit in the order below (parameter_index):
--   fit style_controlled (the style-controlled Bradley-Terry fit, on the scored verdicts):
--     every player's strength but the reference's (the first by name, held at 0), then
--     every style feature that can be fitted;
--   fit joint (the joint model of pairwise judging, on every verdict, the self and name
--     arms' too; docs/arena_ratings.md, "One model for the biases"): the same, then per judge
--     a position term (kind position: log-odds it adds to the answer shown first) and, for a
--     judge that saw its own answer, a self term (kind self: log-odds it adds to its own),
--     then per player shown with its name a name term (kind name: log-odds its name adds to
--     its answer; the first such player by name held at 0, as only differences of name
--     terms enter a verdict).
-- Each fit reads the verdicts int_arena_pairwise_fit_verdicts gives it (a separated
-- player's are left out of both). A feature is fitted when every verdict of the
-- fit has its value and the value differs between the two answers of at least one of them;
-- else it has no index and style_note says why. Without a feature fitted, the
-- style-controlled fit has no parameter (it would be the plain fit again).

with fit_verdicts as (
    select * from {{ ref('int_arena_pairwise_fit_verdicts') }}
),

features as (
    select * from {{ ref('int_arena_pairwise_style_features') }}
),

-- each fit's verdicts (int_arena_pairwise_fit_verdicts) with their style differences
fit_rows as (
    select
        fit_verdicts.fit,
        features.verdict_id,
        features.feature_order,
        features.feature,
        features.feature_difference
    from fit_verdicts
    inner join features
        on fit_verdicts.verdict_id = features.verdict_id
),

players as (
    select
        fit,
        first_player as player
    from fit_verdicts
    union
    select
        fit,
        second_player as player
    from fit_verdicts
),

feature_parameters as (
    select
        fit,
        'feature' as parameter_kind,
        feature as parameter,
        any_value(feature_order) as feature_order,
        false as is_reference,
        count(*) filter (where feature_difference is null) = 0
        and coalesce(max(abs(feature_difference)), 0) > 0 as is_fitted,
        case
            when count(*) filter (where feature_difference is null) > 0
                then
                    'not fitted: the answer text of '
                    || count(*) filter (where feature_difference is null)
                    || ' verdicts is unknown'
            when coalesce(max(abs(feature_difference)), 0) = 0
                then 'not fitted: no variation, every pair of answers had the same value'
        end as style_note
    from fit_rows
    group by fit, feature
),

-- with no feature to fit, the style-controlled fit would be the plain one again: it is not
-- made (bradley_terry's style-controlled Elo is then NULL, pairwise_style says why)
player_parameters as (
    select
        fit,
        'player' as parameter_kind,
        player as parameter,
        0 as feature_order,
        row_number() over (partition by fit order by player) = 1 as is_reference,
        true as is_fitted,
        null::varchar as style_note
    from players
    where
        fit = 'joint'
        or exists (
            select 1 from feature_parameters
            where feature_parameters.fit = 'style_controlled' and feature_parameters.is_fitted
        )
),

joint_verdicts as (
    select * from fit_verdicts
    where fit = 'joint'
),

judge_parameters as (
    select distinct
        'joint' as fit,
        'position' as parameter_kind,
        judge as parameter
    from joint_verdicts
    union
    select distinct
        'joint' as fit,
        'self' as parameter_kind,
        judge as parameter
    from joint_verdicts
    where self_side != 0
),

named_players as (
    select first_player as player from joint_verdicts
    where is_named
    union
    select second_player as player from joint_verdicts
    where is_named
),

bias_parameters as (
    select
        fit,
        parameter_kind,
        parameter,
        0 as feature_order,
        false as is_reference,
        true as is_fitted,
        null::varchar as style_note
    from judge_parameters
    union all
    select
        'joint' as fit,
        'name' as parameter_kind,
        player as parameter,
        0 as feature_order,
        row_number() over (order by player) = 1 as is_reference,
        true as is_fitted,
        null::varchar as style_note
    from named_players
),

parameters as (
    select * from player_parameters
    union all
    select * from feature_parameters
    union all
    select * from bias_parameters
),

indexed as (
    select
        *,
        case when is_fitted and not is_reference then row_number() over (
            partition by fit, is_fitted and not is_reference
            order by
                list_position(
                    ['player', 'feature', 'position', 'self', 'name'], parameter_kind
                ) asc,
                feature_order asc,
                parameter asc
        ) end as parameter_index
    from parameters
)

select * from indexed
