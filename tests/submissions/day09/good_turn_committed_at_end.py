# expect: full
# style: ask collects the turn in a local list and sends trim_history(self.messages + turn, ...); the
# style: turn is committed to self.messages (then trimmed) when it ends, answer or fallback.
"""Day 09 — memory across turns: a chat session that remembers, within a limit.

A model remembers nothing between two requests. "北京天气怎么样？" then "那里热吗？" works only if the
second request carries the first turn: the question, the tool call, its result and the answer.
So a chat keeps the conversation in one list of messages, owned by the session, and sends all of
it with every request:

    session = ChatSession(TOOL_IMPL)
    session.ask("北京天气怎么样？")   # [system, user, assistant+tool_calls, tool, assistant]
    session.ask("那里热吗？")         # the same list, one turn longer: "那里" is 北京

A list that only grows gets too long (every request resends it, and a model's context has a limit),
so the session trims it before each request: the system message stays, the oldest messages go,
and a `tool` message never stays without the assistant message whose call it answers.

Fill in the three TODOs, then run `python validate.py day09`; run this file to watch a conversation.
"""
from __future__ import annotations

import json
from typing import Callable

from mock_llm.http import openai_client

client = openai_client("day09")
MODEL = "mock-react-1"

SYSTEM_PROMPT = ("You are a weather assistant. Whenever you need the weather of a city, call the "
                 "get_weather tool instead of relying on memory. Answer in the user's language, briefly.")
MAX_MESSAGES = 20  # the longest history a request may carry, system message included
MAX_ROUNDS = 5  # requests per question, as in day07's loop


# ---------------------------------------------------------------- given: the tool, as on day 07

WEATHER = {
    "北京": {"sky": "晴", "temp_c": 25, "humidity": 40},
    "上海": {"sky": "多云", "temp_c": 28, "humidity": 65},
    "广州": {"sky": "雷阵雨", "temp_c": 32, "humidity": 80},
    "深圳": {"sky": "晴转多云", "temp_c": 30, "humidity": 70},
    "杭州": {"sky": "小雨", "temp_c": 22, "humidity": 85},
    "成都": {"sky": "阴", "temp_c": 19, "humidity": 75},
}


def feels(temp_c: int) -> str:
    """How a temperature feels, in the words the answers use."""
    if temp_c >= 30:
        return "很热"
    if temp_c >= 20:
        return "温暖，不算热"
    return "凉爽" if temp_c >= 10 else "冷"


def get_weather(city: str) -> dict:
    """Made-up weather data. A city it does not know is an error result, which the model reads."""
    if city not in WEATHER:
        return {"error": f"no weather data for {city}"}
    report = WEATHER[city]
    return {"city": city, **report, "feels": feels(report["temp_c"])}


TOOL_IMPL: dict[str, Callable[..., dict]] = {"get_weather": get_weather}

TOOLS = [{
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Today's weather in a Chinese city: sky, temperature (°C), humidity and how it feels.",
        "parameters": {"type": "object",
                       "properties": {"city": {"type": "string", "description": "The city, such as 北京"}},
                       "required": ["city"]},
    },
}]


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    """Run one tool call; its result, or an error, as JSON text (day07's TODO 1.2)."""
    func = tool_impl.get(name)
    if func is None:
        return json.dumps({"error": f"unknown tool: {name}"})
    try:
        return json.dumps(func(**json.loads(arguments or "{}")), ensure_ascii=False)
    except Exception as error:
        return json.dumps({"error": f"{name} failed: {error}"}, ensure_ascii=False)


# ---------------------------------------------------------------- your part: three TODOs

def trim_history(messages: list[dict], max_messages: int) -> list[dict]:
    """TODO 2.1"""
    if len(messages) <= max_messages:
        return messages[:]
    tail = messages[len(messages) - max_messages + 1:]
    while tail and tail[0]["role"] == "tool":
        tail.pop(0)
    return messages[:1] + tail


class ChatSession:
    """One conversation with the model: it keeps every message of earlier turns."""

    def __init__(self, tool_impl: dict[str, Callable[..., dict]] = TOOL_IMPL, max_messages: int = MAX_MESSAGES):
        """TODO 1.1"""
        self.tool_impl = tool_impl
        self.max_messages = max_messages
        self.messages: list[dict] = [{"role": "system", "content": SYSTEM_PROMPT}]

    def _commit(self, turn: list[dict]) -> None:
        self.messages = trim_history(self.messages + turn, self.max_messages)

    def ask(self, question: str) -> str:
        """TODO 3.1"""
        turn: list[dict] = [{"role": "user", "content": question}]
        for _ in range(MAX_ROUNDS):
            request = trim_history(self.messages + turn, self.max_messages)
            message = client.chat.completions.create(model=MODEL, messages=request, tools=TOOLS).choices[0].message
            turn.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                self._commit(turn)
                return message.content or ""
            turn.extend({"role": "tool", "tool_call_id": c.id,
                         "content": execute_tool(self.tool_impl, c.function.name, c.function.arguments)}
                        for c in message.tool_calls)
        self._commit(turn)
        return "I could not finish this question within the allowed number of requests."


# ---------------------------------------------------------------- given: a whole conversation

def converse(question: str, session: ChatSession, *follow_ups: str) -> list[str]:
    """Ask `session` the question, then each follow-up, in one conversation; the answers, in order.
    The checks run your ChatSession through this function."""
    return [session.ask(text) for text in (question, *follow_ups)]


if __name__ == "__main__":
    chat = ChatSession()
    for text in ["北京天气怎么样？", "那里热吗？"]:
        print("user:", text)
        print("assistant:", chat.ask(text), "\n")
    print(f"the session now holds {len(chat.messages)} messages:")
    for m in chat.messages:
        print("  ", m["role"], (m.get("content") or "")[:60], "tool_calls" if m.get("tool_calls") else "")
    print("\na new session remembers nothing:", ChatSession().ask("那里热吗？"))
