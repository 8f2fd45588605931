"""Classifying the errors of the official ``openai`` and ``anthropic`` SDKs.

Both SDKs share one exception layout (``APITimeoutError`` < ``APIConnectionError``,
``APIStatusError`` with ``status_code`` and ``response``, ``APIResponseValidationError``),
so one classifier serves both; it is handed the SDK module so it never imports one itself.
"""

from __future__ import annotations

from types import ModuleType

from pdbench.providers.failures import Failure, classify_builtin, classify_status, headers_of

__all__ = ["classify_sdk_error"]

_FATAL_CODES = frozenset({"insufficient_quota", "billing_hard_limit_reached"})


def classify_sdk_error(exc: BaseException, *, sdk: ModuleType) -> Failure:
    """The failure an exception of ``sdk`` (openai or anthropic) means."""
    if isinstance(exc, sdk.APITimeoutError):
        return Failure(True, "timeout")
    if isinstance(exc, sdk.APIConnectionError):
        return Failure(True, "connection error")
    if isinstance(exc, sdk.APIResponseValidationError):
        return Failure(True, "malformed reply body")
    if isinstance(exc, sdk.APIStatusError):
        if getattr(exc, "code", None) in _FATAL_CODES:
            return Failure(False, f"quota exhausted ({exc.status_code})")
        return classify_status(exc.status_code, headers=headers_of(exc))
    return classify_builtin(exc)
