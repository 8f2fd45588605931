"""Write the metric tables of docs/metrics.md from the metric catalogues.

    uv run python docs/metric_tables.py          # rewrite the tables in place
    uv run python docs/metric_tables.py --check  # exit 1 when a table is stale

Each table sits between ``<!-- metric-catalogue:<game> -->`` and
``<!-- /metric-catalogue:<game> -->``; tests/unit/test_metric_catalogue.py checks them.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pdbench.metric_catalogue import MetricCatalogue
from pdbench.pd.metrics import pd_metrics

DOC = Path(__file__).resolve().parent / "metrics.md"


def catalogues() -> dict[str, MetricCatalogue]:
    """Each documented game's catalogue by the name its markers use."""
    return {"pd": pd_metrics()}


def rendered(text: str) -> str:
    """``text`` with every marked table replaced by its catalogue's table."""
    for game, catalogue in catalogues().items():
        start, end = f"<!-- metric-catalogue:{game} -->\n", f"<!-- /metric-catalogue:{game} -->"
        head, _, rest = text.partition(start)
        _, found, tail = rest.partition(end)
        if not found:
            raise SystemExit(f"{DOC}: no {start.strip()} ... {end} section")
        text = head + start + catalogue.markdown_table() + end + tail
    return text


def main(argv: list[str]) -> int:
    text = DOC.read_text(encoding="utf-8")
    new = rendered(text)
    if "--check" in argv:
        if new != text:
            print(f"{DOC}: a metric table is stale (uv run python docs/metric_tables.py)")
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
