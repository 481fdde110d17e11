"""The tools the grader runs for day08's agent, and their data for one seed.

get_current_time is the learner's own tool (TODO 1.2): in graded runs their code runs it, reading
the grader's `clock`. The grader's version here is what it should say, for the checks to compare.
"""
import random
import re
from datetime import datetime, timedelta, timezone

from mock_llm.tools import calculate

BEIJING = timezone(timedelta(hours=8))
NOON = datetime(2026, 5, 20, 14, 30, tzinfo=BEIJING)  # seed 0: the lesson text's time
NIGHT = datetime(2026, 5, 21, 1, 5, tzinfo=BEIJING)  # still 20 May in UTC: a date that depends on the zone


def tables(data: dict, rng: random.Random, seed: int) -> dict:
    """The weather reports, the knowledge base and the two clock readings. Seed 0 keeps the lesson
    text's numbers; another seed draws other temperatures and other times."""
    weather = {city: f"{sky}，气温 {temp if seed == 0 else rng.randint(-5, 38)}°C，湿度 {humidity}%"
               for city, (sky, temp, humidity) in data["weather"].items()}
    noon, night = NOON, NIGHT
    if seed:
        day = timedelta(days=rng.randint(-140, 200))
        noon = NOON.replace(hour=rng.randint(9, 21), minute=rng.randint(0, 59)) + day
        night = NIGHT.replace(hour=rng.randint(0, 7), minute=rng.randint(0, 59)) + day
    return {"weather": weather, "knowledge": dict(data["knowledge"]),
            "clock": noon.timestamp(), "clock_night": night.timestamp()}


def beijing_time(timestamp: float) -> str:
    """What get_current_time says at this moment: "2026-05-20 14:30 (Wednesday, Beijing time)"."""
    return datetime.fromtimestamp(timestamp, BEIJING).strftime("%Y-%m-%d %H:%M (%A, Beijing time)")


def tools(world) -> dict:
    def get_weather(city: str) -> str:
        city = city.strip().strip("\"'“”")
        if city not in world.weather:
            raise LookupError(f"no weather data for {city}")
        return world.weather[city]

    def search_knowledge(query: str) -> str:
        wanted = query.strip().lower()
        for key, text in world.knowledge.items():
            if key in wanted:
                return text
        return f"nothing found for {query.strip()!r}"

    return {"get_weather": get_weather, "calculate": calculate, "search_knowledge": search_knowledge,
            "get_current_time": lambda _input="": beijing_time(world.clock),
            "clock": lambda: world.clock, "clock_night": lambda: world.clock_night}


ARITHMETIC = re.compile(r"-?\d+(?:\.\d+)?(?:\s*[-+*/]\s*\(?\s*-?\d+(?:\.\d+)?\s*\)?)+")
TIME = re.compile(r"几点|时间|日期|今天几号|what time|the time|date", re.IGNORECASE)


def plan(question: str, world) -> dict | None:
    """How the mock answers a question no scenario scripts, so a learner can play: a city of the
    weather table -> get_weather; arithmetic -> calculate; the time -> get_current_time; a word of
    the knowledge base -> search_knowledge. Several fit: one step each, in that order."""
    calls = []
    for city in world.weather:
        if city in question:
            calls.append({"tool": "get_weather", "input": city, "thought": f"I should look up the weather in {city}."})
    expression = ARITHMETIC.search(question.replace("×", "*").replace("÷", "/"))
    if expression:
        calls.append({"tool": "calculate", "input": expression.group(0).strip(),
                      "thought": f"I need to calculate {expression.group(0).strip()}."})
    if TIME.search(question):
        calls.append({"tool": "get_current_time", "input": "now", "thought": "I need the current time."})
    for key in world.knowledge:
        if key in question.lower():
            calls.append({"tool": "search_knowledge", "input": key, "thought": f"Let me search for {key}."})
    if not calls:
        return None
    return {"calls": calls, "answer": "; ".join(f"{c['input']}: {{obs{n}}}" for n, c in enumerate(calls, start=1))}
