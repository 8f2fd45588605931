"""The colours of every chart of the viewer: one colour-blind-safe palette (Okabe & Ito's eight,
then Paul Tol's muted nine), given to agents and players in the order of their names, so that
names next to each other (ALLC and ALLD, GRIM and GTFT, atlas and borealis) get hues far apart
and an agent keeps its colour on every chart of a run."""

from __future__ import annotations

from collections.abc import Iterable

import altair as alt

__all__ = [
    "INTERVAL_COLOR",
    "PALETTE",
    "POINT_COLOR",
    "colors_of",
    "name_scale",
]

PALETTE: tuple[str, ...] = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#56B4E9",  # sky blue
    "#CC79A7",  # reddish purple
    "#F0E442",  # yellow
    "#000000",  # black
    "#332288",  # indigo
    "#DDCC77",  # sand
    "#117733",  # green
    "#CC6677",  # rose
    "#88CCEE",  # cyan
    "#882255",  # wine
    "#44AA99",  # teal
    "#999933",  # olive
    "#AA4499",  # purple
)
"""Colour-blind-safe hues in the order they are handed out: each one far in hue from the one
before it (Okabe & Ito 2008, then Tol's muted scheme); past the last, they come round again."""

INTERVAL_COLOR = "#0072B2"
"""The rule of a 95% interval."""
POINT_COLOR = "#003a5c"
"""The point of a mean on its interval."""


def colors_of(names: Iterable[str]) -> dict[str, str]:
    """A colour per name, by the names' sorted order: the same names get the same colours on
    every chart, and neighbours in that order distinct hues."""
    ordered = sorted({str(name) for name in names})
    return {name: PALETTE[place % len(PALETTE)] for place, name in enumerate(ordered)}


def name_scale(names: Iterable[str]) -> alt.Scale:
    """The Altair colour scale of :func:`colors_of`."""
    colors = colors_of(names)
    return alt.Scale(domain=list(colors), range=list(colors.values()))
