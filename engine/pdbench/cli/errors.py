"""How the ``pdbench`` commands report a user's mistake: one line on stderr, an exit code,
never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer

from pdbench.errors import PdbenchError

__all__ = ["err", "one_line", "user_errors"]


def err(line: str) -> None:
    typer.echo(line, err=True)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn pdbench's own errors into one line on stderr and their exit code; an error of the
    operating system (a path under a file, a read-only folder, a full disk) into one line
    naming the path, exit code 2."""
    try:
        yield
    except PdbenchError as exc:
        err(f"error: {one_line(str(exc))}")
        raise typer.Exit(exc.exit_code) from None
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        err(f"error: {one_line(where + (exc.strerror or type(exc).__name__))}")
        raise typer.Exit(2) from None


def one_line(text: str) -> str:
    """``text`` with every control or line-breaking character escaped (a key or value quoted
    from a file may hold them): an error is one line, whatever it quotes."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
