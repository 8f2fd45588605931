"""A total deadline per request: ``timeout_s`` bounds the whole reply, not each read.

httpx (under the ``openai`` and ``anthropic`` SDKs and LiteLLM) applies its timeout to every
read, so a server that drips one byte a second never times out. The transport made here wraps
httpx's own: the clock starts when the request is sent, and a body still arriving ``timeout_s``
later (the request's own read timeout) ends in httpx's ``ReadTimeout``, which the SDKs turn into
their timeout error: a transient failure like any other timeout. The last read waits at most
the per-read timeout, so a request ends within about twice ``timeout_s``, however slowly its
body comes.

:func:`deadline_client` is the httpx client every adapter hands its SDK (built from the httpx
package that SDK uses: some SDK releases ship their own copy of httpx under another name).
Every client of a process shares one TLS context (:func:`tls_context`): building one reads
the whole certificate store, which costs tens of milliseconds (hundreds on a busy machine),
and the context is safe to share between threads.
"""

from __future__ import annotations

import functools
import importlib
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import httpx

__all__ = ["deadline_client", "deadline_transport", "tls_context"]


def deadline_client(timeout_s: float, *, sdk: ModuleType | None = None) -> Any:
    """An httpx client (of ``sdk``'s httpx package; plain httpx without one) whose requests
    end at their timeout in all (see the module)."""
    http = _httpx_of(sdk)
    return http.Client(
        transport=deadline_transport(http),
        timeout=timeout_s,
        follow_redirects=True,
        verify=_tls_context(http),
    )


def tls_context(sdk: ModuleType | None = None) -> Any:
    """The TLS context every client of ``sdk``'s httpx package shares in this process
    (see the module)."""
    return _tls_context(_httpx_of(sdk))


@functools.cache
def _tls_context(http: ModuleType) -> Any:
    # as httpx builds its default one: certifi's store, or SSL_CERT_FILE / SSL_CERT_DIR
    return http.create_ssl_context()


def _httpx_of(sdk: ModuleType | None) -> ModuleType:
    default_client = getattr(sdk, "DefaultHttpxClient", None)
    if default_client is None:
        return httpx
    base = next(k for k in default_client.__mro__ if k.__name__ == "Client")
    return importlib.import_module(base.__module__.split(".")[0])


@functools.cache
def _classes(http: ModuleType) -> type:
    class DeadlineStream(http.SyncByteStream):  # type: ignore[name-defined,misc]
        def __init__(self, inner: Any, *, request: Any, deadline: float, total_s: float) -> None:
            self._inner = inner
            self._request = request
            self._deadline = deadline
            self._total_s = total_s

        def __iter__(self) -> Iterator[bytes]:
            for chunk in self._inner:
                if time.monotonic() > self._deadline:
                    raise http.ReadTimeout(
                        f"the reply took longer than {self._total_s:g} s in all",
                        request=self._request,
                    )
                yield chunk

        def close(self) -> None:
            self._inner.close()

    class DeadlineTransport(http.BaseTransport):  # type: ignore[name-defined,misc]
        """httpx's transport, with every response body cut off at the request's deadline."""

        def __init__(self) -> None:
            self._inner = http.HTTPTransport(verify=_tls_context(http))

        def handle_request(self, request: Any) -> Any:
            started = time.monotonic()
            response = self._inner.handle_request(request)
            total = (request.extensions.get("timeout") or {}).get("read")
            if total is not None:
                response.stream = DeadlineStream(
                    response.stream,
                    request=request,
                    deadline=started + float(total),
                    total_s=float(total),
                )
            return response

        def close(self) -> None:
            self._inner.close()

    return DeadlineTransport


def deadline_transport(http: ModuleType = httpx) -> Any:
    """A transport of the httpx package ``http`` whose response bodies end at the request's
    read timeout, counted from when the request was sent."""
    return _classes(http)()
