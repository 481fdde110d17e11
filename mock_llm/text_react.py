"""The mock model for the text ReAct protocol (Thought / Action / Action Input / Observation).

It reads the prompt the way a model would. For each tool call its scenario scripts, it looks for
that call in the prompt, as an `Action:` line, an `Action Input:` line and an `Observation:` after
them. Found: it reads the observation and moves on to the next call. Not found: it asks for that
call. All found: it gives a Final Answer that quotes the observations it read, so an answer is only
right when the agent really ran the tool and put its result back into the prompt.

Telling history from instructions: a prompt may hold placeholder lines (`Action: [tool name]`) or a
few-shot example with its own Action and Observation. Whatever was already in the session's first
prompt is instructions, not history: only the occurrences beyond those count.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from .scenarios import Scenario

# A line such as "Action: Calculator", also "- Action：Calculator" or "**Action:** Calculator".
_KEY = r"^[\s>*#\-\d.)]*{}\s*\**\s*[:：]\s*\**\s*(.*)$"
ACTION = re.compile(_KEY.format("Action"), re.IGNORECASE)
ACTION_INPUT = re.compile(_KEY.format(r"Action[ _]?Input"), re.IGNORECASE)
OBSERVATION = re.compile(_KEY.format("Observation"), re.IGNORECASE)
ANY_KEY = re.compile(_KEY.format(r"(?:Thought|Action|Action[ _]?Input|Observation|Final[ _]?Answer"
                                 r"|Question|问题|思考|行动|行动输入|观察|最终答案)"), re.IGNORECASE)
PLACEHOLDER = re.compile(r"^(\.\.\.|…)$")  # bracketed placeholders are in the first prompt: subtracted


class BudgetExceeded(Exception):
    """The agent called the model more often than the scenario's budget allows."""
    problem = "budget"  # what the grader reports: the run ends at once


def _tool_name(text: str) -> str:
    return text.strip().strip("`'\"[]【】").strip().lower()


def _tool_input(text: str) -> str:
    return re.sub(r"\s+", "", text.strip().strip("`'\"“”‘’"))


def find_observations(prompt: str, tool: str, tool_input: str) -> list[str]:
    """Every observation that follows `Action: tool` + `Action Input: tool_input` in the prompt."""
    lines = prompt.splitlines()
    found = []
    for i, line in enumerate(lines):
        action = ACTION.match(line)
        if not action or _tool_name(action.group(1)) != _tool_name(tool):
            continue
        rest = [(j, text) for j, text in enumerate(lines[i + 1:], start=i + 1) if text.strip()]
        if not rest:
            continue
        given = ACTION_INPUT.match(rest[0][1])
        if not given or _tool_input(given.group(1)) != _tool_input(tool_input):
            continue
        observation = _observation_after(lines, rest[0][0] + 1)
        if observation is not None:
            found.append(observation)
    return found


def _observation_after(lines: list[str], start: int) -> str | None:
    """The Observation text that starts at or after `start`, before the next Action; None if none."""
    for j in range(start, len(lines)):
        if ACTION.match(lines[j]):
            return None
        match = OBSERVATION.match(lines[j])
        if match:
            text = [match.group(1)]
            for more in lines[j + 1:]:  # a multi-line observation runs to the next key or blank line
                if not more.strip() or ANY_KEY.match(more):
                    break
                text.append(more)
            observation = "\n".join(text).strip()
            return None if not observation or PLACEHOLDER.match(observation) else observation
    return None


@dataclass
class Exchange:
    prompt: str
    reply: str


@dataclass
class TextReactSession:
    """One agent run against one scenario: answers prompts and records each exchange."""
    scenario: Scenario
    budget: int = 25
    transcript: list[Exchange] = field(default_factory=list)
    issued: list[tuple[str, str]] = field(default_factory=list)  # (tool, input) of each Action sent

    def reply(self, prompt: str) -> str:
        if len(self.transcript) >= self.budget:
            raise BudgetExceeded(f"more than {self.budget} model calls")
        text = self._answer(prompt)
        self.transcript.append(Exchange(prompt, text))
        return text

    def _answer(self, prompt: str) -> str:
        if _squash(self.scenario.question) not in _squash(prompt):
            return ("Thought: The prompt does not tell me what the user asked.\n"
                    "Final Answer: I cannot answer: I do not see a question in the prompt.")
        first = self.transcript[0].prompt if self.transcript else prompt
        observations: list[str] = []
        while (call := self.scenario.call(len(observations))) is not None:
            tool_input = self.scenario.render(call.input, observations)
            seen = Counter(find_observations(prompt, call.tool, tool_input))
            seen.subtract(find_observations(first, call.tool, tool_input))
            new = [obs for obs, count in seen.items() if count > 0]
            if not new:
                self.issued.append((call.tool, tool_input))
                return (f"Thought: {self.scenario.render(call.thought, observations)}\n"
                        f"Action: {call.tool}\nAction Input: {tool_input}")
            observations.append(new[0])
        answer = self.scenario.render(self.scenario.answer, observations)
        return f"Thought: I now know the final answer.\nFinal Answer: {answer}"


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)
