"""Day 07 checks: plain pytest tests, one behaviour each, listed in the report in this order.

Your functions run in a separate process. There, `client` is replaced by an openai client whose
requests the grader answers with the mock Chat Completions API, keeping every request and response.
Numbers come from `world`, so with another seed every expected value changes.
"""
import ast
import json

from validator.checking import (Fail, Record, ToolBox, chat_text, check, completion_arg, expect,
                                expect_asked_tools_ran, expect_history_kept, expect_own_fallback,
                                expect_system_prompt_sent,
                                expect_system_prompt_used, expect_turns_sent_back, expect_unknown_tool_said,
                                parse_json, registry_arg, request_messages, shown)

# A correct schema, for the checks that need the mock to issue tool calls.
QUOTE_TOOL = {"type": "function", "function": {
    "name": "get_quote", "description": "Latest quote of a stock.",
    "parameters": {"type": "object", "properties": {"ticker": {"type": "string"}}, "required": ["ticker"]}}}



# ---------------------------------------------------------------- TODO 1.1 get_tools

def quote_tool(learner):
    tools = learner.call("get_tools")
    expect(isinstance(tools, list), "not_a_list", func="get_tools", got=shown(tools))
    found = [t for t in tools if isinstance(t, dict) and isinstance(t.get("function"), dict)
             and t["function"].get("name") == "get_quote"]
    expect(found, "schema_wrong", problem="no tool with function.name 'get_quote'", got=shown(tools))
    return found[0]


@check("1.1", points=1, en="a function tool named get_quote, with a description",
       zh="名为 get_quote、带描述的 function 工具")
def test_tool_is_described(learner):
    tool = quote_tool(learner)
    expect(tool.get("type") == "function", "schema_wrong", problem='"type" must be "function"', got=tool)
    description = tool["function"].get("description")
    expect(isinstance(description, str) and description.strip(), "schema_wrong",
           problem="the model needs a description to know when to use the tool", got=tool)


@check("1.1", points=1, en="its parameters: an object with a required string ticker",
       zh="参数：一个 object，含必填的字符串 ticker")
def test_tool_parameters(learner):
    tool = quote_tool(learner)
    parameters = tool["function"].get("parameters")
    ok = isinstance(parameters, dict) and parameters.get("type") == "object"
    expect(ok, "schema_wrong", problem='"parameters" must be a JSON Schema with "type": "object"', got=tool)
    ticker = (parameters.get("properties") or {}).get("ticker")
    expect(isinstance(ticker, dict) and ticker.get("type") == "string", "schema_wrong",
           problem='"properties" needs "ticker": {"type": "string", …}', got=tool)
    required = parameters.get("required")
    expect(isinstance(required, list) and "ticker" in required, "schema_wrong",
           problem='"required" must be a list that holds "ticker"', got=tool)


# ---------------------------------------------------------------- TODO 1.2 execute_tool

def json_text(value) -> bool:
    """Text of a JSON object, as `arguments` comes from the model."""
    return isinstance(value, str) and value.lstrip().startswith("{")


def unparsed(given) -> bool:
    """A tool got the JSON text of `arguments` as it came, whole or inside a value, not parsed."""
    values = given.values() if isinstance(given, dict) else given if isinstance(given, list) else [given]
    return any(json_text(value) for value in values)


def positional(given) -> list:
    """The values a tool got by position (func(*kwargs.values())): a single one arrives alone, several
    as [*args, kwargs]. [] when it was called with keywords only."""
    if isinstance(given, list):
        return [value for value in given if value != {}]
    return [] if isinstance(given, dict) else [given]


def run_execute_tool(learner, world, name, arguments, registry=("get_quote", "Broken")):
    toolbox = ToolBox(world)
    result = learner.call("execute_tool", registry_arg(list(registry)), name, arguments,
                          tools=toolbox)
    expect(isinstance(result, str), "tool_not_text", got=repr(shown(result)))
    try:
        return parse_json(result), toolbox.calls
    except ValueError:
        raise Fail("tool_not_json_repr" if python_literal(result) else "tool_not_json", got=repr(result)) from None


def error_text(result) -> str | None:
    """What an error result says, as the model reads it: its "error" text, then the other text it
    carries ({"error": "unknown tool", "message": "there is no tool named get_news"}, a shape many
    APIs use). None for a result with no "error" key."""
    if not (isinstance(result, dict) and "error" in result):
        return None
    others = [value for key, value in result.items() if key != "error" and isinstance(value, str)]
    return " ".join([str(result["error"]), *others])


def python_literal(text: str) -> bool:
    """Whether text that is not JSON is a Python literal: str() of a dict ({'price': 195.3}), True,
    None. Plain words ("unknown tool: get_news") are none."""
    try:
        ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def expect_tool_runs(learner, world):
    """The good path of execute_tool works: get_quote, handed in, runs once with the parsed
    arguments and its result comes back as JSON. An error result for an unknown tool, a tool that
    raises or arguments that are not JSON counts only from an execute_tool that does this too: one
    that answers every call with an error text has handled none of them."""
    stock = world.scenarios["one_quote"].values["stock"]
    arguments = json.dumps({"ticker": stock})
    expected = world.tools["get_quote"](stock)
    try:
        result, calls = run_execute_tool(learner, world, "get_quote", arguments)
    except Fail as failure:
        result, calls = failure.params.get("got", failure.key), []
    expect(calls and result == expected, "tool_must_run_first", arguments=arguments, got=shown(result),
           expected=expected)


@check("1.2", points=1, en="parses the JSON arguments and returns the result as JSON",
       zh="解析 JSON 参数，并以 JSON 返回结果")
def test_runs_the_tool(learner, world):
    stock = world.scenarios["one_quote"].values["stock"]
    arguments = json.dumps({"ticker": stock})
    result, calls = run_execute_tool(learner, world, "get_quote", arguments)
    expect(calls, "tool_impl_unused")
    for call in calls:
        expect(not unparsed(call.input), "tool_args_not_parsed", given=call.input)
        if positional(call.input):  # parsed, but passed by position
            raise Fail("not_keywords", arguments=arguments, given=", ".join(map(repr, positional(call.input))))
        expect(call.input == {"ticker": stock}, "tool_args_not_parsed", given=call.input)
    expect(len(calls) <= 1, "tool_ran_twice", arguments=arguments, times=len(calls))
    if isinstance(result, dict) and repr({"ticker": stock}) in str(result.get("error")):  # func(arguments)
        raise Fail("dict_passed_whole", arguments=arguments, got=shown(result))
    expected = world.tools["get_quote"](stock)
    expect(calls and result == expected, "tool_json_wrong", name="get_quote", arguments=arguments,
           got=shown(result), expected=expected)


@check("1.2", points=1, en="an error result from the tool is passed on unchanged",
       zh="工具返回的错误结果原样传回")
def test_error_result_unchanged(learner, world):
    missing = world.scenarios["unknown_ticker"].values["missing"]
    arguments = json.dumps({"ticker": missing})
    result, _ = run_execute_tool(learner, world, "get_quote", arguments)
    expected = world.tools["get_quote"](missing)  # {"error": "unknown ticker: …"}: a result
    reworded = (isinstance(result, dict) and set(result) == {"error"}
                and expected["error"] in str(result["error"]))  # a longer error text says the same
    expect(result == expected or reworded, "tool_error_rewritten", arguments=arguments,
           got=shown(result), expected=expected)


@check("1.2", points=1, en="an unknown tool gives an error result", zh="未知工具返回错误结果")
def test_unknown_tool(learner, world):
    result, _ = run_execute_tool(learner, world, "get_news", '{"ticker": "AAPL"}')
    expect("get_news" in (error_text(result) or ""), "tool_json_wrong",
           name="get_news", arguments='{"ticker": "AAPL"}', got=shown(result),
           expected={"error": "unknown tool: get_news"})
    expect_tool_runs(learner, world)


@check("1.2", points=1, en="a tool that raises gives an error result", zh="工具抛异常时返回错误结果")
def test_tool_that_raises(learner, world):
    result, _ = run_execute_tool(learner, world, "Broken", "{}")
    expect("HTTP 503" in (error_text(result) or ""), "tool_json_wrong",
           name="Broken", arguments="{}", got=shown(result),
           expected={"error": "Broken failed: the service is down (HTTP 503)"})
    # A model's argument the tool does not take: get_quote(symbol=…) raises TypeError, not the
    # RuntimeError above. An execute_tool that catches only the errors it has seen lets it out.
    arguments = '{"symbol": "AAPL"}'
    try:
        result, _ = run_execute_tool(learner, world, "get_quote", arguments)
    except Fail as failure:
        if not failure.raised:
            raise
        raise Fail("tool_exception_escaped", arguments=arguments, type=failure.params.get("type"),
                   message=failure.params.get("message")) from None
    expect(isinstance(result, dict) and "error" in result, "tool_json_wrong", name="get_quote", arguments=arguments,
           got=shown(result), expected={"error": "get_quote failed: … unexpected keyword argument 'symbol'"})
    expect_tool_runs(learner, world)


@check("1.2", points=1, en="arguments that are not JSON give an error result",
       zh="参数不是合法 JSON 时返回错误结果")
def test_bad_arguments(learner, world):
    result, calls = run_execute_tool(learner, world, "get_quote", "{'ticker': AAPL")
    for call in calls:
        raise Fail("bad_json_tool_ran", given=call.input)
    expect(isinstance(result, dict) and isinstance(result, dict) and "error" in result, "tool_json_wrong",
           name="get_quote", arguments="{'ticker': AAPL", got=shown(result),
           expected={"error": "arguments are not valid JSON: …"})
    expect_tool_runs(learner, world)


# ---------------------------------------------------------------- TODO 2.1 build_messages

@check("2.1", points=1, en="a system message, then the user's question", zh="先 system 消息，再是用户问题")
def test_messages_start_the_conversation(learner, world):
    query = world.scenarios["one_quote"].question
    messages = learner.call("build_messages", query)
    ok = (isinstance(messages, list) and len(messages) == 2 and all(isinstance(m, dict) for m in messages)
          and messages[0].get("role") == "system" and str(messages[0].get("content", "")).strip()
          and messages[1] == {"role": "user", "content": query})
    expect(ok, "messages_wrong", query=query, got=shown(messages))
    expect_system_prompt_used(learner, messages[0].get("content"))



@check("2.1", points=1, en="a new conversation each time", zh="每次都是新的对话")
def test_messages_are_fresh(learner, world):
    first, second = world.scenarios["no_tool"].question, world.scenarios["compare"].question
    learner.call("build_messages", first)
    messages = learner.call("build_messages", second)
    if not (isinstance(messages, list) and first not in str(not_system(messages))):
        fail_shared_history(learner, "build_messages")


def not_system(messages: list) -> list:
    """The messages but the system ones: a system prompt may quote an example question ("What is a
    P/E ratio?" needs no tool), which is no earlier conversation."""
    return [m for m in messages if not (isinstance(m, dict) and m.get("role") == "system")]


def fail_shared_history(learner, func):
    """The conversation outlived its call: say where it is kept, a default argument or elsewhere."""
    found = mutable_default(learner.syntax_tree(), func)
    if found:
        raise Fail("messages_default_shared", where=found[0], param=found[1])
    raise Fail("messages_shared")


def mutable_default(tree: ast.Module | None, func: str) -> tuple[str, str] | None:
    """(function, "name=[]") when `func`, or a function it calls, has a default argument that is a
    list, dict or set: made once, when the def runs, and shared by every call. Read from the source."""
    if tree is None:
        return None
    defs: dict[str, list] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.setdefault(node.name, []).append(node)
    targets = defs.get(func, [])[-1:]  # the last def of a name is the one that counts
    called = {getattr(n.func, "id", None) or getattr(n.func, "attr", None)
              for t in targets for n in ast.walk(t) if isinstance(n, ast.Call)}
    for node in targets + [d for name in sorted(called - {func, None}) for d in defs.get(name, [])]:
        args = node.args
        positional = args.posonlyargs + args.args
        pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
        pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
        for arg, default in pairs:
            if isinstance(default, (ast.List, ast.Dict, ast.Set)) or (
                    isinstance(default, ast.Call) and getattr(default.func, "id", None) in ("list", "dict", "set")):
                return node.name, f"{arg.arg}={ast.unparse(default)}"
    return None


# ---------------------------------------------------------------- TODO 3.1 read_tool_calls

def mock_response(world, scenario):
    session = world.session(scenario)
    return session.complete({"model": "mock-react-1", "tools": [QUOTE_TOOL], "messages": [
        {"role": "user", "content": world.scenarios[scenario].question}]})


@check("3.1", points=1, en="every tool call, in order, with its id, name and arguments",
       zh="按顺序读出每个工具调用的 id、name 和 arguments")
def test_reads_parallel_calls(learner, world):
    response = mock_response(world, "compare_three")  # never in the order asked, at any seed
    expected = [Record("ToolRequest", {"id": c["id"], "name": c["function"]["name"],
                                       "arguments": c["function"]["arguments"]})
                for c in response["choices"][0]["message"]["tool_calls"]]
    got = learner.call("read_tool_calls", completion_arg(response))
    expect(got == expected, "tool_calls_wrong", got=shown(got), expected=shown(expected))


@check("3.1", points=1, en="no tool calls gives an empty list", zh="没有工具调用时返回空列表")
def test_reads_no_calls(learner, world):
    got = learner.call("read_tool_calls", completion_arg(mock_response(world, "no_tool")))
    expect(got == [], "tool_calls_wrong", got=shown(got), expected="[]")
    # [] counts only from a read_tool_calls that reads the calls of a response that has them
    response = mock_response(world, "one_quote")
    expected = [Record("ToolRequest", {"id": c["id"], "name": c["function"]["name"],
                                       "arguments": c["function"]["arguments"]})
                for c in response["choices"][0]["message"]["tool_calls"]]
    got = learner.call("read_tool_calls", completion_arg(response))
    expect(got == expected, "tool_calls_must_read_first", got=shown(got), expected=shown(expected))


# ---------------------------------------------------------------- TODO 4.1 run_agent

def run_agent(learner, world, scenario, *max_iter, refused=False):
    """Your run_agent on a task of scenarios.yaml; a request the API refused is named in the failure,
    but for refused=True (a check that judges the later requests itself) only the first one."""
    try:
        run = learner.run_agent("run_agent", scenario, registry_arg(world.scenarios[scenario].tools),
                                *max_iter)
    except Fail:
        explain_rejection(learner.runs[-1], only_first=refused)
        if refused and any(e.status == 400 for e in learner.runs[-1].exchanges):
            return learner.runs[-1]
        raise
    explain_rejection(run, only_first=refused)
    return run


def explain_rejection(run, only_first=False):
    for number, exchange in enumerate(run.exchanges[:1] if only_first else run.exchanges, start=1):
        if exchange.status == 400:
            error = exchange.response["error"]
            param = str(error.get("param"))
            messages = exchange.request.get("messages") or []
            index = param.removeprefix("messages.[").removesuffix("].role")
            if index.isdigit() and int(index) < len(messages) and messages[int(index)].get("role") == "tool":
                # the lesson's most common mistake: tool results that answer no assistant message
                failure = Fail("api_rejected_tool_without_call", request=number, message=error["message"])
                failure.cause = "a tool message with no assistant message carrying its call before it"
                raise failure
            # a tool call of an assistant message sent back, rebuilt by hand without a required field
            key = "api_rejected_tool_calls" if ".tool_calls" in param else "api_rejected"
            raise Fail(key, request=number, message=error["message"])


def expect_own_conversation(learner, world, run):
    """The run's first request asks its one question: another task's question there, or its own a
    second time, is a history shared between runs, said as TODO 2.1 says it. The questions are
    counted in the messages that hold them, whatever their role but system (the prompt may quote an
    example question): a system prompt sent as a user message is a mistake of TODO 2.1's own, which
    its first check names, not a shared history."""
    texts = [chat_text(m) for m in not_system(request_messages(run.exchanges[0]))]
    own = run.scenario.question
    others = {s.question for s in world.scenarios.values()} - {own}
    if sum(own in text for text in texts) > 1 or any(q in text for q in others if q not in own for text in texts):
        fail_shared_history(learner, "build_messages")


def roles(messages) -> str:
    """A request's messages as their roles: system → user → tool."""
    return " → ".join(str(m.get("role")) if isinstance(m, dict) else "?" for m in messages)


def explain_tool_choice(run):
    """For a run that did not end as it should: a tool_choice that forces or forbids tool calls."""
    for number, exchange in enumerate(run.exchanges, start=1):
        choice = exchange.request.get("tool_choice")
        if choice not in (None, "auto"):
            key = "tool_choice_none" if choice == "none" else "tool_choice_forces"
            raise Fail(key, request=number, choice=json.dumps(choice))


def reply_of(exchange) -> dict:
    return exchange.response["choices"][0]["message"] if exchange.status == 200 else {}


def requested(message) -> str:
    """A reply's tool calls as a learner reads them: get_quote({"ticker": "AAPL"}), …"""
    return ", ".join(f"{c['function']['name']}({c['function']['arguments']})"
                     for c in message.get("tool_calls") or [])


def expect_arguments_parsed(run):
    """The loop's tools got parsed arguments. By name or by position is execute_tool's business
    (TODO 1.2): get_quote takes one argument, so a call by position still gets the right quote."""
    for call in run.tool_calls:
        expect(not unparsed(call.input), "tool_args_not_parsed", given=call.input)


def expect_asked_again(run):
    """A run whose last response asked for tools, which ran, then ended: its loop stopped before
    the model read their results (a return, or the fallback, indented inside the loop)."""
    if run.exchanges and reply_of(run.exchanges[-1]).get("tool_calls") and any(
            call.round == len(run.exchanges) for call in run.tool_calls):
        raise Fail("stopped_after_tools", requests=len(run.exchanges),
                   got=repr(run.answer) if isinstance(run.answer, str) else shown(run.answer))


def expect_answer(run, *expected):
    expect(run.exchanges, "no_request")  # an answer the model never gave is not an answer
    for text in expected:
        if not (isinstance(run.answer, str) and text in run.answer):
            expect_arguments_parsed(run)
            explain_tool_choice(run)
            expect_history_kept(run)
            expect_asked_again(run)
            raise Fail("answer_missing", expected=text, got=shown(run.answer))
        run.expect_from_model(text)


@check("4.1", points=1, en="one tool call, the system prompt first: the answer cites the tool's numbers",
       zh="一次工具调用，先发系统提示：答案引用工具返回的数字")
def test_one_quote(learner, world):
    run = run_agent(learner, world, "one_quote")
    quote = world.quotes[run.scenario.values["stock"]]
    expect_answer(run, str(quote["price"]), str(quote["pe"]))
    expect_system_prompt_sent(learner, run)


@check("4.1", points=1, en="an unknown ticker: the error reaches the model, no invented number",
       zh="未知代码：错误交给模型，不编造数字")
def test_unknown_ticker(learner, world):
    run = run_agent(learner, world, "unknown_ticker")
    error = f"unknown ticker: {run.scenario.values['missing']}"
    if not (isinstance(run.answer, str) and error in run.answer):
        expect_error_result_sent(run, error)
    expect_answer(run, error)
    prices = [str(q["price"]) for q in world.quotes.values()]
    expect("unavailable" in run.answer and not any(p in run.answer for p in prices), "invented_number",
           got=run.answer)


def expect_error_result_sent(run, error):
    """The tool returned an error result; fail when no tool message brought it to the model."""
    failed = [c for c in run.tool_calls if isinstance(c.output, dict) and error in str(c.output.get("error"))]
    later = [e for e in run.exchanges if e.status == 200 and e.request.get("messages")]
    if failed and len(later) > 1:
        sent = [str(m.get("content")) for m in later[-1].request["messages"]
                if isinstance(m, dict) and m.get("role") == "tool"]
        if sent and not any(error in content for content in sent):
            raise Fail("error_result_lost", output=json.dumps(failed[0].output), content=sent[-1])


@check("4.1", points=1, en="a call of a tool that tool_impl lacks still gets its tool message, the error, which the model reads",
       zh="模型调用了 tool_impl 里没有的工具，也要给它一条 tool 消息（错误结果），交给模型去读")
def test_missing_tool_call_answered(learner, world):
    stock = world.scenarios["no_quote_tool"].values["stock"]
    try:
        run = run_agent(learner, world, "no_quote_tool", refused=True)  # tool_impl is {}: get_quote is not in it
    except Fail as failure:
        if failure.raised and missing_tool_raises(learner, stock):
            return  # execute_tool raises for a tool it lacks: TODO 1.2's checks say so
        raise
    expect(run.exchanges, "no_request")
    expect_tool_offered(run)  # offered only the tools tool_impl holds, the model could call none
    expect_every_call_answered(run)
    explain_rejection(run)
    expect_missing_tool_not_run(learner, run)
    expect_answer(run, f"I could not look up {stock}")


def expect_missing_tool_not_run(learner, run):
    """No tool ran for a call of a tool the run's tool_impl lacks, and its tool message holds an
    error: a loop that swaps an empty tool_impl for the module's TOOL_IMPL (`tool_impl or
    TOOL_IMPL`, {} being falsy) runs get_quote anyway and sends its quote. Unless the file's
    execute_tool itself, given an empty tool_impl, runs the tool: TODO 1.2's checks say so."""
    for number, (before, after) in enumerate(zip(run.exchanges, run.exchanges[1:]), start=1):
        sent = {m.get("tool_call_id"): chat_text(m) for m in request_messages(after) if m.get("role") == "tool"}
        for call in reply_of(before).get("tool_calls") or []:
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            if name in run.handed or call["id"] not in sent:
                continue
            content = sent[call["id"]]
            ran = [c for c in run.tool_calls if c.round == number and c.name == name]
            if not ran and is_error_text(content):
                continue
            try:
                alone = learner.call("execute_tool", registry_arg([]), name, arguments)
            except Fail:
                return  # it raises: TODO 1.2's checks say so
            if not is_error_text(alone):
                return  # execute_tool itself runs a tool it was not given: TODO 1.2's checks say so
            raise Fail("missing_tool_ran", call=requested({"tool_calls": [call]}), call_id=call["id"],
                       content=shown(content), expected=shown(alone))


def is_error_text(content) -> bool:
    """Whether a tool message's content is an error result: JSON (or a Python repr, or JSON
    encoded twice) of an object with an "error" key."""
    value = content
    for _ in range(2):  # a string holding JSON text, once more
        if not isinstance(value, str):
            break
        try:
            value = parse_json(value)
        except ValueError:
            try:
                value = ast.literal_eval(value.strip())
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                return False
    return isinstance(value, dict) and "error" in value


def missing_tool_raises(learner, stock) -> bool:
    """Whether the file's execute_tool raises for a tool the tool_impl it is given lacks."""
    try:
        learner.call("execute_tool", registry_arg([]), "get_quote", json.dumps({"ticker": stock}))
    except Fail:
        return True
    return False


def expect_every_call_answered(run):
    """Each tool call of a reply has, in the request after it, a tool message carrying its id: a
    loop that skips a call it cannot run (a tool its tool_impl lacks) leaves it unanswered, which
    the API refuses, and the model never learns the tool is not there."""
    for number, (before, after) in enumerate(zip(run.exchanges, run.exchanges[1:]), start=2):
        answered = {m.get("tool_call_id") for m in request_messages(after) if m.get("role") == "tool"}
        for call in reply_of(before).get("tool_calls") or []:
            if call["id"] not in answered:
                raise Fail("call_unanswered", request=number, call=requested({"tool_calls": [call]}),
                           call_id=call["id"], tool=call["function"]["name"])


@check("4.1", points=1, en="each tool message holds execute_tool's JSON text of the result",
       zh="每条 tool 消息里都是 execute_tool 给出的结果 JSON 文本")
def test_results_sent_as_json(learner, world):
    run = run_agent(learner, world, "one_quote")
    outputs = [call.output for call in run.tool_calls]
    later = [e for e in run.exchanges if e.status == 200 and e.request.get("messages")]
    stock = run.scenario.values["stock"]
    expect(any(m.get("role") == "tool" for e in run.exchanges[1:] for m in request_messages(e)),
           "tool_message_missing", requests=len(run.exchanges))
    for message in later[-1].request["messages"] if outputs and len(later) > 1 else []:
        if isinstance(message, dict) and message.get("role") == "tool" and isinstance(message.get("content"), str):
            content = message["content"]
            try:
                sent = parse_json(content)
            except ValueError:
                try:  # the file's execute_tool gives JSON (else 1.2's checks say so): the loop sent something else
                    run_execute_tool(learner, world, "get_quote", json.dumps({"ticker": stock}))
                except Fail:
                    return
                raise Fail("result_not_json_repr" if python_literal(content) else "result_not_json",
                           content=content, output=json.dumps(outputs[0])) from None
            if isinstance(sent, str) and isinstance(outputs[0], dict):  # JSON text of a string: encoded twice
                try:  # the file's execute_tool gives that string itself (1.2's checks say so): the loop sent it on
                    if isinstance(run_execute_tool(learner, world, "get_quote", json.dumps({"ticker": stock}))[0], str):
                        return
                except Fail:
                    return
                raise Fail("result_double_encoded", content=content, output=json.dumps(outputs[0]))


@check("4.1", points=1, en="two calls in one response: both run, each result paired by its id",
       zh="一次响应里两个调用：都执行，结果按 id 配对")
def test_parallel_calls(learner, world):
    expect_parallel_calls(learner, world, "compare")


@check("4.1", points=1, en="three calls in one response, never in the order asked: each result paired by its id",
       zh="一次响应里三个调用，顺序从不与提问时相同：每个结果按 id 配对")
def test_three_parallel_calls(learner, world):
    expect_parallel_calls(learner, world, "compare_three")


def expect_parallel_calls(learner, world, scenario):
    """Every call of the first response runs, and each result goes back under its own call's id."""
    run = run_agent(learner, world, scenario)
    expect(run.exchanges, "no_request")
    asked = run.exchanges[0].response["choices"][0]["message"].get("tool_calls") or []
    ran = [c for c in run.tool_calls if c.round == 1]
    answered = len(run.exchanges) > 1 and any(m.get("role") == "tool" for m in run.exchanges[1].request["messages"])
    expect(ran or not answered, "tool_impl_unused")
    expect(len(ran) >= len(asked), "not_all_calls_run", asked=len(asked), ran=len(ran))
    expect_arguments_parsed(run)
    expect_each_call_ran_once(learner, world, run)
    if len(run.exchanges) > 1:
        messages = [m for m in run.exchanges[1].request["messages"] if isinstance(m, dict)]
        sent = {m.get("tool_call_id"): str(m.get("content")) for m in messages if m.get("role") == "tool"}
        if not sent:
            expect_history_kept(run)
        expect(sent, "assistant_not_appended", got=roles(messages))
        for call in asked:
            ticker = json.loads(call["function"]["arguments"])["ticker"]
            content = sent.get(call["id"], "")
            expect(str(world.quotes[ticker]["price"]) in content, "wrong_pairing", call_id=call["id"],
                   ticker=ticker, content=content)
    tickers = [call.args["ticker"] for call in run.scenario.turns[0]]
    expect_answer(run, *(f"{t}: price {world.quotes[t]['price']}" for t in tickers))


def expect_each_call_ran_once(learner, world, run):
    """Between two requests, the tools ran no more times than the reply before asked for calls: a
    loop that runs execute_tool for a call twice (once to look at the result, once for the tool
    message) runs every tool twice. Unless the file's execute_tool alone already runs a tool twice
    for one call: TODO 1.2's first check says so."""
    for number, exchange in enumerate(run.exchanges, start=1):
        asked = [c for c in reply_of(exchange).get("tool_calls") or [] if c["function"]["name"] in run.handed]
        ran = [c for c in run.tool_calls if c.round == number]
        if len(ran) <= len(asked):
            continue
        times: dict[str, int] = {}
        for call in ran:
            times[repr((call.name, call.input))] = times.get(repr((call.name, call.input)), 0) + 1
        most = max(ran, key=lambda c: times[repr((c.name, c.input))])
        stock = world.scenarios["one_quote"].values["stock"]
        try:
            alone = len(run_execute_tool(learner, world, "get_quote", json.dumps({"ticker": stock}))[1])
        except Fail:
            alone = 0
        if alone > 1:
            return
        arguments = json.dumps(most.input) if isinstance(most.input, dict) else repr(most.input)
        raise Fail("loop_tool_ran_twice", call=f"{most.name}({arguments})", request=number,
                   times=max(times.values()), asked=len(asked), ran=len(ran))


@check("4.1", points=1, en="max_iter counts requests: three calls in one response, then the answer, within max_iter=2",
       zh="max_iter 数的是请求：一次响应里三个调用，再加上答案，max_iter=2 就够")
def test_max_iter_counts_requests(learner, world):
    run = run_agent(learner, world, "compare_three", 2)
    answered = len(run.exchanges) == 2 and not reply_of(run.exchanges[1]).get("tool_calls")
    if not answered and len(run.exchanges) < 2 and len(run.tool_calls) >= 2:
        expect_asked_again(run_agent(learner, world, "one_quote"))  # one call: ends after it as well?
        raise Fail("max_iter_counts_calls", max_iter=2, requests=len(run.exchanges), calls=len(run.tool_calls))
    tickers = [call.args["ticker"] for call in run.scenario.turns[0]]
    expect_answer(run, *(f"{t}: price {world.quotes[t]['price']}" for t in tickers))


@check("4.1", points=1, en="two rounds of calls, one after the other: every request carries the earlier rounds, and the answer cites both results",
       zh="先后两轮调用：每个请求都带着之前的每一轮，答案引用两次的结果")
def test_rounds_kept(learner, world):
    run = run_agent(learner, world, "two_rounds")
    expect(run.exchanges, "no_request")
    expect_rounds_kept(run)
    expect_answer(run, *(f"{t} moved {world.quotes[t]['change_1y_pct']}%" for t in ("NVDA", "TSLA")))


def expect_rounds_kept(run):
    """Each round the loop sent back (the model's turn with its calls, their results) is still in
    every later request: a loop that keeps the question and only the latest round shows the model
    nothing of its first calls, and it asks for them again."""
    def ids_in(exchange) -> set:  # the call ids a request holds: in an assistant turn or a tool message
        messages = request_messages(exchange)
        return ({c.get("id") for m in messages if m.get("role") == "assistant" and isinstance(m.get("tool_calls"), list)
                 for c in m["tool_calls"] if isinstance(c, dict)}
                | {m.get("tool_call_id") for m in messages if m.get("role") == "tool"})
    sent = [ids_in(exchange) for exchange in run.exchanges]
    for number, exchange in enumerate(run.exchanges[:-1], start=1):
        ids = {call["id"] for call in reply_of(exchange).get("tool_calls") or []}
        if not ids & sent[number]:  # no calls, or never sent back at all: other checks say why
            continue
        for later in range(number + 1, len(run.exchanges)):
            if not ids & sent[later]:
                raise Fail("earlier_round_dropped", request=later + 1, round=number,
                           calls=requested(reply_of(exchange)))


@check("4.1", points=1, en="no tool needed: one request, its content is the answer",
       zh="不需要工具：一次请求，content 就是答案")
def test_no_tool_needed(learner, world):
    run = run_agent(learner, world, "no_tool")
    if len(run.exchanges) != 1:
        explain_tool_choice(run)
        raise Fail("wrong_request_count", expected=1, got=len(run.exchanges))
    message = reply_of(run.exchanges[0])
    if message.get("tool_calls"):  # no content to compare with: it asked for tools instead
        explain_tool_choice(run)
        raise Fail("reply_was_tool_request", request=1, calls=requested(message), got=shown(run.answer))
    content = message["content"]
    expect(run.answer == content, "content_not_returned", expected=content, got=shown(run.answer))


@check("4.1", points=1, en="a model that keeps calling tools: stops after max_iter requests",
       zh="模型一直调用工具：max_iter 次请求后停止")
def test_stops_at_max_iter(learner, world):
    run = run_agent(learner, world, "endless", 3)
    if len(run.exchanges) < 3:
        expect_asked_again(run)
    expect(len(run.exchanges) == 3, "wrong_request_count", expected=3, got=len(run.exchanges))
    expect_asked_tools_ran(run)  # three requests that ran nothing are not three steps
    expect(isinstance(run.answer, str) and run.answer.strip(), "no_fallback", got=shown(run.answer))
    remarks = {str(reply_of(e).get("content") or "").strip() for e in run.exchanges}
    expect(run.answer.strip() not in remarks, "fallback_is_model_text", requests=len(run.exchanges),
           got=run.answer)


@check("4.1", points=1, en="the assistant message with tool_calls comes before the tool results",
       zh="带 tool_calls 的 assistant 消息在工具结果之前")
def test_assistant_message_appended(learner, world):
    run = run_agent(learner, world, "one_quote", refused=True)  # judged here: a second request refused too
    expect(run.exchanges, "no_request")
    expect_own_conversation(learner, world, run)
    issued = {c["id"] for c in reply_of(run.exchanges[0]).get("tool_calls") or []}
    if issued and len(run.exchanges) == 1:
        expect_asked_again(run)
    expect(issued and len(run.exchanges) > 1, "wrong_request_count", expected=2, got=len(run.exchanges))
    messages = [m for m in run.exchanges[1].request["messages"] if isinstance(m, dict)]
    # Where the assistant message carrying these calls is. Other messages (a system reminder, say)
    # may follow the results; every tool result comes after it and answers one of its calls.
    carrier = next((i for i, m in enumerate(messages) if m.get("role") == "assistant" and
                    {c.get("id") for c in m.get("tool_calls") or [] if isinstance(c, dict)} == issued), None)
    results = [(i, m.get("tool_call_id")) for i, m in enumerate(messages) if m.get("role") == "tool"]
    if carrier is None:
        expect_history_kept(run)
    expect(carrier is not None and all(i > carrier for i, _ in results), "assistant_not_appended", got=roles(messages))
    expect(issued <= {call_id for _, call_id in results} and all(call_id in issued for _, call_id in results),
           "result_ids_wrong", got=", ".join(repr(call_id) for _, call_id in results) or "none",
           expected=", ".join(map(repr, sorted(issued))))


@check("4.1", points=1, en="the model's turn goes back as it came, its words too",
       zh="模型那一轮原样发回，它写的话也不改")
def test_turn_sent_back_unchanged(learner, world):
    run = run_agent(learner, world, "one_quote")
    expect(run.exchanges, "no_request")
    expect_own_conversation(learner, world, run)
    if len(run.exchanges) == 1:
        expect_asked_again(run)
    expect(len(run.exchanges) > 1, "wrong_request_count", expected=2, got=len(run.exchanges))
    expect_turns_sent_back(run)
    expect_turns_carried(run)


def expect_turns_carried(run):
    """Each reply that asked for tools goes back, in the request after it, as an assistant message
    carrying its calls' ids: a loop that never sends it has no turn to alter."""
    for exchange, after in zip(run.exchanges, run.exchanges[1:]):
        ids = {call["id"] for call in reply_of(exchange).get("tool_calls") or []}
        messages = request_messages(after)
        if ids and not any(m.get("role") == "assistant" and isinstance(m.get("tool_calls"), list) and ids == {
                c.get("id") for c in m["tool_calls"] if isinstance(c, dict)} for m in messages):
            expect_history_kept(run)
            raise Fail("assistant_not_appended", got=roles(messages))


@check("4.1", points=1, en="offers the tool with every request", zh="每个请求都提供工具")
def test_tools_sent(learner, world):
    try:  # graded on every request sent, even one the API refused for another reason
        run = learner.run_agent("run_agent", "compare", registry_arg(["get_quote"]))
    except Fail:
        run = learner.runs[-1]
    expect(run.exchanges, "no_request")
    expect_tool_offered(run)


def expect_tool_offered(run):
    """Every request offers get_quote, whatever tool_impl holds (README: tools=get_tools() with each)."""
    for number, exchange in enumerate(run.exchanges, start=1):
        tools = exchange.request.get("tools")
        expect(tools is None or isinstance(tools, list), "tools_not_a_list", request=number, got=shown(tools))
        names = [t.get("function", {}).get("name") for t in tools or [] if isinstance(t, dict)]
        expect("get_quote" in names, "no_tools_sent", request=number)


@check("1.2", points=1, en="an unknown tool's error says there is no such tool, not that it failed",
       zh="未知工具的错误说明没有这个工具，而不是说它执行失败")
def test_unknown_tool_said(learner, world):
    result, _ = run_execute_tool(learner, world, "get_news", '{"ticker": "AAPL"}')
    expect_unknown_tool_said(error_text(result) if isinstance(result, dict) else result, "get_news", result,
                             ["get_quote", "Broken"])
    # get_quote is in the file's global TOOL_IMPL but not in the tool_impl handed in: for this
    # execute_tool it does not exist either (a lookup in TOOL_IMPL, then tool_impl[name], says
    # "get_quote failed: 'get_quote'", a KeyError's text).
    arguments = json.dumps({"ticker": world.scenarios["one_quote"].values["stock"]})
    result, _ = run_execute_tool(learner, world, "get_quote", arguments, registry=["Broken"])
    try:
        expect_unknown_tool_said(error_text(result) if isinstance(result, dict) else result, "get_quote", result,
                                 ["Broken"])
    except Fail:
        raise Fail("unknown_tool_global_registry", arguments=arguments, got=shown(result)) from None
    # An empty tool_impl holds no tool at all: not "no tools given, use TOOL_IMPL" (`tool_impl or
    # TOOL_IMPL`, `if not tool_impl:`, {} being falsy), which runs the module's get_quote anyway.
    result, calls = run_execute_tool(learner, world, "get_quote", arguments, registry=[])
    expect(not calls and isinstance(result, dict) and "error" in result, "unknown_tool_empty_registry",
           arguments=arguments, got=shown(result))
    expect_tool_runs(learner, world)


@check("4.1", points=1, en="the step limit's message is the agent's own, not the question handed back",
       zh="步数上限时返回的是 Agent 自己的信息，而不是把问题原样返回")
def test_fallback_is_its_own(learner, world):
    expect_own_fallback(run_agent(learner, world, "endless", 3), 3)
