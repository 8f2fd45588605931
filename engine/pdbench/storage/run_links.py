"""No reader or writer of a run directory leaves it through a symbolic link.

``pdbench aggregate`` cuts torn last lines off the run's JSONL files and dbt reads every file
the run holds: a link pointing outside the run directory (``calls.jsonl -> /elsewhere``) would
have them read, and cut, a file that is not the run's. :func:`refuse_outside_links` is called
before either touches the directory; links that stay inside it are allowed.
"""

from __future__ import annotations

import os
from pathlib import Path

from pdbench.errors import RunDirError

__all__ = ["refuse_outside_links"]


def refuse_outside_links(run_dir: Path) -> None:
    """Raise :class:`RunDirError` (one line naming the link and its target) when a file or
    folder inside ``run_dir`` is a symbolic link that resolves outside it."""
    root = Path(run_dir).resolve()
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            path = Path(folder) / name
            if not path.is_symlink():
                continue
            target = path.resolve()
            if not target.is_relative_to(root):
                raise RunDirError(
                    f"{path}: a symbolic link to {target}, outside the run directory: pdbench "
                    "reads and cuts only files inside it (copy the file in instead)"
                )
