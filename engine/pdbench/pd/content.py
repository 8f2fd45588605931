"""What a PD run directory holds, as the dbt tags of the models it has no input for.

``pdbench aggregate`` builds only what a run can fill: a model tagged ``pd_<content>`` in
``dbt_project/dbt_project.yml`` reads what only a run holding that content has, and is left out
of the build of any other run (its mart is then written empty,
:mod:`pdbench.empty_marts`). The run says what it holds through its manifest's config
snapshot and its raw files; a config key the snapshot lacks (a run written by another tool)
counts as present, so nothing is left out on a guess.
"""

from __future__ import annotations

import json
from pathlib import Path

from pdbench.pd.records import PDFiles
from pdbench.storage.schema import RunFiles
from pdbench.storage.shards import records_written

__all__ = ["CONTENT_TAGS", "absent_content"]

CONTENT_TAGS = {
    "pd_round_robin": "a round_robin section (the evolutionary dynamics: ecosystem, Moran)",
    "pd_fingerprint": "a fingerprint section (the probe grid)",
    "pd_comparisons": "at least two replicates (paired comparisons of conditions)",
    "pd_calls": "a provider call in calls.jsonl (LLM agents)",
    "pd_statements": "a stated strategy in statements.jsonl (elicit_strategy)",
}
"""The content tags of the PD's models, and what a run must hold for them to be built."""


def absent_content(run_dir: Path) -> tuple[str, ...]:
    """The content tags (:data:`CONTENT_TAGS`) of what ``run_dir`` does not hold."""
    manifest = json.loads((run_dir / RunFiles.MANIFEST).read_text(encoding="utf-8"))
    config = manifest.get("config")
    config = config if isinstance(config, dict) else {}
    absent = []
    if "round_robin" in config and not config["round_robin"]:
        absent.append("pd_round_robin")
    if "fingerprint" in config and not config["fingerprint"]:
        absent.append("pd_fingerprint")
    if isinstance(config.get("replicates"), int) and config["replicates"] < 2:
        absent.append("pd_comparisons")
    if not records_written(run_dir, RunFiles.CALLS):
        absent.append("pd_calls")
    if not records_written(run_dir, PDFiles.STATEMENTS):
        absent.append("pd_statements")
    return tuple(absent)
