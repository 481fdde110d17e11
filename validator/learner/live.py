"""`python validate.py day07 --live`: run the learner's agent against a real OpenAI-compatible
endpoint instead of the mock. Nothing is graded (a real model words its answers its own way); the
transcript and the answers are shown, so you see your loop work with a real model.

The endpoint comes from OPENAI_BASE_URL and OPENAI_API_KEY, the model from --model or
REACTLINGS_MODEL. A lesson whose config names a fallback (day12) gets one from
OPENAI_FALLBACK_MODEL, OPENAI_FALLBACK_BASE_URL and OPENAI_FALLBACK_API_KEY (else the same key):
a request to the fallback server's URL goes there. The learner's process still never talks to the network itself: its requests
come to the grader, which forwards them, so the transcript is complete. What it forwards is
bounded, so that a learner's loop can't spend much of the key's money: only the request fields the
lessons use (FORWARDED; not `n`, `store`, `service_tier`, ...), one choice, at most MAX_TOKENS
tokens written per call, and per run the lesson's call budget and TOKEN_BUDGET tokens in all
(counted from each response's `usage`, estimated where it has none; a prompt that would pass the
budget is not sent).

A failure is told as it is: an HTTP error with its status, a short body and the model asked; no
answer within the timeout as a timeout. In the openai-client lessons the learner's client gets
the failure as a real server gives it (the status, the body, the Retry-After header; a timeout as
the client's own), so their retry code runs; the timeout is the one their client was built with
(the `x-stainless-read-timeout` header the openai SDK sends), else REQUEST_TIMEOUT.
"""
from __future__ import annotations

import importlib.util
import json
import os
from dataclasses import dataclass, field

from rich.console import Console
from rich.text import Text

from mock_llm import (
    BadPayload,
    BudgetExceeded,
    DecisionSession,
    Exchange,
    HttpExchange,
    NetworkFault,
    Refusal,
    Session,
    count_tokens,
    error_body,
    load_world,
    read_json,
)
from validator.checking import Fail, Learner
from validator.child.wire import loads
from validator.grading.report import print_runs
from validator.grading.runner import open_submission
from validator.lessons import Lesson, LessonError, say

DEFAULT_MODEL = "gpt-4o-mini"
RUN_LIMIT = 600.0  # seconds per agent run (REACTLINGS_LIVE_SECONDS): a model on a laptop's CPU is slow
# The Chat Completions fields the lessons' agents send (day07-day12: tools, tool_choice; day12:
# stop, temperature), and a few more a learner may try; every other field is dropped.
FORWARDED = ("model", "messages", "tools", "tool_choice", "parallel_tool_calls", "temperature", "top_p",
             "stop", "response_format", "seed")
LIMITS = ("max_completion_tokens", "max_tokens")  # the newer name and the older one of the reply's limit
MAX_TOKENS = 1024  # tokens a reply may have: an answer or a round of tool calls takes a few hundred
TOKEN_BUDGET = 100_000  # tokens one run may spend, prompts and replies: 25 calls of a few kB each


REQUEST_TIMEOUT = 120.0  # seconds a request may take when the learner's code sets no timeout
SHOWN_BODY = 300  # characters of an error's body that a failure line quotes


class EndpointUnreachable(NetworkFault):
    """Nothing answered at the base URL: the client raises a connection error (openai lessons), the
    run ends (the others), and the lesson's other questions are not asked."""
    problem = "unreachable"

    def __init__(self, message: str):
        super().__init__("connect", message)


class ModelTimedOut(NetworkFault):
    """The endpoint gave no answer within the timeout: the client raises its own timeout."""
    problem = "live_timeout"

    def __init__(self, message: str):
        super().__init__("timeout", message)


class ModelFailed(Refusal):
    """The endpoint answered with an HTTP error, in a lesson whose model function has no HTTP client
    to give it to (text and JSON lessons): the run ends with the status and the body."""
    problem = "live_http_error"


class TokensSpent(Refusal):
    problem = "token_budget"  # ends the run at once, like the call budget


@dataclass
class LiveModel:
    """Forwards the learner's model calls to the endpoint and records each exchange. The lesson's
    call budget holds here too: a loop with no step limit can't spend the key's money."""
    base_url: str
    api_key: str
    model: str
    budget: int = 25
    protocol: type = Session  # the lesson's protocol: how a reply's text becomes its reply
    transcript: list = field(default_factory=list)
    token_budget: int = TOKEN_BUDGET
    tokens: int = 0  # spent so far in this run
    instructions: str = ""  # a system message for a model that needs one the learner's code doesn't send
    status: int = 0  # the last answer's HTTP status (0: none yet, or no answer)
    unreachable: str = ""  # why nothing answered at the base URL, once that happened
    fallback_model: str | None = None  # a second model, asked by its own name (OPENAI_FALLBACK_MODEL)
    fallback_server: tuple[str, str] | None = None  # a second server: (base URL, key)

    def _post(self, payload: dict, timeout: float = REQUEST_TIMEOUT,
              server: tuple[str, str] | None = None) -> tuple[int, dict, dict]:
        """(status, JSON body, the headers a client acts on) of one request to the endpoint, or to
        `server` (base URL, key)."""
        base_url, api_key = server or (self.base_url, self.api_key)
        import httpx2  # comes with the openai package
        if len(self.transcript) >= self.budget:
            raise BudgetExceeded(f"more than {self.budget} model calls")
        prompt = count_tokens(json.dumps(payload, ensure_ascii=False))
        if self.tokens + prompt > self.token_budget:
            raise TokensSpent(str(self.token_budget))
        self.status = 0
        try:  # on a timeout the connection is closed: a server that notices stops generating
            response = httpx2.post(f"{base_url.rstrip('/')}/chat/completions", json=payload,
                                   headers={"Authorization": f"Bearer {api_key}"}, timeout=timeout)
        except httpx2.TimeoutException:
            raise ModelTimedOut(f"{payload.get('model')} at {base_url} gave no answer within {timeout:g} s") from None
        except httpx2.HTTPError as error:
            self.unreachable = f"{type(error).__name__}: {error}"
            raise EndpointUnreachable(f"{base_url}: {self.unreachable}") from None
        self.status = response.status_code
        try:
            body = loads(response.text)
        except ValueError:
            body = {"error": {"message": f"(not JSON) {response.text[:SHOWN_BODY]}", "type": "bad_gateway"}}
        if not isinstance(body, dict):
            body = {"error": {"message": f"(not an object) {response.text[:SHOWN_BODY]}", "type": "bad_gateway"}}
        usage = body.get("usage")
        total = usage.get("total_tokens") if isinstance(usage, dict) else None
        self.tokens += total if isinstance(total, int) and total >= 0 else prompt + count_tokens(response.text)
        kept = {name: response.headers[name] for name in ("retry-after",) if name in response.headers}
        return response.status_code, body, kept

    def served_models(self) -> list[str]:
        """The model names the endpoint lists (GET /models); a server may answer under one of them
        rather than the name asked (llama.cpp's gives its alias). None listed, or no list: []."""
        import httpx2
        try:
            response = httpx2.get(f"{self.base_url.rstrip('/')}/models", timeout=10,
                                  headers={"Authorization": f"Bearer {self.api_key}"})
            listed = loads(response.text).get("data")
            return [str(m["id"]) for m in listed if isinstance(m, dict) and "id" in m][:20]
        except (httpx2.HTTPError, ValueError, AttributeError, TypeError):
            return []

    def failure(self, status: int, body: dict) -> str:
        """An HTTP error in one line: the status, the model asked, the start of the body's message."""
        error = body.get("error")
        message = error.get("message") if isinstance(error, dict) else None
        text = message if isinstance(message, str) else json.dumps(body, ensure_ascii=False)
        text = " ".join(text.split())
        text = text if len(text) <= SHOWN_BODY else text[:SHOWN_BODY] + "…"
        return f"HTTP {status} from {self.model} at {self.base_url}: {text}"

    def forwarded(self, body: dict) -> dict:
        """What is sent of a learner's request: the fields of FORWARDED, our model, one choice, and
        a reply of MAX_TOKENS at most (under the limit's name the learner used, if any)."""
        sent = {name: body[name] for name in FORWARDED if name in body}
        limit = next((name for name in LIMITS if body.get(name) is not None), "max_tokens")
        asked = body.get(limit)
        fits = isinstance(asked, int) and not isinstance(asked, bool) and 0 < asked <= MAX_TOKENS
        model = self.fallback_model if self.fallback_model and body.get("model") == self.fallback_model else self.model
        return dict(sent, model=model, n=1, **{limit: asked if fits else MAX_TOKENS})

    def server_for(self, url: str) -> tuple[str, str] | None:
        """The fallback server (base URL, key) when a request's URL is under its base URL; else
        None, the endpoint."""
        fallback = self.fallback_server
        return fallback if fallback and url.startswith(fallback[0].rstrip("/") + "/") else None

    def http(self, method: str, path: str, raw: str, headers: dict | None = None):
        """Chat protocol: the learner's own request, bounded (see forwarded), within the timeout
        their client was built with. The transcript keeps what was sent, as it was sent."""
        body, error = read_json(method, raw)
        if error:
            return error
        if not isinstance(body, dict):
            return 400, error_body("The request body must be a JSON object.")
        sent = self.forwarded(body)
        exchange = HttpExchange(sent, 0, {})
        try:
            exchange.status, exchange.response, exchange.response_headers = self._post(
                sent, client_timeout(headers or {}), self.server_for(path))
        except NetworkFault as fault:  # sent, and no answer came: the transcript shows it
            exchange.network, exchange.response = fault.network, error_body(str(fault), kind=fault.network)
            self.transcript.append(exchange)
            raise
        self.transcript.append(exchange)
        return exchange.status, exchange.response, exchange.response_headers

    def answer(self, payload):
        """The lesson's model function: llm_call(prompt) becomes one user message, llm(messages)
        the messages themselves; the reply is what the lesson's protocol makes of the text."""
        if isinstance(payload, str):
            messages = [{"role": "user", "content": payload}]
        elif isinstance(payload, list) and all(isinstance(m, dict) for m in payload):
            messages = as_chat(payload)
        else:
            raise BadPayload(type(payload).__name__)
        if self.instructions and not any(m.get("role") == "system" for m in messages):
            messages = [{"role": "system", "content": self.instructions}, *messages]
        shown = payload if isinstance(payload, str) else "\n".join(
            json.dumps(m, ensure_ascii=False) for m in messages)
        try:
            status, response, _ = self._post(self.forwarded({"messages": messages}))
        except NetworkFault as fault:
            self.transcript.append(Exchange(shown, f"no answer ({fault.network}): {fault}"))
            raise
        if status != 200:
            failure = self.failure(status, response)
            self.transcript.append(Exchange(shown, failure))
            raise ModelFailed(failure)
        try:
            text = response["choices"][0]["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            self.transcript.append(Exchange(shown, json.dumps(response, ensure_ascii=False)[:SHOWN_BODY]))
            raise ModelFailed(f"HTTP 200 from {self.model} at {self.base_url}, but with no choices[0].message") from None
        self.transcript.append(Exchange(shown, text))
        return self.protocol.from_text(text)


def decision_instructions(world, scenario: str) -> str:
    """What a real model must be told to play a decision lesson (day01, day02), whose code sends
    only the conversation (the mock knows the format and the tools already): the format, and the
    tools of the task with their descriptions."""
    tools = "\n".join(f"- {name}: {world.tool_descriptions.get(name, '')}"
                      for name in world.scenarios[scenario].tools)
    return ("You decide the next step of an agent that can run tools. Reply with one JSON object and "
            'nothing else: {"type": "tool", "name": TOOL, "args": {ARGUMENT: VALUE, ...}} to run a tool '
            '(its result comes back in a "tool" message), or {"type": "final", "content": ANSWER} when '
            f"you know the answer. The tools:\n{tools}")


def run_limit() -> float:
    """Seconds one question's run may take: REACTLINGS_LIVE_SECONDS, else RUN_LIMIT."""
    try:
        seconds = float(os.environ.get("REACTLINGS_LIVE_SECONDS", RUN_LIMIT))
    except ValueError:
        return RUN_LIMIT
    return seconds if seconds > 0 else RUN_LIMIT


def client_timeout(headers: dict) -> float:
    """The read timeout the learner's openai client was built with (the SDK says it in the
    x-stainless-read-timeout header), within (0, RUN_LIMIT]; REQUEST_TIMEOUT when it says none."""
    said = {str(k).lower(): v for k, v in headers.items()}.get("x-stainless-read-timeout")
    try:
        seconds = float(said)
    except (TypeError, ValueError):
        return REQUEST_TIMEOUT
    return min(seconds, RUN_LIMIT) if seconds > 0 else REQUEST_TIMEOUT


def as_chat(messages: list[dict]) -> list[dict]:
    """A learner's JSON-decision messages as the Chat Completions API takes them: each tool
    decision the assistant made becomes its `tool_calls`, and the `tool` message after it answers
    it by id (the API refuses a `tool` message that answers nothing); other contents become text."""
    chat, waiting = [], []
    for message in messages:
        role, content = message.get("role"), message.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)
        if role == "assistant":
            decision = content if isinstance(content, dict) else DecisionSession.from_text(text)
            if decision.get("type") == "tool":
                waiting.append(f"call_{len(chat)}")
                chat.append({"role": "assistant", "content": text, "tool_calls": [{
                    "id": waiting[-1], "type": "function", "function": {
                        "name": str(decision.get("name")),
                        "arguments": json.dumps(decision.get("args") or {}, ensure_ascii=False, default=str)}}]})
                continue
        if role == "tool" and "tool_call_id" not in message:
            chat.append({"role": "tool", "tool_call_id": waiting.pop(0), "content": text} if waiting
                        else {"role": "user", "content": f"Tool result: {text}"})
            continue
        chat.append(dict(message, content=text))
    return chat


def endpoint(model: str | None) -> tuple[str, str, str]:
    """(base_url, api_key, model) from the environment; LessonError naming what is missing."""
    key = os.environ.get("OPENAI_API_KEY")
    if not key:
        raise LessonError("live_needs_key")
    base_url = os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
    return base_url, key, (model or os.environ.get("REACTLINGS_MODEL") or os.environ.get("OPENAI_MODEL")
                           or DEFAULT_MODEL)


def fallback(key: str) -> tuple[str | None, tuple[str, str] | None]:
    """The fallback model and the fallback server (base URL, key) the environment names, for a
    lesson whose config has them: OPENAI_FALLBACK_MODEL, OPENAI_FALLBACK_BASE_URL and
    OPENAI_FALLBACK_API_KEY, else the same key."""
    url = os.environ.get("OPENAI_FALLBACK_BASE_URL")
    server = (url, os.environ.get("OPENAI_FALLBACK_API_KEY") or key) if url else None
    return os.environ.get("OPENAI_FALLBACK_MODEL") or None, server


def run_live(lesson: Lesson, path, model: str | None, lang: str, console: Console) -> int:
    """Run the agent on each of the lesson's live questions; 0 when each run ended with an answer."""
    if not lesson.live:
        raise LessonError("live_nothing_to_ask", name=lesson.name)
    base_url, key, model_name = endpoint(model)
    world = load_world(lesson.folder)
    checks = _load_checks(lesson)
    console.print(Text(f"{lesson.name} · {lesson.title[lang]} — live: {model_name} at {base_url}", style="bold"))
    submission, failures = open_submission(lesson, world, path, live=True), 0
    try:
        for name in lesson.live:
            live_model = LiveModel(base_url, key, model_name, budget=lesson.llm_call_budget,
                                   protocol=world.protocol)
            live_model.fallback_model, live_model.fallback_server = fallback(key)
            if issubclass(world.protocol, DecisionSession):
                live_model.instructions = decision_instructions(world, name)
            learner = Learner(submission, lesson, world, live_model=live_model, limit=run_limit())
            console.print()
            failure_key = None
            try:
                run = checks.run_agent(learner, world, name)
                answer = Text(run.answer if isinstance(run.answer, str) else repr(run.answer), style="green")
            except Fail as error:
                failure_key, failures = error.key, failures + 1
                key = "live_slow" if error.key == "hang" else error.key  # a slow model, as likely as a loop
                answer = Text(say(key, lang, lesson, **error.params), style="red")
            print_runs(console, learner.runs, lang)
            console.print(Text("  → ", style="bold") + answer)
            if live_model.unreachable and failure_key != "unreachable":  # their client said it its own way
                console.print(Text(say("live_unreachable", lang, url=base_url, error=live_model.unreachable),
                                   style="red"))
            if live_model.status in (401, 403, 404) and failure_key not in (None, ModelFailed.problem):
                console.print(Text(say("live_refused_key" if live_model.status != 404 else "live_not_found", lang,
                                       url=base_url, model=model_name, status=live_model.status), style="red"))
            if failure_key and (live_model.unreachable or live_model.status in (401, 403, 404)):
                break  # no server, a refused key, an unknown model or URL: the next questions would fail the same way
    finally:
        submission.close()
    return 1 if failures else 0


def _load_checks(lesson: Lesson):
    """The lesson's checks module, for its `run_agent(learner, world, scenario)` helper."""
    spec = importlib.util.spec_from_file_location(f"reactlings_checks_{lesson.name}", lesson.checks)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, "run_agent"):
        raise LessonError(f"{lesson.checks} has no run_agent(learner, world, scenario) helper for --live")
    return module
