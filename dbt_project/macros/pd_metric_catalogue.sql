# The PD's metric catalogue: every metric once, read by dbt and by Python alike.
#
# This file is YAML and a dbt macro file at once. dbt reads the macro below,
# `pd_metric_catalogue_yaml()`, whose body is everything between the two tag lines, and
# `pd_metric_catalogue()` (macros/metric_catalogue.sql) parses it with `fromyaml`; Python
# reads the whole file as YAML (pdbench.pd.metric_catalogue), for which the tag lines are
# comments. So write no Jinja delimiters in a text here.
#
# One entry per metric, in the order of the columns of aggregates.parquet:
#   name:        the column (per_agent: name_a and name_b; states: name_<state>_<side>,
#                the states of one side first)
#   per_agent:   one value per agent side (A and B), or one for the match
#   label:       what a person reads; a side's column reads "A's <label>"
#   unit:        what the number counts
#   format:      percent | number | count | round
#   decimals:    for format number
#   is_rate:     a share in [0, 1] (its t interval is clipped to it)
#   interval:    t (Student's t over replicates) | wilson (pooled counts) | none
#   condition:   how a condition row gets it from the replicates: mean (over replicates),
#                pooled (over visits), sum, or own (computed by its own SQL)
#   trials:      for a rate that counts events over a known number of trials in each
#                replicate, that number: an expression over int_pd_match_metrics, `<side>`
#                standing for a or b (its condition interval gets a binomial floor)
#   description: one line, for tooltips
#   definition:  the definition, for docs/metrics.md
# {% macro pd_metric_catalogue_yaml() %}
metrics:
  - name: cooperation_rate
    per_agent: false
    label: cooperation, both agents
    unit: share of actions
    format: percent
    is_rate: true
    interval: t
    condition: mean
    trials: 2 * rounds_played
    description: Share of C over both agents' actions.
    definition: share of C over both agents' actions.
  - name: cooperation_rate
    per_agent: true
    label: cooperation
    unit: share of rounds
    format: percent
    is_rate: true
    interval: t
    condition: mean
    trials: rounds_played
    description: Share of rounds in which the agent played C.
    definition: share of rounds in which the agent played C.
  - name: mutual_cooperation_rate
    per_agent: false
    label: mutual cooperation
    unit: share of rounds
    format: percent
    is_rate: true
    interval: t
    condition: mean
    trials: rounds_played
    description: Share of rounds with (C, C).
    definition: share of rounds with (C, C).
  - name: mutual_defection_rate
    per_agent: false
    label: mutual defection
    unit: share of rounds
    format: percent
    is_rate: true
    interval: t
    condition: mean
    trials: rounds_played
    description: Share of rounds with (D, D).
    definition: share of rounds with (D, D).
  - name: retaliation_rate
    per_agent: true
    label: retaliation
    unit: share of rounds after a defection
    format: percent
    is_rate: true
    interval: t
    condition: mean
    trials: n_after_cd_<side> + n_after_dd_<side>
    description: After the opponent defected, the share of rounds in which the agent defects.
    definition: >-
      over rounds t >= 2 in which the opponent played D at t-1, the share in which the agent
      plays D at t; NULL when the opponent never defected before the last round.
  - name: forgiveness_rate
    per_agent: true
    label: forgiveness
    unit: share of rounds after a defection
    format: percent
    is_rate: true
    interval: t
    condition: mean
    trials: n_after_cd_<side> + n_after_dd_<side>
    description: After the opponent defected, the share of rounds in which the agent cooperates.
    definition: >-
      the rounds of the retaliation rate, share in which the agent plays C (the two add up to
      1); NULL when the opponent never defected before the last round.
  - name: total_payoff
    per_agent: true
    label: total payoff
    unit: points
    format: number
    decimals: 1
    is_rate: false
    interval: t
    condition: mean
    description: The agent's points over the match.
    definition: the agent's points summed over the match.
  - name: payoff_per_round
    per_agent: true
    label: payoff per round
    unit: points/round
    format: number
    decimals: 3
    is_rate: false
    interval: t
    condition: mean
    description: The agent's mean points per round.
    definition: the agent's total payoff over the rounds played.
  - name: exploitability_payoff_gap
    per_agent: true
    label: exploitability gap
    unit: points
    format: number
    decimals: 1
    is_rate: false
    interval: t
    condition: mean
    description: The opponent's total minus the agent's (positive when the agent was exploited).
    definition: the opponent's total payoff minus the agent's (positive when the agent was exploited).
  - name: cooperation_rate_valid
    per_agent: true
    label: cooperation, valid moves only
    unit: share of valid moves
    format: percent
    is_rate: true
    interval: t
    condition: mean
    trials: rounds_played - coalesce(n_fallback_moves_<side>, 0)
    description: Share of C among the agent's moves that came from a valid reply.
    definition: >-
      the share of C among the agent's moves that came from a valid reply (fallback moves left
      out); NULL when it made no valid move, equal to the cooperation rate for a policy.
  - name: fallback_move_share
    per_agent: true
    label: share of moves that were fallbacks
    unit: share of moves
    format: percent
    is_rate: true
    interval: t
    condition: mean
    trials: rounds_played
    description: Share of an LLM agent's moves that were the fallback after invalid replies.
    definition: >-
      for an LLM agent, the share of its moves that were the configured fallback action after
      its replies stayed invalid through every retry; NULL for a policy, and for an imported
      LLM whose source did not record validity.
  - name: p_c_after
    per_agent: true
    states: [cc, cd, dc, dd]
    label: cooperation after
    unit: share of visits
    format: percent
    is_rate: true
    interval: wilson
    condition: pooled
    description: P(the agent plays C | the previous round), its own action first.
    definition: >-
      the memory-one profile, P(the agent plays C at t | the actions at t-1), its own previous
      action first (cd: it played C, the opponent D); NULL for a state never visited.
  - name: first_defection_round
    per_agent: true
    label: first defection
    unit: round
    format: round
    is_rate: false
    interval: t
    condition: mean
    description: The first round in which the agent defected.
    definition: the first round in which the agent played D; NULL when it never defected.
  - name: longest_defection_streak
    per_agent: true
    label: longest defection streak
    unit: rounds
    format: number
    decimals: 1
    is_rate: false
    interval: t
    condition: mean
    description: The longest run of consecutive rounds in which the agent defected.
    definition: >-
      the most consecutive rounds in which the agent played D; 0 when it never defected.
  - name: time_to_collapse
    per_agent: false
    label: collapse at round
    unit: round
    format: round
    is_rate: false
    interval: t
    condition: mean
    description: >-
      First round starting a window of k rounds with cooperation <= threshold (mean over the
      replicates that collapsed).
    definition: >-
      the first round t whose window of the next k rounds (t .. t+k-1) has a cooperation rate
      of both agents together <= threshold; NULL when it never collapses.
  - name: fallback_move_share
    per_agent: false
    label: share of moves that were fallbacks, both agents
    unit: share of moves
    format: percent
    is_rate: true
    interval: none
    condition: mean
    description: Both agents' fallback moves over all moves of the match.
    definition: both agents' fallback moves over all moves of the match; NULL when neither is an LLM.
  - name: invalid_attempt_share
    per_agent: true
    label: share of attempts with an invalid reply
    unit: share of attempts
    format: percent
    is_rate: true
    interval: none
    condition: mean
    description: Share of an LLM agent's attempts (retries included) whose reply was invalid.
    definition: >-
      for an LLM agent, the share of its attempts (provider calls for a move, retries included)
      whose reply was invalid; NULL for a policy.
  - name: n_fallback_moves
    per_agent: true
    label: fallback moves
    unit: moves
    format: count
    is_rate: false
    interval: none
    condition: sum
    description: An LLM agent's moves that were the fallback after invalid replies.
    definition: for an LLM agent, its moves that were the fallback; NULL for a policy.
  - name: n_truncated_rounds
    per_agent: true
    label: rounds with a reply cut at the token limit
    unit: rounds
    format: count
    is_rate: false
    interval: none
    condition: sum
    description: Rounds in which one of an LLM agent's replies was cut at the token limit.
    definition: >-
      for an LLM agent, rounds in which one of its replies was cut at the token limit; NULL for
      a policy and for rounds that did not record it.
  - name: is_nice
    per_agent: true
    label: nice in every replicate
    unit: yes or no
    format: flag
    is_rate: false
    interval: none
    condition: own
    description: The agent never defected before its opponent had defected in an earlier round.
    definition: >-
      the agent never defected before the opponent had defected in an earlier round (a
      defection in the same round as the opponent's first one is not nice); at condition
      level, nice in every replicate.
  - name: nice_rate
    per_agent: true
    label: niceness (share of replicates)
    unit: share of replicates
    format: percent
    is_rate: true
    interval: t
    condition: own
    trials: '1'
    description: Share of replicates in which the agent was nice.
    definition: the share of replicates in which the agent was nice.

# The columns of agent_metrics.parquet that carry a metric of one side, in their order (the
# catalogue's names; n_rounds is the match's).
agent_columns:
  - cooperation_rate
  - payoff_per_round
  - total_payoff
  - retaliation_rate
  - forgiveness_rate
  - exploitability_payoff_gap
  - cooperation_rate_valid
  - fallback_move_share
  - invalid_attempt_share
  - n_fallback_moves
  - n_truncated_rounds
  - n_rounds
  - first_defection_round
  - longest_defection_streak
  - is_nice
  - nice_rate
  - p_c_after
# {% endmacro %}
