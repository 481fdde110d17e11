"""`python validate.py day07 --live`: run the learner's agent against a real OpenAI-compatible
endpoint instead of the mock. Nothing is graded (a real model words its answers its own way); the
transcript and the answers are shown, so you see your loop work with a real model.

The endpoint comes from OPENAI_BASE_URL and OPENAI_API_KEY, the model from --model or
REACTLINGS_MODEL. The learner's process still never talks to the network itself: its requests
come to the grader, which forwards them, so the transcript is complete. What it forwards is
bounded, so that a learner's loop can't spend much of the key's money: only the request fields the
lessons use (FORWARDED; not `n`, `store`, `service_tier`, ...), one choice, at most MAX_TOKENS
tokens written per call, and per run the lesson's call budget and TOKEN_BUDGET tokens in all
(counted from each response's `usage`, estimated where it has none; a prompt that would pass the
budget is not sent).
"""
from __future__ import annotations

import importlib.util
import json
import os
from dataclasses import dataclass, field

from rich.console import Console
from rich.text import Text

from mock_llm import BudgetExceeded, Refusal, Session, load_world
from mock_llm.chat import HttpExchange, count_tokens, error_body, read_json
from mock_llm.decisions import DecisionSession
from mock_llm.protocols import BadPayload
from mock_llm.text_react import Exchange

from .checking import Fail, Learner
from .lessons import Lesson, LessonError, say
from .report import print_runs
from .runner import open_submission
from .wire import loads

DEFAULT_MODEL = "gpt-4o-mini"
RUN_LIMIT = 180.0  # seconds per agent run: real models are slow
# The Chat Completions fields the lessons' agents send (day07-day12: tools, tool_choice; day12:
# stop, temperature), and a few more a learner may try; every other field is dropped.
FORWARDED = ("model", "messages", "tools", "tool_choice", "parallel_tool_calls", "temperature", "top_p",
             "stop", "response_format", "seed")
LIMITS = ("max_completion_tokens", "max_tokens")  # the newer name and the older one of the reply's limit
MAX_TOKENS = 1024  # tokens a reply may have: an answer or a round of tool calls takes a few hundred
TOKEN_BUDGET = 100_000  # tokens one run may spend, prompts and replies: 25 calls of a few kB each


class EndpointUnreachable(Refusal):
    problem = "unreachable"  # ends the run at once, like the mock's call budget


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

    def _post(self, payload: dict) -> tuple[int, dict]:
        import httpx2  # comes with the openai package
        if len(self.transcript) >= self.budget:
            raise BudgetExceeded(f"more than {self.budget} model calls")
        prompt = count_tokens(json.dumps(payload, ensure_ascii=False))
        if self.tokens + prompt > self.token_budget:
            raise TokensSpent(str(self.token_budget))
        try:
            response = httpx2.post(f"{self.base_url.rstrip('/')}/chat/completions", json=payload,
                                   headers={"Authorization": f"Bearer {self.api_key}"}, timeout=120)
        except httpx2.HTTPError as error:
            raise EndpointUnreachable(f"{self.base_url}: {type(error).__name__}: {error}") from None
        try:
            status, body = response.status_code, loads(response.text)
        except ValueError:
            status, body = 502, {"error": {"message": f"the endpoint answered HTTP {response.status_code} with "
                                                      "something that is not JSON", "type": "bad_gateway"}}
        usage = body.get("usage") if isinstance(body, dict) else None
        total = usage.get("total_tokens") if isinstance(usage, dict) else None
        self.tokens += total if isinstance(total, int) and total >= 0 else prompt + count_tokens(response.text)
        return status, body

    def forwarded(self, body: dict) -> dict:
        """What is sent of a learner's request: the fields of FORWARDED, our model, one choice, and
        a reply of MAX_TOKENS at most (under the limit's name the learner used, if any)."""
        sent = {name: body[name] for name in FORWARDED if name in body}
        limit = next((name for name in LIMITS if body.get(name) is not None), "max_tokens")
        asked = body.get(limit)
        fits = isinstance(asked, int) and not isinstance(asked, bool) and 0 < asked <= MAX_TOKENS
        return dict(sent, model=self.model, n=1, **{limit: asked if fits else MAX_TOKENS})

    def http(self, method: str, path: str, raw: str, headers: dict | None = None) -> tuple[int, dict]:
        """Chat protocol: the learner's own request, bounded (see forwarded)."""
        body, error = read_json(method, raw)
        if error:
            return error
        if not isinstance(body, dict):
            return 400, error_body("The request body must be a JSON object.")
        status, response = self._post(self.forwarded(body))
        self.transcript.append(HttpExchange(body, status, response))
        return status, response

    def answer(self, payload):
        """The lesson's model function: llm_call(prompt) becomes one user message, llm(messages)
        the messages themselves; the reply is what the lesson's protocol makes of the text."""
        if isinstance(payload, str):
            messages = [{"role": "user", "content": payload}]
        elif isinstance(payload, list) and all(isinstance(m, dict) for m in payload):
            messages = as_chat(payload)
        else:
            raise BadPayload(type(payload).__name__)
        status, response = self._post(self.forwarded({"messages": messages}))
        if status != 200:
            message = response.get("error", {}).get("message", json.dumps(response))
            raise EndpointUnreachable(f"{self.base_url} answered HTTP {status}: {message}")
        text = response["choices"][0]["message"].get("content") or ""
        shown = payload if isinstance(payload, str) else "\n".join(
            json.dumps(m, ensure_ascii=False) for m in messages)
        self.transcript.append(Exchange(shown, text))
        return self.protocol.from_text(text)


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
    return base_url, key, model or os.environ.get("REACTLINGS_MODEL") or DEFAULT_MODEL


def run_live(lesson: Lesson, path, model: str | None, lang: str, console: Console) -> int:
    """Run the agent on each of the lesson's live questions; 0 when each run ended with an answer."""
    if not lesson.live:
        raise LessonError("live_nothing_to_ask", name=lesson.name)
    base_url, key, model_name = endpoint(model)
    world = load_world(lesson.folder)
    checks = _load_checks(lesson)
    console.print(Text(f"{lesson.name} · {lesson.title[lang]} — live: {model_name} at {base_url}", style="bold"))
    submission, failures = open_submission(lesson, world, path), 0
    try:
        for name in lesson.live:
            live_model = LiveModel(base_url, key, model_name, budget=lesson.llm_call_budget,
                                   protocol=world.protocol)
            learner = Learner(submission, lesson, world, live_model=live_model, limit=RUN_LIMIT)
            console.print()
            failure = None
            try:
                run = checks.run_agent(learner, world, name)
                answer = Text(run.answer if isinstance(run.answer, str) else repr(run.answer), style="green")
            except Fail as error:
                failure, failures = error, failures + 1
                answer = Text(say(error.key, lang, lesson, **error.params), style="red")
            print_runs(console, learner.runs, lang)
            console.print(Text("  → ", style="bold") + answer)
            if failure and failure.key == "unreachable":
                break  # the next questions would fail the same way
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
