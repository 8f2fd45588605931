"""How the power planner plants an effect on a test's paired differences, keeping their grid.

A planted test's true mean difference must become the effect D: every difference d of the
pool moves by ``s = D - mean(pool d)``. Many metrics live on a grid, though: a rate over 20
rounds moves in steps of 0.05, and the difference of two such rates too, so real differences
tie (0 often, and subset sums that cancel exactly), and the sign-flip test counts a tied
subset mean on both sides: on a grid the test is conservative. Shifting by an s that is not
a multiple of the step would break every tie and overstate the power (on
``configs/power_urnd.yaml`` a shift of 0.00125 raised the power at 20 replicates from 0.74
to 0.80). So on a grid of step h (every difference a whole multiple of h) each difference
moves by a whole number of steps: ``floor(s / h)`` steps, plus one more with probability
``frac(s / h)``, drawn per replicate; the mean shift is exactly s, the values stay on the grid,
and the spread grows by at most h^2 / 4 (0.000625 beside 0.0245 for the URND pair). Off a
grid (a geometric horizon's rates, payoffs per round), every difference moves by s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pdbench.power.sign_flip import Floats

__all__ = ["Planting", "grid_step", "planting"]

_DECIMALS = 9
"""Values are compared at the 9 decimals the sign-flip test rounds its subset means to."""


def grid_step(values: Floats) -> float | None:
    """The step h of the grid ``values`` lie on (each a whole multiple of h, h the smallest
    gap between two distinct values), None when they lie on none or take one value."""
    distinct = np.unique(np.round(values[~np.isnan(values)], _DECIMALS))
    if len(distinct) < 2:
        return None
    step = float(np.diff(distinct).min())
    multiples = distinct / step
    if not np.allclose(multiples, np.round(multiples), atol=1e-6):
        return None
    return step


@dataclass(frozen=True)
class Planting:
    """The shift of a planted test: ``shift`` in all, on a grid of ``step`` if it has one."""

    shift: float
    step: float | None

    def apply(self, sample: Floats, uniforms: Floats) -> Floats:
        """``sample`` (simulations x replicates) shifted; ``uniforms`` of the same shape, in
        [0, 1), decide the extra step of each value on a grid."""
        if self.step is None:
            return sample + self.shift
        steps = self.shift / self.step
        whole = math.floor(steps)
        extra = (uniforms < steps - whole).astype(np.float64)
        result: Floats = sample + self.step * (whole + extra)
        return result


def planting(values: Floats, effect: float) -> Planting:
    """The shift that makes the mean of ``values`` exactly ``effect``."""
    return Planting(shift=effect - float(np.nanmean(values)), step=grid_step(values))
