"""The mock model for the JSON-decision protocol (day01, day02): messages in, one decision out.

The learner's loop keeps a list of messages and asks `llm(messages)`. The model answers with a
decision, a dict:

    {"type": "tool", "name": "multiply", "args": {"a": 5, "b": 6}}     run this tool, tell me its result
    {"type": "final", "content": "The result is 40"}                   done

It reads the results of its earlier tool calls from the `tool` messages, in order, so the second
call (add 30 and 10) only has the right 30 when the first result really came back. Argument values
that look like numbers become numbers, as a model writing JSON would write them.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .protocols import BadPayload, Session, message_text

NUMBER = re.compile(r"-?\d+(\.\d+)?")


@dataclass
class DecisionExchange:
    messages: list
    decision: dict

    def texts(self, shown: int) -> tuple[str, str, int]:
        """For the trace: the messages from `shown` on, one JSON line each, and the decision."""
        sent = "\n".join(json.dumps(m, ensure_ascii=False, default=str) for m in self.messages[shown:])
        return sent, json.dumps(self.decision, ensure_ascii=False), len(self.messages)


@dataclass
class DecisionSession(Session):
    """One agent run against one scenario: answers llm(messages) with decision dicts."""

    def answer(self, payload) -> dict:
        if not isinstance(payload, list) or not all(isinstance(m, dict) for m in payload):
            raise BadPayload(type(payload).__name__ if not hasattr(payload, "type") else payload.type)
        self.spend()
        decision = self.decide(payload)
        self.transcript.append(DecisionExchange(payload, decision))
        return decision

    def decide(self, messages: list[dict]) -> dict:
        asked = " ".join(message_text(m.get("content")) for m in messages if m.get("role") == "user")
        if self.scenario.question not in asked:
            return {"type": "final", "content": "I do not see a question in the user messages."}
        observations = [message_text(m.get("content")) if isinstance(m.get("content"), (str, list))
                        else json.dumps(m.get("content"), default=str)
                        for m in messages if m.get("role") == "tool"]
        call = self.scenario.call(len(observations))
        if call is None:
            return {"type": "final", "content": self.scenario.render(self.scenario.answer, observations)}
        return {"type": "tool", "name": call.tool,
                "args": {k: _typed(v) for k, v in self.scenario.render_args(call, observations).items()}}

    def write_content(self, messages: list[dict]) -> str:
        """Over HTTP, the decision is written as JSON text, as a model asked for JSON would."""
        return json.dumps(self.answer(messages), ensure_ascii=False)


def _typed(text: str):
    """'30' -> 30, '2.5' -> 2.5, anything else as it is."""
    if NUMBER.fullmatch(text.strip()):
        number = float(text)
        return int(number) if number.is_integer() and "." not in text else number
    return text
