# expect: full
# style: the object is found by counting braces outside strings, by hand; a ParseError class
# style: derived from ValueError; an Agent class keeps the conversation.
"""Day 02 — decisions as JSON text."""
from __future__ import annotations

import json
import re

import mock_llm


def add(a, b):
    return a + b


def multiply(a, b):
    return a * b


TOOLS = {
    "add": {"function": add, "description": "Adds two numbers. Arguments: a, b (numbers). Returns a + b."},
    "multiply": {"function": multiply,
                 "description": "Multiplies two numbers. Arguments: a, b (numbers). Returns a * b."},
}


def llm(messages: list[dict]) -> str:
    """Show the model the conversation, get its reply: text. Here: the kit's offline mock."""
    return mock_llm.reply("day02", messages)



class ParseError(ValueError):
    pass


def build_system_prompt(tools: dict[str, dict]) -> str:
    parts = ["# Tools"]
    parts += [f"- {name}: {tool['description']}" for name, tool in tools.items()]
    parts += ["", "# Output format (JSON only)",
              'Tool call: {"type": "tool", "name": "add", "args": {"a": 1, "b": 2}}',
              'Final answer: {"type": "final", "content": "..."}',
              "One JSON object per reply. No text around it."]
    return "\n".join(parts)


def first_object(text: str) -> str:
    start = text.find("{")
    while start != -1:
        depth, in_string, escaped = 0, False, False
        for i in range(start, len(text)):
            char = text[i]
            if in_string:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    in_string = False
            elif char == '"':
                in_string = True
            elif char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    return text[start:i + 1]
        start = text.find("{", start + 1)
    raise ParseError("the JSON object is not complete")


def parse_decision(reply: str) -> dict:
    try:
        decision = json.loads(first_object(reply))
    except json.JSONDecodeError as error:
        raise ParseError(f"invalid JSON: {error}") from error
    if decision.get("type") not in ("tool", "final"):
        raise ParseError("not a decision")
    if decision["type"] == "tool" and not (isinstance(decision.get("name"), str)
                                           and isinstance(decision.get("args"), dict)):
        raise ParseError("a tool decision needs a name and an args object")
    if decision["type"] == "final" and "content" not in decision:
        raise ParseError("a final decision needs a content")
    return decision


def correction_messages(reply: str, error: str) -> list[dict]:
    return [dict(role="assistant", content=reply),
            dict(role="user", content=f"Your last reply was rejected: {error}. Answer with valid JSON only.")]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    try:
        function = tools[name]["function"]
    except KeyError:
        return f"Error: {name} is not a tool I have"
    try:
        return str(function(**args))
    except Exception as error:
        return f"Error running {name}: {error}"


class Agent:
    def __init__(self, tools, max_steps):
        self.tools, self.max_steps = tools, max_steps
        self.messages = [{"role": "system", "content": build_system_prompt(tools)}]

    def run(self, question):
        self.messages.append({"role": "user", "content": question})
        for _ in range(self.max_steps):
            reply = llm(self.messages)
            try:
                decision = parse_decision(reply)
            except ParseError as error:
                self.messages.extend(correction_messages(reply, str(error)))
                continue
            if decision["type"] == "final":
                return decision["content"]
            self.messages.append({"role": "assistant", "content": reply})
            self.messages.append({"role": "tool",
                                  "content": execute_tool(self.tools, decision["name"], decision["args"])})
        return "Stopped after too many steps."


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    return Agent(tools, max_steps).run(question)


if __name__ == "__main__":
    for question in ["First work out 5 × 6, then add 10 to the result.", "Multiply 5 by 7, then add 6."]:
        print(question, "->", react_agent(question, TOOLS))
