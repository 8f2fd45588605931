"""Write the metric tables of the docs from the metric catalogues (the dbt seeds
``dbt_project/seeds/<game>_metrics.csv``).

    uv run python docs/metric_tables.py          # rewrite the tables in place
    uv run python docs/metric_tables.py --check  # exit 1 when a table is stale

Each table sits between ``<!-- metric-catalogue:<game> -->`` and
``<!-- /metric-catalogue:<game> -->`` in its game's page (the PD's in docs/metrics.md, the
arena's in docs/arena_metrics.md); tests/unit/test_metric_catalogue.py checks them.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pdbench.metric_catalogue import MetricCatalogue, load_game_catalogue

DOCS = Path(__file__).resolve().parent
DOC = DOCS / "metrics.md"
ARENA_DOC = DOCS / "arena_metrics.md"


def catalogues() -> dict[str, tuple[Path, MetricCatalogue]]:
    """Each documented game's page and catalogue, by the name its markers use."""
    return {
        "pd": (DOC, load_game_catalogue("pd_metrics.csv")),
        "arena": (ARENA_DOC, load_game_catalogue("arena_metrics.csv")),
    }


def rendered(text: str, doc: Path = DOC) -> str:
    """``text`` (the page ``doc``) with every table of a game documented there replaced by
    its catalogue's table."""
    for game, (page, catalogue) in catalogues().items():
        if page != doc:
            continue
        start, end = f"<!-- metric-catalogue:{game} -->\n", f"<!-- /metric-catalogue:{game} -->"
        head, _, rest = text.partition(start)
        _, found, tail = rest.partition(end)
        if not found:
            raise SystemExit(f"{doc}: no {start.strip()} ... {end} section")
        text = head + start + catalogue.markdown_table() + end + tail
    return text


def main(argv: list[str]) -> int:
    stale = False
    for doc in dict.fromkeys(page for page, _ in catalogues().values()):
        text = doc.read_text(encoding="utf-8")
        new = rendered(text, doc)
        if "--check" in argv:
            if new != text:
                print(f"{doc}: a metric table is stale (uv run python docs/metric_tables.py)")
                stale = True
        else:
            doc.write_text(new, encoding="utf-8")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
