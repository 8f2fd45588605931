"""The manifest of an imported run: what every format writes alike (status, seed, the
environment, ``source: imported`` and the import record); the game's own sections come from
its writer."""

from __future__ import annotations

import platform
import sys
from typing import Any

from pdbench.clock import utc_timestamp
from pdbench.providers.base import sdk_packages
from pdbench.storage.manifest import canonical_sha256, git_commit, package_versions
from pdbench.storage.records.manifest import ImportRecord, RunManifest

__all__ = ["IMPORT_SEED", "imported_manifest"]

IMPORT_SEED = 0
"""The seed of every imported run: nothing was drawn, but the marts' bootstrap and
permutation streams derive from it."""


def imported_manifest(
    game: str,
    run_id: str,
    *,
    config: dict[str, Any],
    record: ImportRecord,
    started_at: str,
    counts: dict[str, int],
    **sections: Any,
) -> RunManifest:
    """A completed run of ``game`` read from ``record``'s sources; ``sections`` are the
    game's own manifest fields (``metric_params``, ``scoring``)."""
    return RunManifest(
        run_id=run_id,
        game=game,
        status="completed",
        seed=IMPORT_SEED,
        config_path=f"import:{record.format}",
        config_sha256=canonical_sha256(config),
        config=config,
        versions=package_versions(sdk_packages()),
        git_commit=git_commit(),
        python=sys.version.split()[0],
        platform=platform.platform(),
        started_at=started_at,
        finished_at=utc_timestamp(),
        counts=counts,
        source="imported",
        imported=record,
        **sections,
    )
