# expect: full
# style: message.to_dict() turn; while loop; price lookup max(filter(...), key=len, default=None); fits as room left; functools.reduce summary; Chinese messages
"""Day 10 — tokens and cost: what each request uses, what it costs, and a budget that stops in time.

Every Chat Completions response reports `usage`: the prompt tokens it read, the completion tokens
it wrote, and their sum. Providers bill the two at different prices per million tokens. And since
the model keeps nothing between requests, each request resends the whole conversation: the prompt
grows every round, and the bill with it.

Today's agent is day 07's loop with the accounting added:

    prices = load_prices(the text of prices.yaml)       model -> Price per 1M input / output tokens
    before each request:  fits(spent, count_tokens(messages, tools), budget)?   no -> stop cleanly
    after each response:  record_step(n, response, prices) -> StepUsage (its tokens and cost)
    at the end:           summarize(steps) -> RunSummary (totals, cost, how the prompt grew)

Fill in the six TODOs, then run `python validate.py day10`; run this file to watch the bill grow.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import yaml

from mock_llm.http import openai_client

client = openai_client("day10")
MODEL = "mock-react-1"
PRICES_FILE = Path(__file__).resolve().parents[1] / "lessons" / "day10" / "prices.yaml"

SYSTEM_PROMPT = ("You are a research assistant. Whenever you need a price, a P/E ratio or a "
                 "performance figure, call the get_quote tool instead of relying on memory. "
                 "Keep final answers short.")


# ---------------------------------------------------------------- given: day 07's agent, done

QUOTES = {
    "AAPL": {"price": 195.3, "pe": 31.2, "change_1y_pct": 24.5, "currency": "USD"},
    "TSLA": {"price": 178.6, "pe": 65.4, "change_1y_pct": -8.3, "currency": "USD"},
    "NVDA": {"price": 1180.0, "pe": 72.1, "change_1y_pct": 198.0, "currency": "USD"},
}


def get_quote(ticker: str) -> dict:
    """Made-up market data. An unknown ticker is an error result, which the model should read."""
    key = ticker.upper()
    if key not in QUOTES:
        return {"error": f"unknown ticker: {ticker}"}
    return {"ticker": key, **QUOTES[key]}


TOOL_IMPL: dict[str, Callable[..., dict]] = {"get_quote": get_quote}


@dataclass
class ToolRequest:
    id: str
    name: str
    arguments: str


def get_tools() -> list[dict]:
    return [{"type": "function", "function": {
        "name": "get_quote",
        "description": "Latest quote of a stock: price, P/E ratio and 1-year percentage change.",
        "parameters": {"type": "object", "properties": {"ticker": {"type": "string"}}, "required": ["ticker"]},
    }}]


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    func = tool_impl.get(name)
    if func is None:
        return json.dumps({"error": f"unknown tool: {name}"})
    try:
        return json.dumps(func(**json.loads(arguments or "{}")), ensure_ascii=False)
    except Exception as error:
        return json.dumps({"error": f"{name} failed: {error}"}, ensure_ascii=False)


def build_messages(user_query: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user_query}]


def read_tool_calls(response) -> list[ToolRequest]:
    calls = response.choices[0].message.tool_calls or []
    return [ToolRequest(call.id, call.function.name, call.function.arguments) for call in calls]


def count_tokens(messages: list, tools: list | None = None) -> int:
    """The prompt tokens a request with these messages and tools will use: count before you send.

    The mock's tokenizer is a stand-in (about four bytes of the request's JSON a token), so here the
    count is exact: the same number the response's usage.prompt_tokens will say. For a real model
    you count with its own tokenizer (tiktoken for OpenAI's) and land a few tokens off, because the
    API adds some of its own per message: keep a margin."""
    text = json.dumps([messages, tools], ensure_ascii=False, sort_keys=True,
                      default=lambda message: message.model_dump(exclude_unset=True))  # a message object
    return max(1, math.ceil(len(text.encode("utf-8")) / 4))


# ---------------------------------------------------------------- the records you fill in

@dataclass
class Price:
    """What a model costs, in US dollars per 1 million tokens."""
    input_per_1m: float  # prompt tokens: what you send
    output_per_1m: float  # completion tokens: what the model writes


@dataclass
class StepUsage:
    """The bill of one request."""
    step: int  # 1 for a run's first request
    model: str  # the model that answered: response.model
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    cost: float  # US dollars, not rounded


@dataclass
class Budget:
    """The tokens one run may use, prompt and completion together."""
    limit: int
    reply_reserve: int = 100  # room kept for each reply: its length is known only once it is written


@dataclass
class RunReport:
    answer: str
    steps: list[StepUsage]  # one per request sent, in order
    stopped: str  # why the loop ended: "answer", "budget" or "max_iter"


@dataclass
class RunSummary:
    requests: int
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    cost: float
    growth: list[int]  # for each request after the first: its prompt tokens minus the previous one's


# ---------------------------------------------------------------- your part: six TODOs
import functools
import itertools

PER_MILLION = 1e6


def load_prices(text: str) -> dict[str, Price]:
    data = yaml.safe_load(text) or {}
    table: dict[str, Price] = {}
    for name, entry in (data.get("models") or {}).items():
        table[str(name)] = Price(input_per_1m=float(entry["input_per_1m"]),
                                 output_per_1m=float(entry["output_per_1m"]))
    return table


def cost_of(prompt_tokens: int, completion_tokens: int, price: Price) -> float:
    pairs = ((prompt_tokens, price.input_per_1m), (completion_tokens, price.output_per_1m))
    return sum(tokens * rate for tokens, rate in pairs) / PER_MILLION


def price_for(model: str, prices: dict[str, Price]) -> Price:
    """The exact name, else the longest table name the model extends with '-'."""
    base = max(filter(lambda name: model == name or model.startswith(f"{name}-"), prices), key=len, default=None)
    if base is None:
        raise KeyError(f"价格表里没有模型 {model!r}")
    return prices[base]


def record_step(step: int, response, prices: dict[str, Price]) -> StepUsage:
    u = response.usage
    return StepUsage(step=step, model=response.model, prompt_tokens=u.prompt_tokens,
                     completion_tokens=u.completion_tokens, total_tokens=u.total_tokens,
                     cost=cost_of(u.prompt_tokens, u.completion_tokens, price_for(response.model, prices)))


def fits(spent: int, prompt_tokens: int, budget: Budget) -> bool:
    left = budget.limit - spent
    return prompt_tokens + budget.reply_reserve <= left


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], prices: dict[str, Price],
              budget: Budget, max_iter: int = 5) -> RunReport:
    messages = build_messages(user_query)
    tools = get_tools()
    steps: list[StepUsage] = []
    spent = 0
    number = 0
    while number < max_iter:
        number += 1
        needed = count_tokens(messages, tools)
        if not fits(spent, needed, budget):
            return RunReport(f"预算不够了：第 {number} 个请求需要 {needed} 个 prompt token，"
                             f"已用 {spent}/{budget.limit}。", steps, "budget")
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=tools)
        steps.append(record_step(number, response, prices))
        spent += response.usage.total_tokens
        message = response.choices[0].message
        calls = read_tool_calls(response)
        if not calls:
            return RunReport(message.content or "", steps, "answer")
        messages.append(message.to_dict())
        messages.extend({"role": "tool", "tool_call_id": c.id,
                         "content": execute_tool(tool_impl, c.name, c.arguments)} for c in calls)
    return RunReport(f"达到 max_iter={max_iter} 仍没有最终答案。", steps, "max_iter")


def summarize(steps: list[StepUsage]) -> RunSummary:
    add = lambda field: functools.reduce(lambda acc, s: acc + getattr(s, field), steps, 0)
    prompts = [s.prompt_tokens for s in steps]
    return RunSummary(requests=len(steps), prompt_tokens=add("prompt_tokens"),
                      completion_tokens=add("completion_tokens"), total_tokens=add("total_tokens"),
                      cost=add("cost"), growth=[b - a for a, b in itertools.pairwise(prompts)])
