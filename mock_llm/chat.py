"""The mock model for the Chat Completions API: `messages` and `tools` in, `tool_calls` out.

It reads the `messages` array the way the real API and a real model do. First it checks the array
like the API would — every field of each tool call an assistant message sends back, every `tool`
message answering a `tool_call_id` of the assistant message just before it, every such call
answered, `tool_choice` one the API knows — and on a mistake returns the API's 400 error, with its
wording, `param` and `code`. Then, for each turn of tool calls its scenario scripts, it looks for its
own calls (its ids are deterministic, drawn from the seed) and their results; the first turn not
answered yet is its reply, and when all are answered it writes the final answer from the results it
read. `tool_choice` bends that like it bends a real model: "none" never calls a tool, "required" (or
a named function) always does, repeating the last scripted turn once the script is done.

A scenario may be a conversation: its `follow_ups` are the user's later questions, each with calls
and an answer of its own (scenarios.py). The latest user message says which turn a request is about,
and that turn's script answers it, with call ids of its own. A follow-up that cannot be understood
alone ("那里热吗？" after "北京天气怎么样？") names the turn it needs in `refers_to` (1: the
scenario's question): when no message before the latest user message holds that turn's question
(the agent kept no history, or trimmed it away), the model says it cannot tell what the user means
(`unclear`, else UNCLEAR) instead of following its script. That is judged when the model first reads
the question: once it has answered it with tool calls, it goes on even if the earlier turn is gone.

Like the real API it honours `stop`: the content ends before the first stop sequence it would have
written. A text-protocol model (`text_chat`, below) runs on past its request with an `Observation:`
of its own; `stop: ["Observation:"]` cuts that off, as it does with a real model. It honours
`max_tokens` (or `max_completion_tokens`) too: a longer reply is cut there, a tool call's arguments
mid-JSON, with finish_reason "length". And it has a context window (CONTEXT_WINDOW): a request
past it gets the API's 400, `context_length_exceeded`, as a history that is never trimmed does.

The network and the server can fail, deterministically, by model name (default off: only a name
with `#` does this). `mock-react-1#429@7,500,ok` answers that model's first request with a 429
carrying `Retry-After: 7`, its second with a 500, the rest normally. Steps: `ok`, any 4xx or 5xx
status (`429@S`: with `Retry-After: S`), `timeout` (the server stalls: no answer before the
client's timeout), `unreachable` (nothing listens); a step ending in `*` repeats for every
request after it (`500*`: the server is down). A plan may name the one server it plays, by the
host and port of the request's URL: `mock-react-1#127.0.0.1:8080=ok,500*` fails there only, and
the same model on another server answers normally (a fallback server). Each server counts its own
requests of each model. See `fault_plan`.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
import random
import re
from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import urlsplit

from validator.child.wire import loads

from .scenarios import Scenario
from .session import NetworkFault, Session, message_text
from .text_react import TextReactSession

MODEL = "mock-react-1"
CONTEXT_WINDOW = 16_384  # tokens a request's messages and tools may take, as counted by count_tokens
UNCLEAR = ("I am not sure what you are referring to: I do not see it earlier in our conversation. "
           "Could you say it again?")  # a follow-up whose earlier turn the request does not hold
CREATED = 1_767_225_600  # 2026-01-01T00:00:00Z: responses carry fixed timestamps, plus the seed
CUT = "$cut"  # in a response on its way to the transcript only: what `stop` cut, taken out before it is sent
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
    """(body, None) for a readable request body; (None, (400, error)) for one that is not JSON, as
    the API reads it: UTF-8, nested to a sane depth, no lone surrogate (a "\\ud800" escape that
    pairs with nothing: the real APIs refuse those as invalid JSON too)."""
    if method != "POST":
        return None, None
    try:
        body = loads(raw or "null")
        json.dumps(body, ensure_ascii=False).encode("utf-8")  # UnicodeEncodeError: a lone surrogate
        return body, None
    except ValueError:
        return None, (400, error_body("We could not parse the JSON body of your request. (HINT: make "
                                      "sure it is valid JSON.)"))


def count_tokens(text: str) -> int:
    """A stand-in tokenizer: about four bytes a token, like English text on real models."""
    return max(1, math.ceil(len(text.encode("utf-8")) / 4))


def _kind(value) -> str:
    """A JSON value's type as the API's messages name it: "an object", "a string", "null"..."""
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "an object", list: "an array", str: "a string", int: "an integer", float: "a number",
            type(None): "null"}.get(type(value), type(value).__name__)


def _missing(where: str) -> RequestError:
    return RequestError(f"Missing required parameter: '{where}'.", param=where,
                        code="missing_required_parameter")


def _wrong_type(where: str, expected: str, value) -> RequestError:
    return RequestError(f"Invalid type for '{where}': expected {expected}, but got {_kind(value)} "
                        "instead.", param=where, code="invalid_type")


def check_request(body) -> tuple[list[dict], dict[str, dict]]:
    """The messages and the tools (name -> function object) of a valid request; RequestError (a
    400) otherwise."""
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
        if not isinstance(message, dict):  # a bare string: the API wants an object, not a role
            raise _wrong_type(f"messages[{i}]", "an object", message)
        if "role" not in message:
            raise _missing(f"messages[{i}].role")
        if message.get("role") not in ROLES:
            role = message.get("role")
            raise RequestError(f"Invalid value: {role!r}. Supported values are: "
                               f"{', '.join(repr(r) for r in ROLES)}.", param=f"messages.[{i}].role",
                               code="invalid_value")
        content = message.get("content")
        if not (isinstance(content, (str, list)) or (content is None and message["role"] == "assistant")):
            raise _wrong_type(f"messages[{i}].content", "one of a string or array of objects", content)
        if content is None and not message.get("tool_calls"):  # an assistant turn that says nothing at all
            if "content" not in message:
                raise _missing(f"messages[{i}].content")
            raise RequestError("Invalid value for 'content': expected a string, got null.",
                               param=f"messages.[{i}].content")
        if message["role"] == "assistant" and message.get("tool_calls") is not None:
            _check_tool_calls(message["tool_calls"], f"messages[{i}].tool_calls")
    tools = _tools(body.get("tools"))
    _check_tool_choice(body.get("tool_choice"), tools, "tool_choice" in body)
    stop_sequences(body)
    reply_limit(body)
    _check_tool_pairing(messages)
    return messages, tools


def _check_tool_calls(calls, where: str) -> None:
    """The tool_calls of an assistant message sent back, checked field by field like the API does:
    each needs an id, "type": "function" and a function object with a name and arguments, both text."""
    if not isinstance(calls, list):
        raise _wrong_type(where, "an array", calls)
    if not calls:
        raise RequestError(f"Invalid '{where}': empty array. Expected an array with minimum length 1, "
                           "but got an empty array instead.", param=where, code="empty_array")
    for j, call in enumerate(calls):
        here = f"{where}[{j}]"
        if not isinstance(call, dict):
            raise _wrong_type(here, "an object", call)
        for name in ("id", "type", "function"):
            if name not in call:
                raise _missing(f"{here}.{name}")
        if not isinstance(call["id"], str):
            raise _wrong_type(f"{here}.id", "a string", call["id"])
        if call["type"] != "function":
            if not isinstance(call["type"], str):
                raise _wrong_type(f"{here}.type", "a string", call["type"])
            raise RequestError(f"Invalid value: '{call['type']}'. Supported values are: 'function'.",
                               param=f"{here}.type", code="invalid_value")
        function = call["function"]
        if not isinstance(function, dict):
            raise _wrong_type(f"{here}.function", "an object", function)
        for name in ("name", "arguments"):
            if name not in function:
                raise _missing(f"{here}.function.{name}")
            if not isinstance(function[name], str):
                raise _wrong_type(f"{here}.function.{name}", "a string", function[name])


def stop_sequences(body: dict) -> list[str]:
    """The request's `stop`: a string or an array of up to 4 strings (or null); RequestError else."""
    stop = body.get("stop")
    if stop is None:
        return []
    if isinstance(stop, str):
        return [stop] if stop else []
    if not isinstance(stop, list) or not all(isinstance(s, str) for s in stop):
        raise _wrong_type("stop", "one of a string or array of strings", stop)
    if len(stop) > 4:
        raise RequestError(f"Invalid 'stop': array too long. Expected an array with maximum length 4, "
                           f"but got an array with length {len(stop)} instead.", param="stop",
                           code="array_above_max_length")
    return [s for s in stop if s]


def reply_limit(body: dict) -> int | None:
    """The request's limit on the reply, in tokens (`max_completion_tokens`, or the older
    `max_tokens`), or None; RequestError for one that is not a whole number of at least 1."""
    for name in ("max_completion_tokens", "max_tokens"):
        limit = body.get(name)
        if limit is None:
            continue
        if not isinstance(limit, int) or isinstance(limit, bool):
            raise _wrong_type(name, "an integer", limit)
        if limit < 1:
            raise RequestError(f"Invalid '{name}': integer below minimum value. Expected a value >= 1, but "
                               f"got {limit} instead.", param=name, code="integer_below_min_value")
        return limit
    return None


def cut_at_limit(content: str, tool_calls: list[dict], limit: int) -> tuple[str, list[dict], bool]:
    """The reply as a model that may write only `limit` tokens returns it (count_tokens: four bytes a
    token): the content cut, then the tool calls' arguments cut where the limit falls (no longer
    JSON), later calls dropped. The last item says whether anything was cut (finish_reason "length")."""
    room = limit * 4  # bytes

    def cut(text: str) -> str:
        nonlocal room
        kept = text.encode("utf-8")[:max(room, 0)].decode("utf-8", "ignore")
        room -= len(text.encode("utf-8"))
        return kept

    content = cut(content)
    kept = []
    for call in tool_calls:
        if room <= 0:
            break
        arguments = cut(call["function"]["arguments"])
        kept.append(dict(call, function=dict(call["function"], arguments=arguments)))
    return content, kept, room < 0


def cut_at_stop(content: str, stop: list[str]) -> str:
    """The content as a model stopped by `stop` returns it: up to the first stop sequence, without it."""
    ends = [content.find(s) for s in stop if s in content]
    return content[:min(ends)] if ends else content


TOOL_CHOICES = ("none", "auto", "required")


def _check_tool_choice(choice, tools: dict[str, dict], given: bool) -> None:
    """tool_choice: "none", "auto", "required" or {"type": "function", "function": {"name": ...}},
    and only together with tools."""
    if not given or choice is None:
        return
    if not tools:
        raise RequestError("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' "
                           "are specified.", param="tool_choice")
    if isinstance(choice, str):
        if choice not in TOOL_CHOICES:
            raise RequestError(f"Invalid value: '{choice}'. Supported values are: 'none', 'auto', and "
                               "'required'.", param="tool_choice", code="invalid_value")
        return
    if not isinstance(choice, dict):
        raise _wrong_type("tool_choice", "one of an object or 'none', 'auto', or 'required'", choice)
    if "type" not in choice:
        raise _missing("tool_choice.type")
    if choice["type"] != "function":
        raise RequestError(f"Invalid value: {json.dumps(choice['type'])}. Supported values are: "
                           "'function'.", param="tool_choice.type", code="invalid_value")
    function = choice.get("function")
    if function is None:
        raise _missing("tool_choice.function")
    if not isinstance(function, dict):
        raise _wrong_type("tool_choice.function", "an object", function)
    if "name" not in function:
        raise _missing("tool_choice.function.name")
    if not isinstance(function["name"], str):
        raise _wrong_type("tool_choice.function.name", "a string", function["name"])
    if function["name"] not in tools:
        raise RequestError(f"Invalid value for 'tool_choice': function '{function['name']}' not found "
                           "in 'tools'.", param="tool_choice", code="invalid_value")


def tool_choice_mode(body: dict) -> tuple[str, str | None]:
    """What a (valid) tool_choice asks of the model: ("auto" | "none" | "required", a function name
    the call must use or None)."""
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        return "required", choice["function"]["name"]
    return (choice if choice in TOOL_CHOICES else "auto"), None


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
        if role == "assistant":  # its tool_calls were checked field by field already
            waiting = [c["id"] for c in message.get("tool_calls") or []]
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


def _tools(tools) -> dict[str, dict]:
    """name -> function object of each tool offered."""
    if tools is None:
        return {}
    if not isinstance(tools, list):
        raise RequestError("'tools' must be an array of tool objects.", param="tools")
    found = {}
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
        found[function["name"]] = function
    return found


def _empty_args(parameters: dict) -> dict:
    """Arguments for a call the model must make without a reason to: an empty value of its type for
    each required property of the tool's JSON Schema."""
    empty = {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [], "object": {}}
    properties = parameters.get("properties") if isinstance(parameters.get("properties"), dict) else {}
    required = parameters.get("required") if isinstance(parameters.get("required"), list) else []
    return {name: empty.get((properties.get(name) or {}).get("type"), "")
            for name in required if isinstance(name, str)}


# ---------------------------------------------------------------- failures, by model name

FAULT_STEP = re.compile(r"^(ok|timeout|unreachable|[45]\d\d(?:@(\d+(?:\.\d+)?))?)(\*?)$")


@dataclass(frozen=True)
class Fault:
    """One step of a fault plan: what one request gets instead of a normal answer."""
    kind: str  # "ok", "timeout", "unreachable", or an HTTP status such as "429"
    retry_after: str | None = None  # a 4xx/5xx answer's Retry-After header, in seconds
    forever: bool = False  # this step answers every later request too


def fault_plan(model, server: str = "") -> list[Fault]:
    """The failures a model name asks for on `server` (the host:port of the request's URL):
    "m#429@2,500*" -> a 429 with Retry-After: 2, then 500 for ever, on any server; "m#h:p=500*" the
    same on the server h:p only. [] for a name without `#`, or a plan for another server.
    RequestError for a step the mock does not know."""
    if not isinstance(model, str) or "#" not in model:
        return []
    where, _, steps = model.split("#", 1)[1].rpartition("=")
    if where and where != server:
        return []
    plan = []
    for step in steps.split(","):
        found = FAULT_STEP.match(step.strip())
        if not found:
            raise RequestError(f"The mock does not know the failure {step.strip()!r} in the model name "
                               f"{model!r}. Steps: ok, timeout, unreachable, an HTTP status such as 500, "
                               "429@S for a 429 with Retry-After: S; a trailing * repeats a step; "
                               "HOST:PORT= before the steps plays that server only.",
                               param="model", code="model_not_found")
        plan.append(Fault(found.group(1).split("@")[0], found.group(2), bool(found.group(3))))
    return plan


def fault_for(plan: list[Fault], count: int) -> Fault | None:
    """The step for a model's request number `count` (0-based): its plan's step, the last `*` step
    once the plan is used up, else None (a normal answer)."""
    for number, step in enumerate(plan):
        if number == count or (step.forever and number < count):
            return None if step.kind == "ok" else step
    return None


ERRORS = {  # status -> (message, type, code), worded like the real API's
    400: ("The mock answers HTTP 400 here, as its model name asks.", "invalid_request_error", None),
    401: ("Incorrect API key provided: {key}. You can find your API key at "
          "https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key"),
    429: ("Rate limit reached for {model} in organization org-reactlings on requests per min (RPM): "
          "Limit 3, Used 3, Requested 1. Please try again {when}. Visit "
          "https://platform.openai.com/account/rate-limits to learn more.", "requests", "rate_limit_exceeded"),
    500: ("The server had an error while processing your request. Sorry about that!", "server_error", None),
    502: ("Bad gateway.", "server_error", None),
    503: ("The server is overloaded or not ready yet.", "server_error", None),
}


def fault_answer(fault: Fault, model: str, headers: dict) -> tuple[int, dict, dict]:
    """(status, error body, response headers) of an HTTP failure."""
    status = int(fault.kind)
    default = ("The mock answers HTTP {status} here, as its model name asks.",
               "server_error" if status >= 500 else "invalid_request_error", None)
    message, kind, code = ERRORS.get(status, default)
    key = str(headers.get("authorization", "")).removeprefix("Bearer ").strip()
    masked = f"{key[:3]}*****{key[-4:]}" if len(key) > 8 else "*****"
    when = f"in {fault.retry_after}s" if fault.retry_after else "later"
    message = message.format(key=masked, model=model, when=when, status=status)
    extra = {"retry-after": fault.retry_after} if fault.retry_after else {}
    return status, error_body(message, code=code, kind=kind), extra


def _server(url: str) -> str:
    """The host:port a request's URL names ("" for a bare path: the one server that answers it)."""
    try:
        return urlsplit(url).netloc.rpartition("@")[2] if "://" in url else ""
    except ValueError:
        return ""


def _route(path: str) -> str:
    """The API route of a request's path or full URL: "/chat/completions", "/models", …"""
    try:
        path = urlsplit(path).path if "://" in path else path
    except ValueError:  # not a URL at all ("http://[::1"): the route of nothing
        pass
    return "/" + path.strip("/").removeprefix("v1/").removeprefix("v1")


@dataclass
class HttpExchange:
    """One request to the mock API and its answer, as the transcript keeps them."""
    request: dict
    status: int  # 0: no answer at all (a simulated timeout or unreachable server, see `network`)
    response: dict
    url: str = ""  # the full URL, when the grader passes it on
    headers: dict = field(default_factory=dict)  # the request's headers, when the grader passes them on
    response_headers: dict = field(default_factory=dict)
    network: str | None = None  # "timeout" or "connect": the failure that stood in for an answer
    cut: str = ""  # what the request's stop sequence cut from the reply's content (the trace page shows it)

    def continues(self, earlier: "HttpExchange") -> bool:
        """Whether this request holds the earlier one's messages first (the history was not trimmed)."""
        mine, theirs = self.request.get("messages"), earlier.request.get("messages")
        return isinstance(mine, list) and isinstance(theirs, list) and mine[:len(theirs)] == theirs

    def parameters(self) -> str:
        """For the trace: the request's fields other than its messages, on one line (each tool by
        its name), such as "model=gpt-4o-mini · tools=[get_quote] · max_tokens=1024"."""
        def shown(name, value):
            if name == "tools" and isinstance(value, list):
                value = [t.get("function", {}).get("name", "?") if isinstance(t, dict) else "?" for t in value]
            return f"{name}={json.dumps(value, ensure_ascii=False)[:200]}"
        return " · ".join(shown(k, v) for k, v in self.request.items() if k != "messages")

    def texts(self, shown: int) -> tuple[str, str, int]:
        """For the trace: the request's messages from `shown` on, one JSON line each, the response,
        and how many messages the request had (the next round shows only what the loop added)."""
        messages = self.request.get("messages")
        messages = messages if isinstance(messages, list) else []
        sent = "\n".join(json.dumps(m, ensure_ascii=False) for m in messages[shown:])
        if self.network:
            return sent, f"no answer ({self.network}) · {self.request.get('model')}: " \
                         f"{self.response['error']['message']}", len(messages)
        response = self.response
        if self.status == 200:
            choice = response["choices"][0]
            response = dict(choice["message"], finish_reason=choice.get("finish_reason"))
        headers = "".join(f"\n{k}: {v}" for k, v in self.response_headers.items())
        model = self.response.get("model") if isinstance(self.response, dict) else None
        model = model or self.request.get("model")  # which model answered: it may change mid-run
        model = f" · {model}" if isinstance(model, str) else ""
        return sent, f"HTTP {self.status}{model} {json.dumps(response, ensure_ascii=False)}{headers}", len(messages)


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
            fault = self._fault(request, exchange.url)
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

    def _fault(self, request: dict, url: str) -> Fault | None:
        """What the model's fault plan says this request to `url` gets (None: a normal answer):
        each server counts its own requests, as separate servers would."""
        model, server = request.get("model"), _server(url)
        plan = fault_plan(model, server)
        if not plan:
            return None
        count = sum(1 for e in self.transcript if e.request.get("model") == model and _server(e.url) == server)
        return fault_for(plan, count)

    def complete(self, body) -> dict:
        messages, tools = check_request(body)
        prompt = prompt_text(messages, body)
        reply_with = functools.partial(self._response, body, messages, prompt)
        used, asked = count_tokens(prompt), reply_limit(body) or 0
        if used + asked > CONTEXT_WINDOW:  # the API's words (llama.cpp's server says the same)
            raise RequestError(f"This model's maximum context length is {CONTEXT_WINDOW} tokens. However, " + (
                f"you requested {used + asked} tokens ({used} in the messages, {asked} in the completion). "
                "Please reduce the length of the messages or completion." if asked else
                f"your messages resulted in {used} tokens. Please reduce the length of the messages."),
                param="messages", code="context_length_exceeded")
        if self.writer:  # what a real model does with a text-protocol prompt: it writes text
            return reply_with(self.writer(messages))
        if self.scenario.follow_ups:  # a conversation: the user's latest message says which turn
            turn = self.user_turn(messages)
            if isinstance(turn, str):
                return reply_with(turn)
            if turn is not self.scenario:
                return ChatSession(turn, self.seed, self.budget).complete(body)
        mode, forced = tool_choice_mode(body)
        results = {m["tool_call_id"]: message_text(m.get("content")) for m in messages if m["role"] == "tool"}
        issued = {c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []}

        def answered(ids: list[str]) -> bool:
            return all(i in results and i in issued for i in ids)

        observations: list[str] = []
        index = 0
        while (turn := self.scenario.turn(index)) is not None:
            ids = [self.call_id(index, j) for j in range(len(turn))]
            if not answered(ids):
                break
            observations += [results[i] for i in ids]
            index += 1
        if not any(self.scenario.question in message_text(m.get("content"))
                   for m in messages if m["role"] == "user"):
            content, turn = "I do not see a question in the user messages.", None
        elif turn is None:
            content = self.scenario.render(self.scenario.answer, observations)
        elif missing := sorted({c.tool for c in turn} - set(tools)):
            # like a real model: it cannot call a tool it was not given
            content, turn = (f"I would need the {missing[0]} tool to answer this, but no tool by that "
                             "name was provided."), None
        else:
            content = self.scenario.render(turn[0].thought, observations)

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
            extra = 0
            while answered([self.call_id(f"forced{extra}", j) for j in range(len(calls))]):
                extra += 1
            index = f"forced{extra}"
        if not calls:
            return reply_with(content)
        return reply_with(content, self._tool_calls(index, calls))

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


def prompt_text(messages: list[dict], body: dict) -> str:
    """What a request puts in the model's context, as the mock counts its tokens: messages and tools."""
    return json.dumps([messages, body.get("tools")], ensure_ascii=False, sort_keys=True)


def conversation_text(messages: list[dict]) -> str:
    """A conversation as a text-protocol model reads it: every message's content, in order."""
    return "\n\n".join(message_text(m.get("content")) for m in messages if isinstance(m, dict))


@dataclass
class TextChatSession(ChatSession):
    """The text protocol (Thought / Action / Action Input / Observation) over Chat Completions: the
    reply's content is what the text mock (text_react.py) writes for the whole conversation read as
    one prompt, the assistant's own earlier turns included. Without a stop sequence it runs on past
    its request with an Observation of its own, as a real model does; `stop` cuts it there."""

    def __post_init__(self):
        if self.writer is None:
            reader = TextReactSession(self.scenario, self.seed, self.budget)
            self.writer = lambda messages: reader.reply(conversation_text(messages))
