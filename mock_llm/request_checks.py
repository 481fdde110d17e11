"""What the Chat Completions API refuses, and how: its 400 errors, with its wording, `param` and `code`.

The mock checks a request like the API would before its model reads it — every field of each tool
call an assistant message sends back, every `tool` message answering a `tool_call_id` of the
assistant message just before it, every such call answered, `tool`s that are functions,
`tool_choice` one the API knows, `stop` and `max_tokens` of the right shapes — and on a mistake
the session (chat.py) answers with the API's error object instead of a reply.
"""
from __future__ import annotations

import json

from validator.child.wire import loads

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
