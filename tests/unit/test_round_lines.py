"""The template encoder of policy matches writes exactly what ``json.dumps`` would."""

import json

import pytest
from pdbench.pd import round_lines
from pdbench.pd.records import PDFiles, RoundRecord
from pdbench.pd.round_lines import ROUND_KEYS, MatchFields, RoundLineTemplate
from pdbench.storage.jsonl import dumps_line

ODD_PAYOFFS = {
    ("C", "C"): (0.1 + 0.2, -0.0),
    ("C", "D"): (-3.5, 1e16),
    ("D", "C"): (1e-7, -2.0),
    ("D", "D"): (-1.0, 123456789.125),
}
STORED_ON_REQUEST = {"prompts", "raw_responses"}


def _template(names, payoffs=ODD_PAYOFFS, **overrides):
    fields = dict(
        run_id='run "quoted"',
        match_id="cond/3",
        condition="cond",
        replicate=3,
        match_seed=2**62 + 1,
        names=names,
        kinds=("policy", "policy"),
        horizon_type="fixed",
        fixed_n=40,
        stop_prob=None,
    )
    fields.update(overrides)
    return RoundLineTemplate(MatchFields(**fields), payoffs=payoffs), {**fields, "payoffs": payoffs}


def _line(template, *, round_index, intended, actions, totals, timestamp):
    """One line formatted from the template's pieces as the policy loop formats it."""
    head, middle, outcomes, sep, tail = template.parts()
    key = intended[0] + intended[1] + actions[0] + actions[1]
    return (
        f"{head}{round_index}{middle}{outcomes[key]}"
        f"{float(totals[0])!r}{sep}{float(totals[1])!r}{tail}{timestamp}"
        '"}\n'
    )


def _expected(fields, *, round_index, intended, actions, totals, timestamp):
    """The line of the same round as the contract writes it: the record's fields in the
    model's order, through the JSONL encoder."""
    payoff_a, payoff_b = fields["payoffs"][actions]
    record = RoundRecord(
        run_id=fields["run_id"],
        match_id=fields["match_id"],
        condition=fields["condition"],
        replicate=fields["replicate"],
        round_index=round_index,
        match_seed=fields["match_seed"],
        agent_a_name=fields["names"][0],
        agent_b_name=fields["names"][1],
        agent_a_kind="policy",
        agent_b_kind="policy",
        agent_a_intended_action=intended[0],
        agent_b_intended_action=intended[1],
        agent_a_action=actions[0],
        agent_b_action=actions[1],
        agent_a_payoff=payoff_a,
        agent_b_payoff=payoff_b,
        agent_a_cum_payoff=totals[0],
        agent_b_cum_payoff=totals[1],
        agent_a_valid=True,
        agent_b_valid=True,
        agent_a_attempts=0,
        agent_b_attempts=0,
        agent_a_truncated=False,
        agent_b_truncated=False,
        horizon_type=fields["horizon_type"],
        fixed_n=fields["fixed_n"],
        stop_prob=fields["stop_prob"],
        timestamp_utc=timestamp,
    )
    return dumps_line(record.model_dump(exclude=STORED_ON_REQUEST))


NAMES = [
    ("TFT", "WSLS"),
    ('say "hi"', "back\\slash"),
    ("Grüß Gott ☕", "名前"),
    ("tab\there", "new\nline"),
    ("</script>", "\u2028sep"),
]


@pytest.mark.parametrize("names", NAMES)
@pytest.mark.parametrize(
    ("intended", "actions", "totals"),
    [
        (("C", "C"), ("C", "C"), (0.1 + 0.2, -0.0)),
        (("C", "D"), ("D", "D"), (-1.0, 1e16)),
        (("D", "C"), ("C", "D"), (-3.5, 1e16 + 2.5)),
        (("D", "D"), ("D", "C"), (1e-7, -123.456)),
    ],
)
def test_a_template_line_equals_json_dumps_of_the_record(names, intended, actions, totals):
    template, fields = _template(names)
    stamp = "2025-01-31T12:00:00.123456Z"
    line = _line(
        template, round_index=17, intended=intended, actions=actions, totals=totals, timestamp=stamp
    )
    expected = _expected(
        fields, round_index=17, intended=intended, actions=actions, totals=totals, timestamp=stamp
    )
    assert line == expected
    record = json.loads(line)
    assert list(record) == list(ROUND_KEYS)
    RoundRecord.model_validate(record)


def test_geometric_horizon_fields_are_encoded_like_json():
    template, fields = _template(("A", "B"), horizon_type="geometric", fixed_n=None, stop_prob=0.1)
    stamp = "2025-01-31T12:00:00.000001Z"
    line = _line(
        template,
        round_index=1,
        intended=("C", "C"),
        actions=("C", "C"),
        totals=(0.3, 0.0),
        timestamp=stamp,
    )
    assert '"fixed_n":null,"stop_prob":0.1,' in line
    expected = _expected(
        fields,
        round_index=1,
        intended=("C", "C"),
        actions=("C", "C"),
        totals=(0.3, 0.0),
        timestamp=stamp,
    )
    assert line == expected


def test_every_combination_of_intended_and_executed_actions_has_a_segment():
    template, _ = _template(("A", "B"))
    _, _, outcomes, _, _ = template.parts()
    assert len(outcomes) == 16
    assert '"agent_a_payoff":-3.5,"agent_b_payoff":1e+16' in outcomes["DCCD"]


@pytest.mark.parametrize(
    "keys",
    [
        # the timestamp no longer last
        ("timestamp_utc", *(key for key in ROUND_KEYS if key != "timestamp_utc")),
        # a field after the timestamp
        (*ROUND_KEYS, "seat"),
        # the running totals swapped
        tuple(
            {
                "agent_a_cum_payoff": "agent_b_cum_payoff",
                "agent_b_cum_payoff": "agent_a_cum_payoff",
            }.get(key, key)
            for key in ROUND_KEYS
        ),
        # the outcome keys apart
        (*(k for k in ROUND_KEYS if k != "agent_b_payoff"), "agent_b_payoff"),
    ],
    ids=["timestamp-first", "field-after-timestamp", "totals-swapped", "outcome-apart"],
)
def test_a_round_layout_the_template_cannot_fill_is_refused(keys):
    with pytest.raises(ValueError, match="round line"):
        round_lines._layout(keys)


def test_a_round_field_the_template_does_not_fill_is_refused(monkeypatch):
    monkeypatch.setattr(round_lines, "_FIXED_KEYS", round_lines._FIXED_KEYS | {"seat"})
    with pytest.raises(ValueError, match="round line's seat is not filled in"):
        _template(("A", "B"))


def test_every_line_of_a_policy_run_fits_the_schema_and_reencodes_identically(project):
    from pdbench.games import load_config
    from pdbench.pd.experiment import run_experiment

    from tests.conftest import write_experiment

    path = write_experiment(
        project / "configs",
        conditions=[],
        noise=0.1,
        horizon={"type": "geometric", "stop_prob": 0.01, "max_rounds": 5000},
        payoffs={"CC": [0.3, 0.3], "CD": [-1.5, 5], "DC": [5, -1.5], "DD": [0.1, 0.1]},
        round_robin={
            "agents": ["TFT", "GTFT", {"type": "policy", "policy": "WSLS", "name": 'Pavlov "W" ☕'}]
        },
    )
    run_dir = run_experiment(load_config(path), output_dir=project / "run").run_dir
    lines = (run_dir / PDFiles.ROUNDS).read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) > 100
    for line in lines:
        record = json.loads(line)
        RoundRecord.model_validate(record)
        assert dumps_line(record) == line
        assert list(record) == list(ROUND_KEYS)
