"""What ``pdbench power`` prints, in either game: the size needed, the power curve with each
point's Monte-Carlo standard error, then the game's cost lines."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from pdbench.number_text import plural
from pdbench.power.simulate import PowerPoint

__all__ = ["DEFAULT_SIMULATIONS", "PowerRequest", "SizeSearch", "point_text", "result_lines"]


DEFAULT_SIMULATIONS = 2000
"""Simulated studies per size without ``--simulations`` (the arena's Elo plan: fewer)."""


class SizeSearch(Protocol):
    """A simulated power by size (:class:`pdbench.power.simulate.PowerSearch`, or the
    arena's Elo search)."""

    @property
    def simulations(self) -> int: ...

    @property
    def maximum(self) -> int:
        """The largest size simulated."""
        ...

    def power(self, replicates: int) -> PowerPoint: ...

    def curve(self, needed: int) -> list[PowerPoint]: ...


@dataclass(frozen=True)
class PowerRequest:
    """What ``pdbench power`` is asked (its options)."""

    effect: float
    metric: str | None = None
    power: float = 0.8
    alpha: float = 0.05
    simulations: int | None = None
    """Simulated studies per size (None: the plan's default, :data:`DEFAULT_SIMULATIONS`)."""
    pool: int | None = None
    """Replicates (PD) or questions (arena) of the simulated pool (None: the game's default)."""


def point_text(point: PowerPoint, *, unit: str) -> str:
    """``20 replicates: power 81.0% (Monte-Carlo SE 1.2 pp)``."""
    return (
        f"{plural(point.replicates, unit)}: power {100 * point.power:.1f}% "
        f"(Monte-Carlo SE {100 * point.standard_error:.1f} pp)"
    )


def result_lines(
    search: SizeSearch,
    *,
    request: PowerRequest,
    needed: int | None,
    unit: str,
    approximation: int | None,
) -> list[str]:
    """``<unit>s needed: N`` (or that none up to the limit suffice), the curve around N, and
    the normal approximation beside it (if there is one)."""
    simulations = plural(search.simulations, "simulated study", "simulated studies")
    target = f"{100 * request.power:.0f}% power"
    if needed is None:
        return [
            f"{unit}s needed: more than {search.maximum:,} (the largest size simulated, "
            f"{point_text(search.power(search.maximum), unit=unit)}; target {target})",
        ]
    reached = search.power(needed)
    lines = [
        f"{unit}s needed: {needed}",
        f"  the fewest {unit}s whose simulated power reaches {target}: "
        f"{100 * reached.power:.1f}% at {needed} (Monte-Carlo SE "
        f"{100 * reached.standard_error:.1f} pp, {simulations})"
        + ("" if approximation is None else f"; the normal approximation says {approximation}"),
        f"power curve ({unit}s: share of {simulations} that find the planted difference, "
        "Monte-Carlo SE):",
    ]
    lines += [f"  {point_text(point, unit=unit)}" for point in search.curve(needed)]
    return lines
