"""The mock model for the text ReAct protocol (Thought / Action / Action Input / Observation).

It reads the prompt the way a model would. For each tool call its scenario scripts, it looks for
that call in the prompt, as an `Action:` line, an `Action Input:` line and an `Observation:` after
them. Found: it reads the observation and moves on to the next call. Not found: it asks for that
call. All found: it gives a Final Answer that quotes the observations it read, so an answer is only
right when the agent really ran the tool and put its result back into the prompt.

Telling history from instructions: a prompt may hold placeholder lines (`Action: [tool name]`) or a
few-shot example with its own Action and Observation. Whatever was already in the session's first
prompt is instructions, not history: only the occurrences beyond those count.

Layouts: a label may carry Markdown (`**Observation:** 13`, `- Action: …`), a step number
(`Action 1: …`), a full-width colon (`Action：…`). An observation runs on to the next lines until a
blank line, another label, or a line that frames the steps rather than belongs to one: a separator
(`---`, `===`, `***`, `___`, `- - -`, `=== Step 2 ===`), a code fence, a lone tag (`</step>`), a
heading (`## Step 2`, `Step 2:`, `第 2 步：`).

Like a real model without a stop sequence, the mock writes on after its request: when it asks for
the Calculator it adds the Observation it imagines (the numbers combined left to right, so
3 + 5 * 2 gives 16). Whatever follows the request's `Action Input:` line is made up; the agent must
ignore it and write the real result itself. `read_request` reads a reply the way the grader does.

A scenario's call may change that (all off by default):
- `made_up: none` stops at the Action Input; `observation` (the default) adds the made-up
  Observation; `final` adds it and then a Final Answer built on it, the rest of the script
  imagined too, so an agent that believes the reply answers without running any tool; `answer`
  goes straight on to that Final Answer, with no Observation line between (a cut at
  `Observation:` keeps it: only a cut after the Action Input line drops it); `rounds` rambles on
  through the rest of the task, each later call asked for and its result made up, then the Final
  Answer built on them (only a cut after the first Action Input line drops them all).
- `guess: "sunny, 25°C"`, a template: the Observation it makes up for a tool `imagined` cannot
  guess (any tool but the Calculator).
- `strict: true`: the mock asks for the call only when the prompt names its tool (else it answers
  from what it knows, with the made-up results), and reads its Observation only in a step written
  after the step of the call before it.
- `off_format: "I will look that up."`, a template: the first time the mock would ask for the call,
  it writes this prose instead, with no label a parser can read, and goes on writing it until the
  prompt corrects it: a line the prompt that got the slip did not have, naming the format (`Action`,
  `Final Answer`, "format", 格式). The same prompt again, or one that only adds the slip itself,
  gets the same slip. (So the prose must not name the format itself.)
- `misspelt: get_wether`: the mock first asks for the call under this wrong tool name. Once the
  prompt holds that request's Observation, it asks for the real tool if the Observation names it
  (an agent that answers an unknown tool with the list of real ones), and otherwise gives up with a
  Final Answer quoting the Observation: it cannot guess the right name. That Observation is not one
  of the call's: {obs1} is still the real tool's result.
- `echo: true`: a base model's habit. While the conversation is nothing but its first prompt, the
  reply begins by copying the format lines of that prompt, placeholders and all (`Action: the
  tool's name…`, `Final Answer: the answer…`: from the first label line to the last one before the
  question), then goes on with its real request. Once anything is added to the conversation (the
  echo sent back, an Observation, a reminder), it asks cleanly.
"""
from __future__ import annotations

import operator
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from .scenarios import Scenario
from .session import BadPayload, Session, message_text

# A line such as "Action: Calculator", also "- Action：Calculator", "+ Action: …", "• Action: …",
# "**Action:** Calculator" or "Action 2: Calculator". Before the colon no two repeats can match the
# same character, so a line of spaces that is no key fails in one pass, instead of trying every way
# to share the spaces out (a learner's prompt could make that take hours). Possessive repeats (*+) would say the same, but
# need Python 3.11.
# After the colon, the lookahead says first whether the rest reads as one value (spaces and stars,
# then one line): without it, a many-line value made the spaces be split every way before failing
# (an observation of a learner's prompt: seconds a kilobyte).
_KEY = r"^[\s>*#\-+•\d.)]*{}\s*(?:\d+\s*)?(?:\*+\s*)?[:：](?=(?:\s*(?:\*+\s*)?\n)?[^\n]*\n?\Z)\s*\**\s*(.*)$"
ACTION = re.compile(_KEY.format("Action"), re.IGNORECASE)
ACTION_INPUT = re.compile(_KEY.format(r"Action[ _]?Input"), re.IGNORECASE)
OBSERVATION = re.compile(_KEY.format("Observation"), re.IGNORECASE)
_STEP_LABELS = r"Thought|Action|Action[ _]?Input|Observation|Final[ _]?Answer|思考|行动|行动输入|观察|最终答案"
STEP_KEY = re.compile(_KEY.format(f"(?:{_STEP_LABELS})"), re.IGNORECASE)  # the labels a step is written in
ANY_KEY = re.compile(_KEY.format(f"(?:{_STEP_LABELS}|Question|问题)"), re.IGNORECASE)
PLACEHOLDER = re.compile(r"^(\.\.\.|…)$")  # bracketed placeholders are in the first prompt: subtracted
FINAL_ANSWER = re.compile(_KEY.format(r"Final[ _]?Answer"), re.IGNORECASE)
FORMAT_WORDS = re.compile(r"\bAction\b|Final[ _]?Answer|\bformat|格式", re.IGNORECASE)  # a correction names one

# Lines that frame the steps rather than belong to one. Each ends an observation that would
# otherwise run on into it.
RULE = re.compile(r"^\s*([-=*_~#+—–─━═])(?:\1{2,}|(?:\s*\1){2,}\s*$)")  # ---, === Step 2 ===, - - -
FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})")  # ``` or ```text
TAG = re.compile(r"^\s*</?[A-Za-z][\w.:-]*(?:\s[^<>]*)?/?>\s*$")  # <step>, </history>
HEADING = re.compile(
    r"^\s*#{1,6}\s"  # ## Step 2
    r"|^[\s>*\-]*(?:(?:step|round|turn|iteration)\s*#?\d+|第\s*[\d一二三四五六七八九十]+\s*[步轮]"
    r"|步骤\s*\d+)\W*$"  # Step 2, **Round 2**, 第 2 步：
    r"|^\s*[^\s:：][^:：]{0,40}[:：][\s*]*$",  # any short line that ends on a colon: "Steps so far:"
    re.IGNORECASE)


def is_boundary(line: str) -> bool:
    """A separator, a code fence, a lone tag or a heading: the end of whatever came before."""
    return bool(RULE.match(line) or FENCE.match(line) or TAG.match(line) or HEADING.match(line))



def _tool_name(text: str) -> str:
    return text.strip().strip("`'\"[]【】").strip().lower()


def _tool_input(text: str) -> str:
    return "".join(text.strip().strip("`'\"“”‘’").split())  # split(): the whitespace \s matches


def _call(tool: str, tool_input: str) -> tuple[str, str]:
    """A call as the model compares calls: name in any case, input with no spacing or quotes."""
    return _tool_name(tool), _tool_input(tool_input)


def same_call(asked: tuple[str, object], name: str, given) -> bool:
    """Whether a tool's run (its name, what it was given) is the call a reply asked for: names in
    any case, a text input without spacing or quotes, arguments by their text or, numbers, by
    their value (a loop may hand the tool float("5") for "5")."""
    tool, arguments = asked
    if _tool_name(str(tool)) != _tool_name(name):
        return False
    if isinstance(arguments, str) and isinstance(given, str):
        return _tool_input(arguments) == _tool_input(given)
    if isinstance(arguments, dict) and isinstance(given, dict):
        return ({str(k) for k in arguments} == {str(k) for k in given}
                and all(_same_value(v, given.get(k, given.get(str(k)))) for k, v in arguments.items()))
    return True  # given another way than asked (a text input as keywords): its name says enough


def _same_value(asked, given) -> bool:
    if str(asked) == str(given):
        return True
    try:
        return not isinstance(asked, bool) and not isinstance(given, bool) and float(asked) == float(given)
    except (TypeError, ValueError, OverflowError):
        return False


@dataclass(frozen=True)
class Step:
    """One step of history as the model reads it: an `Action:` line, the `Action Input:` line right
    after it, and the `Observation:` after those (None when none comes before the next Action)."""
    tool: str
    tool_input: str
    observation: str | None
    line: int  # where the Action line is, an index into prompt.splitlines()

    def is_call(self, tool: str, tool_input: str) -> bool:
        return _call(self.tool, self.tool_input) == _call(tool, tool_input)


def read_steps(prompt: str) -> list[Step]:
    """Every step of the prompt, as the mock reads it, in the order they are written."""
    return list(_read_steps(prompt))


@lru_cache(maxsize=4)
def _read_steps(prompt: str) -> tuple[Step, ...]:
    """Read once per prompt: a reply looks up several calls in it, and a prompt may hold thousands
    of steps (made up by a learner's code: reading it per call would take minutes)."""
    lines = prompt.splitlines()
    steps = []
    for i, line in enumerate(lines):
        action = ACTION.match(line)
        found = _input_after(lines, i) if action else None
        if found:
            steps.append(Step(action.group(1).strip(), found[1], _observation_after(lines, found[0] + 1), i))
    return tuple(steps)


@lru_cache(maxsize=4)
def _steps_by_call(prompt: str) -> dict[tuple[str, str], tuple[Step, ...]]:
    """The prompt's steps, by the call each makes."""
    found: dict[tuple[str, str], list[Step]] = {}
    for step in _read_steps(prompt):
        found.setdefault(_call(step.tool, step.tool_input), []).append(step)
    return {call: tuple(steps) for call, steps in found.items()}


def steps_of_call(prompt: str, tool: str, tool_input: str) -> tuple[Step, ...]:
    return _steps_by_call(prompt).get(_call(tool, tool_input), ())


def _input_after(lines: list[str], action: int) -> tuple[int, str] | None:
    """(where it is, its text) of the Action Input on the next non-blank line after an Action line."""
    following = next((j for j in range(action + 1, len(lines)) if lines[j].strip()), None)
    given = ACTION_INPUT.match(lines[following]) if following is not None else None
    return (following, given.group(1).strip()) if given else None


def find_observations(prompt: str, tool: str, tool_input: str) -> list[str]:
    """Every observation that follows `Action: tool` + `Action Input: tool_input` in the prompt."""
    return [step.observation for step in steps_of_call(prompt, tool, tool_input) if step.observation is not None]


def _observation_after(lines: list[str], start: int) -> str | None:
    """The Observation text that starts at or after `start`, before the next Action; None if none."""
    for j in range(start, len(lines)):
        if ACTION.match(lines[j]):
            return None
        match = OBSERVATION.match(lines[j])
        if match:
            text = [match.group(1)]
            for k in range(j + 1, len(lines)):  # a multi-line observation runs to a blank line, a key or a boundary
                if not lines[k].strip() or ANY_KEY.match(lines[k]) or is_boundary(lines[k]):
                    break
                text.append(lines[k])
            observation = "\n".join(text).strip()
            return None if not observation or PLACEHOLDER.match(observation) else observation
    return None


def sees_question(prompt: str, question: str) -> bool:
    """Whether the prompt holds the question (spacing aside): without it the mock cannot answer."""
    return _squash(question) in _squash(prompt)


# ---------------------------------------------------------------- the replies, written and read

def request_text(thought: str, tool: str, tool_input: str) -> str:
    """A reply that asks for a tool, as the mock writes it: one label a line, ASCII colons."""
    return f"Thought: {thought}\nAction: {tool}\nAction Input: {tool_input}"


def answer_text(thought: str, answer: str) -> str:
    """A reply that ends the run, as the mock writes it."""
    return f"Thought: {thought}\nFinal Answer: {answer}"


def imagined(tool: str, tool_input: str) -> str | None:
    """The result a careless model writes after asking for the Calculator, without waiting for it:
    the numbers combined left to right, ignoring precedence (3 + 5 * 2 -> 16). None for any other
    tool, or for an expression it cannot read that way."""
    if tool != "Calculator" or not _FLAT_SUM.match(tool_input):
        return None
    tokens = re.findall(r"(?<![\d.])-?\d+(?:\.\d+)?|[-+*/]", tool_input)
    value = float(tokens[0])
    for sign, number in zip(tokens[1::2], tokens[2::2]):
        if sign == "/" and float(number) == 0:
            return None
        value = _OPERATORS[sign](value, float(number))
    return str(int(value)) if value.is_integer() else str(round(value, 6))


_OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
_FLAT_SUM = re.compile(r"^\s*-?\d+(?:\.\d+)?(?:\s*[-+*/]\s*-?\d+(?:\.\d+)?)+\s*$")


def _request_line(lines: list[str]) -> tuple[int, str, str] | None:
    """(index of the Action Input line, tool, input) of the first request, if one comes before any
    Final Answer."""
    for i, line in enumerate(lines):
        if FINAL_ANSWER.match(line):
            return None
        action = ACTION.match(line)
        found = _input_after(lines, i) if action else None
        if found:
            return found[0], action.group(1).strip(), found[1]
    return None


def read_request(reply: str) -> tuple[str, str] | None:
    """The tool request of a reply, read as the grader reads it: the first `Action:` line and the
    `Action Input:` line after it. A model should stop there: whatever follows was written before
    any tool ran. None when the reply asks for no tool, or gives its Final Answer first."""
    found = _request_line(reply.splitlines())
    return found[1:] if found else None


def written_after_request(reply: str) -> str:
    """What the reply goes on to say after its request's Action Input line: all of it made up."""
    lines = reply.splitlines()
    found = _request_line(lines)
    return "\n".join(lines[found[0] + 1:]).strip() if found else ""


def read_final(reply: str) -> str | None:
    """The Final Answer of a reply (all the lines after its label), unless a request comes first."""
    lines = reply.splitlines()
    found = _request_line(lines)
    for i, line in enumerate(lines[:found[0] if found else len(lines)]):
        match = FINAL_ANSWER.match(line)
        if match:
            return "\n".join([match.group(1)] + lines[i + 1:]).strip()
    return None


@dataclass
class Exchange:
    prompt: str
    reply: str

    def texts(self, shown: int) -> tuple[str, str, int]:
        """For the trace: what was sent, what came back (see chat.HttpExchange.texts)."""
        return self.prompt.rstrip(), self.reply, 0

    def parameters(self) -> str:
        return ""  # a prompt is all there is

    def asked(self) -> list[tuple[str, str]]:
        """The tool call this reply asks for, as (tool, input): none, or one."""
        request = read_request(self.reply)
        return [request] if request else []


@dataclass
class TextReactSession(Session):
    """One agent run against one scenario: answers prompts and records each exchange."""
    issued: list[tuple[str, str]] = field(default_factory=list)  # (tool, input) of each Action sent
    slips: dict[int, str] = field(default_factory=dict)  # off_format calls: the prompt that got the slip

    @classmethod
    def check_scenario(cls, scenario: Scenario) -> None:
        """An endless scenario's repeated call must differ each time ({n} in its input): the mock
        finds a call's result in the prompt by its input, so the same input asked again would read
        the first result again, and the next, for ever."""
        last = scenario.turns[-1][0] if scenario.turns and scenario.turns[-1] else None
        if scenario.repeat and (last is None or "{n}" not in last.input):
            raise ValueError(f"{scenario.name}: repeat: true needs {{n}} in its last call's input "
                             "(this protocol reads a call's result by its input: each repeat must differ)")

    def answer(self, payload) -> str:
        """The learner's llm_call(prompt): the prompt must be text."""
        if not isinstance(payload, str):
            raise BadPayload(type(payload).__name__ if not hasattr(payload, "type") else payload.type)
        return self.reply(payload)

    def reply(self, prompt: str) -> str:
        self.spend()
        text = self._answer(prompt)
        self.transcript.append(Exchange(prompt, text))
        return text

    def write_content(self, messages: list[dict]) -> str:
        """Over HTTP, the system and user messages together are the prompt."""
        return self.reply("\n\n".join(message_text(m.get("content")) for m in messages
                                       if m.get("role") in ("system", "user")))

    def _answer(self, prompt: str) -> str:
        if not sees_question(prompt, self.scenario.question):
            return answer_text("The prompt does not tell me what the user asked.",
                               "I cannot answer: I do not see a question in the prompt.")
        first = self.transcript[0].prompt if self.transcript else prompt
        observations: list[str] = []
        after = -1  # strict calls: the line of the step read for the call before
        while (call := self.scenario.call(len(observations))) is not None:
            tool_input = self.scenario.render(call.input, observations)
            if call.strict and not names_tool(prompt, call.tool):  # it cannot ask for a tool it was not shown
                final = self._imagined_answer(observations)
                return answer_text("I have no tool for this, so I will answer from what I know.",
                                   final if final is not None else "I cannot tell without a tool.")
            if call.strict:
                found = [s for s in self._new_steps(prompt, first, call.tool, tool_input) if s.line > after]
                new = [s.observation for s in found]
            else:
                seen = Counter(find_observations(prompt, call.tool, tool_input))
                seen.subtract(find_observations(first, call.tool, tool_input))
                new = [obs for obs, count in seen.items() if count > 0]
            if not new:
                echoed = format_lines(first, self.scenario.question) if call.echo and prompt == first else ""
                return (echoed + "\n\n" if echoed else "") + self._request(call, tool_input, observations, prompt, first)
            observations.append(new[0])
            if call.strict:
                after = found[0].line
        answer = self.scenario.render(self.scenario.answer, observations)
        return answer_text("I now know the final answer.", answer)

    def _request(self, call, tool_input: str, observations: list[str], prompt: str, first: str) -> str:
        """The reply that asks for a call not done yet: out of format until corrected (off_format),
        under its wrong name first (misspelt), else as scripted."""
        index = len(observations)
        if call.off_format and not self._corrected(index, prompt):
            self.slips.setdefault(index, prompt)
            return self.scenario.render(call.off_format, observations)
        thought = self.scenario.render(call.thought, observations)
        if call.misspelt:
            seen = Counter(find_observations(prompt, call.misspelt, tool_input))
            seen.subtract(find_observations(first, call.misspelt, tool_input))
            told = [obs for obs, count in seen.items() if count > 0]
            if not told:
                self.issued.append((call.misspelt, tool_input))
                return request_text(thought, call.misspelt, tool_input) + self._written_on(
                    call, tool_input, observations)
            if not names_tool(told[0], call.tool):  # the error does not say which tools there are
                return answer_text(f"There is no tool named {call.misspelt}, and I do not know another name.",
                                   f"I could not run the tool I needed: {told[0]}")
            thought = f"There is no tool named {call.misspelt}; the tools listed include {call.tool}."
        self.issued.append((call.tool, tool_input))
        return request_text(thought, call.tool, tool_input) + self._written_on(call, tool_input, observations)

    def _corrected(self, index: int, prompt: str) -> bool:
        """Whether the prompt corrects the slip of call `index`: a line the prompt that got it did
        not have, naming the format. False before any slip."""
        slip = self.slips.get(index)
        if slip is None:
            return False
        before = {line.strip() for line in slip.splitlines()}
        return any(FORMAT_WORDS.search(line) for line in prompt.splitlines() if line.strip() not in before)

    @staticmethod
    def _new_steps(prompt: str, first: str, tool: str, tool_input: str) -> list[Step]:
        """The steps of this call with an Observation, in prompt order, beyond those the first
        prompt already shows (instructions, examples): each observation text counts only past its
        count there."""
        shown = Counter(find_observations(first, tool, tool_input))
        new = []
        for step in steps_of_call(prompt, tool, tool_input):
            if step.observation is None:
                continue
            if shown[step.observation] > 0:
                shown[step.observation] -= 1
            else:
                new.append(step)
        return new

    def _guess(self, call, tool_input: str, observations: list[str]) -> str | None:
        """The Observation the model makes up for a call, or None when it has no guess."""
        if call.guess:
            return self.scenario.render(call.guess, observations)
        return imagined(call.tool, tool_input)

    def _written_on(self, call, tool_input: str, observations: list[str]) -> str:
        """No stop sequence: what the model writes after its request, all of it made up."""
        if call.made_up == "none" or (guess := self._guess(call, tool_input, observations)) is None:
            return ""
        if call.made_up == "answer":  # straight on to the answer it expects: no Observation line to cut at
            final = self._imagined_answer(observations + [guess])
            return "" if final is None else "\n" + answer_text("I now know the final answer.", final)
        text = f"\nObservation: {guess}"
        if call.made_up == "rounds":
            return text + self._rambling(observations + [guess])
        if call.made_up == "final":
            final = self._imagined_answer(observations + [guess])
            if final is not None:
                text += "\n" + answer_text("I now know the final answer.", final)
        return text

    def _rambling(self, observations: list[str]) -> str:
        """The rest of the task as a rambling model writes it on: each later call asked for, with
        the result it makes up, then the Final Answer built on them ("" once one can't be made up)."""
        text, observations = "", list(observations)
        while (call := self.scenario.call(len(observations))) is not None:
            tool_input = self.scenario.render(call.input, observations)
            guess = self._guess(call, tool_input, observations)
            if guess is None:
                return text
            thought = self.scenario.render(call.thought, observations)
            text += f"\n{request_text(thought, call.tool, tool_input)}\nObservation: {guess}"
            observations.append(guess)
        return text + "\n" + answer_text("I now know the final answer.",
                                         self.scenario.render(self.scenario.answer, observations))

    def _imagined_answer(self, observations: list[str]) -> str | None:
        """The Final Answer with the rest of the script's results made up; None when one can't be."""
        if self.scenario.repeat:
            return None
        observations = list(observations)
        while (call := self.scenario.call(len(observations))) is not None:
            guess = self._guess(call, self.scenario.render(call.input, observations), observations)
            if guess is None:
                return None
            observations.append(guess)
        return self.scenario.render(self.scenario.answer, observations)


def format_lines(prompt: str, question: str) -> str:
    """The lines of a prompt that teach the format, as a model that echoes its prompt copies them:
    from its first label line to its last, before the question. "" when it has none."""
    at = prompt.find(question)
    lines = (prompt[:at] if at > 0 else prompt).splitlines()
    labels = [i for i, line in enumerate(lines) if STEP_KEY.match(line)]
    return "\n".join(lines[labels[0]:labels[-1] + 1]).strip() if labels else ""


def _squash(text: str) -> str:
    return "".join(text.split())


@lru_cache(maxsize=16)
def names_tool(text: str, tool: str) -> bool:
    """Whether the text names the tool (as a word, any case): a model asks only for tools it sees.
    A word of ASCII letters, digits and _, as a tool's name is: Chinese text puts no space around
    it (可用工具有get_weather), and Python's Unicode \\w takes Chinese characters for letters."""
    return re.search(rf"(?<!\w){re.escape(tool)}(?!\w)", text, re.IGNORECASE | re.ASCII) is not None
