"""The tools the grader runs for day06's agent, and their data for one seed."""
import random
import re

from mock_llm.tools import calculate


def tables(data: dict, rng: random.Random, seed: int) -> dict:
    """The weather table, city -> report. Seed 0 keeps the lesson text's temperatures."""
    return {"weather": {city: f"{sky}, {temp if seed == 0 else rng.randint(-10, 38)}°C"
                        for city, (sky, temp) in data["weather"].items()}}


def tools(world) -> dict:
    def weather(city: str) -> str:
        city = city.strip().strip("\"'")
        if city not in world.weather:
            raise KeyError(f"unknown city: {city}")  # as the lesson's own Weather tool does
        return world.weather[city]

    return {"Calculator": calculate, "Weather": weather}


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
