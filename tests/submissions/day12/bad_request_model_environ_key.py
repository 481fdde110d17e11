# expect-lose: 2.1
# expect-keep: 1.1 1.2 2.2 2.3 3.1
# expect-message: build_request raised KeyError
# why: build_request reads os.environ["OPENAI_MODEL"] instead of its `model` argument: set at home, it
# why: works; where the variable is unset (the grader, a classmate's machine) it raises KeyError, which its
# why: own check says; the checks of complete() and run_agent grade their code around it
"""Day 12 — a real model over HTTP: configuration, retries, a stop sequence, a second model.

The agent is the text-protocol agent of the earlier days (Thought / Action / Action Input /
Observation), sent over the Chat Completions API. Until now its model lived inside the kit; today it
talks to whatever OpenAI-compatible server its configuration names, a hosted API or a small model on
your own machine, and nothing about that server is written in the code:

    config = load_config(os.environ)     OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL, …
    client = make_client(config)         a timeout of your own, and no retries hidden in the SDK
    build_request(model, messages)       stop=["Observation:"]: the model stops where your tool starts
    complete(client, model, messages)    429, 5xx, timeouts: wait (Retry-After, or backoff), try again,
                                         then give up with ModelUnavailable, a clear error
    run_agent(question, config, …)       the loop; when the model stays down, the fallback (another
                                         model, another server) carries on with the very same messages

Fill in the six TODOs, then run `python validate.py day12`. In graded runs every client you build
reaches the grader, whatever its base URL: the mock model answers and plays the failing network.
To run this file yourself, point it at a server, the kit's mock for a start (see the README):

    python -m mock_llm serve --lesson day12        # in another terminal
    OPENAI_BASE_URL=http://127.0.0.1:8400/v1 OPENAI_API_KEY=any OPENAI_MODEL=mock-react-1 \\
        python workspace/day12.py
"""
from __future__ import annotations

import math
import os
import re
import sys
import time
from dataclasses import dataclass, replace
from typing import Callable, Mapping

import openai
from openai import OpenAI

DEFAULT_BASE_URL = "https://api.openai.com/v1"  # what the openai SDK itself uses when given none
DEFAULT_TIMEOUT = 30.0  # seconds; the SDK's own default is 600, ten minutes on a stalled server
MAX_ATTEMPTS = 4  # requests per model reply, the first one included
BASE_DELAY = 1.0  # seconds before the first retry; each later one waits twice as long
MAX_DELAY = 30.0  # the longest wait between two attempts, when the server names none


# ---------------------------------------------------------------- given: configuration and errors

@dataclass
class Config:
    """Where the model is and how to talk to it: everything that changes between servers."""
    base_url: str
    api_key: str
    model: str
    fallback_model: str | None = None  # takes over, with the same messages, when `model` stays down
    fallback_base_url: str | None = None  # the server the fallback runs on; None: the same server
    fallback_api_key: str | None = None  # the fallback server's key; None: the same key
    timeout: float = DEFAULT_TIMEOUT  # seconds one request may take before it counts as failed
    max_attempts: int = MAX_ATTEMPTS


class ConfigError(ValueError):
    """The environment lacks a setting: the message names the variable to set."""


class ModelUnavailable(RuntimeError):
    """The model gave no reply, even after the retries: the message says which model and why."""


def describe_failure(error: Exception) -> str:
    """One failed request, in a few words: "HTTP 503 (The server is overloaded …)", "timed out"…"""
    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code} ({error.message})"
    if isinstance(error, openai.APITimeoutError):
        return "the request timed out"
    if isinstance(error, openai.APIConnectionError):
        return f"could not connect ({error.__cause__ or error})"
    return f"{type(error).__name__}: {error}"


# ---------------------------------------------------------------- given: the text protocol

SYSTEM_PROMPT = """You are an assistant that answers questions with the help of tools.

Tools:
- search_weather: looks up today's weather in a city. Input: the city name, for example 北京.
- calculate: evaluates an arithmetic expression such as 2 + 3 * 4. Input: the expression.
- search_knowledge: searches a small knowledge base. Input: a keyword such as python, agent or react.

Answer in this format:

Thought: what you should do next
Action: the tool to use, one of search_weather, calculate, search_knowledge
Action Input: the input for the tool

Then stop: the result comes back to you as
Observation: the tool's result

Repeat Thought / Action / Action Input as often as you need. When you know the answer:

Thought: I now know the final answer
Final Answer: the answer to the question"""

FORMAT_REMINDER = ("Please answer in the format: Thought, then either Action and Action Input, "
                   "or Final Answer.")


@dataclass
class Step:
    """One reply of the model, read: what to keep in the transcript, and what it asks for."""
    text: str  # the reply up to its request: anything written after the Action Input is dropped
    final: str | None = None  # the Final Answer, when it gave one
    tool: str | None = None
    tool_input: str | None = None


ACTION = re.compile(r"^[ \t*]*Action[ \t*]*[:：][ \t*]*(.+?)[ \t*]*$", re.MULTILINE)
ACTION_INPUT = re.compile(r"^[ \t*]*Action[ _]?Input[ \t*]*[:：][ \t*]*(.+?)[ \t]*$", re.MULTILINE)
FINAL_ANSWER = re.compile(r"^[ \t*]*Final[ _]?Answer[ \t*]*[:：][ \t*]*", re.MULTILINE)


def read_reply(reply: str) -> Step | None:
    """The request or the Final Answer of a reply, whichever comes first; None when it has neither."""
    action = ACTION.search(reply)
    action_input = ACTION_INPUT.search(reply, action.end()) if action else None
    final = FINAL_ANSWER.search(reply)
    if action_input and (final is None or action.start() < final.start()):
        return Step(reply[:action_input.end()].rstrip(), tool=action.group(1).strip("`'\""),
                    tool_input=action_input.group(1).strip().strip("`'\""))
    if final:
        return Step(reply.strip(), final=reply[final.end():].strip())
    return None


def build_messages(question: str) -> list[dict]:
    """A new conversation: the instructions, then the question."""
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": question}]


def execute_tool(tool_impl: dict[str, Callable[[str], str]], name: str, tool_input: str) -> str:
    """Run one tool; whatever goes wrong comes back as text the model can read."""
    func = tool_impl.get(name)
    if func is None:
        return f"unknown tool {name!r}; the tools are: {', '.join(tool_impl)}"
    try:
        return str(func(tool_input))
    except Exception as error:
        return f"{name} failed: {error}"


# ---------------------------------------------------------------- given: the tools, for your own runs

WEATHER = {"北京": "sunny, 25°C, humidity 40%", "上海": "cloudy, 28°C, humidity 65%",
           "广州": "thunderstorms, 32°C, humidity 80%", "深圳": "sunny then cloudy, 30°C, humidity 70%"}
KNOWLEDGE = {"python": "Python is an interpreted, object-oriented high-level language, created by Guido "
                       "van Rossum in 1991.",
             "agent": "An AI agent perceives its environment, decides and acts on its own, in a loop.",
             "react": "ReAct is an agent pattern in which an LLM alternates reasoning (Thought) and "
                      "acting (Action)."}


def search_weather(city: str) -> str:
    return WEATHER.get(city.strip(), f"no weather data for {city}")


def calculate(expression: str) -> str:
    if not set(expression) <= set("0123456789+-*/.() "):
        return "error: only numbers and + - * / ( ) are allowed"
    return str(eval(expression, {"__builtins__": {}}))  # the characters above allow arithmetic only


def search_knowledge(query: str) -> str:
    return next((text for key, text in KNOWLEDGE.items() if key in query.lower()),
                f"nothing found for {query!r}")


TOOL_IMPL = {"search_weather": search_weather, "calculate": calculate, "search_knowledge": search_knowledge}


# ---------------------------------------------------------------- your part: six TODOs

def load_config(env: Mapping[str, str]) -> Config:
    """TODO 1.1 — the Config the environment `env` describes (os.environ when you run the file):

        OPENAI_BASE_URL           the server, e.g. http://127.0.0.1:8080/v1; unset: DEFAULT_BASE_URL
        OPENAI_API_KEY            required (a local server takes any value)
        OPENAI_MODEL              required: no model name exists on every server
        OPENAI_FALLBACK_MODEL     optional; unset: None
        OPENAI_FALLBACK_BASE_URL  optional, a second server; unset: None
        OPENAI_FALLBACK_API_KEY   optional, the second server's key; unset: None (the same key)
        OPENAI_TIMEOUT            optional, seconds as text ("12.5"); unset: DEFAULT_TIMEOUT

    A required one that is missing or empty raises ConfigError naming the variable, and so does an
    OPENAI_TIMEOUT that is no number. Read `env`, never os.environ directly, and write no URL, key
    or model name of your own."""
    def optional(name: str) -> str | None:
        return (env.get(name) or "").strip() or None

    def required(name: str) -> str:
        value = optional(name)
        if not value:
            raise ConfigError(f"{name} is not set: export {name}=… (see the README of day12)")
        return value

    timeout = optional("OPENAI_TIMEOUT")
    try:
        seconds = float(timeout) if timeout else DEFAULT_TIMEOUT
    except ValueError:
        raise ConfigError(f"OPENAI_TIMEOUT must be a number of seconds, not {timeout!r}") from None
    return Config(base_url=optional("OPENAI_BASE_URL") or DEFAULT_BASE_URL,
                  api_key=required("OPENAI_API_KEY"), model=required("OPENAI_MODEL"),
                  fallback_model=optional("OPENAI_FALLBACK_MODEL"),
                  fallback_base_url=optional("OPENAI_FALLBACK_BASE_URL"),
                  fallback_api_key=optional("OPENAI_FALLBACK_API_KEY"), timeout=seconds)


def make_client(config: Config) -> OpenAI:
    """TODO 1.2 — an OpenAI client for the configured server: its base URL and key, your timeout
    (config.timeout) and max_retries=0, because complete() does the retrying."""
    return OpenAI(base_url=config.base_url, api_key=config.api_key, timeout=config.timeout, max_retries=0)


def build_request(model: str, messages: list[dict]) -> dict:
    """TODO 2.1 — the arguments of one chat.completions.create call: the model and the messages you
    are given, and a stop sequence at "Observation:" so the model stops where your tool starts."""
    return {"model": os.environ["OPENAI_MODEL"], "messages": messages, "stop": ["Observation:"], "temperature": 0}


def retry_delay(attempt: int, retry_after: str | None = None) -> float:
    """TODO 2.2 — seconds to wait after `attempt` failed attempts (1 after the first).

    The server's Retry-After header (seconds, as text, e.g. "7") when it sent one you can read;
    else exponential backoff: BASE_DELAY, then twice as long each time (1, 2, 4, 8 …), never more
    than MAX_DELAY."""
    if retry_after:
        try:
            seconds = float(retry_after)
        except ValueError:
            seconds = -1.0  # an HTTP date, or nonsense: fall back on backoff
        if math.isfinite(seconds) and seconds >= 0:
            return seconds
    return min(MAX_DELAY, BASE_DELAY * 2 ** (attempt - 1))


def complete(client: OpenAI, model: str, messages: list[dict], sleep: Callable[[float], None] = time.sleep,
             max_attempts: int = MAX_ATTEMPTS) -> str:
    """TODO 2.3 — one reply of the model (its text), trying up to `max_attempts` times.

    Retry what may pass: openai.RateLimitError (429), openai.InternalServerError (5xx),
    openai.APIConnectionError (no connection; a timeout, APITimeoutError, is one too). Before each
    retry, sleep(retry_delay(attempt, the response's "retry-after" header or None)). Any other error
    (400, 401, …) is raised at once: retrying can't fix it. After the last attempt, raise
    ModelUnavailable naming the model and the last failure (describe_failure helps)."""
    failure: Exception | None = None
    for attempt in range(1, max_attempts + 1):
        try:
            response = client.chat.completions.create(**build_request(model, messages))
            return response.choices[0].message.content or ""
        except (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError) as error:
            failure = error
            if attempt < max_attempts:  # no wait after the last attempt: nothing follows it
                headers = error.response.headers if isinstance(error, openai.APIStatusError) else {}
                sleep(retry_delay(attempt, headers.get("retry-after")))
    raise ModelUnavailable(f"{model} gave no reply after {max_attempts} attempts: "
                           f"{describe_failure(failure)}") from failure


def run_agent(question: str, config: Config, tool_impl: dict[str, Callable[[str], str]],
              sleep: Callable[[float], None] = time.sleep, max_steps: int = 6) -> str:
    """TODO 3.1 — the loop, at most max_steps replies, over the client make_client(config) builds.

    Each round: reply = complete(client, model, messages, sleep, config.max_attempts); read it
    with read_reply; keep step.text as the assistant message; a Final Answer ends the run; a request
    runs the tool and its result goes back as a user message "Observation: …". When complete()
    raises ModelUnavailable and the config names a fallback (config.fallback_model, or a server:
    config.fallback_base_url), switch to it for the rest of the run and ask again, with the same
    messages: the transcript is the agent's memory, and the new model carries on from it. The
    fallback server gets a client of its own, with its own key (config.fallback_api_key, else the
    same key), and the fallback model, else the same model. No fallback (or the fallback down
    too): let the error out."""
    client = make_client(config)
    messages = build_messages(question)
    model = config.model
    switched = False
    for _ in range(max_steps):
        try:
            reply = complete(client, model, messages, sleep, config.max_attempts)
        except ModelUnavailable:
            if switched or not (config.fallback_model or config.fallback_base_url):
                raise
            switched = True
            if config.fallback_base_url:  # another server: a client of its own, with its own key
                client = make_client(replace(config, base_url=config.fallback_base_url,
                                             api_key=config.fallback_api_key or config.api_key))
            model = config.fallback_model or config.model
            reply = complete(client, model, messages, sleep, config.max_attempts)  # the same messages
        step = read_reply(reply)
        if step is None:
            messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": FORMAT_REMINDER}]
            continue
        messages.append({"role": "assistant", "content": step.text})
        if step.final is not None:
            return step.final
        observation = execute_tool(tool_impl, step.tool, step.tool_input)
        messages.append({"role": "user", "content": f"Observation: {observation}"})
    return f"Stopped: no final answer after {max_steps} model replies."


# ---------------------------------------------------------------- given: try the pieces one by one

def ask_once(question: str, config: Config) -> str:
    """One question, one request, no retries: your configuration and client (TODOs 1.1, 1.2)."""
    response = make_client(config).chat.completions.create(model=config.model,
                                                           messages=build_messages(question))
    return response.choices[0].message.content or ""


def ask(question: str, config: Config, sleep: Callable[[float], None] = time.sleep) -> str:
    """One question, one reply, with your retries (TODOs 2.1 to 2.3): the raw text of the reply."""
    return complete(make_client(config), config.model, build_messages(question), sleep, config.max_attempts)


if __name__ == "__main__":
    try:
        settings = load_config(os.environ)
    except ConfigError as error:
        sys.exit(f"day12: {error}")
    print(f"model {settings.model} at {settings.base_url}")
    for text in ["How is the weather in 上海 today?",
                 "What is the temperature in 北京 today, in degrees Fahrenheit?",
                 "What is ReAct, according to the knowledge base?"]:
        print(text, "\n->", run_agent(text, settings, TOOL_IMPL), "\n")
