"""The PD viewer's Evolution page: population shares under the replicator dynamics of the
round robin's payoff matrix (tournament_ecosystem.parquet) and Moran fixation probabilities
(tournament_fixation.parquet)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from pdbench.number_text import share_text
from pdbench.pd.marts import PDMart
from pdbench.ui import run_reader
from pdbench.ui.chart_text import chart_alt
from pdbench.ui.page_parts import nothing_to_show, show_table
from pdbench.ui.pd import charts

__all__ = ["page"]


def page(run_dir: Path) -> None:
    """The Evolution page of the PD run in ``run_dir``."""
    st.header("Evolution")
    ecosystem = run_reader.mart(run_dir, PDMart.TOURNAMENT_ECOSYSTEM)
    if nothing_to_show(
        ecosystem,
        "The dynamics need the payoff of every agent against every other and itself: "
        "a round robin with self_play: true.",
    ):
        return
    st.subheader("Population shares")
    st.caption(
        "Discrete replicator dynamics of the payoff matrix, from equal shares: each "
        "generation an agent's share grows in proportion to its mean score per round "
        "against the population (as Axelrod's Ecosystem)."
    )
    final = ecosystem[ecosystem["generation"] == ecosystem["generation"].max()]
    st.altair_chart(
        charts.population_shares(ecosystem),
        width="stretch",
        alt=chart_alt(
            "Population share of each agent by generation, over "
            f"{int(ecosystem['generation'].max())} generations; at the last",
            [
                f"{agent} {share_text(float(share))}"
                for agent, share in zip(final["agent"], final["population_share"], strict=True)
            ],
        ),
    )
    fixation = run_reader.mart(run_dir, PDMart.TOURNAMENT_FIXATION)
    if fixation.empty:
        return
    size = int(fixation["population_size"].iloc[0])
    st.subheader("Fixation probabilities")
    st.caption(
        f"The chance that one mutant takes over a population of {size - 1} residents in a "
        f"Moran process (birth-death, fitness the total score against everyone else, as "
        f"Axelrod's MoranProcess); a neutral mutant's is 1/{size}. Beside it, the share of "
        "seeded runs of the same process that the mutant took over."
    )
    shown = ["mutant", "resident", "fixation_probability", "is_favoured"]
    show_table(
        fixation[[*shown, "simulated_fixation_rate", "n_simulations"]],
        column_config={
            "fixation_probability": st.column_config.NumberColumn(
                "fixation probability", format="%.4f"
            ),
            "is_favoured": st.column_config.CheckboxColumn(f"above 1/{size}"),
            "simulated_fixation_rate": st.column_config.NumberColumn(
                "share of seeded runs", format="%.4f"
            ),
            "n_simulations": st.column_config.NumberColumn("runs"),
        },
    )
