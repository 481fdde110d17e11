"""Day 10 checks: plain pytest tests, one behaviour each, listed in the report in this order.

Your functions run in a separate process, where `client` is an openai client whose requests the
grader answers with the mock Chat Completions API, keeping every request and response: each step's
tokens are compared with the `usage` the mock really reported. Prices and quotes come from `world`,
so with another seed every expected value changes.

The budget rule these checks hold you to (README, "The budget rule"): before each request, its
prompt tokens (count_tokens) plus the tokens already spent plus the reply reserve must be at most
the limit; otherwise the run stops, cleanly, without sending it.
"""
import json
import math

from validator.checking import (Fail, Record, check, completion_arg, expect, expect_accepted, expect_system_prompt_sent,
                                expect_turns_sent_back, is_own_message,
                                learner_object, quoted, registry_arg, shown)

MODEL = "mock-react-1"
QUOTE_TOOL = {"type": "function", "function": {
    "name": "get_quote", "description": "Latest quote of a stock.",
    "parameters": {"type": "object", "properties": {"ticker": {"type": "string"}}, "required": ["ticker"]}}}
BIG = 10**9  # a budget nothing reaches
RESERVE = 100  # the reply reserve the checks give their budgets
DEFAULT_RESERVE = 100  # Budget.reply_reserve's default: a loop that uses it ignores the caller's budget


def same(got, expected) -> bool:
    return isinstance(got, (int, float)) and not isinstance(got, bool) and math.isclose(
        got, expected, rel_tol=1e-9, abs_tol=1e-15)


def price_arg(price: dict) -> dict:
    return learner_object("Price", price["input_per_1m"], price["output_per_1m"])


def table_arg(prices: dict) -> dict:
    """A price table as your own {model: Price} dict, built in your process."""
    return {model: price_arg(price) for model, price in prices.items()}


def prices_arg(world) -> dict:
    """The seed's price table, as table_arg makes it."""
    return table_arg(world.prices)


def budget_arg(limit: int, reserve: int = RESERVE) -> dict:
    return learner_object("Budget", limit, reserve)


def price_shown(price: dict) -> str:
    return f"Price(input_per_1m={price['input_per_1m']}, output_per_1m={price['output_per_1m']})"


def cost(prompt: int, completion: int, price: dict) -> float:
    return (prompt * price["input_per_1m"] + completion * price["output_per_1m"]) / 1_000_000


def is_record(value, kind: str) -> bool:
    return isinstance(value, Record) and value.type == kind


def same_cost(got, own) -> bool:
    """Whether two costs from your process are the same value: equal numbers, or the same value
    of another kind (a str, a Decimal) that no number is."""
    return same(got, own) or (not isinstance(got, (int, float)) and got == own)


# ---------------------------------------------------------------- TODO 1.1 load_prices

def expect_prices(got, expected: dict, key: str = "prices_wrong"):
    """got, what load_prices returned, is `expected` as {model: Price}. `key` says that it is not,
    for a table read from some other place than the text: it is said only when got holds a model
    or a number the text does not (else, the text was read, and read wrong: prices_wrong)."""
    expect(isinstance(got, dict), "not_a_dict", func="load_prices", got=shown(got))
    listed = "{" + ", ".join(f"{m!r}: {price_shown(p)}" for m, p in expected.items()) + "}"
    others = [v for v in got.values() if not is_record(v, "Price")]
    if set(got) == set(expected) and others:  # the models of the text, each as a dict, a tuple…
        kind = getattr(others[0], "type", None) or type(others[0]).__name__  # a class of the process: its name
        raise Fail("prices_not_price", got=shown(got), kind=kind, expected=listed)
    fields = ("input_per_1m", "output_per_1m")
    if not others and set(got) == set(expected) and all(
            same(got[m].fields.get(f), p[f]) for m, p in expected.items() for f in fields):
        return
    numbers = {p[f] for p in expected.values() for f in fields}
    elsewhere = set(got) - set(expected) or any(
        not any(same(v.fields.get(f), n) for n in numbers) for v in got.values() if is_record(v, "Price")
        for f in fields)
    raise Fail(key if elsewhere else "prices_wrong", got=shown(got), expected=listed)


@check("1.1", points=1, en="every model of the price file, with its two prices",
       zh="价格文件里的每个模型，连同它的两个价格")
def test_reads_the_price_file(learner, world):
    got = learner.call("load_prices", world.price_file)
    expect_prices(got, world.prices)


@check("1.1", points=1, en="the prices of the text it is given, each by its name, not numbers in the code",
       zh="读的是传入文本里的价格，每个按名字读，而不是写在代码里的数字")
def test_reads_the_text_given(learner, world):
    model = "mock-react-xl"
    price = {"input_per_1m": round(3.25 + world.seed % 7, 2), "output_per_1m": round(13.0 + world.seed % 5, 2)}
    # the output price first: YAML keys come in any order, so each price is read by its name
    text = ("# one model only\nmodels:\n"
            f"  {model}:\n    output_per_1m: {price['output_per_1m']}\n    input_per_1m: {price['input_per_1m']}\n")
    got = learner.call("load_prices", text)
    swapped = {model: {"input_per_1m": price["output_per_1m"], "output_per_1m": price["input_per_1m"]}}
    try:
        expect_prices(got, swapped)
    except Fail:
        pass
    else:  # the prices in the order the file lists them: right for a file in the usual order only?
        try:
            expect_prices(learner.call("load_prices", world.price_file), world.prices)
        except Fail:
            pass  # swapped whatever the order: test_reads_the_price_file says so
        else:
            raise Fail("prices_by_position", got=shown(got), text=f"{model}: {{output_per_1m: {price['output_per_1m']}, input_per_1m: {price['input_per_1m']}}}",
                       expected=f"{{{model!r}: {price_shown(price)}}}")
    expect_prices(got, {model: price}, "price_file_ignored")


# ---------------------------------------------------------------- TODO 1.2 cost_of

def expect_cost(learner, prompt: int, completion: int, price: dict):
    got = learner.call("cost_of", prompt, completion, price_arg(price))
    expected = cost(prompt, completion, price)
    # a str in quotes: "3.9765475000" shown bare would pass for the number 3.9765475
    params = dict(prompt=prompt, completion=completion, price=price_shown(price), got=quoted(got))
    if same(got, expected):
        return
    kind = getattr(got, "type", None)  # a value that is no JSON number: its class name (wire.Opaque)
    expect(kind not in ("Decimal", "Fraction"), "cost_not_a_float", kind=kind, **params)
    expect(not isinstance(got, str), "cost_is_text", expected=repr(expected), **params)  # f"{cost:.6f}"
    if same(got, expected * 1000):
        raise Fail("cost_per_1k", **params)
    if same(got, (prompt * price["output_per_1m"] + completion * price["input_per_1m"]) / 1_000_000):
        raise Fail("cost_swapped", **params)
    if same(got, (prompt + completion) * price["input_per_1m"] / 1_000_000):
        raise Fail("cost_one_price", total=prompt + completion, **params)
    prompt_part, completion_part = prompt * price["input_per_1m"], completion * price["output_per_1m"]
    if any(same(got, floored) for floored in ((prompt_part + completion_part) // 1_000_000,
                                              prompt_part // 1_000_000 + completion_part // 1_000_000)):
        raise Fail("cost_floored", expected=repr(expected), **params)  # // or int(): the fraction dropped
    if isinstance(got, (int, float)) and any(same(got, round(expected, digits)) for digits in range(0, 9)):
        raise Fail("cost_rounded", expected=repr(expected), **params)
    raise Fail("cost_wrong", expected=repr(expected), input=price["input_per_1m"],
               output=price["output_per_1m"], **params)


@check("1.2", points=1, en="prompt tokens at the input price, completion tokens at the output price, per 1M",
       zh="prompt token 按输入价、completion token 按输出价计，价格以每百万 token 计")
def test_cost_of_one_request(learner, world):
    expect_cost(learner, 172 + world.seed % 40, 41 + world.seed % 9, world.prices[MODEL])


@check("1.2", points=1, en="exact for a long run on a dear model, not rounded",
       zh="对昂贵模型上的长运行也精确，不做舍入")
def test_cost_is_exact(learner, world):
    expect_cost(learner, 1_234_567, 89_013 + world.seed, world.prices["mock-react-large"])


# ---------------------------------------------------------------- TODO 2.1 record_step

def mock_response(world, scenario: str, model: str) -> dict:
    """A real response of the mock (with its usage), as if `model` had answered."""
    session = world.session(scenario)
    return session.complete({"model": model, "tools": [QUOTE_TOOL], "messages": [
        {"role": "system", "content": "You are a research assistant."},
        {"role": "user", "content": world.scenarios[scenario].question}]})


def expected_step(step: int, response: dict, price: dict) -> dict:
    usage = response["usage"]
    return {"step": step, "model": response["model"], "prompt_tokens": usage["prompt_tokens"],
            "completion_tokens": usage["completion_tokens"], "total_tokens": usage["total_tokens"],
            "cost": cost(usage["prompt_tokens"], usage["completion_tokens"], price)}


def step_matches(got, expected: dict) -> bool:
    return is_record(got, "StepUsage") and all(
        same(got.fields.get(k), v) if k == "cost" else got.fields.get(k) == v for k, v in expected.items())


def step_shown(fields: dict) -> str:
    return "StepUsage(" + ", ".join(f"{k}={v!r}" for k, v in fields.items()) + ")"


def record(learner, world, step: int, model: str):
    response = mock_response(world, "one_quote", model)
    got = learner.call("record_step", step, completion_arg(response), prices_arg(world))
    expect(is_record(got, "StepUsage"), "not_a_step", got=shown(got))
    return response, got


def expect_cost_of_right(learner, usage: dict, price: dict, got_cost):
    """A wrong cost that is what your cost_of gives for these tokens at the right price is cost_of's
    mistake (TODO 1.2): said as such, not as the mistake of the TODO that called it."""
    try:
        own = learner.call("cost_of", usage["prompt_tokens"], usage["completion_tokens"], price_arg(price))
    except Fail:
        return  # cost_of is not what gave this cost
    expected = cost(usage["prompt_tokens"], usage["completion_tokens"], price)
    expect(not same_cost(got_cost, own) or same(own, expected), "cost_from_cost_of", got=quoted(got_cost),
           prompt=usage["prompt_tokens"], completion=usage["completion_tokens"], price=price_shown(price),
           expected=repr(expected))


def expect_step(learner, got, response: dict, price: dict, step: int):
    """got, what record_step returned, is the bill of this response at this price."""
    expected = expected_step(step, response, price)
    if not step_matches(got, expected):
        expect_cost_of_right(learner, response["usage"], price, got.fields.get("cost"))
        raise Fail("step_wrong", step=step, usage=json.dumps(response["usage"]), model=response["model"],
                   got=shown(got), expected=step_shown(expected))


def billed_right(learner, response: dict, step: int, prices: dict, base: str) -> bool:
    """Whether record_step bills this response right when it comes from `base` itself, the table's
    own name: then what goes wrong for a snapshot of it is the price lookup."""
    exact = dict(response, model=base)
    try:
        got = learner.call("record_step", step, completion_arg(exact), table_arg(prices))
    except Fail:
        return False
    return step_matches(got, expected_step(step, exact, prices[base]))


def expect_snapshot(learner, world, model: str, base: str, prices: dict | None = None):
    """A response from `model`, a dated snapshot of `base`, is billed at the price of `base`. The
    advice on the lookup is given only when the lookup is what went wrong."""
    prices = prices or world.prices
    response = mock_response(world, "one_quote", model)
    try:
        got = learner.call("record_step", 2, completion_arg(response), table_arg(prices))
    except Fail as failure:
        if failure.key != "crashed" or not billed_right(learner, response, 2, prices, base):
            raise
        raise Fail("step_snapshot_raised", model=model, base=base,
                   type=failure.params.get("type", ""), message=failure.params.get("message", "")) from None
    expect(is_record(got, "StepUsage"), "not_a_step", got=shown(got))
    expected = expected_step(2, response, prices[base])
    tokens = {k: v for k, v in expected.items() if k != "cost"}
    if (not step_matches(got, expected) and step_matches(got, tokens)
            and billed_right(learner, response, 2, prices, base)):
        raise Fail("step_snapshot", model=model, base=base, got=shown(got), expected=step_shown(expected))
    expect_step(learner, got, response, prices[base], 2)


@check("2.1", points=1, en="the usage of the response, exactly as the API reported it, and its cost",
       zh="响应的 usage，与 API 报告的完全一致，外加费用")
def test_records_the_usage(learner, world):
    response, got = record(learner, world, 3, MODEL)
    expect_step(learner, got, response, world.prices[MODEL], 3)


@check("2.1", points=1, en="priced by the model that answered (response.model)",
       zh="按实际作答的模型（response.model）计价")
def test_priced_by_the_model_that_answered(learner, world):
    model = "mock-react-large"
    response, got = record(learner, world, 1, model)
    if not step_matches(got, expected_step(1, response, world.prices[model])):
        usage = response["usage"]
        for other, price in world.prices.items():
            if other != model and same(got.fields.get("cost"), cost(usage["prompt_tokens"], usage["completion_tokens"], price)):
                raise Fail("step_other_price", model=model, other=other, got=shown(got.fields.get("cost")))
    expect_step(learner, got, response, world.prices[model], 1)


@check("2.1", points=1, en="a dated snapshot (mock-react-large-2026-01-01) is priced as its model",
       zh="带日期的快照（mock-react-large-2026-01-01）按它所属的模型计价")
def test_dated_snapshot(learner, world):
    # asked for mock-react-large, answered by this snapshot
    expect_snapshot(learner, world, "mock-react-large-2026-01-01", "mock-react-large")


@check("2.1", points=1, en="a model with no price is an error, not a free request",
       zh="价格表里没有的模型是错误，而不是免费请求")
def test_unknown_model_is_an_error(learner, world):
    known, got = record(learner, world, 1, MODEL)  # an error says something only when a known model is billed
    expect_step(learner, got, known, world.prices[MODEL], 1)
    model = "mock-react-preview"
    response = mock_response(world, "one_quote", model)
    try:
        got = learner.call("record_step", 1, completion_arg(response), prices_arg(world))
    except Fail as failure:
        expect_key_error(failure, model)  # an exception: the unknown price is said, not guessed
        return
    raise Fail("unknown_model_priced", model=model, got=shown(got))


def expect_key_error(failure: Fail, model: str):
    """record_step raised for a model with no price: a KeyError (or a class of its own that
    subclasses it), as the README asks, not whatever a None price or a missing name gives further on."""
    if failure.key != "crashed":
        raise failure  # a StopIteration (next() with no default) is said as such
    expect(failure.raised_a("KeyError"), "unknown_model_wrong_error", model=model,
           type=failure.params.get("type", ""), message=failure.params.get("message", ""))


@check("2.1", points=1, en="the longest table name the snapshot starts with, followed by \"-\"",
       zh="取快照名开头的、后面跟着“-”的最长的表中名字")
def test_longest_name_with_dash(learner, world):
    # as gpt-4o and gpt-4o-mini: gpt-4o-mini-2024-07-18 starts with both names, and is the second one
    prices = {"mock-react": world.prices["mock-react-large"], "mock-react-mini": world.prices["mock-react-mini"]}
    expect_snapshot(learner, world, "mock-react-mini-2026-01-01", "mock-react-mini", prices)
    # a name of two parts has snapshots too (as gpt-4o-2024-08-06): the table name is no fixed number of
    # the snapshot's parts, and the date, drawn from the seed, no fixed text to cut off
    date = f"{2024 + world.seed % 3}-{1 + world.seed % 12:02d}-{1 + world.seed % 28:02d}"
    expect_snapshot(learner, world, f"mock-react-{date}", "mock-react", prices)
    # as gpt-4o is not gpt-4: this name starts with mock-react, but not with "mock-react-"
    model = "mock-react2-2026-01-01"
    response = mock_response(world, "one_quote", model)
    try:
        got = learner.call("record_step", 2, completion_arg(response), table_arg(prices))
    except Fail as failure:
        expect_key_error(failure, model)  # no price for it: said, not guessed
        return
    raise Fail("step_prefix_without_dash", model=model, name="mock-react", got=shown(got))


# ---------------------------------------------------------------- TODO 3.1 fits

def expect_fits(learner, spent: int, prompt: int, limit: int, reserve: int, key: str):
    got = learner.call("fits", spent, prompt, budget_arg(limit, reserve))
    expect(isinstance(got, bool), "not_a_bool", func="fits", got=shown(got))
    needed = spent + prompt + reserve
    expect(got == (needed <= limit), key, spent=spent, prompt=prompt, limit=limit, reserve=reserve,
           needed=needed, without=spent + prompt, got=got)


@check("3.1", points=1, en="a request that uses the budget to its last token fits",
       zh="恰好用到预算最后一个 token 的请求也放得下")
def test_fits_exactly(learner, world):
    spent, prompt = 2_000 + world.seed, 473
    expect_fits(learner, spent, prompt, spent + prompt + RESERVE, RESERVE, "fits_at_limit")
    expect_fits(learner, 0, 172, 10_000, RESERVE, "fits_at_limit")


@check("3.1", points=1, en="one token over the limit does not fit", zh="超出上限一个 token 就放不下")
def test_one_token_over(learner, world):
    spent, prompt = 2_000 + world.seed, 473
    expect_fits(learner, spent, prompt, spent + prompt + RESERVE - 1, RESERVE, "fits_over")
    # "does not fit" counts only from a fits that says yes when it does: False for everything is no rule
    expect_fits(learner, spent, prompt, spent + prompt + RESERVE, RESERVE, "fits_over_never_fits")


@check("3.1", points=1, en="the reply reserve counts: the reply has to fit too",
       zh="回复预留也要算上：回复也得放得下")
def test_reserve_counts(learner, world):
    spent, prompt = 1_500 + world.seed, 380
    expect_fits(learner, spent, prompt, spent + prompt + 60, 150, "fits_reserve")
    expect_fits(learner, spent, prompt, spent + prompt + 60, 50, "fits_own_reserve")  # the budget's, not 100


# ---------------------------------------------------------------- TODO 4.1 run_agent

def run_agent(learner, world, scenario, budget=None, max_iter=None):
    """Your run_agent on a task of scenarios.yaml, with the seed's prices; for --live too (the real
    model then gets mock-react-1's made-up price, under the name it was asked for and each name the
    server lists: a local server answers under its own name)."""
    prices = prices_arg(world)
    if learner.live_model is not None:
        for name in [learner.live_model.model, *learner.live_model.served_models()]:
            prices[name] = price_arg(world.prices[MODEL])
    args = [registry_arg(world.scenarios[scenario].tools), prices, budget or budget_arg(BIG)]
    if max_iter is not None:
        args.append(max_iter)
    try:
        run = learner.run_agent("run_agent", scenario, *args)
    except Fail as failure:
        expect_accepted(learner.runs[-1])
        if failure.key == "crashed" and budget is not None:
            raise Fail("budget_raised", type=failure.params.get("type", ""),
                       message=failure.params.get("message", "")) from None
        raise
    expect_accepted(run)
    expect(is_record(run.answer, "RunReport"), "not_a_report", got=shown(run.answer))
    if learner.live_model is not None:  # --live shows the answer: the report's, with its bill
        report, found = run.answer, usages(run)
        run.answer = (f"{report.answer}  [stopped: {report.stopped}; {len(found)} request(s), "
                      f"{sum(u['total_tokens'] for u in found)} tokens]")
    return run



def usages(run) -> list[dict]:
    return [e.response["usage"] for e in run.exchanges if e.status == 200]


def expect_steps(learner, run, world):
    """One StepUsage per request sent, each with the mock's usage and its cost."""
    steps = run.answer.steps
    expect(isinstance(steps, list) and len(steps) == len(run.exchanges), "steps_count",
           got=len(steps) if isinstance(steps, list) else shown(steps), sent=len(run.exchanges))
    for index, (step, exchange) in enumerate(zip(steps, run.exchanges)):
        response = exchange.response
        expected = expected_step(index + 1, response, world.prices[response["model"]])
        if not step_matches(step, expected):
            expect_record_step_right(learner, world, index, response, step)
            raise Fail("run_step_wrong", index=index, request=index + 1, usage=json.dumps(response["usage"]),
                       got=shown(step), expected=step_shown(expected))


def expect_record_step_right(learner, world, index: int, response: dict, step):
    """A wrong step that your own record_step gets wrong too, for this very response, is TODO 2.1's
    mistake, or cost_of's (TODO 1.2): said as such, not as the loop's."""
    price = world.prices[response["model"]]
    if is_record(step, "StepUsage"):
        expect_cost_of_right(learner, response["usage"], price, step.fields.get("cost"))
    try:
        own = learner.call("record_step", index + 1, completion_arg(response), prices_arg(world))
    except Fail:
        return  # the loop does not bill with record_step
    expected = expected_step(index + 1, response, price)
    expect(step_matches(own, expected), "run_step_from_record_step", index=index, request=index + 1,
           own=shown(own), expected=step_shown(expected))


def expect_own_fits_right(learner, request: int, spent: int, prompt: int, limit: int, reserve: int):
    """The loop sent a request that did not fit, or stopped before one that did: when your own fits
    decides so for these very numbers, the mistake is fits' (TODO 3.1), said as such, not the loop's."""
    try:
        own = learner.call("fits", spent, prompt, budget_arg(limit, reserve))
    except Fail:
        return  # fits is not what decided (its own checks say what is wrong with it)
    needed = spent + prompt + reserve
    if isinstance(own, bool) and own != (needed <= limit):
        raise Fail("run_sent_by_fits" if own else "run_stopped_by_fits", request=request, spent=spent,
                   prompt=prompt, reserve=reserve, needed=needed, limit=limit, got=own)


def expect_stop_not_from_fits(learner, run, prompts: list[int], totals: list[int], limit: int,
                              reserve: int = RESERVE):
    """A run of the tour that stopped after n requests, the tour's own so far (their totals those of
    the tour without a budget), before request n + 1, which fitted: not because your fits says no."""
    sent = len(run.exchanges)
    if sent < len(prompts) and [u["total_tokens"] for u in usages(run)] == totals[:sent]:
        expect_own_fits_right(learner, sent + 1, sum(totals[:sent]), prompts[sent], limit, reserve)


def expect_within_budget(learner, run, limit: int, reserve: int):
    """Every request sent fitted: what was spent before it + its prompt + the reserve <= limit."""
    spent, counted = 0, {"prompt_tokens": 0, "completion_tokens": 0}  # spent as a loop that adds one kind counts it
    for number, usage in enumerate(usages(run), start=1):
        needed = spent + usage["prompt_tokens"] + reserve
        if needed > limit:
            expect_own_fits_right(learner, number, spent, usage["prompt_tokens"], limit, reserve)
            fits = [f"{f} ({own})" for f, own in sorted(counted.items(), key=lambda item: item[1])
                    if own + usage["prompt_tokens"] + reserve <= limit]
            expect(not fits, "spent_counts_one_kind", request=number, spent=spent, counts=" / ".join(fits))
            # a run that stops for the budget, but judged this request with the class default reserve
            stopped = getattr(run.answer, "fields", {}).get("stopped")
            expect(reserve == DEFAULT_RESERVE or stopped != "budget"
                   or spent + usage["prompt_tokens"] + DEFAULT_RESERVE > limit, "run_default_reserve",
                   request=number, spent=spent, prompt=usage["prompt_tokens"], reserve=reserve, needed=needed,
                   limit=limit, default=DEFAULT_RESERVE)
        expect(needed <= limit, "sent_over_budget", request=number, spent=spent, prompt=usage["prompt_tokens"],
               reserve=reserve, needed=needed, limit=limit)
        spent += usage["total_tokens"]
        for field in counted:
            counted[field] += usage[field]


def expect_budget_stop(run):
    report = run.answer
    expect(report.stopped == "budget", "stopped_wrong", got=quoted(report.stopped), expected="budget")
    expect(is_own_message(report.answer, run), "budget_answer_wrong",  # not the question, the model's words, a result
           got=repr(report.answer) if isinstance(report.answer, str) else shown(report.answer))


@check("4.1", points=1, en="the system prompt first, one step per request, with the mock's usage exactly and its cost",
       zh="先发系统提示，每个请求一步，usage 与 mock 完全一致，并算出费用")
def test_records_every_step(learner, world):
    run = run_agent(learner, world, "tour")
    expect(run.exchanges, "no_request")
    expect_system_prompt_sent(learner, run)
    expect_steps(learner, run, world)
    report = run.answer
    final = run.exchanges[-1].response["choices"][0]["message"]
    expect(not final.get("tool_calls") and report.answer == final.get("content"), "answer_wrong",
           expected=final.get("content"), got=shown(report.answer))
    expect(report.stopped == "answer", "stopped_wrong", got=quoted(report.stopped), expected="answer")


def tour_numbers(learner, world) -> tuple[list[int], list[int]]:
    """prompt_tokens and total_tokens of each request of your agent's tour, without a budget."""
    run = run_agent(learner, world, "tour")
    found = usages(run)
    expect(len(found) >= 3, "wrong_request_count", expected=4, got=len(found))
    return [u["prompt_tokens"] for u in found], [u["total_tokens"] for u in found]


@check("4.1", points=1, en="the model's turn goes back as it came, its words too",
       zh="模型那一轮原样发回，它写的话也不改")
def test_turn_sent_back_unchanged(learner, world):
    run = run_agent(learner, world, "tour")
    expect(len(run.exchanges) > 1, "no_request" if not run.exchanges else "wrong_request_count", expected=4,
           got=len(run.exchanges))
    expect_turns_sent_back(run)


@check("4.1", points=2, en="a request that would pass the budget is never sent: the run stops cleanly before it",
       zh="会超出预算的请求绝不发送：运行在它之前干净地停下")
def test_stops_before_the_budget(learner, world):
    prompts, totals = tour_numbers(learner, world)
    limit = totals[0] + totals[1] + prompts[2] + RESERVE - 1  # request 3 misses by one token
    run = run_agent(learner, world, "tour", budget_arg(limit))
    expect_within_budget(learner, run, limit, RESERVE)
    if len(run.exchanges) < 2:
        expect_stop_not_from_fits(learner, run, prompts, totals, limit)
    expect(len(run.exchanges) == 2, "wrong_request_count", expected=2, got=len(run.exchanges))
    expect_budget_stop(run)
    expect_steps(learner, run, world)


@check("4.1", points=1, en="a request that fits to the last token is sent",
       zh="恰好放得下的请求照常发送")
def test_sends_what_fits(learner, world):
    prompts, totals = tour_numbers(learner, world)
    spent = totals[0] + totals[1]
    limit = spent + prompts[2] + RESERVE  # request 3 fits exactly
    run = run_agent(learner, world, "tour", budget_arg(limit))
    if len(run.exchanges) < 3:
        expect_stop_not_from_fits(learner, run, prompts, totals, limit)
        raise Fail("stopped_too_early", sent=len(run.exchanges), request=3, spent=spent, prompt=prompts[2],
                   reserve=RESERVE, limit=limit)


@check("4.1", points=1, en="a model that never stops: the budget ends the run, and is never exceeded",
       zh="模型永不停止：预算结束运行，且从未超出")
def test_budget_ends_an_endless_run(learner, world):
    limit = 2_500
    run = run_agent(learner, world, "endless", budget_arg(limit), 20)
    expect_within_budget(learner, run, limit, RESERVE)
    spent = sum(u["total_tokens"] for u in usages(run))
    expect(spent <= limit, "over_budget", spent=spent, limit=limit)
    expect_budget_stop(run)
    expect_budget_used(learner, world, run, "endless", limit)


def expect_budget_used(learner, world, run, scenario, limit: int, reserve: int = RESERVE):
    """A run the budget ended took the steps that fitted: it sent requests, and stopped before one
    that would not have fit. The prompt of that next request comes from the same run without a
    budget, one request further (when its requests so far are the very same)."""
    found = usages(run)
    expect(found, "budget_nothing_sent", limit=limit, reserve=reserve)
    sent, spent = len(found), sum(u["total_tokens"] for u in found)
    free = usages(run_agent(learner, world, scenario, budget_arg(BIG), sent + 1))
    if len(free) <= sent or [u["total_tokens"] for u in free[:sent]] != [u["total_tokens"] for u in found]:
        return  # not the same run: the steps checks say why
    prompt = free[sent]["prompt_tokens"]
    if spent + prompt + reserve <= limit:
        expect_own_fits_right(learner, sent + 1, spent, prompt, limit, reserve)
        raise Fail("budget_stopped_early", sent=sent, request=sent + 1, spent=spent, prompt=prompt,
                   reserve=reserve, needed=spent + prompt + reserve, limit=limit)


@check("4.1", points=1, en="a first request that does not fit: nothing is sent, whatever the budget's reply reserve",
       zh="第一个请求就放不下：什么都不发送，无论预算的回复预留是多少")
def test_nothing_fits(learner, world):
    run = run_agent(learner, world, "one_quote", budget_arg(150))
    expect_within_budget(learner, run, 150, RESERVE)
    expect(not run.exchanges, "wrong_request_count", expected=0, got=len(run.exchanges))
    expect_budget_stop(run)
    expect(run.answer.steps == [], "steps_count", got=shown(run.answer.steps), sent=0)
    # a reserve other than the default (and more than any reply of the mock): the first request would
    # fit with a reserve of 100, but not with this budget's own, which the loop must use
    found = usages(run_agent(learner, world, "one_quote"))
    expect(found, "no_request")
    reserve = DEFAULT_RESERVE + 100 + world.seed % 100
    limit = found[0]["prompt_tokens"] + reserve - 1
    run = run_agent(learner, world, "one_quote", budget_arg(limit, reserve))
    expect_within_budget(learner, run, limit, reserve)
    expect(not run.exchanges, "wrong_request_count", expected=0, got=len(run.exchanges))
    expect_budget_stop(run)


@check("4.1", points=1, en="max_iter still ends the run: stopped is \"max_iter\", the answer a message of your own; an answer with the last request it allows is kept",
       zh="max_iter 依然结束运行：stopped 为 \"max_iter\"，answer 是你自己的信息；随它允许的最后一个请求回来的答案照样保留")
def test_max_iter_still_stops(learner, world):
    run = run_agent(learner, world, "endless", budget_arg(BIG), 3)
    expect(len(run.exchanges) == 3, "wrong_request_count", expected=3, got=len(run.exchanges))
    expect(run.answer.stopped == "max_iter", "stopped_wrong", got=quoted(run.answer.stopped), expected="max_iter")
    answer = run.answer.answer
    expect(is_own_message(answer, run), "max_iter_answer_wrong",  # not "", the question, the model's words, a result
           got=repr(answer) if isinstance(answer, str) else shown(answer))
    # The tour with max_iter = the requests it takes: the answer comes with the last request allowed.
    # max_iter stops the loop from sending another request; it never throws away a reply that came.
    needed = len(run_agent(learner, world, "tour").exchanges)
    run = run_agent(learner, world, "tour", budget_arg(BIG), needed)
    final = (run.exchanges[-1].response["choices"][0]["message"]
             if run.exchanges and run.exchanges[-1].status == 200 else {})
    if len(run.exchanges) == needed and final and not final.get("tool_calls"):
        report = run.answer
        expect(report.stopped == "answer" and report.answer == final.get("content"), "last_answer_lost",
               max_iter=needed, expected=final.get("content"), stopped=quoted(report.stopped),
               got=repr(report.answer) if isinstance(report.answer, str) else shown(report.answer))


# ---------------------------------------------------------------- TODO 5.1 summarize

def reference_usages(world, scenario: str) -> list[dict]:
    """The usage of each request of a correct agent on a scenario: the check plays the agent itself."""
    session = world.session(scenario)
    messages = [{"role": "system", "content": "You are a research assistant."},
                {"role": "user", "content": world.scenarios[scenario].question}]
    found = []
    for _ in range(10):
        response = session.complete({"model": MODEL, "messages": messages, "tools": [QUOTE_TOOL]})
        found.append(response["usage"])
        message = response["choices"][0]["message"]
        if not message.get("tool_calls"):
            break
        messages.append({k: v for k, v in message.items() if v is not None})
        for call in message["tool_calls"]:
            output = world.tools[call["function"]["name"]](**json.loads(call["function"]["arguments"]))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(output)})
    return found


def steps_for(world, found: list[dict]) -> list[dict]:
    price = world.prices[MODEL]
    return [{"step": n, "model": MODEL, **u, "cost": cost(u["prompt_tokens"], u["completion_tokens"], price)}
            for n, u in enumerate(found, start=1)]


def summarize(learner, steps: list[dict]):
    got = learner.call("summarize", [learner_object("StepUsage", **s) for s in steps])
    expect(is_record(got, "RunSummary"), "not_a_summary", got=shown(got))
    return got


def expect_totals(got, steps: list[dict]):
    for name in ("requests", "prompt_tokens", "completion_tokens", "total_tokens", "cost"):
        expected = len(steps) if name == "requests" else sum(s[name] for s in steps)
        value = got.fields.get(name)
        if same(value, expected) and (name == "cost" or value == expected):
            continue
        if len(steps) > 1 and name != "requests" and same(value, steps[-1][name]):
            raise Fail("summary_last_step", field=name, got=shown(value))
        raise Fail("summary_wrong", field=name, got=shown(value), expected=repr(expected))


@check("5.1", points=1, en="the run's totals: requests, tokens of each kind, cost",
       zh="整次运行的合计：请求数、各类 token、费用")
def test_summary_totals(learner, world):
    steps = steps_for(world, reference_usages(world, "tour"))
    expect_totals(summarize(learner, steps), steps)


@check("5.1", points=1, en="the snowball: how much each prompt grew over the one before",
       zh="滚雪球：每个 prompt 比上一个多了多少")
def test_summary_growth(learner, world):
    steps = steps_for(world, reference_usages(world, "tour"))
    trimmed = steps + [dict(steps[0], step=len(steps) + 1)]  # a prompt shrinks too (day 09's trim): growth < 0
    for run in (steps, trimmed):
        prompts = [s["prompt_tokens"] for s in run]
        expected = [after - before for before, after in zip(prompts, prompts[1:])]
        got = summarize(learner, run).fields.get("growth")
        expect(got == expected, "growth_wrong", prompts=prompts, expected=expected, got=shown(got))


@check("5.1", points=1, en="a run of one request, and a run of none", zh="只有一个请求的运行，以及一个请求都没有的运行")
def test_summary_short_runs(learner, world):
    one = steps_for(world, reference_usages(world, "no_tool"))
    got = summarize(learner, one)
    expect_totals(got, one)
    expect(got.fields.get("growth") == [], "growth_wrong", prompts=[one[0]["prompt_tokens"]], expected=[],
           got=shown(got.fields.get("growth")))
    got = summarize(learner, [])
    expect_totals(got, [])
    expect(got.fields.get("growth") == [], "growth_wrong", prompts=[], expected=[], got=shown(got.fields.get("growth")))
