"""Where the repository's dbt project is: a leaf, so that the modules that only read the
project's files (its seeds, its sources) never import the code that runs it."""

from __future__ import annotations

from pathlib import Path

DBT_PROJECT_DIR = Path(__file__).resolve().parents[2] / "dbt_project"
"""The repository's dbt project (its ``profiles.yml`` links to ``dbt_profiles.yml``)."""
