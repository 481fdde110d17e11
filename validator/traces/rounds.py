"""An agent run, round by round, as the trace page shows it: what each request added, what the model
wrote back (and the part of it the loop should never act on), the tools the learner's code ran and
the result that went back to the model, and what looks wrong in the round. Read from the transcript
the mock keeps (mock_llm: Exchange, HttpExchange, the decision exchanges) and the tool calls the
grader ran; nothing here grades.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from mock_llm import (
    Exchange,
    HttpExchange,
    conversation_text,
    find_observations,
    message_text,
    read_request,
    written_after_request,
)
from validator.lessons import say


@dataclass
class Message:
    """One message of a Chat Completions request, as the page lists it."""
    role: str
    text: str
    calls: list[str] = field(default_factory=list)  # an assistant's tool calls: "name(arguments) · id"
    answers: str = ""  # a tool message: the id of the call it answers


@dataclass
class FedBack:
    """The result of one tool call as the next request carried it back to the model."""
    text: str
    real: bool | None  # whether it holds what the tool returned; None: no tool ran (the loop's own words)
    answers: str = ""  # the call it is the result of, as the model asked for it


@dataclass
class Round:
    number: int
    sent: str = ""  # a text prompt: what this round's prompt adds to the one before (all of it when not)
    earlier: str = ""  # a text prompt: the part it repeats of the prompt before, folded on the page
    changed: set = field(default_factory=set)  # a rebuilt text prompt: its lines the one before lacks
    messages: list[Message] | None = None  # a messages request: those it adds to the request before
    earlier_messages: list[Message] = field(default_factory=list)  # the ones it repeats, folded
    reply: str = ""  # what the learner's code got back
    made_up: str = ""  # the reply's text after its request: written before any tool ran
    cut: str = ""  # what a stop sequence cut from the reply: the learner's code never got it
    asked: list[str] = field(default_factory=list)  # the calls the model asked for: "name(input)"
    calls: list = field(default_factory=list)  # the ToolCalls the learner's code made in this round
    call_ids: list = field(default_factory=list)  # for each, the id of the model's call it carried out, if any
    fed_back: list[FedBack] = field(default_factory=list)
    tokens: tuple[int, int] | None = None  # (prompt, completion), where the model counts them
    notes: list[str] = field(default_factory=list)  # what looks wrong in this round, in words


def rounds(run, lang: str) -> list[Round]:
    """Every round of an agent run, with each round's notes in `lang`."""
    found = []
    for number, exchange in enumerate(run.exchanges, start=1):
        before = run.exchanges[number - 2] if number > 1 else None
        after = run.exchanges[number] if number < len(run.exchanges) else None
        calls = [call for call in run.tool_calls if call.round == number]
        if isinstance(exchange, Exchange):
            found.append(_text_round(number, exchange.prompt, before and before.prompt, exchange.reply,
                                     after and after.prompt, calls, lang))
        elif isinstance(exchange, HttpExchange):
            found.append(_chat_round(number, exchange, before, after, calls, lang))
        else:  # another protocol's exchange: the request and the reply as --trace shows them
            sent, reply, _ = exchange.texts(0)
            found.append(Round(number, sent=sent, reply=reply, calls=calls))
    return found


def _text_round(number: int, prompt: str, previous: str | None, reply: str, following: str | None,
                calls: list, lang: str) -> Round:
    here = Round(number, reply=reply, calls=calls)
    here.sent, here.earlier, here.changed = _new_text(prompt, previous)
    request = read_request(reply)
    here.made_up = written_after_request(reply)
    if here.made_up:
        here.reply = reply[:len(reply) - len(here.made_up)].rstrip()
    if request:
        here.asked = [f"{request[0]}({request[1]!r})"]
    if following is not None:
        added, _, _ = _new_text(following, prompt)
        here.fed_back = [_text_fed_back(added, call, request) for call in calls]
        if request and not calls:
            here.fed_back = [FedBack(text, None) for text in find_observations(added, *request)[:1]]
    _note(here, request, lang)
    return here


def _new_text(prompt: str, previous: str | None) -> tuple[str, str, set]:
    """(what is new, the part repeated from the previous prompt, the lines of a rebuilt prompt that
    the previous one lacks)."""
    prompt = prompt.rstrip()
    if previous is None:
        return prompt, "", set()
    previous = previous.rstrip()
    if previous and prompt.startswith(previous):
        return prompt[len(previous):].lstrip("\n"), previous, set()
    before = set(previous.splitlines())
    return prompt, "", {line for line in prompt.splitlines() if line not in before}


def _text_fed_back(added: str, call, request: tuple[str, str] | None) -> FedBack:
    """The Observation the next prompt gives the call, as the model reads it (under the call as it
    ran, else as the model asked for it), and whether it is the tool's result."""
    seen = find_observations(added, call.name, str(call.input)) or (find_observations(added, *request)
                                                                      if request else [])
    asked = f"{call.name}({call.input!r})"
    if not seen:
        return FedBack("", False, asked)
    return FedBack(seen[0], _holds(seen[0], call.output), asked)


def _holds(text: str, output) -> bool:
    """Whether text carries a tool's output, as the learner's code would have written it."""
    shown = [str(output)] + ([json.dumps(output, ensure_ascii=False)] if not isinstance(output, str) else [])
    return any(s.strip() and s.strip() in text for s in shown)


def _chat_round(number: int, exchange: HttpExchange, before, after, calls: list, lang: str) -> Round:
    here = Round(number, calls=calls, cut=exchange.cut)
    messages = exchange.request.get("messages")
    if not isinstance(messages, list):
        here.sent = exchange.texts(0)[0] or json.dumps(exchange.request, ensure_ascii=False, default=str)
        messages = []
    shown = len(before.request.get("messages") or []) if before and exchange.continues(before) else 0
    here.earlier_messages = [_message(m) for m in messages[:shown]]
    here.messages = [_message(m) for m in messages[shown:]]
    usage = exchange.response.get("usage") if exchange.status == 200 else None
    if isinstance(usage, dict):
        here.tokens = (usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0))
    if exchange.status != 200:
        here.reply = exchange.texts(0)[1]
        return here
    reply = exchange.response["choices"][0]["message"]
    content = message_text(reply.get("content"))
    tool_calls = reply.get("tool_calls") or []
    here.reply = content
    here.asked = [_asked(c) for c in tool_calls]
    here.call_ids = [next((c["id"] for c in tool_calls if call in _runs_of(c, calls)), None) for call in calls]
    request = None if tool_calls else read_request(content)  # the text protocol, as message content
    if request:
        here.asked = [f"{request[0]}({request[1]!r})"]
        here.made_up = written_after_request(content)
        here.reply = content[:len(content) - len(here.made_up)].rstrip() if here.made_up else content
    later = after.request.get("messages") if after else None
    if isinstance(later, list):
        results = {m.get("tool_call_id"): message_text(m.get("content")) for m in later
                   if isinstance(m, dict) and m.get("role") == "tool"}
        for call in tool_calls:
            if call["id"] in results:
                ran = _runs_of(call, calls)
                real = any(_holds(results[call["id"]], c.output) for c in ran) if ran else None
                here.fed_back.append(FedBack(results[call["id"]], real, _asked(call)))
        if request:
            added = conversation_text(later[len(messages):] if exchange.continues(after) else later)
            here.fed_back = [_text_fed_back(added, call, request) for call in calls]
    _note(here, request or (tool_calls and True), lang)
    return here


def _asked(call: dict) -> str:
    """A tool call as the page shows it: "name(arguments) · id" (any part missing shown as None)."""
    function = call.get("function") or {}
    return f"{function.get('name')}({function.get('arguments')}) · {call.get('id')}"


def _runs_of(call: dict, calls: list) -> list:
    """The tool runs that carried out one of the model's tool calls: those of its name with its
    arguments; with none of those, any of its name (the arguments were read otherwise)."""
    named = [c for c in calls if c.name == call["function"]["name"]]
    try:
        arguments = json.loads(call["function"]["arguments"])
    except ValueError:
        return named
    return [c for c in named if c.input == arguments] or named


def _message(message) -> Message:
    if not isinstance(message, dict):
        return Message("?", json.dumps(message, ensure_ascii=False, default=str))
    calls = [_asked(c) for c in message.get("tool_calls") or [] if isinstance(c, dict)]
    return Message(str(message.get("role")), message_text(message.get("content")) if not isinstance(
        message.get("content"), (dict, int, float)) else json.dumps(message.get("content")), calls,
        str(message.get("tool_call_id") or ""))


def _note(here: Round, request, lang: str) -> None:
    """What looks wrong in the round: the model asked for a call that did not run as asked, or the
    result that went back is not the tool's."""
    if isinstance(request, tuple) and here.calls:
        wanted = (request[0].strip().lower(), "".join(request[1].split()))
        ran = [(c.name.lower(), "".join(str(c.input).split())) for c in here.calls]
        if wanted not in ran:
            here.notes.append(say("page_note_other_call", lang, asked=here.asked[0],
                                  ran=", ".join(f"{c.name}({c.input!r})" for c in here.calls)))
    if request and not here.calls and not here.fed_back:
        here.notes.append(say("page_note_nothing_ran", lang, asked=", ".join(here.asked)))
    if any(fed.real is False for fed in here.fed_back):
        here.notes.append(say("page_note_not_the_result", lang))
