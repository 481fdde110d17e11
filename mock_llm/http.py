"""The mock model's HTTP faces: a real `openai.OpenAI` client wired to it in-process, and a server.

Both route each request by its question: the scenario whose question is in the user messages
answers it. Nothing here opens a socket unless you call `serve`.
"""
from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .chat import MODEL, ChatSession
from .registry import load_world, over_http
from .request_checks import error_body, read_json
from .scenarios import DEFAULT_SEED
from .session import question_of

MOCK_BASE_URL = "http://mock-llm.invalid/v1"  # never resolved: the transport answers in-process
BODY_LIMIT = 8 * 1024 * 1024  # bytes of one request the server reads: a conversation is a few kB


class Router:
    """Chat Completions for a whole lesson: one session per scenario, picked by the question; a
    question no scenario scripts gets the lesson's improvised plan (see LessonWorld.improvise)."""

    def __init__(self, lesson: str, seed: int = DEFAULT_SEED):
        self.world = load_world(lesson, seed)
        self.seed = seed
        self.sessions: dict[str, ChatSession] = {}  # by scenario name, or "?" + an improvised question

    def handle(self, method: str, url: str, raw: bytes) -> tuple[int, dict, dict]:
        """(status, JSON body, response headers: a 429's Retry-After) for one request to `url` (its
        host and port say which server was asked: a fault plan may name one)."""
        body, error = read_json(method, raw)
        return (*error, {}) if error else self._session(body).over_the_wire(method, url, body)

    def _session(self, body) -> ChatSession:
        messages = body.get("messages") if isinstance(body, dict) else None
        messages = messages if isinstance(messages, list) else []
        texts = [str(m.get("content")) for m in messages if isinstance(m, dict) and m.get("role") == "user"]
        question = question_of(messages)
        name = self.world.scripted(texts[:1], texts)
        key = name or "?" + question
        if key not in self.sessions:
            scenario = self.world.scenarios[name] if name else self.world.improvise(question, body)
            self.sessions[key] = over_http(self.world.protocol, scenario, self.seed, 10**9)
        return self.sessions[key]


def openai_client(lesson: str, seed: int = DEFAULT_SEED):
    """A genuine openai.OpenAI client whose HTTP transport is the mock: no network, no API key."""
    import httpx2  # what the installed openai package is built on
    import openai

    router = Router(lesson, seed)

    def transport(request: httpx2.Request) -> httpx2.Response:
        status, body, headers = router.handle(request.method, str(request.url), request.content)
        return httpx2.Response(status, json=body, headers=headers)

    return openai.OpenAI(api_key="mock-key", base_url=MOCK_BASE_URL, max_retries=0,
                         http_client=httpx2.Client(transport=httpx2.MockTransport(transport)))


def serve(lesson: str, port: int = 8400, seed: int = DEFAULT_SEED, host: str = "127.0.0.1",
          ready=None) -> None:
    """Serve /v1/chat/completions and /v1/models on host:port until interrupted."""
    router = Router(lesson, seed)

    class Handler(BaseHTTPRequestHandler):
        def _answer(self):
            try:
                size = int(self.headers.get("Content-Length") or 0)
                if not 0 <= size <= BODY_LIMIT:  # read(-1) would wait for the client to hang up
                    raise ValueError(size)
                # the URL as the client addressed it, host and port too: a fault plan may name a server
                url = f"http://{self.headers.get('Host') or f'{host}:{self.server.server_port}'}{self.path.split('?')[0]}"
                status, body, headers = router.handle(self.command, url, self.rfile.read(size))
            except ValueError:
                status, body, headers = 400, error_body(f"Invalid Content-Length header: a request body is 0 "
                                                        f"to {BODY_LIMIT} bytes here."), {}
            except Exception as error:  # a bug of the mock's: the client still gets the API's shape
                status, body, headers = 500, error_body(f"The mock server failed: {error!r}", kind="server_error"), {}
            data = json.dumps(body, ensure_ascii=False).encode()
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, str(value))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = _answer

        def log_message(self, fmt, *args):  # one short line per request, on stderr
            print(f"{self.command} {self.path} -> {args[1] if len(args) > 1 else ''}", flush=True)

    with ThreadingHTTPServer((host, port), Handler) as server:
        print(f"mock LLM for {lesson} (model {MODEL}, seed {seed}) on http://{host}:{server.server_port}/v1",
              flush=True)
        if ready:
            ready(server)
        server.serve_forever()
