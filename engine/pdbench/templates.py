"""The prompt templates of every game: ``str.format`` text with named placeholders only.

A template may hold ``{name}`` placeholders from an allowed set and literal braces written
``{{`` and ``}}``; nothing else. A format spec (``{persona:>9999999999}``, which would
allocate gigabytes), a conversion (``{persona!r}``), an attribute or an index
(``{persona.upper}``, ``{persona[0]}``) or a positional field (``{}``, ``{0}``) is refused
when the config is validated, never met while a run plays.
"""

from __future__ import annotations

import string
from collections.abc import Collection

__all__ = ["template_problem"]


def template_problem(
    text: str, allowed: Collection[str], *, required: Collection[str] = ()
) -> str | None:
    """Why ``text`` is not a usable template, or None (see the module docstring)."""
    try:
        parts = list(string.Formatter().parse(text))
    except ValueError as exc:
        return f"template syntax: {exc} (write a literal brace as {{{{ or }}}})"
    fields: set[str] = set()
    for _, name, spec, conversion in parts:
        if name is None:
            continue
        conv = f"!{conversion}" if conversion else ""
        shown = "{" + name + conv + (f":{spec}" if spec else "") + "}"
        if conversion or spec:
            return (
                f"placeholder {shown}: format specs and conversions are not allowed; "
                f"write {{{name}}}"
            )
        if not name.isidentifier():
            example = sorted(allowed)[0] if allowed else "name"
            return f"placeholder {shown}: only named placeholders such as {{{example}}} are allowed"
        fields.add(name)
    unknown = sorted(fields - set(allowed))
    if unknown:
        known = ", ".join(f"{{{a}}}" for a in sorted(allowed))
        return f"unknown placeholder {{{unknown[0]}}} (known: {known})"
    missing = sorted(set(required) - fields)
    if missing:
        return f"missing placeholder {{{missing[0]}}}"
    return None
