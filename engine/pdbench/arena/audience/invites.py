"""Who may vote: one invite per voter, issued by the organiser, as a link.

``pdbench audience <run_dir> --invite N`` draws N random tokens (:func:`issue_invites`),
appends their sha256 to ``audience_invites.jsonl`` in the run directory and prints each as a
link (``...?invite=<token>``); the tokens themselves are stored nowhere, so the file holds no
secret, and a token no one was given cannot be guessed (128 random bits). The page takes a
vote only from an address that carries a token whose sha256 is in the file
(:func:`invited_voter`); the voter id a vote records is derived from the token, so one
invite is one voter, whatever the browser, the tab or the session: under the audience's rule
(:func:`pdbench.arena.audience.votes.cast_vote`) its vote on an answer counts once. A page without
a token, or with one the file does not hold, takes no vote. Invites issued while the page
serves are valid at once (the file is read on every page run).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import secrets
import socket
from pathlib import Path

from pdbench.arena.records import ArenaFiles
from pdbench.clock import utc_timestamp
from pdbench.errors import RunDirError
from pdbench.storage.jsonl import dumps_line, read_jsonl

__all__ = [
    "INVITES_FILE",
    "INVITE_PARAM",
    "MAX_INVITES",
    "NO_INVITE",
    "UNKNOWN_INVITE",
    "invitation_lines",
    "invite_links",
    "invited_voter",
    "issue_invites",
    "no_invite_line",
    "page_url",
]

INVITES_FILE = ArenaFiles.AUDIENCE_INVITES
"""The run directory's file of invites: one line per invite, its sha256 and when it was
issued."""
INVITE_PARAM = "invite"
"""The name of the token in the page's address."""
MAX_INVITES = 10_000
"""The most invites one command issues."""
NO_INVITE = (
    "Votes are taken by invitation: open the link the organiser gave you (it ends in "
    f"?{INVITE_PARAM}=...). Nothing was recorded."
)
"""What the page says to an address without an invite."""
UNKNOWN_INVITE = (
    "This invite is not one of this run's (mistyped, cut short, or for another run): open the "
    "link the organiser gave you as it is, or ask them for one. Nothing was recorded."
)
"""What the page says to an address whose invite is not one of the run's."""
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
"""What a token looks like (``secrets.token_urlsafe``); anything else is not looked up."""
_DIGEST = re.compile(r"[0-9a-f]{64}")


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def issue_invites(run_dir: Path, count: int) -> list[str]:
    """Draw ``count`` new tokens and append their sha256 to the run directory's invites file
    (whole lines, under the file's ``flock``, synced); the tokens, which nothing keeps."""
    tokens = [secrets.token_urlsafe(16) for _ in range(count)]
    issued_at = utc_timestamp()
    lines = "".join(
        dumps_line({"invite_sha256": _digest(token), "issued_at": issued_at}) for token in tokens
    ).encode("utf-8")
    fd = os.open(run_dir / INVITES_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        view = memoryview(lines)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
    return tokens


def invited_voter(run_dir: Path, token: object) -> str | None:
    """The voter id of ``token`` (the page's ``?invite=``) if it is an invite of this run
    (the first 32 hex digits of its sha256), else None: no token, a malformed one, or one
    the invites file does not hold. A damaged invites file is a one-line
    :class:`RunDirError` naming the file, the line and the field."""
    if not isinstance(token, str) or not _TOKEN.fullmatch(token):
        return None
    digest = _digest(token)
    return digest[:32] if digest in _issued(run_dir / INVITES_FILE) else None


def _issued(path: Path) -> set[str]:
    """The sha256 of every invite in ``path`` (none when no invite was issued)."""
    if not path.is_file():
        return set()
    digests = set()
    for line, record in enumerate(read_jsonl(path), start=1):
        digest = record.get("invite_sha256") if isinstance(record, dict) else None
        if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
            raise RunDirError(f"{path}: line {line}: invite_sha256: not a sha256 in hex")
        digests.add(digest)
    return digests


def invite_links(tokens: list[str], *, base_url: str) -> list[str]:
    """Each token as a link to the page at ``base_url``."""
    return [f"{base_url.rstrip('/')}/?{INVITE_PARAM}={token}" for token in tokens]


def page_url(address: str, port: int) -> str:
    """The page's address for voters, when it listens on ``address``:``port`` (every
    interface: this machine's name)."""
    host = socket.getfqdn() if address in ("0.0.0.0", "::", "") else address
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def invitation_lines(run_dir: Path, count: int, *, base_url: str) -> tuple[list[str], str]:
    """What ``pdbench audience <run_dir> --invite <count>`` prints: ``count`` new invite
    links, one a line, and a note saying what they are (they are shown this once)."""
    links = invite_links(issue_invites(run_dir, count), base_url=base_url)
    note = (
        f"{count} invite link{'' if count == 1 else 's'} for {run_dir}, one per voter (each "
        f"counts once per answer); only their sha256 is kept ({run_dir / INVITES_FILE}), so "
        "they are not shown again"
    )
    return links, note


def no_invite_line(run_dir: Path) -> str | None:
    """A warning when no invite was issued for ``run_dir``: nobody can vote yet."""
    if _issued(run_dir / INVITES_FILE):
        return None
    return (
        f"no invite issued for {run_dir}: the page takes no vote until "
        f"`pdbench audience {run_dir} --invite N` prints invite links (it takes them at once)"
    )
