"""``cgm serve``'s server: the pool, the application and uvicorn, with a graceful stop.

SIGTERM (or SIGINT) stops the server taking work: it stops listening, new requests on open
connections answer 503 ``Draining``, and the requests in flight run to their end (at most
``drain_timeout`` seconds) before the workers are ended.

Secure by default: the server listens on the loopback interface; any other ``host`` needs a
``token`` (clients then send ``Authorization: Bearer TOKEN``) or an explicit
``no_auth=True``. Programs run in the sandbox as everywhere else (nothing of the server's
files, environment or network is visible to them).
"""

from __future__ import annotations

import ipaddress
import os
from typing import Any

from ...base.errors import InputError
from ...execution.sandbox import Limits
from .app import ServiceConfig, create_app
from .pool import Pool

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080


def is_loopback(host: str) -> bool:
    """Whether ``host`` names the loopback interface only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, token: str | None, no_auth: bool) -> None:
    """An :class:`InputError` when ``host`` is reachable from other machines without a token
    and without an explicit ``no_auth``."""
    if token is not None and not token.strip():
        raise InputError("--token is empty; give a secret of your choosing (e.g. "
                         "`--token \"$(openssl rand -hex 16)\"`).")
    if token is not None and no_auth:
        raise InputError("--token and --no-auth contradict each other; give one.")
    if not is_loopback(host) and token is None and not no_auth:
        raise InputError(
            f"--host {host} lets other machines run programs here: give --token SECRET "
            "(clients send `Authorization: Bearer SECRET`), or --no-auth to serve without "
            "one on a network you trust.")


def default_workers() -> int:
    """One worker a core (of those this process may use)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def build_pool(workers: int | None = None, *, max_queue: int = 1024,
               memory_mb: int | None = None, require_isolation: bool = True,
               ray: str | None = None) -> Pool:
    """A started :class:`~.pool.Pool` (``workers`` None: one a core; with ``ray``, one actor
    per CPU of that cluster unless ``workers`` caps them)."""
    limits = Limits() if memory_mb is None else Limits(memory_mb=memory_mb)
    count = (0 if ray is not None else default_workers()) if workers is None else workers
    pool = Pool(count, max_queue=max_queue, limits=limits, require_isolation=require_isolation,
                ray=ray)
    pool.start()
    return pool


def serve(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *, workers: int | None = None,
          token: str | None = None, no_auth: bool = False, ray: str | None = None,
          config: ServiceConfig | None = None, max_queue: int = 1024,
          require_isolation: bool = True, drain_timeout: float = 60.0,
          log_level: str = "warning", ready: Any = None) -> None:
    """Run the service until SIGTERM or SIGINT (blocking). ``ready(pool)`` is called once the
    workers are set up and the server listens."""
    import uvicorn

    check_exposure(host, token, no_auth)
    config = config if config is not None else ServiceConfig()
    if token is not None:
        config = ServiceConfig(settings=config.settings, max_body=config.max_body,
                               max_batch=config.max_batch, queue_timeout=config.queue_timeout,
                               token=token)
    pool = build_pool(workers, max_queue=max_queue, memory_mb=config.settings.memory_mb,
                      require_isolation=require_isolation, ray=ray)
    app = create_app(pool, config)
    if config.token is not None:
        from .app import _Auth

        app = _Auth(app, config.token)

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            pool.drain()  # new requests answer 503 at once; those in flight run to their end
            super().handle_exit(sig, frame)

        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if ready is not None and not self.should_exit:
                ready(pool)

    server = Server(uvicorn.Config(app, host=host, port=port, log_level=log_level,
                                   timeout_graceful_shutdown=int(drain_timeout),
                                   access_log=False, lifespan="off"))
    try:
        server.run()
    finally:
        pool.close()
