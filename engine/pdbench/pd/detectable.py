"""What a run could have detected: the words an inconclusive comparison carries.

``comparisons.parquet`` gives every comparison of at least 2 paired replicates its
``minimum_detectable_difference``: the smallest true mean difference the run's paired test
would find with 80% power at a two-sided 5% level, given the run's own variation
(docs/pd_intervals.md). A minimum detectable difference scales with 1 / sqrt(n), so n
replicates that detect D detect a target T with about n (D / T)^2: the text offers half of D,
about four times the replicates. Below 6 paired replicates the sign-flip test cannot reject at
all, and the text says so instead. ``pdbench compare``, the viewer and the report all read
their words here.
"""

from __future__ import annotations

import math

from pdbench.column_labels import label_catalogue, number_spec
from pdbench.number_text import plural

__all__ = ["detectable_text", "magnitude_text", "replicates_for"]


def replicates_for(*, n_pairs: int, detectable: float, target: float) -> int:
    """Paired replicates that would detect ``target``, approximately, when ``n_pairs`` detect
    ``detectable``: ``n (detectable / target)^2``, rounded up."""
    return math.ceil(n_pairs * (detectable / target) ** 2 - 1e-9)


def magnitude_text(value: float, metric: str) -> str:
    """A size of a difference in ``metric``: a rate in percentage points, anything else with
    the catalogue's decimals."""
    found = label_catalogue().get(metric)
    if found is not None and found.format == "percent":
        return f"{100 * value:.1f} pp"
    try:
        return format(value, number_spec(metric))
    except KeyError:
        return f"{value:.3g}"


def detectable_text(
    *,
    metric: str,
    n_pairs: int,
    detectable: float | None,
    replicates_for_interval: int | None,
) -> str:
    """What an inconclusive comparison of ``metric`` could have found: ``this run could detect
    differences of at least 12.0 pp; about 40 replicates would detect 6.0 pp (approximate)``;
    with 5 replicates or fewer, the replicates that would give an interval at all; empty below
    2 paired replicates."""
    if replicates_for_interval is not None and n_pairs < replicates_for_interval:
        return (
            f"no difference can be detected with {plural(n_pairs, 'paired replicate')} (the "
            f"sign-flip test cannot reach p <= 0.05); {replicates_for_interval} would give an "
            "interval"
        )
    if detectable is None or detectable <= 0:
        return ""
    target = detectable / 2
    more = replicates_for(n_pairs=n_pairs, detectable=detectable, target=target)
    return (
        f"this run could detect differences of at least {magnitude_text(detectable, metric)}; "
        f"about {more} replicates would detect {magnitude_text(target, metric)} (approximate)"
    )
