"""The mock model for the Chat Completions API: `messages` and `tools` in, `tool_calls` out.

It reads the `messages` array the way the real API and a real model do. First it checks the request
like the API would, and on a mistake returns the API's 400 error (request_checks.py). Then, for each
turn of tool calls its scenario scripts, it looks for its own calls (its ids are deterministic,
drawn from the seed) and their results; the first turn not answered yet is its reply, and when all
are answered it writes the final answer from the results it read. `tool_choice` bends that like it
bends a real model: "none" never calls a tool, "required" (or a named function) always does,
repeating the last scripted turn once the script is done.

A scenario may be a conversation: its `follow_ups` are the user's later questions, each with calls
and an answer of its own (scenarios.py). The latest user message says which turn a request is about,
and that turn's script answers it, with call ids of its own. A follow-up that cannot be understood
alone ("那里热吗？" after "北京天气怎么样？") names the turn it needs in `refers_to` (1: the
scenario's question): when no message before the latest user message holds that turn's question
(the agent kept no history, or trimmed it away), the model says it cannot tell what the user means
(`unclear`, else UNCLEAR) instead of following its script. That is judged when the model first reads
the question: once it has answered it with tool calls, it goes on even if the earlier turn is gone.

Its reply ends where `max_tokens` or `stop` ends it, and a request must fit its context window
(tokens.py). The network and the server can fail, deterministically, by model name (faults.py).
Each request and its answer is recorded as an HttpExchange (http_exchange.py).
"""
from __future__ import annotations

import functools
import hashlib
import json
import random
from dataclasses import dataclass
from typing import Callable
from urllib.parse import urlsplit

from .faults import fault_answer, fault_now
from .http_exchange import HttpExchange
from .request_checks import (RequestError, check_request, error_body, read_json, reply_limit, stop_sequences,
                             tool_choice_mode)
from .scenarios import Scenario
from .session import NetworkFault, Session, message_text
from .text_react import TextReactSession
from .tokens import check_context_window, count_tokens, cut_at_limit, cut_at_stop, prompt_text

MODEL = "mock-react-1"
UNCLEAR = ("I am not sure what you are referring to: I do not see it earlier in our conversation. "
           "Could you say it again?")  # a follow-up whose earlier turn the request does not hold
CREATED = 1_767_225_600  # 2026-01-01T00:00:00Z: responses carry fixed timestamps, plus the seed
CUT = "$cut"  # in a response on its way to the transcript only: what `stop` cut, taken out before it is sent


def _empty_args(parameters: dict) -> dict:
    """Arguments for a call the model must make without a reason to: an empty value of its type for
    each required property of the tool's JSON Schema."""
    empty = {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [], "object": {}}
    properties = parameters.get("properties") if isinstance(parameters.get("properties"), dict) else {}
    required = parameters.get("required") if isinstance(parameters.get("required"), list) else []
    return {name: empty.get((properties.get(name) or {}).get("type"), "")
            for name in required if isinstance(name, str)}


def _route(path: str) -> str:
    """The API route of a request's path or full URL: "/chat/completions", "/models", …"""
    try:
        path = urlsplit(path).path if "://" in path else path
    except ValueError:  # not a URL at all ("http://[::1"): the route of nothing
        pass
    return "/" + path.strip("/").removeprefix("v1/").removeprefix("v1")


@dataclass
class ChatSession(Session):
    """One agent run against one scenario: answers Chat Completions requests, records each one."""
    writer: Callable[[list[dict]], str] | None = None  # set: another protocol's replies, as content

    def handle(self, method: str, path: str, body) -> tuple[int, dict]:
        """The mock API: (status, JSON body) for one HTTP request (see over_the_wire)."""
        return self.over_the_wire(method, path, body)[:2]

    def over_the_wire(self, method: str, path: str, body) -> tuple[int, dict, dict]:
        """(status, JSON body, response headers) as a client over a real network gets them: a
        simulated network failure becomes what a gateway in front of the server would answer, 504
        for a timeout, 502 else."""
        try:
            return self.respond(method, path, body)
        except NetworkFault as fault:
            return (504 if fault.network == "timeout" else 502), error_body(str(fault), kind="server_error"), {}

    def http(self, method: str, path: str, raw: str | bytes, headers: dict | None = None):
        """The grader's entry: respond() for a request whose body is still JSON text. `path` may be
        the full URL. A grader that passes the request's `headers` takes back (status, body,
        response headers) when there are response headers; else (status, body). A simulated
        network failure raises NetworkFault."""
        body, error = read_json(method, raw)
        if error:
            return error
        status, response, extra = self.respond(method, path, body, headers)
        return (status, response, extra) if headers is not None and extra else (status, response)

    def respond(self, method: str, path: str, body, headers: dict | None = None) -> tuple[int, dict, dict]:
        """(status, JSON body, response headers) for one HTTP request; NetworkFault when the model's
        fault plan says no answer comes at all."""
        route = _route(path)
        if method == "GET" and route == "/models":
            return 200, {"object": "list", "data": [{"id": MODEL, "object": "model", "created": CREATED,
                                                     "owned_by": "reactlings"}]}, {}
        if route != "/chat/completions":
            return 404, error_body(f"Unknown request URL: {method} {path}. The mock serves "
                                   "/v1/chat/completions and /v1/models.", code="unknown_url"), {}
        if method != "POST":
            return 405, error_body(f"Use POST for /v1/chat/completions, not {method}."), {}
        self.spend()
        request = body if isinstance(body, dict) else {"$raw": repr(body)}
        headers = {str(k).lower(): str(v) for k, v in (headers or {}).items()}
        exchange = HttpExchange(request, 200, {}, url=path if "://" in path else "", headers=headers)
        try:
            fault = fault_now(request.get("model"), exchange.url, self.transcript)
            if fault is None:
                exchange.response = self.complete(body)
                exchange.cut = exchange.response.pop(CUT, "")
            elif fault.kind in ("timeout", "unreachable"):
                exchange.status, exchange.network = 0, "timeout" if fault.kind == "timeout" else "connect"
                message = ("the server did not answer before the client's timeout" if fault.kind == "timeout"
                           else "connection refused: nothing listens at this address")
                exchange.response = error_body(message, kind=exchange.network)
            else:
                exchange.status, exchange.response, exchange.response_headers = fault_answer(
                    fault, str(request.get("model")), headers)
        except RequestError as error:
            exchange.status, exchange.response = 400, error_body(str(error), error.param, error.code)
        self.transcript.append(exchange)
        if exchange.network:
            raise NetworkFault(exchange.network, exchange.response["error"]["message"])
        return exchange.status, exchange.response, exchange.response_headers

    def complete(self, body) -> dict:
        """The reply to a request (RequestError for one the API refuses): another protocol's text,
        or the turn of the conversation the request is about answered by its script."""
        messages, tools = check_request(body)
        prompt = prompt_text(messages, body)
        reply_with = functools.partial(self._response, body, messages, prompt)
        check_context_window(count_tokens(prompt), reply_limit(body) or 0)
        if self.writer:  # what a real model does with a text-protocol prompt: it writes text
            return reply_with(self.writer(messages))
        if self.scenario.follow_ups:  # a conversation: the user's latest message says which turn
            turn = self.user_turn(messages)
            if isinstance(turn, str):
                return reply_with(turn)
            if turn is not self.scenario:
                return ChatSession(turn, self.seed, self.budget).complete(body)
        return self._next_step(body, messages, tools, reply_with)

    def _next_step(self, body: dict, messages: list[dict], tools: dict[str, dict], reply_with) -> dict:
        """The scenario's next step, as `tool_choice` bends it: the first scripted turn whose calls
        are not all answered, or the final answer once they are."""
        mode, forced = tool_choice_mode(body)
        done = _answered_calls(messages)
        index, turn, observations = self._progress(done)
        content, turn = self._scripted(messages, tools, turn, observations)
        if mode == "none" and turn is not None:  # tools forbidden: it says what it would have done
            needed = ", ".join(sorted({c.tool for c in turn}))
            return reply_with(f"I would need to call {needed} to answer this, but "
                              "tool_choice is \"none\", so I may not call any tool.")
        calls = [(c.tool, self.scenario.render_args(c, observations)) for c in turn or []]
        if mode == "required" and (not calls or any(name != (forced or name) for name, _ in calls)):
            # a tool call is compulsory: the scripted turn does not fit (or there is none left), so it
            # repeats the last scripted turn, or calls the tool it must; with ids of their own, so the
            # scripted turns still wait for their own answers
            calls, content = self._forced_calls(tools, forced, observations)
            index = self._forced_turn(len(calls), done)
        if not calls:
            return reply_with(content)
        return reply_with(content, self._tool_calls(index, calls))

    def _progress(self, done: dict[str, str]) -> tuple[int, list | None, list[str]]:
        """How far the script has got, given the results of the calls answered (`done`): the index
        of the first turn whose calls are not all answered, that turn (None once every turn is),
        and the results of the turns before it, in order."""
        observations: list[str] = []
        index = 0
        while (turn := self.scenario.turn(index)) is not None:
            ids = [self.call_id(index, j) for j in range(len(turn))]
            if not all(i in done for i in ids):
                break
            observations += [done[i] for i in ids]
            index += 1
        return index, turn, observations

    def _scripted(self, messages: list[dict], tools: dict[str, dict], turn: list | None,
                  observations: list[str]) -> tuple[str, list | None]:
        """What the script says now: the remark and the turn of calls to make (None: no calls,
        the remark is the answer). No question of its scenario in the user messages, or a tool it
        was not given: it says so, as a real model would."""
        if not any(self.scenario.question in message_text(m.get("content"))
                   for m in messages if m["role"] == "user"):
            return "I do not see a question in the user messages.", None
        if turn is None:
            return self.scenario.render(self.scenario.answer, observations), None
        if missing := sorted({c.tool for c in turn} - set(tools)):
            # like a real model: it cannot call a tool it was not given
            return (f"I would need the {missing[0]} tool to answer this, but no tool by that "
                    "name was provided."), None
        return self.scenario.render(turn[0].thought, observations), turn

    def user_turn(self, messages: list[dict]) -> Scenario | str:
        """The turn of a conversation a request is about: the last user turn whose question the
        latest user message holds (the scenario itself when none does). A follow-up that refers to
        an earlier turn whose question no message before it holds gets, instead of its script, what
        the model says when it cannot tell what the user means: the follow-up's `unclear` text."""
        turns = [self.scenario, *self.scenario.follow_ups]
        texts = [message_text(m.get("content")) for m in messages]
        users = [i for i, m in enumerate(messages) if m["role"] == "user"]
        turn = next((t for t in reversed(turns) if users and t.question in texts[users[-1]]), self.scenario)
        if not turn.refers_to or any(m["role"] == "assistant" for m in messages[users[-1] + 1:]):
            return turn  # it understood the question when it first read it, and acted on that
        if not any(turns[turn.refers_to - 1].question in text for text in texts[:users[-1]]):
            return turn.render(turn.unclear or UNCLEAR, [])
        return turn

    def _forced_calls(self, tools: dict[str, dict], forced: str | None, observations: list[str]):
        """The calls (name, arguments) and the remark beside them of a reply that must call a tool:
        the scenario's last scripted turn again when it uses offered tools only (and only the one
        tool_choice names), else one call of the named tool, or of the first tool offered, with
        empty arguments of the right types."""
        last = self.scenario.turns[-1] if self.scenario.turns else None
        if last and all(c.tool in tools and c.tool == (forced or c.tool) for c in last):
            return ([(c.tool, self.scenario.render_args(c, observations)) for c in last],
                    self.scenario.render(last[0].thought, observations))
        name = forced or next(iter(tools))
        return ([(name, _empty_args(tools[name].get("parameters") or {}))],
                f"I have to call a tool, so I call {name}.")

    def _forced_turn(self, size: int, done: dict[str, str]) -> str:
        """The index of a forced reply of `size` calls: the first "forcedN" whose ids are not all
        answered yet."""
        extra = 0
        while all(self.call_id(f"forced{extra}", j) in done for j in range(size)):
            extra += 1
        return f"forced{extra}"

    def call_id(self, turn: int | str, position: int) -> str:
        digest = hashlib.sha256(f"{self.seed}:{self.scenario.name}:{turn}:{position}".encode()).hexdigest()
        return f"call_{digest[:24]}"

    def _tool_calls(self, index: int | str, turn: list[tuple[str, dict]]) -> list[dict]:
        """The tool_calls of a reply: each (name, arguments) of the turn with the id of its position."""
        ids = [self.call_id(index, j) for j in range(len(turn))]
        calls = [{"id": call_id, "type": "function", "function": {
                     "name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}}
                 for (name, arguments), call_id in zip(turn, ids)]
        # Order is not a promise. Two calls come in either order, by seed; three or more never come
        # in the order of the script, nor reversed, so pairing results by position fails every time.
        rng = random.Random(f"{self.seed}:{self.scenario.name}:{index}")
        rng.shuffle(calls)
        given = [c["id"] for c in calls]
        while len(ids) >= 3 and given in (ids, ids[::-1]):
            rng.shuffle(calls)
            given = [c["id"] for c in calls]
        return calls

    def _response(self, body: dict, messages: list[dict], prompt: str, content: str,
                  tool_calls: list[dict] | None = None) -> dict:
        whole, content = content, cut_at_stop(content, stop_sequences(body))
        finish = "tool_calls" if tool_calls else "stop"
        limit = reply_limit(body)
        if limit:
            content, tool_calls, was_cut = cut_at_limit(content, tool_calls or [], limit)
            finish = "length" if was_cut else finish
        reply = content + json.dumps(tool_calls or [], ensure_ascii=False)
        digest = hashlib.sha256(f"{self.seed}:{self.scenario.name}:{prompt}".encode()).hexdigest()
        message = {"role": "assistant", "content": content, "refusal": None}
        if tool_calls:
            message["tool_calls"] = tool_calls
            if self.seed % 2:  # as OpenAI and llama.cpp's server often do: no remark beside the calls
                message["content"] = None
        usage = {"prompt_tokens": count_tokens(prompt),
                 "completion_tokens": limit if finish == "length" else count_tokens(reply)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return {"id": f"chatcmpl-{digest[:29]}", "object": "chat.completion",
                "created": CREATED + self.seed % 86_400 + len(messages), "model": body["model"],
                "choices": [{"index": 0, "message": message, "logprobs": None,
                             "finish_reason": finish}],
                "usage": usage, "system_fingerprint": "fp_reactlings_mock", CUT: whole[len(content):]}


def _answered_calls(messages: list[dict]) -> dict[str, str]:
    """call id -> result of each tool call the messages both issued (an assistant's) and answered
    (a tool message's)."""
    results = {m["tool_call_id"]: message_text(m.get("content")) for m in messages if m["role"] == "tool"}
    issued = {c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []}
    return {i: result for i, result in results.items() if i in issued}


def conversation_text(messages: list[dict]) -> str:
    """A conversation as a text-protocol model reads it: every message's content, in order."""
    return "\n\n".join(message_text(m.get("content")) for m in messages if isinstance(m, dict))


@dataclass
class TextChatSession(ChatSession):
    """The text protocol (Thought / Action / Action Input / Observation) over Chat Completions: the
    reply's content is what the text mock (text_react.py) writes for the whole conversation read as
    one prompt, the assistant's own earlier turns included. Without a stop sequence it runs on past
    its request with an Observation of its own, as a real model does; `stop` cuts it there."""

    check_scenario = TextReactSession.check_scenario  # its replies are the text mock's

    def __post_init__(self):
        if self.writer is None:
            reader = TextReactSession(self.scenario, self.seed, self.budget)
            self.writer = lambda messages: reader.reply(conversation_text(messages))
