# expect: full
# style: run_agent recurses one request at a time (the step number and what was spent passed down);
# style: summarize with map(attrgetter(...)); the price lookup in a helper returning None, then KeyError.
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

from operator import attrgetter


def load_prices(text: str) -> dict[str, Price]:
    """TODO 1.1"""
    prices: dict[str, Price] = {}
    for model, fields in yaml.safe_load(text)["models"].items():
        prices[model] = Price(input_per_1m=float(fields["input_per_1m"]),
                              output_per_1m=float(fields["output_per_1m"]))
    return prices


def cost_of(prompt_tokens: int, completion_tokens: int, price: Price) -> float:
    """TODO 1.2"""
    return float(prompt_tokens * price.input_per_1m + completion_tokens * price.output_per_1m) / 1_000_000


def find_price(model: str, prices: dict[str, Price]) -> Price | None:
    if model in prices:
        return prices[model]
    candidates = sorted((name for name in prices if model.startswith(name + "-")), key=len)
    return prices[candidates[-1]] if candidates else None


def record_step(step: int, response, prices: dict[str, Price]) -> StepUsage:
    """TODO 2.1"""
    price = find_price(response.model, prices)
    if price is None:
        raise KeyError(f"model {response.model!r} has no price")
    usage = response.usage
    return StepUsage(step=step, model=response.model, prompt_tokens=usage.prompt_tokens,
                     completion_tokens=usage.completion_tokens, total_tokens=usage.total_tokens,
                     cost=cost_of(usage.prompt_tokens, usage.completion_tokens, price))


def fits(spent: int, prompt_tokens: int, budget: Budget) -> bool:
    """TODO 3.1"""
    return budget.limit - spent - prompt_tokens >= budget.reply_reserve


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], prices: dict[str, Price],
              budget: Budget, max_iter: int = 5) -> RunReport:
    """TODO 4.1"""
    tools = get_tools()

    def go(number: int, messages: list, steps: list[StepUsage], spent: int) -> RunReport:
        if number > max_iter:
            return RunReport(f"Reached max_iter={max_iter} without a final answer.", steps, "max_iter")
        if not fits(spent, count_tokens(messages, tools), budget):
            return RunReport("Stopping here: one more request would break the token budget.", steps, "budget")
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=tools)
        steps = steps + [record_step(number, response, prices)]
        message = response.choices[0].message
        calls = read_tool_calls(response)
        if not calls:
            return RunReport(message.content or "", steps, "answer")
        results = [{"role": "tool", "tool_call_id": c.id, "content": execute_tool(tool_impl, c.name, c.arguments)}
                   for c in calls]
        return go(number + 1, messages + [message.model_dump(exclude_none=True)] + results, steps,
                  spent + response.usage.total_tokens)

    return go(1, build_messages(user_query), [], 0)


def summarize(steps: list[StepUsage]) -> RunSummary:
    """TODO 5.1"""
    prompts = list(map(attrgetter("prompt_tokens"), steps))
    return RunSummary(requests=len(steps), prompt_tokens=sum(prompts),
                      completion_tokens=sum(map(attrgetter("completion_tokens"), steps)),
                      total_tokens=sum(map(attrgetter("total_tokens"), steps)),
                      cost=sum(map(attrgetter("cost"), steps)),
                      growth=[b - a for a, b in zip(prompts, prompts[1:])])


# ---------------------------------------------------------------- given: the bill, printed

def format_summary(summary: RunSummary, steps: list[StepUsage]) -> str:
    """One line per request with a bar as long as its prompt, then the totals."""
    widest = max((step.prompt_tokens for step in steps), default=1)
    lines = ["step   prompt  completion   total    cost (USD)"]
    for step in steps:
        bar = "#" * max(1, round(30 * step.prompt_tokens / widest))
        lines.append(f"{step.step:>4} {step.prompt_tokens:>8} {step.completion_tokens:>11} "
                     f"{step.total_tokens:>7} {step.cost:>13.8f}  {bar}")
    lines.append(f"{'all':>4} {summary.prompt_tokens:>8} {summary.completion_tokens:>11} "
                 f"{summary.total_tokens:>7} {summary.cost:>13.8f}")
    if summary.growth:
        lines.append("the prompt grew by " + ", ".join(f"+{g}" for g in summary.growth) + " tokens a step")
    return "\n".join(lines)


if __name__ == "__main__":
    prices = load_prices(PRICES_FILE.read_text(encoding="utf-8"))
    for question, limit in [("Look at AAPL, TSLA and NVDA one at a time, then tell me which moved most "
                             "over the past year.", 5000),
                            ("Watch AAPL and tell me the moment its price changes.", 1500)]:
        report = run_agent(question, TOOL_IMPL, prices, Budget(limit), max_iter=10)
        print(question, "\n->", report.answer, f"[{report.stopped}]")
        print(format_summary(summarize(report.steps), report.steps), "\n")
