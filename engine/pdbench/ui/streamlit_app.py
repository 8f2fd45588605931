"""The read-only viewer of a run directory (or of a series, a folder gathering runs of a game
such as the one ``pdbench leaderboard`` writes): ``pdbench ui <run_dir>`` starts it.

Run as ``streamlit run streamlit_app.py -- --run-dir <run_dir> [--runs-root data/runs]``.
The sidebar also offers every run under ``--runs-root``; the page set follows the run's game
(the game's ``viewer``, :mod:`pdbench.games`). A run that cannot be shown yet
gets a message with the command that fixes it (:mod:`pdbench.ui.run_check`). Every name and
path a run brings (its id, its folder, its config's path, its agents', conditions' and
players' names) reaches Markdown only through :func:`pdbench.model_text.escaped`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import duckdb
import streamlit as st

from pdbench.game import imported
from pdbench.games import GAMES, series_game
from pdbench.model_text import escaped
from pdbench.storage.schema import RunFiles
from pdbench.ui import overview_page
from pdbench.ui.run_check import RunProblem, ViewableRun, check_run, find_runs

__all__ = ["main", "parse_args"]


def _render(run: ViewableRun) -> None:
    """Draw the pages of the run's game (its ``viewer``: ``"module:function"``)."""
    imported(GAMES[run.game].viewer)(run)


def parse_args(argv: list[str]) -> argparse.Namespace:
    """``--run-dir`` (the run to open) and ``--runs-root`` (where to look for others)."""
    parser = argparse.ArgumentParser(prog="pdbench-viewer")
    parser.add_argument("--run-dir", type=Path, default=None)
    parser.add_argument("--runs-root", type=Path, default=Path("data/runs"))
    args, _ = parser.parse_known_args(argv)
    return args


def _choose_run(given: Path | None, runs_root: Path, *, folder: bool = False) -> Path | None:
    """The run chosen in the sidebar: ``given``, then every run under ``runs_root``; with
    ``folder``, ``given`` is a folder of runs, offered first as its run list."""
    options: list[Path] = [] if given is None else [given]
    seen = {path.resolve() for path in options}
    for path in find_runs(runs_root):
        if path.resolve() not in seen:
            options.append(path)
            seen.add(path.resolve())
    if not options:
        return None
    choice = st.sidebar.selectbox(
        "Run",
        [str(path) for path in options],
        key="run",
        format_func=lambda path: (
            (f"all runs in {Path(path).name}" if folder and path == str(given) else Path(path).name)
            or path
        ),
        help=f"The run given on the command line, then every run under {escaped(runs_root)}.",
    )
    return Path(choice)


def _is_runs_folder(path: Path | None) -> bool:
    """Whether ``path`` is a folder of runs (neither a run nor a series itself)."""
    if path is None or not path.is_dir() or series_game(path) is not None:
        return False
    return not (path / RunFiles.MANIFEST).is_file() and bool(find_runs(path))


def _show_problem(problem: RunProblem) -> None:
    shown = st.warning if problem.kind in ("missing", "not_a_run", "unreadable") else st.info
    shown(escaped(problem.message))
    st.code(problem.command, language="bash")


def main(argv: list[str] | None = None) -> None:
    """Draw the viewer for the run chosen in the sidebar."""
    st.set_page_config(page_title="pdbench viewer", page_icon="🎲", layout="wide")
    args = parse_args(sys.argv[1:] if argv is None else argv)
    st.sidebar.title("pdbench viewer")
    if _is_runs_folder(args.run_dir):
        folder = args.run_dir
        run_dir = _choose_run(folder, folder, folder=True)
        if run_dir == folder:
            overview_page.run_list(folder)
            return
    else:
        run_dir = _choose_run(args.run_dir, args.runs_root)
    if run_dir is None:
        st.title("pdbench viewer")
        st.info("No run to show. Play the demo, then open it:")
        st.code(
            "uv run pdbench run configs/experiment.yaml\nuv run pdbench ui data/runs/demo",
            language="bash",
        )
        return
    series_of = series_game(run_dir)
    if series_of is not None and series_of.series is not None:
        imported(series_of.series.viewer)(run_dir)
        return
    checked = check_run(run_dir)
    if isinstance(checked, RunProblem):
        st.title("pdbench viewer")
        _show_problem(checked)
        return
    manifest = checked.manifest
    st.title(escaped(checked.run_id))
    st.caption(
        f"{GAMES[checked.game].title} · status {manifest.status} · seed {manifest.seed} · "
        f"config {escaped(manifest.config_path)} · started {escaped(manifest.started_at)} · "
        f"{escaped(run_dir)}"
    )
    if checked.stale_message is not None:
        st.warning(escaped(checked.stale_message))
        st.code(checked.aggregate_command, language="bash")
    if manifest.status != "completed":
        st.info(
            f"This run's status is `{manifest.status}`: the tables show what was aggregated so far."
        )
    try:
        _render(checked)
    except (duckdb.Error, OSError) as exc:
        # a damaged or half-written mart: say which, and the command that builds it again
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        st.warning(
            escaped(f"A table of this run cannot be read ({first}). Build the tables again:")
        )
        st.code(f"uv run pdbench aggregate {run_dir}", language="bash")


main()
