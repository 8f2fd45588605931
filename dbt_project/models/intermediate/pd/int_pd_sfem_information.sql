{#- The precision of each agent's SFEM fit from the observed information (docs/strategy.md
    #strategy-shares-sfem): the negative Hessian of the log-likelihood in the free
    parameters, inverted. Groups of tied strategies (int_pd_sfem_strategies) count as one. A group
    is active when its share is at least 1%; the active group with the largest share (the
    reference) takes what the others leave, so the parameters are the shares of the other
    active groups and the tremble e, the inactive shares held where they are. Per count
    vector of n sides, with r_g its likelihood ratio under group g, u_g and w_g the first
    and second derivatives in e of its log-likelihood under g (int_pd_sfem_scores): the
    score of share j is r_j - r_ref, that of e is t = sum_g share_g r_g u_g; the Hessian
    entries are -(r_j - r_ref)(r_k - r_ref), (r_j u_j - r_ref u_ref) - (r_j - r_ref) t and
    sum_g share_g r_g (u_g^2 + w_g) - t^2, each summed with weight n. The sweep operator
    inverts the matrix, one pivot_entry per step. An inactive group g gets instead `share_bound`,
    how far its share can rise before the log-likelihood falls by 3.84 / 2 along the line
    from the fit to g alone, with D and I the slope and curvature there: (D + sqrt(D^2 +
    3.84 I)) / I. One row per agent and group. -#}
{{ config(materialized='table') }}
{%- set active_share = 0.01 %}

with recursive scores as (
    select * from {{ ref('int_pd_sfem_scores') }}
),

group_rows as (
    select distinct
        agent_name,
        group_order,
        group_share,
        group_size
    from scores
),

groups as (
    select
        agent_name,
        group_order,
        group_share,
        group_size,
        group_share >= {{ active_share }} as is_active,
        row_number() over (
            partition by agent_name order by group_share desc, group_order asc
        ) = 1 as is_reference
    from group_rows
),

parameters as (
    select
        *,
        case when is_active and not is_reference then row_number() over (
            partition by agent_name, is_active and not is_reference order by group_order
        ) end as parameter_index,
        count(*) filter (where is_active and not is_reference) over (partition by agent_name)
        + 1 as n_parameters
    from groups
),

vector_terms as (
    select
        scores.*,
        parameters.parameter_index,
        parameters.n_parameters,
        max(scores.likelihood_ratio) filter (where parameters.is_reference) over vector
            as reference_ratio,
        max(scores.likelihood_ratio * scores.score) filter (where parameters.is_reference)
            over vector as reference_ratio_score,
        sum(scores.group_share * scores.likelihood_ratio * scores.score) over vector
            as tremble_score,
        sum(
            scores.group_share * scores.likelihood_ratio * (scores.score ^ 2 + scores.curvature)
        ) over vector as tremble_curvature
    from scores
    inner join parameters
        on
            scores.agent_name = parameters.agent_name
            and scores.group_order = parameters.group_order
    window vector as (partition by scores.agent_name, scores.vector_id)
),

-- per vector and parameter: its score, and its term of the Hessian's mixed derivatives
parameter_scores as (
    select
        agent_name,
        vector_id,
        n_sides,
        parameter_index,
        likelihood_ratio - reference_ratio as parameter_score,
        likelihood_ratio * score - reference_ratio_score as mixed_term
    from vector_terms
    where parameter_index is not null
    union all
    select distinct
        agent_name,
        vector_id,
        n_sides,
        n_parameters as parameter_index,
        tremble_score as parameter_score,
        tremble_curvature as mixed_term
    from vector_terms
),

agent_parameters as (
    select distinct
        agent_name,
        n_parameters
    from parameters
),

information as (
    select
        left_scores.agent_name,
        left_scores.parameter_index as row_index,
        right_scores.parameter_index as column_index,
        any_value(n_parameters.n_parameters) as n_parameters,
        sum(left_scores.n_sides * (
            left_scores.parameter_score * right_scores.parameter_score
            - case
                when left_scores.parameter_index = n_parameters.n_parameters
                    then right_scores.mixed_term
                when right_scores.parameter_index = n_parameters.n_parameters
                    then left_scores.mixed_term
                else 0
            end
        )) as information
    from parameter_scores as left_scores
    inner join parameter_scores as right_scores
        on
            left_scores.agent_name = right_scores.agent_name
            and left_scores.vector_id = right_scores.vector_id
    inner join agent_parameters as n_parameters
        on left_scores.agent_name = n_parameters.agent_name
    group by all
),

-- after the sweep on every pivot_entry the matrix is minus the inverse: the covariance, negated
sweep as (
    select
        0 as step,
        agent_name,
        row_index,
        column_index,
        n_parameters,
        information as entry
    from information
    union all
    select
        step + 1 as step,
        agent_name,
        row_index,
        column_index,
        n_parameters,
        case
            when row_index = step + 1 and column_index = step + 1 then -1 / pivot_entry
            when row_index = step + 1 or column_index = step + 1 then entry / pivot_entry
            else entry - pivot_row * pivot_column / pivot_entry
        end as entry
    from (
        select
            *,
            max(entry) filter (where row_index = step + 1 and column_index = step + 1)
                over (partition by agent_name) as pivot_entry,
            max(entry) filter (where row_index = step + 1)
                over (partition by agent_name, column_index) as pivot_row,
            max(entry) filter (where column_index = step + 1)
                over (partition by agent_name, row_index) as pivot_column
        from sweep
        where step < n_parameters
    ) as pivot_entries
),

covariance as (
    select
        agent_name,
        row_index,
        column_index,
        n_parameters,
        -entry as covariance
    from sweep
    where step = n_parameters
),

agent_terms as (
    select
        agent_name,
        any_value(covariance) filter (
            where row_index = n_parameters and column_index = n_parameters
        ) as tremble_variance,
        coalesce(
            sum(covariance) filter (where row_index < n_parameters and column_index < n_parameters),
            0
        ) as reference_variance
    from covariance
    group by agent_name
),

boundary_terms as (
    select
        agent_name,
        group_order,
        sum(n_sides * (likelihood_ratio - 1)) as slope,
        sum(n_sides * (likelihood_ratio - 1) ^ 2) as curvature
    from scores
    group by agent_name, group_order
)

select
    parameters.agent_name,
    parameters.group_order,
    parameters.group_share,
    parameters.group_size,
    parameters.is_active,
    parameters.is_reference,
    case
        when parameters.is_reference then agent_terms.reference_variance
        when parameters.is_active then share_covariance.covariance
    end as share_variance,
    case
        when not parameters.is_active and boundary_terms.curvature > 0
            then least(1.0, (
                boundary_terms.slope
                + sqrt(boundary_terms.slope ^ 2 + 3.84 * boundary_terms.curvature)
            ) / boundary_terms.curvature)
        when not parameters.is_active then 1.0
    end as share_bound,
    agent_terms.tremble_variance
from parameters
inner join agent_terms on parameters.agent_name = agent_terms.agent_name
inner join boundary_terms
    on
        parameters.agent_name = boundary_terms.agent_name
        and parameters.group_order = boundary_terms.group_order
left join covariance as share_covariance
    on
        parameters.agent_name = share_covariance.agent_name
        and parameters.parameter_index = share_covariance.row_index
        and parameters.parameter_index = share_covariance.column_index
