"""Timestamps as the run directory stores them: ISO 8601 UTC with a ``Z`` suffix."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["utc_timestamp"]


def utc_timestamp() -> str:
    """Now, e.g. ``2025-01-31T12:00:00.123456Z``."""
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")
