"""How a share, a p-value and a count of things are written, once, for the viewer, the
terminal and the report (:func:`pdbench.column_labels.format_cell` and
:mod:`pdbench.ui.formats` ask here)."""

from __future__ import annotations

from numbers import Integral

__all__ = ["P_FLOOR", "p_value_text", "plural", "points_text", "share_text"]

P_FLOOR = 0.001
"""A p-value below this is written ``< 0.001``: the tests behind it are not that exact."""

_ZERO = 1e-9
"""A share closer than this to 0 or 1 is 0 or 1: interval bounds are rounded to 9 decimals,
and a smaller residue (-4.6e-17) is floating-point noise, not a value."""

_FINEST = 1e-6
"""The smallest share written by its digits (0.0001%); a smaller one is ``< 0.0001%``."""


def share_text(value: float) -> str:
    """A share (0..1) in percent with one decimal: ``12.5%``. A share that is not 0 or 1 but
    would read ``0.0%`` or ``100.0%`` keeps one significant digit of its distance from them
    (``0.04%``, ``99.96%``), so an interval [0, 0.000384] reads ``0.0%`` to ``0.04%``; a residue
    within 1e-9 of 0 or 1 (``-4.6e-17``) is 0 or 1, never ``-0.0%``."""
    if abs(value) < _ZERO:
        return "0.0%"
    if abs(1 - value) < _ZERO:
        return "100.0%"
    text = f"{value:.1%}"
    if text not in ("0.0%", "-0.0%", "100.0%"):
        return text
    near_one = text == "100.0%"
    distance = abs(1 - value if near_one else value)
    if distance < _FINEST:
        return "> 99.9999%" if near_one else ("< 0.0001%" if value > 0 else "> -0.0001%")
    digits = f"{100 * distance:.1g}"
    if near_one:
        return f"{100 - float(digits):.{len(digits) - 2}f}%"
    return f"-{digits}%" if value < 0 else f"{digits}%"


def points_text(difference: float, decimals: int = 1) -> str:
    """A difference of two shares (-1..1) in signed percentage points: ``+12.5 pp``; one that
    rounds to zero is ``0.0 pp``, never ``-0.0 pp``."""
    text = f"{100 * difference:+.{decimals}f}"
    if float(text) == 0:
        text = text[1:]
    return f"{text} pp"


def p_value_text(p: float) -> str:
    """A p-value with three decimals; below 0.001, ``< 0.001``."""
    return f"< {P_FLOOR:g}" if p < P_FLOOR else f"{p:.3f}"


def plural(count: object, word: str, words: str | None = None, *, grouped: bool = False) -> str:
    """A count and its noun, agreeing: ``1 replicate``, ``2 replicates``, ``0 matches``.
    ``words`` is the plural when it is not ``word`` + ``s`` (``match``, ``matches``);
    ``grouped`` writes an integer with thousands separators (``1,200 rounds``). A count that is
    no number (a value a manifest does not give) keeps the plural."""
    many = words if words is not None else f"{word}s"
    if isinstance(count, Integral) and not isinstance(count, bool):
        number = f"{int(count):,}" if grouped else str(int(count))
        return f"{number} {word if int(count) == 1 else many}"
    if isinstance(count, float) and count.is_integer():
        return f"{int(count)} {word if count == 1 else many}"
    return f"{count} {many}"
