"""An execution service for training loops: ``cgm serve``.

A front end (like the Space) over the sandbox: an HTTP server that speaks SandboxFusion's API
(``GET /v1/ping``, ``POST /run_code``), so that its clients (verl's reward code, the
``sandbox-fusion`` package) work unchanged, plus what SandboxFusion lacks: ``POST /v1/batch``
(many programs in one request, answers in order or streamed) and ``GET /v1/health``.

- :mod:`.protocol`: a request's fields checked (a 400 naming the field), SandboxFusion's
  language names mapped to the execution languages, the program that runs a whole source
  text, and the answer built from the sandbox's result;
- :mod:`.pool`: warm sandbox workers (threads of this process, or sandbox actors on a Ray
  cluster) behind a bounded queue: a worker that dies mid-program is replaced and its request
  answers ``SandboxError`` (never ``Failed``); a cancelled request's program is killed;
- :mod:`.app`: the FastAPI application (authentication, body size, deadlines, client
  disconnects, draining on SIGTERM);
- :mod:`.server`: uvicorn around it (``serve(...)``, what ``cgm serve`` calls).

Nothing here computes a verdict of its own: a program's status, exit code and output are the
sandbox's (:mod:`cgm_metrics.execution.sandbox`); SandboxFusion's status words are a view
of them.
"""
