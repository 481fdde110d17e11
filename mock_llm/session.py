"""What every mock session has in common, and the ways a model call can be refused.

Each protocol (registry.py names them) is a Session class that answers the learner's model calls
in a graded run:

    text       llm_call(prompt) -> "Thought: … Action: … Action Input: …"    (text_react.py)
    decisions  llm(messages)    -> {"type": "tool", "name": …, "args": {…}}   (decisions.py)
    json       llm(messages)    -> the same decision as JSON text             (decisions.py)
    chat       client.chat.completions.create(…) over HTTP -> tool_calls    (chat.py)
    text_chat  client.chat.completions.create(…) over HTTP -> "Thought: … Action: …" as content,
               read from the whole conversation (assistant turns too)          (chat.py)

A session answers `answer(payload)` (the learner's model function was called with payload) or
`http(method, path, body)` (the learner's openai client sent a request); each exchange it records
has `texts(shown)`, which the report uses to show the trace.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .scenarios import Scenario


class Refusal(Exception):
    """The model will not answer: the learner's call ends with `problem` (see validator/grading/runner.py)."""
    problem = "refused"


class BudgetExceeded(Refusal):
    """The agent called the model more often than the lesson's budget allows."""
    problem = "budget"


class BadPayload(Refusal):
    """The learner's code called the model with something it cannot read (a list for a prompt)."""
    problem = "bad_prompt"


class WrongEntry(Refusal):
    """The model was called the way another protocol is (llm_call in an openai-client lesson)."""
    problem = "unexpected_llm"


class NetworkFault(Refusal):
    """A network failure the mock simulates (chat.py, a model name such as "m#timeout"): no HTTP
    answer at all. `network` says which: "timeout" (the server stalls) or "connect" (nothing
    listens). A grader that can pass it on makes the learner's HTTP client raise it as its own
    timeout or connection error; one that can't ends the call, like an unreachable endpoint."""
    problem = "unreachable"

    def __init__(self, network: str, message: str):
        super().__init__(message)
        self.network = network


@dataclass
class Session:
    """One agent run against one scenario: answers the model calls, records each exchange."""
    scenario: Scenario
    seed: int = 0
    budget: int = 25
    transcript: list = field(default_factory=list)

    def spend(self) -> None:
        """Count one model call; past the budget the model refuses (the loop has no step limit)."""
        if len(self.transcript) >= self.budget:
            raise BudgetExceeded(f"more than {self.budget} model calls")

    def answer(self, payload):
        raise WrongEntry("this lesson's model is reached through the openai client")

    def http(self, method: str, path: str, body: str, headers: dict | None = None):
        raise WrongEntry("this lesson's model is reached through its model function, not HTTP")

    def write_content(self, messages: list[dict]) -> str:
        raise NotImplementedError

    @classmethod
    def check_scenario(cls, scenario: Scenario) -> None:
        """A ValueError saying why this protocol can't play the scenario (a lesson author's mistake,
        said when the lesson loads); nothing when it can."""

    @classmethod
    def from_text(cls, text: str):
        """What a real model's reply text is in this protocol (--live): the text itself."""
        return text


def message_text(content) -> str:
    """A chat message's content as text: a string, or the text parts of a list of content parts."""
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


# [^\S\n]: a space that is not a line's end, so a prompt of many empty lines is read in one pass
QUESTION_LINE = re.compile(r"^[^\S\n]*(?:Question|问题)[^\S\n]*[:：][^\S\n]*(.+)$", re.IGNORECASE | re.MULTILINE)


def question_of(payload) -> str:
    """What the user asked: the first user message of a messages list; in a text prompt the
    `Question:` line, else its last line."""
    if isinstance(payload, list):
        users = [message_text(m.get("content")) for m in payload if isinstance(m, dict) and m.get("role") == "user"]
        return users[0].strip() if users else ""
    text = str(payload)
    found = QUESTION_LINE.findall(text)
    if found:
        return found[-1].strip()
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""

