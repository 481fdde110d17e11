"""Day 11 checks: plain pytest tests, one behaviour each, listed in the report in this order.

Your functions run in a separate process; the tools they call run in the grader, each in a thread
of its own, so calls your code makes at the same time run at the same time. Before a check calls
your code it opens a round of the calls it expects at once (world.rounds, lessons/day11/tools.py):
the grader holds them at a barrier until all have arrived, then ends them in an order of their own.
"Side by side" is how many calls were held together: code that waits for each result never sends
its second call while the first is held. No round is timed, so a busy machine changes nothing.

Numbers come from `world`, so with another seed every expected value changes."""
import ast
import json
from collections import Counter

from validator.checking import (Fail, ToolBox, check, expect, expect_accepted, expect_fresh_start,
                                expect_own_fallback, expect_system_prompt_sent, expect_turns_sent_back, learner_object, parse_json, quoted,
                                registry_arg, shown)

TOOLS = ["get_quote", "get_fundamentals", "get_news"]
SCREEN = ["AAPL", "NVDA", "MSFT", "AMZN", "GOOG"]  # the screen scenario's tickers
OUTAGE = ["AAPL", "NVDA", "MSFT", "META", "GOOG"]  # META's news service is down
DOWN = "META"
MAX_PE, MIN_GROWTH = 40.0, 10.0
AT_ONCE = 5  # of ten calls, at least this many must be running at the same moment: two waits at most


def tool_schema(name: str) -> dict:
    return {"type": "function", "function": {"name": name, "description": name, "parameters": {
        "type": "object", "properties": {"ticker": {"type": "string"}}, "required": ["ticker"]}}}


def request_arg(call_id: str, name: str, arguments: str) -> dict:
    return learner_object("ToolRequest", call_id, name, arguments)


def expected_result(world, name: str, ticker: str) -> dict:
    """What the grader's tool returns for one call (without running it, so without its wait)."""
    table = {"get_quote": world.quotes, "get_fundamentals": world.fundamentals, "get_news": world.news}[name]
    return dict(table[ticker]) if ticker in table else {"error": f"unknown ticker: {ticker}"}


def content_of(message) -> object:
    """A tool message's content, parsed from JSON (None when it is no JSON text)."""
    content = message.get("content") if isinstance(message, dict) else None
    try:
        return parse_json(content) if isinstance(content, str) else None
    except ValueError:
        return None


def expect_side_by_side(calls, learner=None, func: str = "run_calls"):
    """The round's calls all ran, and overlapped: at least AT_ONCE were running at the same moment. Calls that ran
    one at a time are told by what the source of `func` (and the functions it calls) shows as the
    cause, when it shows one: a pool of one worker, or a lock held around the call."""
    count = len(calls.calls)
    if count < calls.size:  # calls that never reached a tool ran neither side by side nor at all
        raise Fail("calls_not_run", func=func, count=calls.size, ran=count)
    if calls.peak >= min(AT_ONCE, count):
        return
    if calls.peak <= 1:
        tree = learner.syntax_tree() if learner is not None else None
        pool = one_worker_pool(tree, func)
        if pool:
            raise Fail("pool_of_one", count=count, serial=calls.serial(), pool=pool[0], line=pool[1])
        lock = lock_around_call(tree, func)
        if lock:
            raise Fail("lock_around_call", count=count, serial=calls.serial(), lock=lock[0], line=lock[1])
        raise Fail("one_after_another", count=count, serial=calls.serial())
    raise Fail("too_few_at_once", count=count, peak=calls.peak, needed=AT_ONCE)


# ---------------------------------------------------------------- what the source shows (never run)

def defs_by_name(tree: ast.Module) -> dict[str, list]:
    found: dict[str, list] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.setdefault(node.name, []).append(node)
    return found


def reached(tree: ast.Module | None, func: str) -> list:
    """The (last) def of `func` and of every function of the file it calls by name, transitively."""
    if tree is None:
        return []
    defs, seen, todo, out = defs_by_name(tree), set(), [func], []
    while todo:
        name = todo.pop()
        if name in seen or name not in defs:
            continue
        seen.add(name)
        node = defs[name][-1]
        out.append(node)
        todo += [getattr(n.func, "id", None) or getattr(n.func, "attr", None)
                 for n in ast.walk(node) if isinstance(n, ast.Call)]
        todo += [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]  # passed as a function: pool.map(work, …)
    return out


def callee(node: ast.Call) -> str:
    return getattr(node.func, "id", None) or getattr(node.func, "attr", None) or ""


def int_value(tree: ast.Module, node) -> int | None:
    """An int written in the source, or a module-level NAME = int it names."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        values = [n.value for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
                  and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)]
        return values[-1].value if values and type(values[-1].value) is int else None
    return None


POOLS = {"ThreadPoolExecutor", "ThreadPool", "Pool"}


def one_worker_pool(tree: ast.Module | None, func: str) -> tuple[str, int] | None:
    """(the pool as written, its line) when `func`, a function it calls, or the module makes a pool of
    exactly one worker."""
    if tree is None:
        return None
    places = reached(tree, func) + [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                                ast.ClassDef))]
    for place in places:
        for node in ast.walk(place):
            if isinstance(node, ast.Call) and callee(node) in POOLS:
                width = next((k.value for k in node.keywords if k.arg in ("max_workers", "processes")),
                             node.args[0] if node.args else None)
                if width is not None and int_value(tree, width) == 1:
                    return ast.unparse(node), node.lineno
    return None


LOCKS = {"Lock", "RLock", "Semaphore", "BoundedSemaphore", "Condition"}


def lock_around_call(tree: ast.Module | None, func: str) -> tuple[str, int] | None:
    """(the lock's name, the line of its `with`) when a `with` on a lock, in `func` or a function it
    calls, holds it while execute_tool (or a tool of tool_impl) runs: one thread at a time gets past."""
    if tree is None:
        return None
    def one_at_a_time(call) -> bool:  # a lock; a semaphore of one (wider ones let that many through)
        width = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "value"), None)
        return callee(call) in LOCKS and (width is None or "Semaphore" not in callee(call)
                                          or int_value(tree, width) == 1)
    locks = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and one_at_a_time(node.value):
            locks |= {ast.unparse(t) for t in node.targets}
    for place in reached(tree, func):
        for node in ast.walk(place):
            if not isinstance(node, (ast.With, ast.AsyncWith)):
                continue
            held = [ast.unparse(item.context_expr) for item in node.items
                    if ast.unparse(item.context_expr) in locks
                    or isinstance(item.context_expr, ast.Call) and one_at_a_time(item.context_expr)]
            runs = any(isinstance(n, ast.Call) and (callee(n) == "execute_tool" or isinstance(n.func, ast.Subscript))
                       for stmt in node.body for n in ast.walk(stmt))
            if held and runs:
                return held[0], node.lineno
    return None


def shared_message(tree: ast.Module | None) -> tuple[str, int] | None:
    """(the name, the line) when execute_tool returns an object made outside it, at module level (or a
    local name for it): every call returns that one object, and each call overwrites the last one's."""
    if tree is None:
        return None
    defs = defs_by_name(tree).get("execute_tool")
    if not defs:
        return None
    node = defs[-1]
    module = {t.id for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))
              for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    declared = {name for n in ast.walk(node) if isinstance(n, ast.Global) for name in n.names}
    args = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
    local, values = set(args), {}  # the names the function binds; each one's assigned values
    for n in ast.walk(node):
        kinds = (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.NamedExpr)
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, kinds) else []
        targets += [item.optional_vars for item in getattr(n, "items", []) if item.optional_vars is not None]
        for target in targets:
            for name in bound_names(target):  # x = …, a, b = …; not x[k] = … nor x.a = …, which change x
                local.add(name)
                values.setdefault(name, []).append(n.value if isinstance(n, ast.Assign) else None)
    local -= declared
    for n in ast.walk(node):
        if isinstance(n, ast.Return) and isinstance(n.value, ast.Name):
            name = n.value.id
            if name in local and name in values and all(isinstance(v, ast.Name) and v.id not in local
                                                        and v.id in module for v in values[name]):
                name = values[name][0].id  # message = TEMPLATE: a second name for the module's object
            if name not in local and name in module:
                return name, n.lineno
    return None


def bound_names(target) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for item in target.elts for name in bound_names(item)]
    if isinstance(target, ast.Starred):
        return bound_names(target.value)
    return []


# ---------------------------------------------------------------- TODO 1.1 execute_tool

def run_execute_tool(learner, world, call_id: str, name: str, arguments: str):
    toolbox = ToolBox(world)
    world.rounds.open(1)
    message = learner.call("execute_tool", registry_arg(TOOLS), request_arg(call_id, name, arguments),
                           tools=toolbox)
    expect(isinstance(message, dict) and message.get("role") == "tool", "not_a_tool_message", got=shown(message))
    expect(message.get("tool_call_id") == call_id, "message_id_wrong", call_id=call_id, got=shown(message))
    expect(isinstance(message.get("content"), str), "content_not_text", got=shown(message.get("content")))
    content = content_of(message)
    expect(content is not None, "content_not_json", got=message["content"])
    return content, toolbox.calls


@check("1.1", points=1, en="the tool message: the call's own id, the result as JSON text",
       zh="tool 消息：带着这个调用自己的 id，结果是 JSON 文本")
def test_runs_the_call(learner, world):
    content, calls = run_execute_tool(learner, world, "call_fund_msft", "get_fundamentals", '{"ticker": "MSFT"}')
    expect(calls, "tool_impl_unused")
    expected = expected_result(world, "get_fundamentals", "MSFT")
    expect(content == expected, "result_wrong", name="get_fundamentals", arguments='{"ticker": "MSFT"}',
           got=shown(content), expected=expected)


@check("1.1", points=1, en="an error result of the tool passes on unchanged",
       zh="工具返回的错误结果原样传回")
def test_error_result_unchanged(learner, world):
    content, _ = run_execute_tool(learner, world, "call_quote_tsla", "get_quote", '{"ticker": "TSLA"}')
    expected = {"error": "unknown ticker: TSLA"}
    reworded = isinstance(content, dict) and set(content) == {"error"} and expected["error"] in str(content["error"])
    expect(content == expected or reworded, "result_wrong", name="get_quote", arguments='{"ticker": "TSLA"}',
           got=shown(content), expected=expected)


@check("1.1", points=1, en="a tool that raises: an error result under the same id, nothing raised",
       zh="工具抛异常：同一个 id 下返回错误结果，不往外抛")
def test_tool_that_raises(learner, world):
    content, _ = run_execute_tool(learner, world, "call_news_meta", "get_news", '{"ticker": "META"}')
    expect(isinstance(content, dict) and "HTTP 504" in str(content.get("error", "")), "error_expected",
           name="get_news", arguments='{"ticker": "META"}', got=shown(content),
           expected='{"error": "get_news failed: the news service timed out (HTTP 504)"}')
    # a model's argument the tool does not take: a TypeError, not the RuntimeError above (an
    # execute_tool that catches only the errors it has seen sinks the round at the next one)
    content, _ = run_execute_tool(learner, world, "call_news_aapl", "get_news", '{"symbol": "AAPL"}')
    expect(isinstance(content, dict) and "error" in content, "error_expected", name="get_news",
           arguments='{"symbol": "AAPL"}', got=shown(content),
           expected='{"error": "get_news failed: … unexpected keyword argument \'symbol\'"}')


@check("1.1", points=1, en="an unknown tool, or arguments that are not JSON: an error result",
       zh="未知工具，或参数不是合法 JSON：返回错误结果")
def test_unknown_tool_and_bad_json(learner, world):
    content, _ = run_execute_tool(learner, world, "call_rating", "get_rating", '{"ticker": "MSFT"}')
    expect(isinstance(content, dict) and "get_rating" in str(content.get("error", "")), "error_expected",
           name="get_rating", arguments='{"ticker": "MSFT"}', got=shown(content),
           expected='{"error": "unknown tool: get_rating"}')
    content, calls = run_execute_tool(learner, world, "call_bad", "get_news", '{"ticker": MSFT')
    for call in calls:
        raise Fail("bad_json_tool_ran", given=shown(call.input))
    expect(isinstance(content, dict) and "error" in content, "error_expected", name="get_news",
           arguments='{"ticker": MSFT', got=shown(content), expected='{"error": "arguments are not valid JSON: …"}')


@check("1.1", points=1, en="each call gets a message of its own, not one object every call returns",
       zh="每个调用都得到它自己的消息，而不是每次都返回同一个对象")
def test_message_of_its_own(learner, world):
    first, _ = run_execute_tool(learner, world, "call_fund_msft", "get_fundamentals", '{"ticker": "MSFT"}')
    second, _ = run_execute_tool(learner, world, "call_news_goog", "get_news", '{"ticker": "GOOG"}')
    for content, name, ticker in ((first, "get_fundamentals", "MSFT"), (second, "get_news", "GOOG")):
        expected = expected_result(world, name, ticker)
        expect(content == expected, "result_wrong", name=name, arguments=json.dumps({"ticker": ticker}),
               got=shown(content), expected=expected)
    expect_own_message(learner)


def expect_own_message(learner) -> None:
    """execute_tool makes a new message each call: one object shared by every call (a module-level
    template it fills in and returns) holds only the last call's result once calls overlap. Each
    value crosses from your process as a copy when the call returns, so the grader reads the
    source for it; a shared object is the cause whatever the round then shows."""
    shared = shared_message(learner.syntax_tree())
    if shared:
        raise Fail("execute_tool_shared", name=shared[0], line=shared[1])


# ---------------------------------------------------------------- TODO 2.1 run_calls

def mock_calls(world, scenario: str) -> list[dict]:
    """The tool calls of the mock's first response on a scenario: its ids, in its (shuffled) order."""
    response = world.session(scenario).complete({"model": "mock-react-1", "tools": [tool_schema(t) for t in TOOLS],
                                                 "messages": [{"role": "user", "content": world.scenarios[scenario].question}]})
    return response["choices"][0]["message"].get("tool_calls") or []


def sunk(failure: Fail, func: str) -> Fail:
    """A call of the learner's that raised because one tool call failed: the round sank with it; or
    because its calls went to other processes, which can't take the tools it was given."""
    message = str(failure.params.get("message", ""))
    if failure.key == "crashed" and ("PicklingError" in failure.params.get("type", "") or "pickle" in message):
        return Fail("calls_in_processes", func=func, type=failure.params.get("type", ""), message=message)
    if failure.key != "crashed" or "HTTP 504" not in message:
        return failure
    return Fail("round_sunk", func=func, type=failure.params.get("type", ""), message=message)


def run_calls(learner, world, calls: list[dict]):
    """Your run_calls on these calls; (the messages, the round they ran in)."""
    held = world.rounds.open(len(calls), enough=AT_ONCE, func="run_calls")
    try:
        messages = learner.call("run_calls", registry_arg(TOOLS), [
            request_arg(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in calls])
    except Fail as failure:
        raise sunk(failure, "run_calls") from None
    expect(isinstance(messages, list), "not_a_list", func="run_calls", got=shown(messages))
    return messages, held


def expect_answered(world, calls: list[dict], messages: list, down: str | None = None, learner=None):
    """expect_messages, with a wrong round told as execute_tool's (TODO 1.1) when it returns one
    shared object for every call: the messages are then one message, many times."""
    try:
        expect_messages(world, calls, messages, down, learner)
    except Fail as failure:
        if learner is not None and shared_message(learner.syntax_tree()):
            name, line = shared_message(learner.syntax_tree())
            raise Fail("execute_tool_shared_round", name=name, line=line, count=len(calls)) from None
        raise failure


def expect_messages(world, calls: list[dict], messages: list, down: str | None = None, learner=None):
    """One message per call, under the call's id, holding that call's own result. Results put under
    another call's id are reported without naming which went where: which call ends first is the
    machine's timing, and the report must not be (the same file gives the same report every run).
    `learner`: whether threads its call (run_calls, run_agent) left running hold the missing ones, and
    whether a wrong result is execute_tool's (TODO 1.1) for one call alone too."""
    left_running = learner.left_running if learner is not None else 0
    by_id: dict = {}
    for message in messages:
        expect(isinstance(message, dict) and message.get("role") == "tool", "not_a_tool_message", got=shown(message))
        by_id.setdefault(message.get("tool_call_id"), []).append(message)
    if len(calls) > 1 and len(messages) == len(calls) and len(by_id) == 1 and all(m == messages[0] for m in messages):
        call = next((c for c in calls if c["id"] in by_id), None)  # one message, as many times as there are calls
        name, ticker = ((call["function"]["name"], json.loads(call["function"]["arguments"])["ticker"]) if call
                        else ("?", "?"))
        raise Fail("one_message_many_times", count=len(messages), call_id=messages[0].get("tool_call_id"),
                   name=name, ticker=ticker)
    for call in calls:
        name, ticker = call["function"]["name"], json.loads(call["function"]["arguments"])["ticker"]
        found = by_id.get(call["id"], [])
        expect(found, "returned_while_running" if left_running else "call_unanswered", call_id=call["id"],
               name=name, ticker=ticker, count=len(calls), answered=len([c for c in calls if c["id"] in by_id]))
        expect(len(found) == 1, "call_answered_twice", call_id=call["id"], name=name, ticker=ticker, times=len(found))
    contents = [content_of(by_id[call["id"]][0]) for call in calls]
    owners = [[i for i, call in enumerate(calls) if holds_result(world, call, content, down)] for content in contents]
    if all(i in found for i, found in enumerate(owners)):
        extra = sorted(str(k) for k in set(by_id) - {c["id"] for c in calls})
        expect(not extra, "unknown_ids", ids=", ".join(extra))
        return
    if all(owners) and sorted(min(found) for found in owners) == list(range(len(calls))):
        raise Fail("wrong_pairing", count=len(calls))  # every result there, under other ids
    i = next(i for i, found in enumerate(owners) if not found)  # a result no call gave: the same every run
    name, ticker = calls[i]["function"]["name"], json.loads(calls[i]["function"]["arguments"])["ticker"]
    expect(learner is None or not execute_tool_wrong(learner, world), "execute_tool_first",
           got=shown(by_id[calls[i]["id"]][0].get("content")), call_id=calls[i]["id"])
    if name == "get_news" and ticker == down:
        raise Fail("failure_lost", call_id=calls[i]["id"], ticker=ticker, got=shown(by_id[calls[i]["id"]][0].get("content")))
    raise Fail("result_wrong", name=name, arguments=calls[i]["function"]["arguments"],
               got=shown(by_id[calls[i]["id"]][0].get("content")), expected=expected_result(world, name, ticker))


def execute_tool_wrong(learner, world) -> bool:
    """Whether the learner's execute_tool gets one call alone wrong: a result, or a failure's error."""
    try:
        result, _ = run_execute_tool(learner, world, "call_fund_msft", "get_fundamentals", '{"ticker": "MSFT"}')
        error, _ = run_execute_tool(learner, world, "call_news_meta", "get_news", '{"ticker": "META"}')
    except Fail:
        return True
    return (result != expected_result(world, "get_fundamentals", "MSFT")
            or not (isinstance(error, dict) and "HTTP 504" in str(error.get("error", ""))))


def call_key(name: str, arguments) -> tuple[str, str]:
    """(tool, ticker) of a call, as the grader's tools key it (lessons/day11/tools.py)."""
    try:
        ticker = json.loads(arguments).get("ticker") if isinstance(arguments, str) else arguments.get("ticker")
    except (ValueError, AttributeError):
        ticker = None
    return str(name), str(ticker).strip().upper()


def shown_keys(keys: Counter) -> str:
    return ", ".join(f"{name}({ticker})" + (f" ×{n}" if n > 1 else "") for (name, ticker), n in sorted(keys.items()))


def held_keys(held) -> Counter:
    """(tool, ticker) of every call a round saw."""
    return Counter((tool, ticker) for tool, ticker, _ in held.calls)


def expect_own_calls(ran: Counter, wanted: Counter, func: str) -> None:
    """The tool calls `func` ran (`ran`) are the calls it had to make, each once: not calls of its
    own choosing (a list typed into the file) that happen to fill a round."""
    if ran != wanted:
        raise Fail("calls_not_given", func=func, count=sum(wanted.values()),
                   extra=shown_keys(ran - wanted) or "-", missing=shown_keys(wanted - ran) or "-")


def expect_results_of(world, calls: list[dict], messages: list, held, learner, func: str) -> None:
    """The round ran exactly the `calls` handed in, and `messages` brings back each one's own result
    (results under other calls' ids, the order they come in: the other checks of TODO 2.1 say so)."""
    expect_own_calls(held_keys(held), Counter(call_key(c["function"]["name"], c["function"]["arguments"])
                                              for c in calls), func)
    try:
        expect_answered(world, calls, messages, learner=learner)
    except Fail as failure:
        if failure.key == "wrong_pairing":
            return
        if failure.key in ("not_a_tool_message", "unknown_ids", "execute_tool_first", "execute_tool_shared_round"):
            raise
        # which call a message lacks, or holds, may hang on the order the calls end in, which the
        # report must not show: here only how many results came back (the other checks say the rest)
        contents, found = [content_of(m) for m in messages], 0
        for call in calls:
            j = next((j for j, content in enumerate(contents) if holds_result(world, call, content, None)), None)
            if j is not None:
                contents[j], found = object(), found + 1
        raise Fail("results_not_returned", func=func, count=len(calls), messages=len(messages),
                   found=found) from None


def holds_result(world, call: dict, content, down: str | None) -> bool:
    """Whether a tool message's content is this call's result (the down service's: its HTTP 504 error)."""
    name, ticker = call["function"]["name"], json.loads(call["function"]["arguments"])["ticker"]
    if name == "get_news" and ticker == down:
        return isinstance(content, dict) and "HTTP 504" in str(content.get("error", ""))
    return content == expected_result(world, name, ticker)


@check("2.1", points=2, en="ten calls run side by side, not one after another",
       zh="十个调用并排同时运行，而不是一个接一个")
def test_ten_calls_at_once(learner, world):
    calls = mock_calls(world, "screen")
    messages, held = run_calls(learner, world, calls)
    expect_side_by_side(held, learner, "run_calls")
    expect_results_of(world, calls, messages, held, learner, "run_calls")  # side by side: the calls it was given


@check("2.1", points=1, en="each message carries its own call's id and result, whatever order they end in",
       zh="每条消息都带着它自己那个调用的 id 和结果，不管调用以什么顺序结束")
def test_each_result_under_its_id(learner, world):
    calls = mock_calls(world, "screen")
    messages, _ = run_calls(learner, world, calls)
    expect_answered(world, calls, messages, learner=learner)


@check("2.1", points=1, en="the messages in the order of the calls, not the order they end in",
       zh="消息按调用的顺序排列，而不是按它们结束的顺序")
def test_messages_in_call_order(learner, world):
    calls = mock_calls(world, "screen")  # at every seed, an order the calls never end in
    messages, _ = run_calls(learner, world, calls)
    expect_answered(world, calls, messages, learner=learner)
    expect([m.get("tool_call_id") for m in messages] == [c["id"] for c in calls], "messages_out_of_order",
           count=len(calls))  # which order they came in is the machine's timing: not in the report


@check("2.1", points=1, en="a call that fails gets its error; the nine others still get their results",
       zh="失败的调用得到它的错误；其余九个照样得到结果")
def test_failure_stays_in_its_call(learner, world):
    calls = mock_calls(world, "outage")
    messages, _ = run_calls(learner, world, calls)
    expect_answered(world, calls, messages, down=DOWN, learner=learner)


@check("2.1", points=1, en="three calls give their three results; no calls, an empty list",
       zh="三个调用得到它们的三个结果；没有调用，返回空列表")
def test_no_calls(learner, world):
    # an empty list on its own is what `return []` gives whatever the calls: first a round of real calls
    calls = mock_calls(world, "snapshot")  # three different tools
    messages, held = run_calls(learner, world, calls)
    expect_results_of(world, calls, messages, held, learner, "run_calls")
    messages, _ = run_calls(learner, world, [])
    expect(messages == [], "not_empty", got=shown(messages))


# ---------------------------------------------------------------- TODO 3.1 run_agent

def run_agent(learner, world, scenario, *max_iter):
    """Your run_agent on a task of scenarios.yaml, in a round of the calls of the model's first
    response; a request the API refused is named in the failure."""
    world.rounds.open(len(mock_calls(world, scenario)), enough=AT_ONCE, func="run_agent")
    try:
        try:
            run = learner.run_agent("run_agent", scenario, registry_arg(world.scenarios[scenario].tools), *max_iter)
        except Fail:
            expect_accepted(learner.runs[-1])
            raise
        expect_accepted(run)
    except Fail as failure:  # results the API refused, or a crash: one shared message for every call is execute_tool's
        shared = shared_message(learner.syntax_tree()) if failure.key not in ("budget",) else None
        if shared and learner.runs[-1].tool_calls:
            raise Fail("execute_tool_shared_round", name=shared[0], line=shared[1],
                       count=len(learner.runs[-1].tool_calls)) from None
        raise
    expect_fresh_start(world, run)  # a history kept from an earlier run: the model sees its results already
    return run



def agent_round(learner, world, scenario: str, down: str | None = None, max_iter: int | None = None):
    """Run the agent (with this max_iter, else its default); check the calls of its first response
    were all answered, each by id."""
    try:
        run = run_agent(learner, world, scenario, *([] if max_iter is None else [max_iter]))
    except Fail as failure:
        raise sunk(failure, "run_agent") from None
    expect(run.exchanges, "no_request")
    asked = run.exchanges[0].response["choices"][0]["message"].get("tool_calls") or []
    expect(len(run.exchanges) > 1, "no_second_request", asked=len(asked), got=len(run.exchanges))
    sent = [m for m in run.exchanges[1].request.get("messages", []) if isinstance(m, dict) and m.get("role") == "tool"]
    expect_answered(world, asked, sent, down=down, learner=learner)
    return run, world.rounds.current


def expect_answer(run, *expected):
    for text in expected:
        expect(isinstance(run.answer, str) and text in run.answer, "answer_missing", expected=text,
               got=quoted(run.answer))
        run.expect_from_model(text)


def figures(world, ticker: str) -> str:
    row = world.fundamentals[ticker]
    return f"{ticker}: P/E {row['pe']}, revenue growth {row['revenue_growth_pct']}%"


@check("3.1", points=1, en="the system prompt first; ten calls in one response: every one answered under its own id",
       zh="先发系统提示；一次响应里十个调用：每一个都在它自己的 id 下得到回答")
def test_ten_calls_answered(learner, world):
    run, _ = agent_round(learner, world, "screen")
    expect_answer(run, *(figures(world, t) for t in SCREEN))
    expect_turns_sent_back(run)  # the model's words beside its calls too, as day 07's loop sends them
    expect_system_prompt_sent(learner, run)


@check("3.1", points=2, en="the agent runs the ten calls side by side", zh="Agent 把十个调用并排同时运行")
def test_agent_runs_them_at_once(learner, world):
    try:
        agent_round(learner, world, "screen")
    except Fail:  # every call made: judged on how they ran, what came after is the other checks' business
        if len(world.rounds.current.calls) < world.rounds.current.size or not learner.runs:
            raise
    expect_side_by_side(world.rounds.current, learner, "run_agent")
    expect_calls_asked(learner.runs[-1])


def expect_calls_asked(run) -> None:
    """The round's calls are those the model's first response asked for, each once, run after that
    response came: a loop runs what the model asks, not calls of its own that fill the round."""
    expect(run.exchanges, "no_request")
    asked_for = run.asked_for()
    unasked = [c for c in run.tool_calls if not any(c is ran for ran in asked_for)]
    if unasked:
        raise Fail("agent_calls_not_asked", count=len(unasked), call=shown_keys(Counter(
            call_key(c.name, c.input if isinstance(c.input, dict) else {"ticker": c.input}) for c in unasked)))
    asked = Counter(call_key(name, arguments if isinstance(arguments, (str, dict)) else {})
                    for name, arguments in run.exchanges[0].asked())
    expect_own_calls(Counter(call_key(c.name, c.input if isinstance(c.input, dict) else {"ticker": c.input})
                             for c in run.tool_calls if c.round == 1), asked, "run_agent")


@check("3.1", points=1, en="a failing call doesn't sink the round: its error reaches the model, the rest answer",
       zh="一个调用失败不会拖垮整轮：它的错误交给模型，其余照常回答")
def test_failure_does_not_sink_the_round(learner, world):
    run, _ = agent_round(learner, world, "outage", down=DOWN)
    expect_answer(run, "HTTP 504", *(figures(world, t) for t in OUTAGE if t != DOWN))


@check("3.1", points=1, en="three different tools in one response, then the answer, within max_iter=2",
       zh="一次响应里调用三个不同的工具，再加上答案，max_iter=2 就够")
def test_three_tools(learner, world):
    run, _ = agent_round(learner, world, "snapshot", max_iter=2)  # the answer comes with the last request allowed
    stock = run.scenario.values["stock"]
    try:
        expect_answer(run, f"{stock} trades at {world.quotes[stock]['price']}",
                      figures(world, stock).split(": ", 1)[1], world.news[stock]["latest"])
    except Fail as failure:
        expect_answer_at_limit(run, 2, failure)
        raise


def expect_answer_at_limit(run, limit: int, failure: Fail) -> None:
    """An answer missing from a run whose last request allowed (the `limit`-th) got the answer, a
    reply without tool calls: the loop tested its limit before it read that reply, and threw the
    answer away for its fallback."""
    if failure.key != "answer_missing" or len(run.exchanges) != limit:
        return
    reply = run.exchanges[-1].response["choices"][0]["message"]
    if reply.get("tool_calls") or not isinstance(reply.get("content"), str):
        return
    raise Fail("answer_at_limit_dropped", max_iter=limit, answer=quoted(reply["content"]),
               got=quoted(run.answer)) from None


@check("3.1", points=1, en="no tool needed: one request, its content is the answer",
       zh="不需要工具：一次请求，content 就是答案")
def test_no_tool_needed(learner, world):
    run = run_agent(learner, world, "no_tool")
    expect(len(run.exchanges) == 1, "no_tool_request_count", got=len(run.exchanges))
    content = run.exchanges[0].response["choices"][0]["message"]["content"]
    expect(run.answer == content, "answer_missing", expected=content, got=quoted(run.answer))


# ---------------------------------------------------------------- TODO 4.1 passes

def row_text(fundamentals: dict, news: dict) -> str:
    """One stock's data as the messages show it: P/E, growth, and each news item."""
    items = "; ".join(f"{i['headline']} ({i['sentiment']}, {i['impact']})" for i in news.get("items", []))
    if "error" in fundamentals or "error" in news:
        return json.dumps(fundamentals) + " / " + json.dumps(news)
    return f"P/E {fundamentals['pe']}, revenue growth {fundamentals['revenue_growth_pct']}%, news: {items}"


def expected_pass(fundamentals: dict, news: dict) -> bool:
    if "error" in fundamentals or "error" in news:
        return False
    major = any(i["sentiment"] == "negative" and i["impact"] == "major" for i in news["items"])
    return fundamentals["pe"] <= MAX_PE and fundamentals["revenue_growth_pct"] >= MIN_GROWTH and not major


def expect_passes(learner, ticker: str, fundamentals: dict, news: dict, key: str | None = None):
    got = learner.call("passes", fundamentals, news)
    expect(isinstance(got, bool), "not_a_bool", func="passes", got=shown(got))
    expected = expected_pass(fundamentals, news)
    if got == expected:
        return
    if key is None:
        key = "passes_should_pass" if expected else "passes_should_fail"
    raise Fail(key, ticker=ticker, data=row_text(fundamentals, news), got=got, expected=expected)


@check("4.1", points=1, en="the rule on the seed's five stocks", zh="在本种子的五只股票上应用规则")
def test_passes_on_the_data(learner, world):
    for ticker in SCREEN:
        expect_passes(learner, ticker, world.fundamentals[ticker], world.news[ticker])


@check("4.1", points=1, en="the limits are included: P/E of exactly 40, growth of exactly 10%",
       zh="边界值算通过：P/E 恰好 40、增长恰好 10%")
def test_limits_included(learner, world):
    news = {"ticker": "EDGE", "latest": "Quarter in line", "items": [
        {"headline": "Quarter in line", "sentiment": "neutral", "impact": "minor"}]}
    expect_passes(learner, "EDGE", {"ticker": "EDGE", "pe": MAX_PE, "revenue_growth_pct": MIN_GROWTH}, news,
                  "passes_limits")
    expect_passes(learner, "EDGE", {"ticker": "EDGE", "pe": 40.1, "revenue_growth_pct": 25.0}, news)
    expect_passes(learner, "EDGE", {"ticker": "EDGE", "pe": 20.0, "revenue_growth_pct": 9.9}, news)


@check("4.1", points=1, en="only news both negative and major fails a stock",
       zh="只有既负面又重大的新闻才让股票不通过")
def test_news_rule(learner, world):
    good = {"ticker": "NEWS", "pe": 22.0, "revenue_growth_pct": 18.0}
    minor = {"ticker": "NEWS", "latest": "A small product delay", "items": [
        {"headline": "A small product delay", "sentiment": "negative", "impact": "minor"},
        {"headline": "A big contract", "sentiment": "positive", "impact": "major"},
        {"headline": "A new finance chief", "sentiment": "neutral", "impact": "major"}]}
    expect_passes(learner, "NEWS", good, minor, "passes_minor_news")
    major = {"ticker": "NEWS", "latest": "Record sales", "items": [
        {"headline": "Record sales", "sentiment": "positive", "impact": "minor"},
        {"headline": "A regulator sues over fees", "sentiment": "negative", "impact": "major"}]}
    expect_passes(learner, "NEWS", good, major, "passes_major_news")


@check("4.1", points=1, en="an error result never passes", zh="错误结果永远不算通过")
def test_error_never_passes(learner, world):
    good = {"ticker": "ERR", "pe": 22.0, "revenue_growth_pct": 18.0}
    calm = {"ticker": "ERR", "latest": "Quarter in line", "items": [
        {"headline": "Quarter in line", "sentiment": "neutral", "impact": "minor"}]}
    try:
        expect_passes(learner, "ERR", good, {"error": "get_news failed: the news service timed out (HTTP 504)"},
                      "passes_error")
        expect_passes(learner, "ERR", {"error": "unknown ticker: ERR"}, calm, "passes_error")
    except Fail as failure:
        if failure.key == "crashed":  # the rule read a field an error result does not have
            raise Fail("passes_error_crashed", type=failure.params.get("type", ""),
                       message=failure.params.get("message", "")) from None
        raise


# ---------------------------------------------------------------- TODO 4.2 screen

def expected_screen(world, tickers: list[str]) -> list[str]:
    return [t for t in tickers if t != DOWN and expected_pass(world.fundamentals[t], world.news[t])]


# What a KeyError may name that is not a call's id: the fields of a tool message and of the results
FIELDS = {"role", "content", "tool_call_id", "ticker", "pe", "revenue_growth_pct", "latest", "items", "headline",
          "sentiment", "impact", "error"}


def screen_wanted(tickers: list[str]) -> Counter:
    """The calls a screen of `tickers` makes: get_fundamentals and get_news for each, once."""
    return Counter((name, t) for t in tickers for name in ("get_fundamentals", "get_news"))


def screen_made(calls) -> Counter:
    """(tool, ticker) of the tool calls a screen made (its ToolBox's)."""
    return Counter(call_key(c.name, c.input if isinstance(c.input, dict) else {"ticker": c.input}) for c in calls)


def run_screen(learner, world, tickers: list[str], enough: int = AT_ONCE):
    """Your screen on `tickers`: (its list, the tool calls it made, the round they ran in). The list
    is None only when screen raised inside your passes on the down service's error result alone, and
    everything else was checked: it made every ticker's two calls, run_calls gives the right
    messages, passes works on the other stocks' data, and screen is right on the tickers without
    the down one. A crash inside a passes that raises on any stock's data leaves nothing to check:
    it fails, and says to fix passes (TODO 4.1) first."""
    toolbox = ToolBox(world)
    held = world.rounds.open(2 * len(tickers), enough=enough, func="screen")
    try:
        got = learner.call("screen", registry_arg(TOOLS), list(tickers), tools=toolbox)
    except Fail as failure:
        worked = expect_pairing_run_calls(learner, world, failure)
        if toolbox.calls and screen_crashed_in_passes(learner, world, tickers, failure):
            clean = [t for t in tickers if t != DOWN]
            if not isinstance(own_screen(learner, world, clean), list) or clean == list(tickers):
                raise Fail("screen_passes_raises", type=failure.params.get("type", ""),
                           message=failure.params.get("message", "")) from None
            if worked and screen_made(toolbox.calls) == screen_wanted(tickers):
                got, calls, _ = run_screen(learner, world, clean)  # screen itself, where passes does not raise
                expect_screen(learner, world, clean, got, calls)
                return None, toolbox.calls, held  # screen did its part; passes raised on the error result
        made = sorted({(c.name, str(c.input.get("ticker")) if isinstance(c.input, dict) else "") for c in toolbox.calls})
        wanted = sorted((name, t) for t in tickers for name in ("get_fundamentals", "get_news"))
        if (failure.key == "crashed" and failure.params.get("type") == "TypeError" and toolbox.calls
                and "string indices must be integers" in failure.params.get("message", "")):
            # a field read from a str: a tool message's content, JSON text, never parsed
            raise Fail("screen_content_not_parsed", message=failure.params.get("message", ""),
                       count=len(toolbox.calls)) from None
        if (failure.key == "crashed" and failure.params.get("type") == "KeyError" and made == wanted
                and failure.params.get("message", "").strip("'\"") not in FIELDS):
            # every call made, and a key that names no field: an id no result came back under
            raise Fail("screen_id_not_found", message=failure.params.get("message", ""),
                       count=len(toolbox.calls)) from None
        if (failure.key == "crashed" and failure.params.get("type") in ("KeyError", "TypeError")
                and DOWN not in tickers and made == wanted):
            # every call made, no error result among them: the results were read back wrong
            raise Fail("screen_readback", type=failure.params["type"], message=failure.params.get("message", ""),
                       count=len(toolbox.calls)) from None
        raise sunk(failure, "screen") from None
    expect(isinstance(got, list), "not_a_list", func="screen", got=shown(got))
    return got, toolbox.calls, held


def expect_pairing_run_calls(learner, world, crash: Fail | None = None) -> bool:
    """A screen that went wrong (`crash`: how it raised), checked for the cause in run_calls (TODO 2.1):
    results under other calls' ids give screen data that changes with the order the calls end, so its
    wrong list (or crash) would change from run to run; the report names run_calls instead, the same
    every run. A screen that crashed on messages that are wrong in another way is told so too.
    Whether run_calls gave the screen's calls their right messages here: when it raises now, or
    gives wrong ones, nothing said about screen can lean on it (a function that works for screen
    and not for the grader's look afterwards gains nothing from the look)."""
    calls = mock_calls(world, "screen")
    try:
        messages, _ = run_calls(learner, world, calls)
    except Fail:
        return False  # run_calls fails by itself: its own checks say how
    try:
        expect_answered(world, calls, messages, learner=learner)
    except Fail as failure:
        if failure.key == "execute_tool_shared_round":
            raise
        if failure.key == "wrong_pairing":
            raise Fail("screen_gets_mispaired") from None
        if crash is not None and crash.key == "crashed":
            raise Fail("screen_gets_bad_messages", type=crash.params.get("type", ""),
                       message=crash.params.get("message", "")) from None
        return False
    return True


def own_screen(learner, world, tickers: list[str]) -> list[str] | Fail | None:
    """What screen returns for `tickers` when it is right and uses the learner's own passes (TODO
    4.1) on the results it gets (the down service's news: its error result): the tickers that passes
    keeps, in the order given; the Fail of passes if it raises on one of them. None when screen's
    source calls no passes: then its rule is its own, and only the right list is right."""
    tree = learner.syntax_tree()
    if not any(node.name == "passes" for node in reached(tree, "screen")[1:]):
        return None
    kept = []
    for ticker in tickers:
        news = ({"error": "get_news failed: the news service timed out (HTTP 504)"} if ticker == DOWN
                else world.news[ticker])
        try:
            if learner.call("passes", world.fundamentals[ticker], news):
                kept.append(ticker)
        except Fail as failure:
            return failure
    return kept


def passes_reads_the_data(learner) -> bool:
    """Whether the learner's passes tells stocks apart by their data: of one stock, the same but
    for one field, it keeps the clearly good row and fails one clearly bad row (a P/E of 80, growth
    of -5%, or a lawsuit in the news). A passes that answers the same whatever it is given (True,
    or a test of the ticker) can't show that a screen which follows it read each result."""
    calm = {"ticker": "PROBE", "latest": "Quarter in line", "items": [
        {"headline": "Quarter in line", "sentiment": "neutral", "impact": "minor"}]}
    sued = {"ticker": "PROBE", "latest": "A regulator sues over fees", "items": [
        {"headline": "A regulator sues over fees", "sentiment": "negative", "impact": "major"}]}
    good = {"ticker": "PROBE", "pe": 20.0, "revenue_growth_pct": 25.0}
    bad_rows = [({**good, "pe": 80.0}, calm), ({**good, "revenue_growth_pct": -5.0}, calm), (good, sued)]
    try:
        if learner.call("passes", good, calm) is not True:
            return False
        return any(learner.call("passes", fundamentals, news) is False for fundamentals, news in bad_rows)
    except Fail:
        return False


def screen_follows_passes(learner, world, tickers: list[str], got, calls, worked: bool) -> bool:
    """Whether a screen that returned `got`, not the right list, did what it should with a passes
    that is wrong (the list the learner's own passes gives): passes' checks (TODO 4.1) say what is
    wrong, and screen loses nothing for it. Only when that shows screen did its part: it made every
    ticker's two calls, run_calls gives their right messages (`worked`), passes tells stocks apart
    by their data, and keeps some of these stocks but not all, so that the list is one only results
    read back right give. A list that matches a passes that can't show that fails, and says so."""
    own = own_screen(learner, world, tickers)
    if not (isinstance(own, list) and own != expected_screen(world, tickers) and got == own):
        return False
    if not worked or screen_made(calls) != screen_wanted(tickers):
        return False
    followed = passes_reads_the_data(learner) or None
    if followed and own in ([], list(tickers)):  # all or nothing here: tried where passes keeps some
        followed = follows_elsewhere(learner, world, tickers)
    if followed is None:
        raise Fail("screen_follows_unverified", tickers=tickers, got=shown(got),
                   expected=expected_screen(world, tickers))
    return followed


def follows_elsewhere(learner, world, tickers: list[str]) -> bool | None:
    """Whether screen returns what the learner's passes keeps on other tickers, where that passes
    keeps some stocks but not all (its own list there is one only results read back right give);
    None when there are none such."""
    for probe in (SCREEN, SCREEN + [DOWN]):
        own = own_screen(learner, world, probe)
        if probe == list(tickers) or not isinstance(own, list) or own in ([], probe):
            continue
        got, calls, _ = run_screen(learner, world, probe)
        return got == own and screen_made(calls) == screen_wanted(probe)
    return None


def screen_crashed_in_passes(learner, world, tickers: list[str], crash: Fail) -> bool:
    """Whether screen raised what the learner's own passes raises on the data screen reads: the
    crash is passes' (TODO 4.1 says how), not screen's; run_screen decides what that leaves to check."""
    own = own_screen(learner, world, tickers)
    return (isinstance(own, Fail) and own.key == crash.key == "crashed"
            and own.params.get("type") == crash.params.get("type")
            and own.params.get("message") == crash.params.get("message"))


def expect_screen(learner, world, tickers: list[str], got, calls):
    expected = expected_screen(world, tickers)
    if got != expected:
        worked = expect_pairing_run_calls(learner, world)
        if screen_follows_passes(learner, world, tickers, got, calls, worked):
            return
    reordered = isinstance(got, list) and got != expected and sorted(map(str, got)) == sorted(expected)
    expect(not reordered, "screen_order", tickers=tickers, got=shown(got), expected=expected)
    expect(got == expected, "screen_wrong", tickers=tickers, got=shown(got), expected=expected,
           data=screen_table(world, tickers))


def screen_table(world, tickers: list[str]) -> str:
    return " · ".join(f"{t}: {row_text(world.fundamentals[t], world.news[t])}" for t in tickers if t != DOWN)


@check("4.2", points=1, en="the stocks that pass, for the seed's data", zh="本种子的数据下通过筛选的股票")
def test_screen_result(learner, world):
    got, calls, _ = run_screen(learner, world, SCREEN)
    expect(calls, "screen_no_tools", tickers=SCREEN)
    if got is None:
        return  # it raised inside passes on an error result alone, and run_screen checked the rest
    expect_screen(learner, world, SCREEN, got, calls)
    # and given the other way round: a set's order depends on the tickers, not on the order they came in
    # (the child's PYTHONHASHSEED is 0), so it may match one order, never an order and its reverse
    backwards = SCREEN[::-1]
    got, calls, _ = run_screen(learner, world, backwards)
    if got is not None:
        expect_screen(learner, world, backwards, got, calls)


@check("4.2", points=1, en="a stock whose news could not be fetched is left out; the others are still screened",
       zh="拿不到新闻的股票被排除；其余股票照常筛选")
def test_screen_outage(learner, world):
    got, calls, _ = run_screen(learner, world, OUTAGE)
    if got is None:
        return  # it raised inside passes on the error result alone, and run_screen checked the rest
    if isinstance(got, list) and DOWN in got:
        worked = expect_pairing_run_calls(learner, world)
        if screen_follows_passes(learner, world, OUTAGE, got, calls, worked):
            return
    expect(not (isinstance(got, list) and DOWN in got), "screen_kept_outage", ticker=DOWN, got=shown(got))
    expect_screen(learner, world, OUTAGE, got, calls)


@check("4.2", points=1, en="its ten calls run side by side", zh="它的十个调用并排同时运行")
def test_screen_runs_them_at_once(learner, world):
    # How many of ten calls your run_calls runs at once: screen hands it all ten in one call (README,
    # TODO 4.2), so its round holds as many. A screen that splits them (five, wait, five) holds fewer.
    width, ran = run_calls_width(learner, world)
    got, calls, held = run_screen(learner, world, SCREEN, enough=max(AT_ONCE, width))  # a crash: as run_screen says
    expect(calls, "screen_no_tools", tickers=SCREEN)
    count = len(held.calls)
    if count < held.size and 0 <= ran < 2 * len(SCREEN):  # calls lost in run_calls already: TODO 2.1's
        raise Fail("screen_run_calls_not_run", ran=ran, count=count, size=held.size)
    try:
        expect_side_by_side(held, learner, "screen")
    except Fail as failure:  # a few at a time: the pool's width, or screen handing run_calls a few calls at a time
        if failure.key == "too_few_at_once" and width >= AT_ONCE:
            raise Fail("screen_calls_split", count=count, peak=held.peak, width=width) from None
        raise
    expect(held.peak >= min(width, count), "screen_calls_split", count=count, peak=held.peak, width=width)
    # side by side, and the screen's own calls, whose results it read: not calls that fill the round
    expect_own_calls(screen_made(calls), screen_wanted(SCREEN), "screen")
    if got is not None:
        expect_screen(learner, world, SCREEN, got, calls)


def run_calls_width(learner, world) -> tuple[int, int]:
    """How many of the screen's ten calls the learner's run_calls runs at the same moment, and how
    many it runs at all ((0, -1): it fails)."""
    try:
        _, held = run_calls(learner, world, mock_calls(world, "screen"))
    except Fail:
        return 0, -1
    return held.peak, len(held.calls)


@check("3.1", points=1, en="a model that keeps calling tools: max_iter requests, then a message of its own",
       zh="模型一直调用工具：恰好 max_iter 个请求，然后返回自己的信息")
def test_stops_at_max_iter(learner, world):
    run = run_agent(learner, world, "endless", 3)  # not the default 5: the loop reads max_iter
    expect(len(run.exchanges) == 3, "endless_request_count", expected=3, got=len(run.exchanges))
    expect_own_fallback(run, 3)
