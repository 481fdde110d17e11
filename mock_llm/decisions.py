"""The mock model for the JSON-decision protocols (day01, day02): messages in, one decision out.

The learner's loop keeps a list of messages and asks `llm(messages)`. The model answers with a
decision:

    {"type": "tool", "name": "multiply", "args": {"a": 5, "b": 6}}     run this tool, tell me its result
    {"type": "final", "content": "The result is 40"}                   done

Two protocols share this logic:

    decisions  (day01)  llm(messages) -> the decision, a dict               DecisionSession
    json       (day02)  llm(messages) -> the decision written as JSON text  JsonSession

Reading the messages. The question must be in a `user` message, else the model says it sees none.
The results of its earlier tool calls are the `tool` messages, in order: the n-th decision of the
scenario's script comes once n results are there, so the second call (add 30 and 10) only has the
right 30 when the first result really came back, and a loop that never appends a `tool` message
gets the first call again and again. Argument values that look like numbers become numbers, as a
model writing JSON would write them.

Script entries. In scenarios.yaml a call whose `tool` starts with `$` is not a tool call:
`{tool: $thought, args: {content: "…"}}` is a decision of type "thought", its args as its fields (a
model that answers with a type the loop does not know). For the json protocol, `{tool: $malformed}`
spoils the reply that comes next in the script (see below); it is not a reply of its own.

How the json protocol writes a decision. Like a model asked for JSON, it does not always write the
bare object. Reply n of a run (n = the results read so far) takes one of three layouts:

    bare    {"type": "tool", …}
    fence   ```json / the object, indented over several lines / ```
    prose   a sentence (the call's `thought`), the object on its own line, a sentence after it

in the order LAYOUTS, starting at an offset drawn from the scenario's name and the seed. So every
run of three replies or more shows each layout exactly once, in an order that changes with the
seed, and the same messages always get the same reply.

The malformed rule. A reply spoiled by `$malformed` is first written broken: the lead sentence
BROKEN_LEAD, then the JSON cut off before its first closing brace (as a model stopped by its token
limit writes it). No parser can read it. The mock writes the proper reply only once the messages
after the last tool result show that broken text in an `assistant` message (the agent sent the bad
reply back) followed by any later non-empty message that is not the assistant's (the agent said what
was wrong). Until then it writes the same broken reply again: a loop that skips the bad reply, or
sends an error without the reply it is about, never gets further. A `tool` message right after a
broken reply is such an error message, not a tool result (no tool could have run).
"""
from __future__ import annotations

import dataclasses
import json
import re
import zlib
from dataclasses import dataclass, field

from .session import BadPayload, Session, message_text

NUMBER = re.compile(r"-?\d+(\.\d+)?")
LAYOUTS = ("bare", "fence", "prose")
BROKEN_LEAD = "Sure, here is my next step as JSON:"
MALFORMED = "$malformed"


@dataclass
class DecisionExchange:
    messages: list
    decision: dict

    def texts(self, shown: int) -> tuple[str, str, int]:
        """For the trace: the messages from `shown` on, one JSON line each, and the decision."""
        return _sent(self.messages, shown), json.dumps(self.decision, ensure_ascii=False), len(self.messages)

    def parameters(self) -> str:
        return ""  # llm(messages) takes the messages alone

    def asked(self) -> list[tuple[str, object]]:
        """The tool call this decision asks for, as (name, arguments): none, or one."""
        decision = self.decision
        wanted = isinstance(decision, dict) and decision.get("type") == "tool"
        return [(str(decision.get("name")), decision.get("args"))] if wanted else []

    def continues(self, earlier: "DecisionExchange") -> bool:
        """Whether these messages start with the earlier exchange's (nothing trimmed or rebuilt)."""
        return self.messages[:len(earlier.messages)] == earlier.messages


@dataclass
class JsonExchange(DecisionExchange):
    reply: str  # what it wrote: the decision (what it meant) as JSON text, in `layout`
    layout: str  # bare, fence, prose, or broken

    def texts(self, shown: int) -> tuple[str, str, int]:
        return _sent(self.messages, shown), self.reply, len(self.messages)


def _sent(messages: list, shown: int) -> str:
    return "\n".join(json.dumps(m, ensure_ascii=False, default=str) for m in messages[shown:])


@dataclass
class DecisionSession(Session):
    """One agent run against one scenario: answers llm(messages) with decision dicts."""

    def answer(self, payload) -> dict:
        messages = _messages(payload)
        self.spend()
        decision = self.decide(messages)
        self.transcript.append(DecisionExchange(payload, decision))
        return decision

    def decide(self, messages: list[dict]) -> dict:
        if not self.sees_question(messages):
            return {"type": "final", "content": "I do not see a question in the user messages."}
        observations = self.observations(messages)
        return self.decision(len(observations), observations)

    def sees_question(self, messages: list[dict]) -> bool:
        asked = " ".join(message_text(m.get("content")) for m in messages if m.get("role") == "user")
        return self.scenario.question in asked

    def observations(self, messages: list[dict]) -> list[str]:
        """The results of earlier tool calls: the `tool` messages' contents, in order."""
        return [_text(m) for m in messages if m.get("role") == "tool"]

    def decision(self, index: int, observations: list[str]) -> dict:
        """The index-th decision of the script, filled in from the results read so far."""
        call = self.scenario.call(index)
        if call is None:
            return {"type": "final", "content": self.scenario.render(self.scenario.answer, observations)}
        args = {k: _typed(v) for k, v in self.scenario.render_args(call, observations).items()}
        if call.tool.startswith("$"):  # not a tool call: a decision of another type
            return {"type": call.tool[1:], **args}
        return {"type": "tool", "name": call.tool, "args": args}

    def thought(self, index: int, observations: list[str]) -> str:
        call = self.scenario.call(index)
        return self.scenario.render(call.thought, observations) if call else "I have all I need to answer."

    def write_content(self, messages: list[dict]) -> str:
        """Over HTTP, the decision is written as JSON text, as a model asked for JSON would."""
        return json.dumps(self.answer(messages), ensure_ascii=False)

    @classmethod
    def from_text(cls, text: str) -> dict:
        """A real model's reply (--live) as a decision: the first JSON object in it; text that
        holds none is a final answer in its own words."""
        start = text.find("{")
        while start != -1:
            try:
                decision, _ = json.JSONDecoder().raw_decode(text, start)
            except (ValueError, RecursionError):  # RecursionError: "[[[[…" nested past the parser's stack
                start = text.find("{", start + 1)
                continue
            if isinstance(decision, dict):
                return decision
            start = text.find("{", start + 1)
        return {"type": "final", "content": text.strip()}


@dataclass
class JsonSession(DecisionSession):
    """One agent run against one scenario: answers llm(messages) with the decision as JSON text,
    sometimes in a fence or in prose, and first broken where the script says `$malformed`."""
    spoiled: set = field(default_factory=set)  # the indexes of the replies first written broken

    def __post_init__(self):
        turns, spoiled = [], set()
        for turn in self.scenario.turns:
            if turn and turn[0].tool == MALFORMED:
                spoiled.add(len(turns))
            else:
                turns.append(turn)
        self.scenario = dataclasses.replace(self.scenario, turns=turns)
        self.spoiled = spoiled

    def answer(self, payload) -> str:
        messages = _messages(payload)
        self.spend()
        decision, reply, layout = self.write(messages)
        self.transcript.append(JsonExchange(payload, decision, reply, layout))
        return reply

    def write(self, messages: list[dict]) -> tuple[dict, str, str]:
        """(the decision, the reply that writes it, the reply's layout)."""
        if not self.sees_question(messages):
            decision = {"type": "final", "content": "I do not see a question in the user messages."}
            return decision, json.dumps(decision, ensure_ascii=False), "bare"
        observations = self.observations(messages)
        index = len(observations)
        decision = self.decision(index, observations)
        if index in self.spoiled:
            broken = broken_reply(decision)
            if not corrected(self.since_last_result(messages), broken):
                return decision, broken, "broken"
        layout = LAYOUTS[(self.offset + index) % len(LAYOUTS)]
        return decision, written(decision, layout, self.thought(index, observations)), layout

    @property
    def offset(self) -> int:
        return zlib.crc32(f"{self.scenario.name}:{self.seed}".encode()) % len(LAYOUTS)

    def observations(self, messages: list[dict]) -> list[str]:
        """The `tool` messages, except one right after a broken reply: that says what was wrong."""
        return [_text(messages[i]) for i in _results(messages)]

    def since_last_result(self, messages: list[dict]) -> list[dict]:
        return messages[max(_results(messages), default=-1) + 1:]

    def write_content(self, messages: list[dict]) -> str:
        return self.answer(messages)

    @classmethod
    def from_text(cls, text: str) -> str:
        return text  # day02's learner parses the text themselves


def written(decision: dict, layout: str, thought: str) -> str:
    """The decision as a model asked for JSON writes it, in one of the LAYOUTS."""
    if layout == "fence":
        return "```json\n" + json.dumps(decision, ensure_ascii=False, indent=2) + "\n```"
    text = json.dumps(decision, ensure_ascii=False)
    if layout == "prose":
        after = "\nI will wait for the result." if decision.get("type") == "tool" else ""
        return f"{thought}\n{text}{after}"
    return text


def broken_reply(decision: dict) -> str:
    """The reply cut off before the object's first closing brace: no parser can read it."""
    text = json.dumps(decision, ensure_ascii=False)
    cut = min(len(text) * 2 // 3, text.index("}"))
    return f"{BROKEN_LEAD}\n{text[:cut].rstrip()}"


def corrected(messages: list[dict], broken: str) -> bool:
    """Whether the messages send the broken reply back (assistant) and then say what was wrong."""
    for i, message in enumerate(messages):
        if message.get("role") == "assistant" and _squashed(broken) in _squashed(_text(message)):
            return any(m.get("role") != "assistant" and _text(m).strip() for m in messages[i + 1:])
    return False


def _results(messages: list[dict]) -> list[int]:
    """Where the tool results are, leaving out those right after a broken reply (other tool
    messages aside): those say what was wrong. One pass: a learner may send thousands."""
    found, after_broken = [], False
    for i, message in enumerate(messages):
        if message.get("role") != "tool":
            after_broken = message.get("role") == "assistant" and _squashed(BROKEN_LEAD) in _squashed(_text(message))
        elif not after_broken:
            found.append(i)
    return found


def _messages(payload) -> list[dict]:
    if not isinstance(payload, list) or not all(isinstance(m, dict) for m in payload):
        raise BadPayload(type(payload).__name__ if not hasattr(payload, "type") else payload.type)
    return payload


def _text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, (str, list)) or content is None:
        return message_text(content)
    return json.dumps(content, ensure_ascii=False, default=str)


def _squashed(text: str) -> str:
    return "".join(text.split())


def _typed(text: str):
    """'30' -> 30, '2.5' -> 2.5, anything else as it is."""
    if NUMBER.fullmatch(text.strip()):
        number = float(text)
        return int(number) if number.is_integer() and "." not in text else number
    return text
