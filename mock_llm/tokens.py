"""Tokens, as the mock counts them: the context window a request must fit, and where a reply is cut.

Like the real API it honours `max_tokens` (or `max_completion_tokens`): a longer reply is cut there,
a tool call's arguments mid-JSON, with finish_reason "length". It honours `stop` too: the content
ends before the first stop sequence it would have written. A text-protocol model (`text_chat`)
runs on past its request with an `Observation:` of its own; `stop: ["Observation:"]` cuts that
off, as it does with a real model. And it has a context window (CONTEXT_WINDOW): a request past it
gets the API's 400, `context_length_exceeded`, as a history that is never trimmed does.
"""
from __future__ import annotations

import json
import math

from .request_checks import RequestError

CONTEXT_WINDOW = 16_384  # tokens a request's messages and tools may take, as counted by count_tokens


def count_tokens(text: str) -> int:
    """A stand-in tokenizer: about four bytes a token, like English text on real models."""
    return max(1, math.ceil(len(text.encode("utf-8")) / 4))


def prompt_text(messages: list[dict], body: dict) -> str:
    """What a request puts in the model's context, as the mock counts its tokens: messages and tools."""
    return json.dumps([messages, body.get("tools")], ensure_ascii=False, sort_keys=True)


def check_context_window(used: int, asked: int) -> None:
    """RequestError (a 400) for a request whose prompt (`used` tokens) and reply limit (`asked`, 0
    for none) do not fit the context window: the API's words (llama.cpp's server says the same)."""
    if used + asked > CONTEXT_WINDOW:
        raise RequestError(f"This model's maximum context length is {CONTEXT_WINDOW} tokens. However, " + (
            f"you requested {used + asked} tokens ({used} in the messages, {asked} in the completion). "
            "Please reduce the length of the messages or completion." if asked else
            f"your messages resulted in {used} tokens. Please reduce the length of the messages."),
            param="messages", code="context_length_exceeded")


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
