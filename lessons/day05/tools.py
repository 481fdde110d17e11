"""The tools the grader runs for day05's agent, and their data for one seed."""
import random
import re

from mock_llm.tools import calculate


def tables(data: dict, rng: random.Random, seed: int) -> dict:
    """The weather table, city -> report. Seed 0 keeps the lesson text's temperatures."""
    reports = {}
    for city, (sky, temp, extra) in data["weather"].items():
        temp = temp if seed == 0 else rng.randint(-10, 38)
        reports[city] = f"{sky}, {temp}°C" + (f", {extra}" if extra else "")
    return {"weather": reports}


def tools(world) -> dict:
    def weather(city: str) -> str:
        city = city.strip().strip("\"'")
        if city not in world.weather:
            raise KeyError(f"unknown city: {city}")
        return world.weather[city]

    return {"Calculator": calculate, "Weather": weather}


NUMBERS = re.compile(r"-?\d+(?:\.\d+)?(?:\s*[-+*/]\s*\(?\s*-?\d+(?:\.\d+)?\s*\)?)+")


def plan(question: str, world) -> dict | None:
    """The mock's script for a question scenarios.yaml does not have (a learner playing with the
    agent): Weather for a city of the table, then the Calculator for arithmetic in the question. It
    behaves as in the graded tasks: it needs the tools named, the steps in order, and it makes up an
    Observation and a Final Answer after each request."""
    calls = [{"tool": "Weather", "input": city, "thought": f"I need today's weather in {city} first.",
              "made_up": "final", "guess": "sunny, 25°C", "strict": True}
             for city in world.weather if city in question][:1]
    expression = NUMBERS.search(question.replace("×", "*").replace("÷", "/"))
    if expression:
        given = expression.group(0).strip()
        calls.append({"tool": "Calculator", "input": given, "thought": f"I need to calculate {given}.",
                      "made_up": "final", "strict": True})
    if not calls:
        return None
    return {"calls": calls, "answer": "; ".join(f"{c['input']}: {{obs{n}}}" for n, c in enumerate(calls, 1))}
