"""Any strategy of the Axelrod library as a pdbench policy (``policy: "axelrod:Grudger"``).

Axelrod is an optional extra (``uv sync --extra axelrod``), imported only when a config names
one of its strategies. A strategy sees the match the way it would inside ``axl.Match``: its
own history and a stand-in opponent's history (the executed actions), the game built from its
own side's payoffs, the match length when the horizon is fixed (infinity when it is
geometric, as Axelrod sets it for ``prob_end``) and the noise. Its random generator is seeded
from pdbench's named stream ``(seed, "agent", condition, replicate, side)``.

Strategies that read or change the opponent's source or state (Axelrod's "cheaters", e.g.
Darwin) need the real opponent object and are refused.
"""

from __future__ import annotations

import difflib
import inspect
import math
from functools import cache
from typing import Any, ClassVar

from pdbench.pd.agents.policy import Policy
from pdbench.pd.payoff import PayoffView

__all__ = [
    "AXELROD_PREFIX",
    "AxelrodPolicy",
    "axelrod_strategy",
    "check_axelrod_params",
    "is_axelrod",
]

AXELROD_PREFIX = "axelrod:"
INSTALL_HINT = "uv sync --extra axelrod"
_CHEATS = ("inspects_source", "manipulates_source", "manipulates_state")


def is_axelrod(policy: str) -> bool:
    """Whether a config's ``policy`` names an Axelrod strategy."""
    return policy.startswith(AXELROD_PREFIX)


@cache
def _library() -> Any:
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import axelrod
    except ImportError:
        raise ValueError(
            f"the Axelrod library is not installed (install the extra: {INSTALL_HINT})"
        ) from None
    return axelrod


@cache
def _by_class_name() -> dict[str, Any]:
    axl = _library()
    found = {cls.__name__: cls for cls in axl.all_strategies}
    for name, value in vars(axl).items():
        if isinstance(value, type) and issubclass(value, axl.Player) and value is not axl.Player:
            found.setdefault(name, value)
    return found


def axelrod_strategy(policy: str) -> Any:
    """The strategy class that ``axelrod:<ClassName>`` names; ValueError (one line) if there
    is none, listing close matches, or if the strategy inspects its opponent."""
    name = policy.removeprefix(AXELROD_PREFIX)
    strategies = _by_class_name()
    cls = strategies.get(name)
    if cls is None:
        close = difflib.get_close_matches(name, strategies, n=5, cutoff=0.6)
        lowered = [n for n in strategies if n.lower() == name.lower()]
        hint = ", ".join(dict.fromkeys(lowered + close)) or "none"
        raise ValueError(f"unknown Axelrod strategy {name!r} (close matches: {hint})")
    cheats = [key for key in _CHEATS if cls.classifier.get(key)]
    if cheats:
        raise ValueError(
            f"Axelrod strategy {name!r} {cheats[0].replace('_', ' ')} of its opponent, "
            "which a pdbench match cannot offer"
        )
    return cls


def check_axelrod_params(policy: str, params: dict[str, Any]) -> None:
    """ValueError (one line) if the strategy's constructor does not take ``params``."""
    cls = axelrod_strategy(policy)
    signature = inspect.signature(cls.__init__)
    accepted = [p for p in signature.parameters if p != "self"]
    for key in params:
        if key not in accepted:
            known = ", ".join(accepted) or "none"
            raise ValueError(f"{cls.__name__} takes no parameter {key!r} (parameters: {known})")
    try:
        cls(**params)
    except Exception as exc:  # the library's own check of the values
        raise ValueError(f"{cls.__name__}({params}): {exc}") from None


class AxelrodPolicy(Policy):
    """An Axelrod strategy behind pdbench's policy interface."""

    classifier: ClassVar[dict[str, object]] = {}
    history_needed = 1

    def __init__(
        self,
        *,
        policy: str,
        params: dict[str, Any] | None = None,
        payoffs: PayoffView,
        known_length: int | None = None,
        noise: float = 0.0,
    ) -> None:
        axl = _library()
        cls = axelrod_strategy(policy)
        self.name = policy  # type: ignore[misc]
        self._params = dict(params or {})
        self._player = cls(**self._params)
        self.classifier = dict(self._player.classifier)  # type: ignore[misc]
        self._attributes = {
            "length": known_length if known_length is not None else math.inf,
            "game": axl.Game(r=payoffs.R, s=payoffs.S, t=payoffs.T, p=payoffs.P),
            "noise": noise,
        }
        self._to_axl = {"C": axl.Action.C, "D": axl.Action.D}
        self._from_axl = {axl.Action.C: "C", axl.Action.D: "D"}
        self._opponent = _stand_in(axl)
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """A fresh player and opponent history; the player's generator seeded from ``seed``."""
        self._player.reset()
        self._player.set_match_attributes(**self._attributes)
        self._opponent.reset()
        self._opponent.set_match_attributes(**self._attributes)
        # numpy's RandomState takes 32-bit seeds
        self._player.set_seed(0 if seed is None else seed % 2**32)

    def first_action(self) -> str:
        return self._from_axl[self._player.strategy(self._opponent)]

    def next_action(self, own: str, opponent: str, own_payoff: float) -> str:
        own_axl, opponent_axl = self._to_axl[own], self._to_axl[opponent]
        self._player.update_history(own_axl, opponent_axl)
        self._opponent.update_history(opponent_axl, own_axl)
        return self._from_axl[self._player.strategy(self._opponent)]


@cache
def _stand_in_class(axl: Any) -> type:
    class Opponent(axl.Player):  # type: ignore[misc]
        """The other side of a pdbench match, as an Axelrod strategy sees it: a history."""

        name = "pdbench opponent"
        classifier: ClassVar[dict[str, object]] = {
            "memory_depth": math.inf,
            "stochastic": False,
            "long_run_time": False,
            "inspects_source": False,
            "manipulates_source": False,
            "manipulates_state": False,
        }

        def strategy(self, opponent: Any) -> Any:
            raise RuntimeError("the stand-in opponent does not play")

    return Opponent


def _stand_in(axl: Any) -> Any:
    return _stand_in_class(axl)()
