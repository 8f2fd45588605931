"""Every mart is written in a stated row order, so the same records give the same file."""

import re

from tests.conftest import REPO

MARTS = REPO / "dbt_project" / "models" / "marts"
# marts of one row, where no order is needed
ONE_ROW = {"arena_score_agreement"}
# macros that end their statement with an order by
ORDERING_MACROS = ("parse_rule_counts(",)


def _unordered() -> list[str]:
    unordered = []
    for path in sorted(MARTS.rglob("*.sql")):
        text = path.read_text()
        ordered = re.search(r"\border\s+by\b", text, re.IGNORECASE) or any(
            macro in text for macro in ORDERING_MACROS
        )
        if not ordered and path.stem not in ONE_ROW:
            unordered.append(path.stem)
    return unordered


def test_every_mart_of_many_rows_states_its_row_order() -> None:
    assert _unordered() == []
