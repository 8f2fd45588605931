"""The dbt Jinja functions the macros use that sqlfluff's Jinja templater lacks (``.sqlfluff``:
``library_path``): ``fromyaml``, which reads the metric catalogues (macros/*_catalogue.sql)."""

from __future__ import annotations

from typing import Any

import yaml


def fromyaml(text: str, default: Any = None) -> Any:
    """dbt's ``fromyaml``: the YAML ``text`` parsed, ``default`` when it is not YAML."""
    try:
        return yaml.safe_load(str(text))
    except yaml.YAMLError:
        return default
