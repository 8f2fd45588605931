"""One scrubber for every file pdbench writes a config or an error into."""

from __future__ import annotations

import random
import string

import pytest
from pdbench.redact import MASK, looks_like_key, redacted, redacted_text

# a fixed draw: test ids must be the same in every pytest-xdist worker
_DRAW = random.Random(20261127)
RANDOM = "".join(_DRAW.choice(string.ascii_letters + string.digits) for _ in range(40))


@pytest.mark.parametrize(
    "word",
    [
        "sk-proj-Ab3dE5gH7jK9mN1pQ3sT5",
        "sk-ant-api03-xyzXYZ0123456789abcd",
        "AKIAIOSFODNN7EXAMPLE",
        "ghp_aB3cD4eF5gH6iJ7kL8mN9oP0qR",
        RANDOM,
    ],
)
def test_keys_look_like_keys(word: str):
    assert looks_like_key(word)


@pytest.mark.parametrize(
    "word",
    [
        "0123456789abcdef" * 4,  # a sha256 digest
        "OPENAI_API_KEY",
        "test_a_malformed_reply_that_persists",
        "pd_round/llm_vs_tft/0/1/agent_a/1",
        "MyExperimentRun2026November26Final",
        "gpt-4o-mini-2024-07-18",
    ],
)
def test_names_hashes_and_ids_are_kept(word: str):
    assert not looks_like_key(word)
    assert redacted_text(word) == word


def test_a_url_keeps_its_host_and_loses_its_password():
    url = "https://alice:hunter2@proxy.example:8443/v1?api_key=abc&region=eu"
    assert redacted_text(url) == f"https://{MASK}@proxy.example:8443/v1?api_key={MASK}&region=eu"


def test_every_secret_of_a_config_snapshot_is_masked():
    snapshot = {
        "run_id": "small",
        "config_sha256": "ab" * 32,
        "agent": {
            "base_url": ["http://bob:s3cret@127.0.0.1:9/v1", "http://127.0.0.1:10/v1"],
            "api_key_env": "PDBENCH_TEST_API_KEY",
            "max_tokens": 16,
            "params": {
                "extra_body": {
                    "api_key": "short",
                    "Authorization": "Bearer abc",
                    "clientSecret": "x",
                    "note": f"use {RANDOM} here",
                    "headers": {"x-auth-token": "t"},
                },
                "seed": 3,
            },
        },
        "pasted": {"api_key_env": "sk-live-0123456789abcdefABCDEF"},
    }
    clean = redacted(snapshot)
    assert clean["config_sha256"] == "ab" * 32 and clean["run_id"] == "small"
    agent = clean["agent"]
    assert agent["base_url"] == [f"http://{MASK}@127.0.0.1:9/v1", "http://127.0.0.1:10/v1"]
    assert agent["api_key_env"] == "PDBENCH_TEST_API_KEY"  # a variable's name, kept
    assert agent["max_tokens"] == 16 and agent["params"]["seed"] == 3
    extra = agent["params"]["extra_body"]
    assert extra["api_key"] == extra["Authorization"] == extra["clientSecret"] == MASK
    assert extra["headers"]["x-auth-token"] == MASK
    assert extra["note"] == f"use {MASK} here"
    assert clean["pasted"]["api_key_env"] == MASK
