"""The tools behind day04's mock replies, and their data for one seed (the checks of day04 call
no tool: they grade the parser on replies; these run when the standalone file asks the mock)."""
import random
import re

from mock_llm.tools import calculate


def tables(data: dict, rng: random.Random, seed: int) -> dict:
    """The weather table, city -> report (seed 0: the lesson text's temperatures); the knowledge base."""
    return {"weather": {city: f"{sky}, {temp if seed == 0 else rng.randint(-10, 38)}°C"
                        for city, (sky, temp) in data["weather"].items()},
            "knowledge": dict(data["knowledge"])}


def tools(world) -> dict:
    def weather(city: str) -> str:
        city = city.strip().strip("\"'")
        if city not in world.weather:
            raise KeyError(f"unknown city: {city}")
        return world.weather[city]

    def knowledge(query: str) -> str:
        found = [text for key, text in world.knowledge.items() if key in query.lower()]
        return found[0] if found else f"nothing found for {query!r}"

    return {"Calculator": calculate, "Weather": weather, "Knowledge": knowledge}


NUMBERS = re.compile(r"-?\d+(?:\.\d+)?(?:\s*[-+*/]\s*\(?\s*-?\d+(?:\.\d+)?\s*\)?)+")


def plan(question: str, world) -> dict | None:
    """The mock's script for a question scenarios.yaml does not have (a learner playing with
    one_round): Weather for a city of the table, the Calculator for arithmetic, Knowledge for a
    keyword of the knowledge base; the first that fits."""
    for city in world.weather:
        if city in question:
            return {"calls": [{"tool": "Weather", "input": city, "made_up": "final", "guess": "sunny, 25°C",
                               "thought": f"I should look up the weather in {city}."}],
                    "answer": f"Today in {city}: {{obs1}}."}
    expression = NUMBERS.search(question.replace("×", "*").replace("÷", "/"))
    if expression:
        given = expression.group(0).strip()
        return {"calls": [{"tool": "Calculator", "input": given, "thought": f"I need to calculate {given}."}],
                "answer": f"{given} = {{obs1}}"}
    for keyword in world.knowledge:
        if keyword in question.lower():
            return {"calls": [{"tool": "Knowledge", "input": keyword, "thought": "Let me look it up."}],
                    "answer": "{obs1}"}
    return None
