"""``cgm serve``: an execution service speaking SandboxFusion's API, for training loops."""

from __future__ import annotations

import argparse
import os
import sys

from ...base.errors import InputError
from . import _arguments

DESCRIPTION = """\
Serve the sandbox over HTTP with SandboxFusion's API, so that its clients (verl's
reward_model.sandbox_fusion.url, the sandbox-fusion package) run programs here unchanged,
without Docker or privileges: GET /v1/ping, POST /run_code (code, language in SandboxFusion's
names, compile_timeout, run_timeout, memory_limit_MB, stdin, files). Also POST /v1/batch (many
programs in one request, answers in order or streamed as NDJSON) and GET /v1/health (queue,
workers alive, programs run).

Nothing is lost or hung: the queue is bounded (beyond it 503 with Retry-After), a request
waits at most --queue-timeout seconds for a worker (then 504, which verl retries), a worker
that dies mid-program is replaced and its request answers SandboxError (never Failed), a
client that disconnects cancels its program, and SIGTERM drains the requests in flight.

It listens on the loopback interface unless --host is given, and then only with --token
(or $CGM_SERVE_TOKEN) or an explicit --no-auth.

examples:
  cgm serve                                # 127.0.0.1:8080, one worker a core
  cgm serve --workers 16 --port 9000
  cgm serve --host 0.0.0.0 --token "$(openssl rand -hex 16)"
  cgm serve --ray auto                     # programs on a Ray cluster's sandbox actors
  # verl: reward_model.sandbox_fusion.url=http://127.0.0.1:8080/run_code
"""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve the sandbox over HTTP with SandboxFusion's API (for training loops)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", default="127.0.0.1",
                        help="interface to listen on (default: 127.0.0.1, this machine only; "
                        "any other needs --token or --no-auth)")
    parser.add_argument("--port", type=_port, default=8080, help="port (default: 8080)")
    parser.add_argument("--workers", type=_arguments.positive_int, default=None, metavar="N",
                        help="warm sandbox workers (default: one a core; with --ray, one a "
                        "CPU of the cluster)")
    parser.add_argument("--token", default=None, metavar="SECRET",
                        help="require `Authorization: Bearer SECRET` (or ?token=SECRET); "
                        "default: $CGM_SERVE_TOKEN if set")
    parser.add_argument("--no-auth", action="store_true",
                        help="serve a non-loopback --host without a token (a trusted network)")
    parser.add_argument("--ray", nargs="?", const="auto", default=None, metavar="ADDRESS",
                        help="run programs on a Ray cluster's sandbox actors (ADDRESS: "
                        "'auto' when omitted, 'local', or host:port)")
    parser.add_argument("--queue", type=_arguments.positive_int, default=1024, metavar="N",
                        help="programs that may wait for a worker; beyond them 503 with "
                        "Retry-After (default: 1024)")
    parser.add_argument("--queue-timeout", type=_seconds, default=25.0, metavar="S",
                        help="seconds a program may wait for a worker before its request "
                        "answers 504 (default: 25, below verl's client timeout)")
    parser.add_argument("--max-timeout", type=_seconds, default=300.0, metavar="S",
                        help="the longest compile_timeout or run_timeout a request may set "
                        "(default: 300)")
    parser.add_argument("--memory-mb", type=_arguments.positive_int, default=4096, metavar="MB",
                        help="address space per process when a request sets memory_limit_MB "
                        "-1 (default: 4096)")
    parser.add_argument("--max-memory-mb", type=_arguments.positive_int, default=16384,
                        metavar="MB", help="the largest memory_limit_MB a request may set "
                        "(default: 16384)")
    parser.add_argument("--max-output", type=_arguments.positive_int, default=8 * 1024 * 1024,
                        metavar="BYTES", help="a program's stdout is kept whole up to this "
                        "many bytes; one that writes more is killed (run_result.limit "
                        "'output'; default: 8 MiB)")
    parser.add_argument("--max-body", type=_arguments.positive_int, default=16 * 1024 * 1024,
                        metavar="BYTES", help="the largest request body (default: 16 MiB); "
                        "larger ones answer 413")
    parser.add_argument("--max-batch", type=_arguments.positive_int, default=1024, metavar="N",
                        help="the most programs in one /v1/batch request (default: 1024)")
    parser.add_argument("--drain-timeout", type=_seconds, default=60.0, metavar="S",
                        help="on SIGTERM, seconds the requests in flight may take to end "
                        "(default: 60)")
    parser.set_defaults(run=run)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a port number, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number (0-65535), got {text!r}")
    return port


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not 0 < value <= 86_400:
        raise argparse.ArgumentTypeError(f"must be seconds in (0, 86400], got {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise InputError("cgm serve needs FastAPI and uvicorn: pip install "
                         "'cgm-metrics[serve]'") from None
    from ..service.app import ServiceConfig
    from ..service.protocol import Settings
    from ..service.server import serve

    token = args.token if args.token is not None else os.environ.get("CGM_SERVE_TOKEN") or None
    if args.memory_mb > args.max_memory_mb:
        raise InputError(f"--memory-mb {args.memory_mb} is above --max-memory-mb "
                         f"{args.max_memory_mb}; lower one or raise the other.")
    try:
        settings = Settings(max_timeout=args.max_timeout, memory_mb=args.memory_mb,
                            max_memory_mb=args.max_memory_mb, max_output_bytes=args.max_output)
    except ValueError as error:
        raise InputError(str(error).replace("`memory_mb`", "--memory-mb")) from None
    config = ServiceConfig(settings=settings, max_body=args.max_body,
                           max_batch=args.max_batch, queue_timeout=args.queue_timeout)

    def ready(pool) -> None:
        engine = f"Ray ({args.ray})" if args.ray else "local"
        print(f"cgm serve: listening on http://{args.host}:{args.port} with {pool.size} "
              f"{engine} sandbox worker(s); POST /run_code, /v1/batch; GET /v1/health",
              file=sys.stderr, flush=True)

    serve(args.host, args.port, workers=args.workers, token=token, no_auth=args.no_auth,
          ray=args.ray, config=config, max_queue=args.queue,
          drain_timeout=args.drain_timeout, log_level="warning", ready=ready)
    return 0
