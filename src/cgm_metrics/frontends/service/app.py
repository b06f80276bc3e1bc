"""The HTTP application of ``cgm serve`` (FastAPI): SandboxFusion's endpoints and ours.

Every request is answered, and none waits forever:

- a body larger than ``max_body`` bytes is refused with 413 before it is read whole; a body
  that is not UTF-8 JSON, a field of the wrong type, text UTF-8 cannot store, a ``files`` path
  that leaves the run's folder: 400, naming the field (``{"status": "InvalidRequest",
  "field": ..., "message": ...}``);
- the queue is bounded: beyond it, 503 with ``Retry-After`` at once; while the server drains
  (SIGTERM), 503 with ``Retry-After`` and ``Connection: close``;
- a request waits in the queue at most ``queue_timeout`` seconds (then 504 with
  ``Retry-After``: verl's client retries a 504), and runs at most its own limits plus a
  margin; past that its worker is killed and it answers ``SandboxError``;
- a harness failure (a worker that died mid-program, a toolchain that fails its canary)
  answers ``SandboxError`` with the cause: never ``Failed``, never a score;
- a client that disconnects cancels its work: out of the queue, or its worker killed (and
  replaced at once).

With a ``token``, every endpoint wants ``Authorization: Bearer TOKEN`` (or ``?token=TOKEN``
in the URL, for clients that cannot set a header, such as verl's); 401 otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from ...execution.runs import Cancelled as JudgeCancelled
from ...execution.sandbox import SandboxError
from .pool import Cancelled, Draining, Job, Pool, QueueFull
from .protocol import (
    RequestError,
    RunRequest,
    Settings,
    parse_run_code,
    run_code_answer,
    sandbox_error_answer,
)

#: the largest body a request may have, by default (bytes)
DEFAULT_MAX_BODY = 16 * 1024 * 1024
#: the most programs one batch request may hold, by default
DEFAULT_MAX_BATCH = 1024
#: seconds a request may wait in the queue, by default (below verl's own client timeout of
#: compile_timeout + run_timeout + 10 s at its defaults, so it sees a 504 and retries)
DEFAULT_QUEUE_TIMEOUT = 25.0
#: seconds beyond a program's own limits before its run counts as hung
RUN_MARGIN = 15.0


@dataclass(frozen=True)
class ServiceConfig:
    """What the application allows and how long it waits."""

    settings: Settings = Settings()
    max_body: int = DEFAULT_MAX_BODY
    max_batch: int = DEFAULT_MAX_BATCH
    queue_timeout: float = DEFAULT_QUEUE_TIMEOUT
    token: str | None = None


class _Refused(Exception):
    """An answer other than 200, with its headers."""

    def __init__(self, status: int, body: dict[str, Any],
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(body.get("message", ""))
        self.status = status
        self.body = body
        self.headers = headers or {}


def _refusal(status: int, reason: str, message: str, retry_after: int | None = None,
             close: bool = False) -> _Refused:
    headers = {}
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    if close:
        headers["Connection"] = "close"
    return _Refused(status, {"status": reason, "message": message}, headers)


class _Auth:
    """ASGI middleware: a bearer token (header, or ``token`` in the query) for every path."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.token = token.encode("utf-8")

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "http" and not self._allowed(scope):
            body = json.dumps({"status": "Unauthorized", "message": "this server wants a "
                               "token: send `Authorization: Bearer TOKEN` (or ?token=TOKEN)"}
                              ).encode()
            await send({"type": "http.response.start", "status": 401, "headers": [
                (b"content-type", b"application/json"), (b"www-authenticate", b"Bearer"),
                (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _allowed(self, scope: dict) -> bool:
        for name, value in scope.get("headers", []):
            if name == b"authorization" and value.startswith(b"Bearer "):
                return hmac.compare_digest(value[7:].strip(), self.token)
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = query.get("token", [""])[0].encode("utf-8")
        return bool(given) and hmac.compare_digest(given, self.token)


async def read_json(request: Any, limit: int) -> Any:
    """The request's body as JSON: 413 beyond ``limit`` bytes, 400 when it is not UTF-8
    JSON (a :class:`RequestError` naming ``body``)."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        raise RequestError("body", f"the body has {int(length)} bytes; this server takes at "
                           f"most {limit} (cgm serve --max-body).", status=413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise RequestError("body", f"the body is larger than {limit} bytes, the most this "
                               "server takes (cgm serve --max-body).", status=413)
        chunks.append(chunk)
    try:
        text = b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as error:
        raise RequestError("body", f"the body is not UTF-8 (byte {error.start}).") from None
    if not text.strip():
        raise RequestError("body", "the body is empty; send a JSON object.")
    try:
        return json.loads(text)
    except ValueError as error:
        raise RequestError("body", f"the body is not JSON: {error}.") from None


async def _disconnected(request: Any) -> None:
    """Returns when the client goes away (its body is read already)."""
    while True:
        message = await request.receive()
        if message.get("type") == "http.disconnect":
            return


class Service:
    """The application's state: its pool, what it allows, and its counters."""

    def __init__(self, pool: Pool, config: ServiceConfig) -> None:
        self.pool = pool
        self.config = config
        self.requests = 0
        self.answered: dict[str, int] = {}

    def _count(self, status: str) -> None:
        self.answered[status] = self.answered.get(status, 0) + 1

    def submit(self, jobs: list[Job]) -> None:
        try:
            self.pool.submit(jobs)
        except QueueFull as error:
            raise _refusal(503, "Busy", f"{error}; retry after {error.retry_after} s.",
                           retry_after=error.retry_after) from None
        except Draining as error:
            raise _refusal(503, "Draining", f"{error}; retry on another server or later.",
                           retry_after=5, close=True) from None

    async def outcome(self, job: Job, run: RunRequest, ahead: int = 0) -> dict[str, Any]:
        """The answer of ``job`` once it ended; a 504 :class:`_Refused` when it waited
        ``queue_timeout`` seconds for a worker (plus, for the program of a batch with
        ``ahead`` programs before it, their share of the workers' time), then taken out of
        the queue; a
        ``SandboxError`` answer when it ran past its limits plus a margin (its worker
        killed and replaced)."""
        waiter = asyncio.wrap_future(job.future)
        try:
            try:
                waited = self.config.queue_timeout + (ahead // self.pool.size) * run.seconds
                result = await asyncio.wait_for(asyncio.shield(waiter), waited)
            except (TimeoutError, asyncio.TimeoutError):
                if self.pool.cancel(job, "it waited too long", only_queued=True) == "queued":
                    raise _refusal(
                        504, "QueueTimeout", f"the program waited {waited:g} s in the queue "
                        "without a free worker; retry later or on another server.",
                        retry_after=self.pool.retry_after()) from None
                began = job.started_at if job.started_at is not None else time.monotonic()
                remaining = began + run.seconds + RUN_MARGIN - time.monotonic()
                try:
                    result = await asyncio.wait_for(asyncio.shield(waiter), max(0.0, remaining))
                except (TimeoutError, asyncio.TimeoutError):
                    self.pool.cancel(job, "its deadline passed")
                    if job.future.done() and not job.future.cancelled() and (
                            job.future.exception() is None):
                        return run_code_answer(job.future.result(), run.compile_steps)
                    return sandbox_error_answer(
                        f"the run passed its deadline (its limits, {run.seconds:g} s, plus "
                        f"{RUN_MARGIN:g} s) without an answer from its worker, which was killed "
                        "and replaced. This is a harness failure, not the program's.")
        except SandboxError as error:
            return sandbox_error_answer(str(error))
        except (Cancelled, Draining) as error:
            return sandbox_error_answer(f"the run was cancelled: {error}")
        return run_code_answer(result, run.compile_steps)


def create_app(pool: Pool, config: ServiceConfig | None = None) -> Any:
    """The FastAPI application over ``pool`` (started by the caller)."""
    config = config if config is not None else ServiceConfig()
    service = Service(pool, config)
    app = FastAPI(title="cgm-metrics execution service", docs_url=None, redoc_url=None,
                  openapi_url=None)
    app.state.service = service

    def refused(error: _Refused) -> Any:
        service._count(error.body.get("status", str(error.status)))
        return JSONResponse(error.body, status_code=error.status, headers=error.headers)

    def invalid(error: RequestError) -> Any:
        service._count("InvalidRequest")
        return JSONResponse(error.to_dict(), status_code=error.status)

    def draining_check() -> None:
        if pool.draining:
            raise _refusal(503, "Draining", "the server is shutting down and takes no new "
                           "work; retry on another server or later.", retry_after=5, close=True)

    @app.exception_handler(Exception)
    async def internal(request: Request, error: Exception) -> Any:  # pragma: no cover - a bug
        service._count("InternalError")
        return JSONResponse({"status": "InternalError",
                             "message": f"{type(error).__name__}: {error}"}, status_code=500)

    @app.get("/v1/ping")
    async def ping() -> str:
        return "pong"

    @app.get("/v1/health")
    async def health() -> dict[str, Any]:
        return {**pool.health(), "requests": service.requests,
                "answered": dict(service.answered), "submissions": dict(submits)}

    @app.post("/run_code")
    async def run_code(request: Request) -> Any:
        service.requests += 1
        try:
            draining_check()
            data = await read_json(request, config.max_body)
            run = parse_run_code(data, config.settings)
            job = Job(run.program, run.limits)
            service.submit([job])
        except RequestError as error:
            return invalid(error)
        except _Refused as error:
            return refused(error)
        watcher = asyncio.ensure_future(_disconnected(request))
        outcome = asyncio.ensure_future(service.outcome(job, run))
        try:
            done, _ = await asyncio.wait({watcher, outcome},
                                         return_when=asyncio.FIRST_COMPLETED)
            if outcome not in done:  # the client went away: its work is cancelled
                pool.cancel(job, "the client disconnected")
                outcome.cancel()
                service._count("ClientGone")
                return Response(status_code=499)
            try:
                answer = outcome.result()
            except _Refused as error:
                return refused(error)
        finally:
            watcher.cancel()
        service._count(answer["status"])
        return answer

    @app.post("/v1/batch")
    async def batch(request: Request) -> Any:
        service.requests += 1
        try:
            draining_check()
            data = await read_json(request, config.max_body)
            runs, stream = _batch_requests(data, config)
            jobs = [Job(run.program, run.limits) for run in runs]
            service.submit(jobs)
        except RequestError as error:
            return invalid(error)
        except _Refused as error:
            return refused(error)

        async def one(index: int) -> tuple[int, dict[str, Any]]:
            try:
                return index, await service.outcome(jobs[index], runs[index], index)
            except _Refused as error:
                return index, {**sandbox_error_answer(error.body["message"]),
                               "http_status": error.status}

        tasks = [asyncio.ensure_future(one(i)) for i in range(len(jobs))]

        def cancel_all(reason: str) -> None:
            for task, job in zip(tasks, jobs, strict=True):
                task.cancel()
                pool.cancel(job, reason)

        if stream:
            async def lines() -> AsyncIterator[bytes]:
                try:
                    for finished in asyncio.as_completed(tasks):
                        index, answer = await finished
                        service._count(answer["status"])
                        yield (json.dumps({"index": index, **answer}) + "\n").encode()
                finally:  # the client left mid-stream: what has not ended is cancelled
                    cancel_all("the client disconnected")

            return StreamingResponse(lines(), media_type="application/x-ndjson")

        watcher = asyncio.ensure_future(_disconnected(request))
        gathered = asyncio.ensure_future(asyncio.gather(*tasks))
        try:
            done, _ = await asyncio.wait({watcher, gathered},
                                         return_when=asyncio.FIRST_COMPLETED)
            if gathered not in done:
                cancel_all("the client disconnected")
                gathered.cancel()
                service._count("ClientGone")
                return Response(status_code=499)
        finally:
            watcher.cancel()
        answers = [answer for _, answer in gathered.result()]
        for answer in answers:
            service._count(answer["status"])
        return {"results": answers}

    # /submit runs on the judge's own warm workers, outside the pool: its own counts
    submits = {"waiting": 0, "running": 0, "judged": 0}
    slots = asyncio.Semaphore(pool.size)

    @app.post("/submit")
    async def submit(request: Request) -> Any:
        from .submit import judge_submission, parse_submit

        service.requests += 1
        try:
            draining_check()
            data = await read_json(request, config.max_body)
            checked = await asyncio.to_thread(parse_submit, data, config.settings)
            if submits["waiting"] >= pool.max_queue:
                raise _refusal(503, "Busy", "too many submissions wait for a worker; retry "
                               "later.", retry_after=pool.retry_after())
        except RequestError as error:
            return invalid(error)
        except _Refused as error:
            return refused(error)
        submits["waiting"] += 1
        try:
            await asyncio.wait_for(slots.acquire(), config.queue_timeout)
        except (TimeoutError, asyncio.TimeoutError):
            return refused(_refusal(504, "QueueTimeout", f"the submission waited "
                                    f"{config.queue_timeout:g} s for a worker; retry later.",
                                    retry_after=pool.retry_after()))
        finally:
            submits["waiting"] -= 1
        cancel = threading.Event()
        submits["running"] += 1
        watcher = asyncio.ensure_future(_disconnected(request))
        judged = asyncio.ensure_future(asyncio.to_thread(judge_submission, checked, cancel))
        try:
            done, _ = await asyncio.wait({watcher, judged}, return_when=asyncio.FIRST_COMPLETED)
            if judged not in done:  # the client went away: its programs are killed
                cancel.set()
                with contextlib.suppress(JudgeCancelled, SandboxError):
                    await judged  # within half a second; the slot is free only then
                service.pool.count_cancelled()
                service._count("ClientGone")
                return Response(status_code=499)
            answer = judged.result()
        except SandboxError as error:  # never a verdict: the client sees an error
            service._count("SandboxError")
            return JSONResponse({"status": "SandboxError", "message": str(error)},
                                status_code=500)
        finally:
            watcher.cancel()
            slots.release()
            submits["running"] -= 1
        submits["judged"] += 1
        service._count("Accepted" if answer["accepted"] else "Rejected")
        return answer

    return app


def _batch_requests(data: Any, config: ServiceConfig) -> tuple[list[RunRequest], bool]:
    """A batch body ``{"requests": [run_code bodies], "stream": false}``, checked."""
    if not isinstance(data, dict):
        raise RequestError("body", "the body must be a JSON object with `requests`.")
    unknown = [name for name in data if name not in ("requests", "stream")]
    if unknown:
        raise RequestError(str(unknown[0]), f"unknown field {unknown[0]!r}; a batch has "
                                            "`requests` and `stream`.")
    items = data.get("requests")
    if not isinstance(items, list) or not items:
        raise RequestError("requests", "`requests` must be a non-empty list of /run_code "
                                       "bodies.")
    if len(items) > config.max_batch:
        raise RequestError("requests", f"`requests` holds {len(items)} programs; this server "
                           f"takes at most {config.max_batch} a batch (cgm serve --max-batch).",
                           status=413)
    stream = data.get("stream", False)
    if not isinstance(stream, bool):
        raise RequestError("stream", "`stream` must be true or false.")
    runs = []
    for index, item in enumerate(items):
        try:
            runs.append(parse_run_code(item, config.settings))
        except RequestError as error:
            where = f"requests[{index}]" + ("" if error.field == "body" else f".{error.field}")
            raise RequestError(where, f"{where}: {error}", error.status) from None
    return runs, stream
