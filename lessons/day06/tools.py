"""The tools the grader runs for day06's agent, and their data for one seed."""
import datetime
import random
import re

from mock_llm.tools import calculate


WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def tables(data: dict, rng: random.Random, seed: int) -> dict:
    """The weather table, city -> report (seed 0 keeps the lesson text's temperatures), and today's
    date, as the Today tool tells it (another seed, another day)."""
    weather = {city: f"{sky}, {temp if seed == 0 else rng.randint(-10, 38)}°C"
               for city, (sky, temp) in data["weather"].items()}
    day = datetime.date(2024, 5, 17) + datetime.timedelta(days=0 if seed == 0 else rng.randint(1, 3000))
    return {"weather": weather, "today": f"{WEEKDAYS[day.weekday()]}, {day.isoformat()}"}


def tools(world) -> dict:
    def weather(city: str) -> str:
        city = city.strip().strip("\"'")
        if city not in world.weather:
            raise KeyError(f"unknown city: {city}")  # as the lesson's own Weather tool does
        return world.weather[city]

    def today(*_) -> str:  # a tool that takes no input: its Action Input is empty
        return world.today

    return {"Calculator": calculate, "Weather": weather, "Today": today}


ARITHMETIC = re.compile(r"-?\d+(?:\.\d+)?(?:\s*[-+*/]\s*\(?\s*-?\d+(?:\.\d+)?\s*\)?)+")


def plan(question: str, world) -> dict | None:
    """How the mock answers a question no scenario scripts, so a learner can play: arithmetic in
    the question -> the Calculator; a city of the weather table -> Weather; both -> two steps."""
    calls = []
    for city in world.weather:
        if city in question:
            calls.append({"tool": "Weather", "input": city, "thought": f"I should look up the weather in {city}."})
            break
    expression = ARITHMETIC.search(question.replace("×", "*").replace("÷", "/"))
    if expression:
        calls.append({"tool": "Calculator", "input": expression.group(0).strip(),
                      "thought": f"I need to calculate {expression.group(0).strip()}."})
    if not calls:
        return None
    answers = [f"{c['input']}: {{obs{n}}}" for n, c in enumerate(calls, start=1)]
    return {"calls": calls, "answer": "; ".join(answers)}
