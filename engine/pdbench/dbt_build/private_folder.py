"""A folder of this user's alone: what pdbench reads back from its cache runs as SQL or as dbt's
code (a compiled project, dbt's saved parse), so it is read only from a folder no one else may
write in."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["is_private_folder"]


def is_private_folder(folder: Path) -> bool:
    """Whether ``folder`` (made for this user alone if missing) is this user's and no one else
    may write in it."""
    try:
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700, parents=True)
        facts = folder.stat()
    except OSError:
        return False
    return facts.st_uid == os.getuid() and not facts.st_mode & 0o022
