"""The payoff table of a round-level source that records payoffs (``payoff_a``/``payoff_b``
mapped): one table for the whole run, the one its manifest records.

- The mapping names a table (``payoffs``): every row must be paid by it.
- The mapping names none: the source's table is read from its rows. Every pair of actions
  must always be paid the same; when the source pays all four pairs, those payoffs are the
  table, and it must be a Prisoner's Dilemma (T > R > P > S and 2R > T + S on both sides;
  anything else is far likelier a label mapped to the wrong action than another game, and
  another game is imported by naming its table). When some pair is never played, the
  recorded payoffs must be the default table's (3/0/5/1), which is then the table; otherwise
  the table cannot be read from the source and the mapping must name it.

Any row that breaks this is one :class:`ImportInputError` naming the file, the line, the
column and the payoffs that disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pdbench.imports.base import ImportInputError, SourceProblem
from pdbench.pd.config import PayoffsConfig

__all__ = ["RecordedPayoffs"]

Pair = tuple[str, str]
"""The actions of A and B, e.g. ``("C", "D")``."""
Paid = tuple[float, float]
"""What A and B were paid."""
_PAIRS: tuple[Pair, ...] = (("C", "C"), ("C", "D"), ("D", "C"), ("D", "D"))


def _cells(payoffs: PayoffsConfig) -> dict[Pair, Paid]:
    return {(a, b): (float(x), float(y)) for (a, b), (x, y) in payoffs.to_matrix().table().items()}


def _paid(paid: Paid) -> str:
    return f"{paid[0]:g}/{paid[1]:g}"


def _table(cells: dict[Pair, Paid]) -> str:
    return ", ".join(f"{a}{b} {_paid(cells[a, b])}" for a, b in _PAIRS)


@dataclass
class RecordedPayoffs:
    """Checks every recorded row against one table; :meth:`table` is that table once every
    row is read."""

    named: PayoffsConfig | None
    """The mapping's ``payoffs``; None: read the table from the rows."""
    first: dict[Pair, tuple[Paid, SourceProblem]] = field(default_factory=dict)
    """Pair of actions -> what the source first paid for it, and where."""

    def check(self, actions: Pair, paid: Paid, at: SourceProblem) -> None:
        """The row at ``at`` paid ``paid`` for ``actions``: refused unless the one table
        pays that."""
        pair = "".join(actions)
        if self.named is not None:
            expected = _cells(self.named)[actions]
            if paid != expected:
                raise ImportInputError(
                    f"{pair} paid {_paid(paid)}, but the mapping's payoffs pay {_paid(expected)} "
                    f"({_table(_cells(self.named))}); a run has one payoff table",
                    at=at,
                )
            return
        seen, where = self.first.setdefault(actions, (paid, at))
        if seen != paid:
            raise ImportInputError(
                f"two payoff tables: {pair} paid {_paid(seen)} at {where.where()}, "
                f"{_paid(paid)} here; a run has one payoff table (import each table's rows "
                "as a run of its own)",
                at=at,
            )

    def table(self) -> PayoffsConfig:
        """The table of the rows read (see the module); an :class:`ImportInputError` when
        they do not make one."""
        if self.named is not None:
            return self.named
        default = _cells(PayoffsConfig())
        unseen = [a + b for a, b in _PAIRS if (a, b) not in self.first]
        if unseen:
            for actions, (paid, at) in self.first.items():
                if paid != default[actions]:
                    raise ImportInputError(
                        f"{''.join(actions)} paid {_paid(paid)}, not {_paid(default[actions])} "
                        f"as the default table pays ({_table(default)}), and the source never "
                        f"plays {', '.join(unseen)}, so its table cannot be read from it: name "
                        "it in the mapping (payoffs: {CC: [R, R], CD: [S, T], DC: [T, S], "
                        "DD: [P, P]})",
                        at=at,
                    )
            return PayoffsConfig()
        cells = {actions: paid for actions, (paid, _) in self.first.items()}
        table = PayoffsConfig.model_validate({a + b: cells[a, b] for a, b in _PAIRS})
        problems = table.to_matrix().pd_violations()
        if problems:
            _, at = self.first["C", "C"]
            raise ImportInputError(
                f"the recorded payoffs ({_table(cells)}) are not a prisoner's dilemma: "
                f"{'; '.join(problems)}; check which labels the mapping's actions call C and "
                "D, or name the table in the mapping (payoffs) to import another game",
                at=at,
            )
        return table
