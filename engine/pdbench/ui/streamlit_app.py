"""The viewer of one run directory (read-only): ``pdbench ui <run_dir>`` starts it.

Run as ``streamlit run streamlit_app.py -- --run-dir <run_dir>``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import streamlit as st

__all__ = ["main"]


def main() -> None:
    """Show the run id and the manifest of ``--run-dir``."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--run-dir", type=Path, required=True)
    args, _ = parser.parse_known_args()
    manifest_path = args.run_dir / "run_manifest.json"
    if not manifest_path.is_file():
        st.error(f"{args.run_dir}: not a run directory (no run_manifest.json)")
        return
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    st.title(f"pdbench run {manifest['run_id']}")
    st.caption(f"status: {manifest['status']} · game: {manifest['game']}")
    st.json(manifest)


main()
