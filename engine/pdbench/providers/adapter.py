"""What every adapter of a real provider holds, and the call the official SDKs share.

:class:`Adapter` holds the model, the endpoint, the timeout, the ``params`` passed through as
they are (checked by :mod:`pdbench.providers.params`) and the usage of the last call;
:func:`adapter_options` reads them from an LLM's config for the adapters' ``build``.

:class:`SDKAdapter` is the part the adapters on the official ``openai`` and ``anthropic``
SDKs share: both build a client from a key, a base URL and a timeout (with the SDK's own
retries off: the gateway owns retries), make one call per prompt and share one exception
layout (:mod:`pdbench.providers.sdk_errors`); each call has a total deadline of ``timeout_s``
(:mod:`pdbench.providers.deadline`). An adapter says what it sends
(:meth:`SDKAdapter.request`), how (:meth:`SDKAdapter.send`) and what it reads back
(:meth:`SDKAdapter.read`).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from dataclasses import InitVar, dataclass, field
from types import ModuleType
from typing import Any, ClassVar, NoReturn, TypedDict

from pdbench.providers.base import Usage
from pdbench.providers.deadline import deadline_client, tls_context
from pdbench.providers.failures import Failure, MalformedReply, reading_reply
from pdbench.providers.identity import describe, endpoint_variables, public_url
from pdbench.providers.sdk_errors import classify_sdk_error

__all__ = ["Adapter", "AdapterOptions", "SDKAdapter", "adapter_options"]

_NOT_IN_A_REPLY = frozenset({"timeout_s", "last_usage", "base_url", "api_key"})


class AdapterOptions(TypedDict):
    """The fields of :class:`Adapter`, as an LLM's config sets them."""

    model: str
    base_url: str | list[str] | None
    timeout_s: float
    params: dict[str, Any]


def adapter_options(settings: Any) -> AdapterOptions:
    """The fields of an adapter from an LLM's config (its provider settings)."""
    return AdapterOptions(
        model=settings.model,
        base_url=settings.base_url,
        timeout_s=settings.transport.timeout_s,
        params=dict(settings.params),
    )


@dataclass(kw_only=True, eq=False)
class Adapter:
    """A real provider's adapter: the model and how to reach it."""

    model: str
    base_url: str | list[str] | None = None
    """The server (None: the vendor's default); a list: a pool of servers of the same model,
    which calls go to in turn (:meth:`next_server`)."""
    timeout_s: float = 60.0
    """Seconds one request may take."""
    params: dict[str, Any] = field(default_factory=dict)
    """Request parameters passed through as they are."""
    last_usage: Usage | None = field(default=None, init=False)
    """What the last call used, as the provider reported it (None before a reply)."""

    def __post_init__(self) -> None:
        self.params = dict(self.params)
        self.servers: tuple[str | None, ...] = (
            tuple(self.base_url) if isinstance(self.base_url, list) else (self.base_url,)
        )
        self._turns = itertools.count()

    def next_server(self) -> int:
        """The position in :attr:`servers` of the server the next call goes to: each in turn
        (``next`` on a counter is atomic, so threads sharing the adapter take turns too)."""
        return next(self._turns) % len(self.servers)

    def endpoints(self) -> list[Any]:
        """The servers calls go to, as public URLs; a server left to the vendor's default is
        named by the environment variables that could point it elsewhere."""
        return [public_url(s) if s else {"default": endpoint_variables()} for s in self.servers]

    def reply_identity(self) -> dict[str, Any]:
        """What this adapter answers as (:mod:`pdbench.providers.identity`): every field it
        was built from but the timeout and the key, and its resolved endpoints."""
        fields = {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name not in _NOT_IN_A_REPLY
        }
        return {**describe(fields), "endpoints": self.endpoints()}


@dataclass(kw_only=True, eq=False)
class SDKAdapter(Adapter):
    """An adapter on an official SDK (see the module); the key goes to the SDK client only."""

    sdk: ClassVar[ModuleType]
    """The SDK module: its client class and exceptions."""
    client_class: ClassVar[Callable[..., Any]]
    """The SDK's client (``openai.OpenAI``, ``anthropic.Anthropic``)."""
    api_key: InitVar[str]

    def __post_init__(self, api_key: str) -> None:
        super().__post_init__()
        # every call ends within its deadline, however slowly its body comes
        self._clients = [
            self.client_class(
                api_key=api_key,
                base_url=url,
                timeout=self.timeout_s,
                max_retries=0,
                http_client=deadline_client(self.timeout_s, sdk=self.sdk),
            )
            for url in self.servers
        ]
        # a batch's results file may take longer than one call to download: per-read timeouts
        self._batch_client = self.client_class(
            api_key=api_key,
            base_url=self.servers[0],
            timeout=self.timeout_s,
            max_retries=0,
            http_client=self.sdk.DefaultHttpxClient(verify=tls_context(self.sdk)),
        )

    def endpoints(self) -> list[Any]:
        """The servers as the SDK resolved them (``base_url``, else ``OPENAI_BASE_URL`` or
        ``ANTHROPIC_BASE_URL``, read from the environment or ``.env``, else the vendor's)."""
        return [public_url(str(client.base_url)) for client in self._clients]

    def client(self) -> Any:
        """The SDK client of the server the next call goes to."""
        return self._clients[self.next_server()]

    def batch_client(self) -> Any:
        """The SDK client batches go to: a batch is submitted, polled and read on one server,
        the first of the pool."""
        return self._batch_client

    def request(
        self, *, system: str, prompt: str, temperature: float, max_tokens: int
    ) -> dict[str, Any]:
        """The keyword arguments of the SDK call for one prompt."""
        raise NotImplementedError

    def send(self, request: dict[str, Any]) -> Any:
        """The SDK call: its response."""
        raise NotImplementedError

    def read(self, response: Any) -> tuple[str, Usage]:
        """The reply's text and usage (:meth:`malformed` when the response is not one)."""
        raise NotImplementedError

    def complete(self, *, system: str, prompt: str, temperature: float, max_tokens: int) -> str:
        """The reply's text; what the call used goes to ``last_usage``."""
        self.last_usage = None
        request = self.request(
            system=system, prompt=prompt, temperature=temperature, max_tokens=max_tokens
        )
        response = self.send(request)
        with reading_reply():
            text, self.last_usage = self.read(response)
        if not isinstance(text, str):
            self.malformed("the reply's text is not a string")
        return text

    def malformed(self, message: str) -> NoReturn:
        """Raise :class:`MalformedReply` for a response body that is not what the API promises
        (a transient failure: the gateway retries it, a bounded number of times)."""
        raise MalformedReply(message)

    def classify_error(self, exc: BaseException) -> Failure:
        """Transient or fatal (see :mod:`pdbench.providers.failures`)."""
        return classify_sdk_error(exc, sdk=self.sdk)
