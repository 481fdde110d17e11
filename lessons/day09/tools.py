"""The tool the grader runs for day09's conversations, and its data for one seed."""
import random
import re


def feels(temp_c: int) -> str:
    """How a temperature feels, in the words the answers use (the lesson file has the same)."""
    if temp_c >= 30:
        return "很热"
    if temp_c >= 20:
        return "温暖，不算热"
    return "凉爽" if temp_c >= 10 else "冷"


def tables(data: dict, rng: random.Random, seed: int) -> dict:
    """The weather table, city -> report. Seed 0 keeps the lesson text's temperatures."""
    return {"weather": {city: {"sky": sky, "temp_c": temp if seed == 0 else rng.randint(-5, 38),
                               "humidity": humidity}
                        for city, (sky, temp, humidity) in data["weather"].items()}}


def tools(world) -> dict:
    def get_weather(city: str) -> dict:
        if city not in world.weather:
            return {"error": f"no weather data for {city}"}
        report = world.weather[city]
        return {"city": city, **report, "feels": feels(report["temp_c"])}

    return {"get_weather": get_weather}


HERE = re.compile(r"那里|那儿|那边|there", re.IGNORECASE)


def plan(question: str, world) -> dict | None:
    """How the mock answers a question no scenario scripts, so a learner can play: each city of the
    table that the question names -> one get_weather call (several at once). "那里" alone names no
    city: the model asks which place is meant."""
    cities = [city for city in world.weather if city in question]
    if not cities:
        if HERE.search(question):
            return {"answer": "你说的“那里”是指哪里？告诉我城市名，我帮你查。"}
        return None
    calls = [{"tool": "get_weather", "args": {"city": city}, "thought": f"我查一下{city}的天气。"} for city in cities]
    answer = "；".join(f"{city}：{{obs{n}.sky}}，{{obs{n}.temp_c}}°C，{{obs{n}.feels}}"
                      for n, city in enumerate(cities, start=1))
    return {"calls": [calls] if len(calls) > 1 else calls, "answer": answer + "。"}
