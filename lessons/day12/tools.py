"""The tools the grader runs for day12's agent, their data for one seed, and the endpoint settings
the checks hand to load_config."""
import random
import re

from mock_llm.tools import calculate


def tables(data: dict, rng: random.Random, seed: int) -> dict:
    """The weather table (city -> report), the knowledge base, and the endpoint the checks configure.
    Seed 0 keeps the lesson text's numbers and names; other seeds draw new ones."""
    weather = {city: f"{sky}, {temp if seed == 0 else rng.randint(-10, 38)}°C, humidity "
                     f"{humidity if seed == 0 else rng.randint(20, 95)}%"
               for city, (sky, temp, humidity) in data["weather"].items()}
    endpoint = dict(data["endpoint"])
    if seed:
        host, port = f"10.0.{rng.randint(1, 254)}.{rng.randint(1, 254)}", rng.randint(8000, 8998)
        endpoint.update(base_url=f"http://{host}:{port}/v1", fallback_base_url=f"http://{host}:{port + 1}/v1",
                        api_key=f"sk-local-{rng.getrandbits(48):012x}",
                        fallback_api_key=f"sk-spare-{rng.getrandbits(48):012x}",
                        model=rng.choice(["qwen2.5-1.5b-instruct", "llama3.2:3b", "phi3.5:latest"]),
                        fallback_model=rng.choice(["qwen2.5-0.5b-instruct", "gemma2:2b", "smollm2:1.7b"]),
                        timeout=rng.choice([8.0, 12.5, 20.0, 45.0]),
                        retry_after=rng.randint(4, 9))
    return {"weather": weather, "knowledge": dict(data["knowledge"]), "endpoint": endpoint}


def tools(world) -> dict:
    def search_weather(city: str) -> str:
        city = city.strip().strip("\"'")
        return world.weather.get(city, f"no weather data for {city}")  # as the lesson's own tool does

    def search_knowledge(query: str) -> str:
        query = query.strip().lower()
        for key, text in world.knowledge.items():
            if key in query:
                return text
        return f"nothing found for {query!r}"

    def sleep(seconds) -> None:
        """Stands in for time.sleep in graded runs: the wait is recorded, not waited. What
        time.sleep refuses it refuses alike (CPython's Modules/timemodule.c): a str such as "7"
        is a TypeError, a negative or NaN wait a ValueError."""
        if not isinstance(seconds, (int, float)):
            raise TypeError(f"'{type(seconds).__name__}' object cannot be interpreted as an integer")
        if seconds != seconds:
            raise ValueError("Invalid value NaN (not a number)")
        if seconds < 0:
            raise ValueError("sleep length must be non-negative")
        return None

    return {"search_weather": search_weather, "calculate": calculate, "search_knowledge": search_knowledge,
            "sleep": sleep}


ARITHMETIC = re.compile(r"-?\d+(?:\.\d+)?(?:\s*[-+*/]\s*\(?\s*-?\d+(?:\.\d+)?\s*\)?)+")


def plan(question: str, world) -> dict | None:
    """How the mock answers a question no scenario scripts, so a learner can play: a city of the
    weather table -> search_weather; arithmetic -> calculate; a topic of the knowledge base ->
    search_knowledge; several -> one step each, in that order."""
    calls = []
    city = next((c for c in world.weather if c.lower() in question.lower()), None)
    if city:
        calls.append({"tool": "search_weather", "input": city,
                      "thought": f"I should look up the weather in {city}."})
    expression = ARITHMETIC.search(question.replace("×", "*").replace("÷", "/"))
    if expression:
        calls.append({"tool": "calculate", "input": expression.group(0).strip(),
                      "thought": f"I need to calculate {expression.group(0).strip()}."})
    topic = next((k for k in world.knowledge if k in question.lower()), None)
    if topic:
        calls.append({"tool": "search_knowledge", "input": topic, "thought": f"Let me look up {topic}."})
    if not calls:
        return None
    answers = [f"{c['input']}: {{obs{n}}}" for n, c in enumerate(calls, start=1)]
    return {"calls": calls, "answer": "; ".join(answers)}
