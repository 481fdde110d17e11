"""One model call's messages as the OpenTelemetry GenAI conventions write gen_ai.input.messages and
gen_ai.output.messages: a JSON list of {"role", "parts"}, each part {"type": "text", "content"},
{"type": "tool_call", "id", "name", "arguments"} or {"type": "tool_call_response", "id",
"response"}. In that shape a viewer shows them as a conversation (Phoenix's chat view reads nothing
else).

What the learner's code sent is taken as it came, whatever it holds: a message that is no dict is
a user's text. Bounded: each text is cut at MAX_BLOCK characters, a message keeps MAX_PARTS parts,
and a list longer than MAX_TEXT characters loses its earliest messages (the span says how many).
"""
from __future__ import annotations

import json

from mock_llm import DecisionExchange, HttpExchange
from validator.grading.report import clean
from validator.traces.page import MAX_BLOCK

MAX_PARTS = 8  # parts of one message: its text and tool calls
MAX_TEXT = 4 * MAX_BLOCK  # characters of one attribute's messages, the last one always kept


def cut(value) -> str:
    """Learner text (or anything, as JSON) as an attribute holds it."""
    return clean(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str), MAX_BLOCK)


def _field(value) -> str | None:
    """An id, name or arguments of a call: absent stays absent."""
    return None if value is None else cut(value)


def text(role: str, content, **more) -> dict:
    """A message of one text."""
    return {"role": role, "parts": [{"type": "text", "content": cut(content)}], **more}


def call_messages(exchange) -> tuple[list[dict], list[dict]]:
    """The messages a model call was sent, and those it answered (none where it gave no answer)."""
    if isinstance(exchange, HttpExchange):
        messages = exchange.request.get("messages")
        sent = [message(m) for m in messages] if isinstance(messages, list) else []
        if exchange.status != 200:
            return sent, []
        choice = exchange.response["choices"][0]
        return sent, [dict(message(choice["message"]), finish_reason=choice.get("finish_reason") or "stop")]
    prompt, reply, _ = exchange.texts(0)
    if isinstance(exchange, DecisionExchange) and isinstance(exchange.messages, list):  # llm(messages)
        sent = [message(m) for m in exchange.messages]
    else:  # llm_call(prompt): one text
        sent = [text("user", prompt)]
    return sent, [text("assistant", reply, finish_reason="stop")]


def message(sent) -> dict:
    """One Chat Completions message, as the learner's code wrote it, in the conventions' shape."""
    if not isinstance(sent, dict):
        return text("user", sent)
    role, content, parts = sent.get("role"), sent.get("content"), []
    if role == "tool":
        parts.append({"type": "tool_call_response", "id": _field(sent.get("tool_call_id")), "response": cut(content)})
    elif isinstance(content, list):  # content parts: [{"type": "text", "text": …}, …]
        parts += [{"type": "text", "content": cut(p.get("text", p) if isinstance(p, dict) else p)} for p in content]
    elif content is not None:
        parts.append({"type": "text", "content": cut(content)})
    calls = sent.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        function = function if isinstance(function, dict) else {}
        parts.append({"type": "tool_call", "id": _field(call.get("id") if isinstance(call, dict) else call),
                      "name": _field(function.get("name")), "arguments": _field(function.get("arguments"))})
    return {"role": role if isinstance(role, str) else cut(role), "parts": parts[:MAX_PARTS]}


def as_attribute(messages: list[dict]) -> tuple[str, int]:
    """The messages as the attribute's JSON, and how many of the earliest were left out to keep it
    within MAX_TEXT characters."""
    texts = [json.dumps(m, ensure_ascii=False) for m in messages]
    first, size = len(texts), 2
    while first and (first == len(texts) or size + len(texts[first - 1]) + 2 <= MAX_TEXT):
        first -= 1
        size += len(texts[first]) + 2
    return "[" + ", ".join(texts[first:]) + "]", first  # as json.dumps(messages[first:]) writes it
