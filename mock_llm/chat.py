"""The mock model for the Chat Completions API: `messages` and `tools` in, `tool_calls` out.

It reads the `messages` array the way the real API and a real model do. First it checks the array
like the API would — every `tool` message must answer a `tool_call_id` of the assistant message just
before it, and every such call must be answered — and on a mistake returns the API's 400 error.
Then, for each turn of tool calls its scenario scripts, it looks for its own calls (its ids are
deterministic, drawn from the seed) and their results; the first turn not answered yet is its
reply, and when all are answered it writes the final answer from the results it read.
"""
from __future__ import annotations

import hashlib
import json
import math
import random
from dataclasses import dataclass, field

from .scenarios import Scenario
from .text_react import BudgetExceeded, TextReactSession

MODEL = "mock-react-1"
CREATED = 1_767_225_600  # 2026-01-01T00:00:00Z: responses carry fixed timestamps, plus the seed
ROLES = ("system", "developer", "user", "assistant", "tool")


class RequestError(Exception):
    """A request the real API would refuse: becomes a 400 with the API's error object."""

    def __init__(self, message: str, param: str | None = None, code: str | None = None):
        super().__init__(message)
        self.param, self.code = param, code


def error_body(message: str, param: str | None = None, code: str | None = None,
               kind: str = "invalid_request_error") -> dict:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def read_json(method: str, raw: str | bytes):
    """(body, None) for a readable request body; (None, (400, error)) for one that is not JSON."""
    if method != "POST":
        return None, None
    try:
        return json.loads(raw or "null"), None
    except ValueError:
        return None, (400, error_body("We could not parse the JSON body of your request. (HINT: make "
                                      "sure it is valid JSON.)"))


def count_tokens(text: str) -> int:
    """A stand-in tokenizer: about four bytes a token, like English text on real models."""
    return max(1, math.ceil(len(text.encode("utf-8")) / 4))


def _text(content) -> str:
    """A message's content as text: a string, or the text parts of a list of content parts."""
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def check_request(body) -> tuple[list[dict], list[str]]:
    """The messages and the tool names of a valid request; RequestError (a 400) otherwise."""
    if not isinstance(body, dict):
        raise RequestError("The request body must be a JSON object.")
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise RequestError("You must provide a model parameter.", param="model")
    if body.get("stream"):
        raise RequestError("The mock model does not stream: leave `stream` unset.", param="stream")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty array of message objects.", param="messages")
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ROLES:
            role = message.get("role") if isinstance(message, dict) else message
            raise RequestError(f"Invalid value: {role!r}. Supported values are: "
                               f"{', '.join(repr(r) for r in ROLES)}.", param=f"messages.[{i}].role",
                               code="invalid_value")
        content = message.get("content")
        if not (isinstance(content, (str, list)) or (content is None and message["role"] == "assistant")):
            kind = {dict: "an object", int: "an integer", float: "a number", bool: "a boolean",
                    type(None): "null"}.get(type(content), type(content).__name__)
            raise RequestError(f"Invalid type for 'messages[{i}].content': expected one of a string or "
                               f"array of objects, but got {kind} instead.",
                               param=f"messages[{i}].content", code="invalid_type")
    _check_tool_pairing(messages)
    return messages, _tool_names(body.get("tools"))


def _check_tool_pairing(messages: list[dict]) -> None:
    waiting: list[str] = []  # ids of the last assistant tool_calls not answered yet
    for i, message in enumerate(messages):
        role = message["role"]
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str):
                raise RequestError(f"Missing required parameter: 'messages.[{i}].tool_call_id'.",
                                   param=f"messages.[{i}].tool_call_id", code="missing_required_parameter")
            if call_id not in waiting:
                if not _answers_previous_calls(messages, i):
                    raise RequestError("Invalid parameter: messages with role 'tool' must be a response "
                                       "to a preceding message with 'tool_calls'.",
                                       param=f"messages.[{i}].role")
                raise RequestError(f"Invalid parameter: 'tool_call_id' of '{call_id}' not found in "
                                   "'tool_calls' of previous message.",
                                   param=f"messages.[{i}].tool_call_id")
            waiting.remove(call_id)
            continue
        if waiting:
            raise _unanswered(waiting, param=f"messages.[{i}].role")
        if role == "assistant":
            calls = message.get("tool_calls") or []
            if not isinstance(calls, list) or not all(isinstance(c, dict) and isinstance(c.get("id"), str)
                                                      for c in calls):
                raise RequestError("Invalid 'tool_calls': each needs an 'id', a 'type' and a 'function'.",
                                   param=f"messages.[{i}].tool_calls")
            waiting = [c["id"] for c in calls]
    if waiting:
        raise _unanswered(waiting, param="messages")


def _unanswered(call_ids: list[str], param: str) -> RequestError:
    return RequestError("An assistant message with 'tool_calls' must be followed by tool messages "
                        "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                        f"response messages: {', '.join(call_ids)}", param=param)


def _answers_previous_calls(messages: list[dict], index: int) -> bool:
    """Whether the messages before `index`, past other tool messages, end with an assistant's tool_calls."""
    for earlier in reversed(messages[:index]):
        if earlier["role"] != "tool":
            return earlier["role"] == "assistant" and bool(earlier.get("tool_calls"))
    return False


def _tool_names(tools) -> list[str]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise RequestError("'tools' must be an array of tool objects.", param="tools")
    names = []
    for i, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(function, dict):
            raise RequestError(f"Invalid 'tools[{i}]': expected an object with \"type\": \"function\" "
                               "and a \"function\" object.", param=f"tools[{i}]")
        if not isinstance(function.get("name"), str) or not function["name"]:
            raise RequestError(f"Missing required parameter: 'tools[{i}].function.name'.",
                               param=f"tools[{i}].function.name", code="missing_required_parameter")
        parameters = function.get("parameters", {"type": "object"})
        if not isinstance(parameters, dict) or parameters.get("type") != "object":
            raise RequestError(f"Invalid schema for function '{function['name']}': the parameters must "
                               "be a JSON Schema of type 'object'.", param=f"tools[{i}].function.parameters",
                               code="invalid_function_parameters")
        names.append(function["name"])
    return names


@dataclass
class HttpExchange:
    """One request to the mock API and its answer, as the transcript keeps them."""
    request: dict
    status: int
    response: dict


@dataclass
class ChatSession:
    """One agent run against one scenario: answers Chat Completions requests, records each one."""
    scenario: Scenario
    seed: int
    budget: int = 25
    transcript: list[HttpExchange] = field(default_factory=list)
    text: TextReactSession | None = None  # set: a text-protocol lesson, the ReAct lines go in content

    def handle(self, method: str, path: str, body) -> tuple[int, dict]:
        """The mock API: (status, JSON body) for one HTTP request."""
        route = "/" + path.strip("/").removeprefix("v1/").removeprefix("v1")
        if method == "GET" and route == "/models":
            return 200, {"object": "list", "data": [{"id": MODEL, "object": "model", "created": CREATED,
                                                     "owned_by": "reactlings"}]}
        if route != "/chat/completions":
            return 404, error_body(f"Unknown request URL: {method} {path}. The mock serves "
                                   "/v1/chat/completions and /v1/models.", code="unknown_url")
        if method != "POST":
            return 405, error_body(f"Use POST for /v1/chat/completions, not {method}.")
        if len(self.transcript) >= self.budget:
            raise BudgetExceeded(f"more than {self.budget} model calls")
        try:
            status, response = 200, self.complete(body)
        except RequestError as error:
            status, response = 400, error_body(str(error), error.param, error.code)
        self.transcript.append(HttpExchange(body if isinstance(body, dict) else {"$raw": repr(body)},
                                            status, response))
        return status, response

    def handle_raw(self, method: str, path: str, raw: str | bytes) -> tuple[int, dict]:
        """handle() for a request whose body is still JSON text."""
        body, error = read_json(method, raw)
        return error or self.handle(method, path, body)

    def complete(self, body) -> dict:
        messages, tool_names = check_request(body)
        if self.text:  # what a real model does with a text-protocol prompt: it writes text
            prompt = "\n\n".join(_text(m.get("content")) for m in messages if m["role"] in ("system", "user"))
            return self._response(body, messages, self.text.reply(prompt))
        if not any(self.scenario.question in _text(m.get("content")) for m in messages if m["role"] == "user"):
            return self._response(body, messages, "I do not see a question in the user messages.")
        results = {m["tool_call_id"]: _text(m.get("content")) for m in messages if m["role"] == "tool"}
        issued = {c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []}
        observations: list[str] = []
        index = 0
        while (turn := self.scenario.turn(index)) is not None:
            ids = [self.call_id(index, j) for j in range(len(turn))]
            if not all(i in results and i in issued for i in ids):
                missing = sorted({c.tool for c in turn} - set(tool_names))
                if missing:  # like a real model: it cannot call a tool it was not given
                    return self._response(body, messages, f"I would need the {missing[0]} tool to answer "
                                          "this, but no tool by that name was provided.")
                return self._response(body, messages, self.scenario.render(turn[0].thought, observations),
                                      self._tool_calls(index, turn, ids, observations))
            observations += [results[i] for i in ids]
            index += 1
        return self._response(body, messages, self.scenario.render(self.scenario.answer, observations))

    def call_id(self, turn: int, position: int) -> str:
        digest = hashlib.sha256(f"{self.seed}:{self.scenario.name}:{turn}:{position}".encode()).hexdigest()
        return f"call_{digest[:24]}"

    def _tool_calls(self, index: int, turn, ids: list[str], observations: list[str]) -> list[dict]:
        calls = [{"id": call_id, "type": "function", "function": {
                     "name": call.tool, "arguments": json.dumps(
                         self.scenario.render_args(call, observations), ensure_ascii=False)}}
                 for call, call_id in zip(turn, ids)]
        random.Random(f"{self.seed}:{self.scenario.name}:{index}").shuffle(calls)  # order is not a promise
        return calls

    def _response(self, body: dict, messages: list[dict], content: str,
                  tool_calls: list[dict] | None = None) -> dict:
        prompt = json.dumps([messages, body.get("tools")], ensure_ascii=False, sort_keys=True)
        reply = content + json.dumps(tool_calls or [], ensure_ascii=False)
        digest = hashlib.sha256(f"{self.seed}:{self.scenario.name}:{prompt}".encode()).hexdigest()
        message = {"role": "assistant", "content": content, "refusal": None}
        if tool_calls:
            message["tool_calls"] = tool_calls
        usage = {"prompt_tokens": count_tokens(prompt), "completion_tokens": count_tokens(reply)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return {"id": f"chatcmpl-{digest[:29]}", "object": "chat.completion",
                "created": CREATED + self.seed % 86_400 + len(messages), "model": body["model"],
                "choices": [{"index": 0, "message": message, "logprobs": None,
                             "finish_reason": "tool_calls" if tool_calls else "stop"}],
                "usage": usage, "system_fingerprint": "fp_reactlings_mock"}
