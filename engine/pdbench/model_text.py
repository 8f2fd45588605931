"""Text a model wrote, as every page shows it: as text, never as Markdown or HTML.

A question, an answer, a rationale or a trick note is written by a model, and a model (or
whoever prompts it) may write ``![](https://host/x.png)``: rendered as Markdown it makes every
reader's browser fetch from that host (telling it who reads, and when). So no page hands model
text to Markdown:

- :func:`show_model_text` draws a block of it in a code element (``st.code``, no language, lines
  wrapped): the browser shows the characters and parses nothing;
- :func:`escaped` makes it safe inside a Markdown string (a caption, a note): every ASCII
  punctuation character is backslash-escaped (CommonMark allows it for each), so no link,
  image, HTML tag, emphasis, colour or formula can form, and the text reads as written.

The viewer (:mod:`pdbench.ui`) and the audience page (:mod:`pdbench.arena.audience`) use only these
two for model text; ``tests/ui/test_model_text.py`` walks their pages with hostile text.
"""

from __future__ import annotations

import string
from typing import Any

import streamlit as st

__all__ = ["escaped", "show_model_text"]

_ESCAPES = str.maketrans({c: f"\\{c}" for c in string.punctuation})


def escaped(text: object) -> str:
    """``text`` with every Markdown and HTML metacharacter escaped, line breaks kept."""
    lines = str(text).translate(_ESCAPES).splitlines()
    return "  \n".join(lines)


def show_model_text(text: object, *, where: Any = None) -> None:
    """Draw model-written ``text`` as plain text in ``where`` (a container; default: the page)."""
    (where if where is not None else st).code(
        "" if text is None else str(text), language=None, wrap_lines=True
    )
