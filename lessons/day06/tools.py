"""The tools the grader runs for day06's agent, and their data for one seed."""
import random

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
