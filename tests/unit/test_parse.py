import pytest
from pdbench.core.parse import parse_action
from pdbench.core.types import C, D


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("C", C),
        ("D", D),
        ("c", C),
        ("d", D),
        ("  D\n", D),
        ("\tc ", C),
        ("", None),
        ("CD", None),
        ("C.", None),
        ("Cooperate", None),
        ("I choose C", None),
        ('{"action": "C"}', None),
        ("C D", None),
        ("X", None),
    ],
)
def test_token_format(reply, expected):
    assert parse_action(reply, output_format="token") == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"action": "C"}', C),
        ('  {"action":"D"}\n', D),
        ('{"action": "d"}', D),
        ("C", None),
        ('{"action": "C", "why": "trust"}', None),
        ('{"move": "C"}', None),
        ('{"action": " C"}', None),
        ('{"action": "Cooperate"}', None),
        ('["C"]', None),
        ('{"action": "C"', None),
        ('```json\n{"action": "C"}\n```', None),
        ('{"action": null}', None),
    ],
)
def test_json_format(reply, expected):
    assert parse_action(reply, output_format="json") == expected
