"""Day 02 checks: plain pytest tests, one behaviour each, listed in the report in this order.

Your functions run in a separate process; `learner.call` calls one of them, `run_agent` runs your
loop on a task of scenarios.yaml against the mock model, which answers `llm(messages)` with its
decision written as JSON text: bare, in a ```json fence or in prose, and sometimes broken.
Numbers come from `world`, so with another seed every expected value changes.
"""
import json
import re

from validator.checking import (Fail, ToolBox, argument_errors, check, content_text, expect, expect_answer,
                                expect_bare_results, expect_fresh_start, expect_history_kept, expect_own_fallback,
                                expect_question_asked, expect_step_limit, expect_unknown_tool_said,
                                names_every_argument, quoted, shown, tool_arg, tool_call_text, unseen, wraps_result)

LOOP_TOOLS = ["add", "multiply", "subtract"]  # the registry the checks give your loop
ALL_TOOLS = ["add", "multiply", "subtract", "divide"]
OTHER_TOOLS = {  # tools your prompt has never seen: it must describe the ones it is given
    "convert": "Converts an amount between two currencies. Arguments: amount, source, target.",
    "lookup": "Finds a word in the dictionary. Arguments: word (text).",
}
BROKEN_LEAD = "Sure, here is my next step as JSON:"  # how the mock starts a broken reply


def registry(world, names, described=None) -> dict:
    """A registry as the lesson's TOOLS: name -> {"function": …, "description": …}."""
    described = described or world.tool_descriptions
    return {name: {"function": tool_arg(name), "description": described[name]} for name in names}


def numbers(world, scenario):
    return world.scenarios[scenario].values


# ---------------------------------------------------------------- TODO 1.1 build_system_prompt

def system_prompt(learner, world, names=None, described=None, watch=False):
    names = names or LOOP_TOOLS
    prompt = learner.call("build_system_prompt", registry(world, names, described), watch=watch)
    expect(isinstance(prompt, str), "not_a_string", func="build_system_prompt", got=shown(prompt))
    return prompt


@check("1.1", points=1, en="names and describes every tool, and leaves the registry as it was",
       zh="列出每个工具的名字和描述，并且不改动传入的工具表")
def test_prompt_describes_tools(learner, world):
    prompt = system_prompt(learner, world, watch=True)
    for name in LOOP_TOOLS:
        expect(name in prompt and world.tool_descriptions[name] in prompt, "tool_missing_from_prompt",
               tool=name, got=prompt)
    expect(not learner.changed_args, "registry_changed")


@check("1.1", points=1, en="describes the tools it is given, not a fixed list", zh="描述传入的工具，而不是固定清单")
def test_prompt_describes_any_tools(learner, world):
    others = unseen(world, OTHER_TOOLS)
    prompt = system_prompt(learner, world, list(others), others)
    for name, description in others.items():
        expect(name in prompt and description in prompt, "tool_missing_from_prompt", tool=name, got=prompt)


@check("1.1", points=1, en="shows both decisions in JSON, with double quotes", zh="用 JSON（双引号）写出两种决策")
def test_prompt_shows_the_format(learner, world):
    prompt = system_prompt(learner, world)
    expect("json" in prompt.lower(), "prompt_no_json", got=prompt)
    for piece in ('"type"', '"tool"', '"name"', '"args"', '"final"', '"content"'):
        single = piece.replace('"', "'")
        expect(piece in prompt or single not in prompt, "prompt_single_quotes", piece=piece, single=single)
        expect(piece in prompt, "prompt_format_missing", piece=piece)
    expect(states_reply_rule(prompt), "prompt_no_reply_rule", got=prompt)


# Words of a sentence about how to reply ("Answer with exactly one JSON object", "Respond only in JSON",
# "每次只回复一个 JSON 对象"), as against one that only says what `args` is ("args is a JSON object").
REPLY_WORDS = re.compile(r"\b(?:repl|respon|answer|output|writ|return|format|send|messag|decision|emit|produc|turn|"
                         r"use\b|one\b|single|exactly|only|nothing|must|always)|回复|回答|答复|作答|输出|格式|只|一个|"
                         r"每次|每条|消息|决策|使用|用|必须", re.IGNORECASE)
ARGS_WORDS = re.compile(r"\bargs\b|argument|parameter|参数", re.IGNORECASE)
# The rule said of the reply without the word JSON ("Reply with exactly one of these two objects"), the
# prompt saying JSON elsewhere: a verb of replying and a word of one.
REPLY_VERB = re.compile(r"\b(?:repl|respon|answer|output|writ|return|send|emit)|回复|回答|答复|作答|输出|写", re.IGNORECASE)
ONLY_ONE = re.compile(r"\b(?:one|exactly|only|single)\b|nothing else|之一|只|一个|唯一", re.IGNORECASE)


def states_reply_rule(prompt: str) -> bool:
    """Whether a sentence of the prompt that says JSON is about the reply (its format, or that it is
    one object), or at least not only about `args`, or one says a reply is one of them (the prompt
    saying JSON elsewhere): lenient, as a check of wording must be. A line
    that ends with a colon runs on into the next (an example, a fence), and so does one wrapped in
    the middle of a sentence (a word, then a line starting in lower case)."""
    text = re.sub(r"[:：]\s*\n", ": ", prompt)
    text = re.sub(r"(?<=[\w,])[ \t]*\n[ \t]*(?=[a-z])", " ", text)
    sentences = re.split(r"[.!?。！？\n]+", text)
    return (any("json" in s.lower() and (REPLY_WORDS.search(s) or not ARGS_WORDS.search(s)) for s in sentences)
            or "json" in prompt.lower() and any(REPLY_VERB.search(s) and ONLY_ONE.search(s) for s in sentences))


# ---------------------------------------------------------------- TODO 1.2 parse_decision

def tool_decision(world):
    v = numbers(world, "arithmetic")
    return {"type": "tool", "name": "multiply", "args": {"a": v["a"], "b": v["b"]}}


def final_decision(world):
    v = numbers(world, "arithmetic")
    return {"type": "final", "content": f"The final result is {v['a'] * v['b'] + v['c']}."}


def expect_parsed(learner, reply, expected):
    try:
        got = learner.call("parse_decision", reply)
    except Fail as failure:
        if not failure.raised:
            raise
        raise Fail("parse_raised", detail=failure.detail, reply=reply, type=failure.params["type"],
                   message=failure.params["message"], expected=json.dumps(expected)) from None
    expect(got == expected, "parse_wrong", reply=reply, got=shown(got), expected=json.dumps(expected))


def expect_refused(learner, reply, key):
    try:
        got = learner.call("parse_decision", reply)
    except Fail as failure:
        if not failure.raised:
            raise
        if failure.raised_a("ValueError"):  # json.JSONDecodeError, class ParseError(ValueError) too
            return
        raise Fail("parse_wrong_error", detail=failure.detail, reply=reply, type=failure.params["type"],
                   message=failure.params["message"]) from None
    expect(False, key, reply=reply, got=shown(got))


@check("1.2", points=1, en="reads a bare JSON object (a tool's args may be empty, a text may hold a brace)",
       zh="读出单独一个 JSON 对象（工具的 args 可以为空，文本里可以有花括号）")
def test_parses_bare_json(learner, world):
    decision = tool_decision(world)
    expect_parsed(learner, json.dumps(decision), decision)
    no_args = {"type": "tool", "name": "list_tools", "args": {}}  # a call with nothing to pass is a call
    expect_parsed(learner, json.dumps(no_args), no_args)
    # a "}" inside a string closes nothing: an object found by counting braces must skip its strings
    braced = {"type": "final", "content": final_decision(world)["content"][:-1] + " :-}"}
    try:
        expect_parsed(learner, json.dumps(braced), braced)
    except Fail as failure:
        if failure.key not in ("parse_raised", "parse_wrong"):
            raise
        raise Fail("parse_brace_in_string", detail=failure.detail, reply=json.dumps(braced), got=failure.params.get("got") or
                   f"{failure.params['type']}: {failure.params['message']}") from None


@check("1.2", points=1, en="reads JSON in a ```json fence, over several lines", zh="读出 ```json 代码块里跨多行的 JSON")
def test_parses_fenced_json(learner, world):
    decision = tool_decision(world)
    expect_parsed(learner, "```json\n" + json.dumps(decision, indent=2) + "\n```", decision)


@check("1.2", points=1, en="reads JSON with prose before and after it", zh="读出前后都有说明文字的 JSON")
def test_parses_json_in_prose(learner, world):
    decision = tool_decision(world)
    v = numbers(world, "arithmetic")
    reply = f"First I multiply {v['a']} by {v['b']}.\n{json.dumps(decision)}\nI will wait for the result."
    expect_parsed(learner, reply, decision)


@check("1.2", points=1, en="reads a fence without a language tag, inside prose", zh="读出夹在文字中间、不带语言标记的代码块")
def test_parses_plain_fence_in_prose(learner, world):
    decision = final_decision(world)
    reply = "I have all I need to answer.\n```\n" + json.dumps(decision, ensure_ascii=False) + "\n```\nThanks!"
    expect_parsed(learner, reply, decision)


@check("1.2", points=1, en="broken JSON raises ValueError", zh="坏掉的 JSON 抛出 ValueError")
def test_refuses_broken_json(learner, world):
    whole = json.dumps(tool_decision(world))
    expect_refused(learner, f"{BROKEN_LEAD}\n{whole[:whole.index('}') - 3]}", key="parse_accepted_broken")


@check("1.2", points=1, en="a reply with no JSON at all raises ValueError", zh="完全没有 JSON 的回复抛出 ValueError")
def test_refuses_prose_only(learner, world):
    expect_refused(learner, final_decision(world)["content"], key="parse_accepted_no_json")


@check("1.2", points=1, en="JSON that is not a decision raises ValueError", zh="不是决策的 JSON 抛出 ValueError")
def test_refuses_other_json(learner, world):
    v = numbers(world, "arithmetic")
    for other in ({"result": v["a"] * v["b"], "unit": "none"},  # no "type" at all
                  {"type": "tool"},  # a call of no tool, with nothing to pass it
                  {"type": "tool", "name": "multiply"},  # a tool with no args to call it with
                  {"type": "final"},  # an answer with nothing in it
                  {"type": "thought", "content": f"I multiply {v['a']} by {v['b']} first."},  # a type of no decision
                  {"content": final_decision(world)["content"]},  # a content, but no type
                  {"name": "multiply", "args": {"a": v["a"], "b": v["b"]}}):  # a call, but no type
        expect_refused(learner, json.dumps(other), key="parse_accepted_other")


# ---------------------------------------------------------------- TODO 1.3 correction_messages

def broken_and_error(world):
    """The mock's broken first reply in the malformed task, and the error json.loads gives for it."""
    session = world.session("malformed")
    question = world.scenarios["malformed"].question
    broken = session.answer([{"role": "user", "content": question}])
    try:
        json.loads(broken[broken.index("{"):])
    except ValueError as error:
        return session, question, broken, f"no complete JSON object ({error})"
    raise AssertionError("the malformed scenario's first reply should be broken")


def correction(learner, world):
    session, question, broken, error = broken_and_error(world)
    messages = learner.call("correction_messages", broken, error)
    ok = isinstance(messages, list) and messages and all(isinstance(m, dict) for m in messages)
    expect(ok, "correction_not_messages", got=shown(messages))
    return session, question, broken, error, messages


@check("1.3", points=1, en="sends the bad reply back as an assistant message, then the error as a user message",
       zh="先把坏回复作为 assistant 消息发回，再用 user 消息说明错误")
def test_correction_messages(learner, world):
    _, _, broken, error, messages = correction(learner, world)
    first = messages[0]
    expect(first.get("role") == "assistant" and content_text(first).strip() == broken.strip(), "correction_no_reply",
           reply=broken, got=shown(messages))
    expect(len(messages) == 2, "correction_count", got=shown(messages))
    second = messages[1]
    expect(second.get("role") == "user", "correction_not_user", role=str(second.get("role")), got=shown(messages))
    expect(error in content_text(second), "correction_no_error", error=error, got=content_text(second))


@check("1.3", points=1, en="asks again for one JSON object", zh="要求模型重新给出一个 JSON 对象")
def test_correction_asks_for_json(learner, world):
    _, _, _, error, messages = correction(learner, world)
    asked = " ".join(content_text(m) for m in messages if m.get("role") != "assistant")
    # the learner's own words: the error quoted in them says "JSON" already
    expect("json" in asked.replace(error, "").lower(), "correction_no_request", got=asked)


@check("1.3", points=1, en="the model writes a proper reply after these messages", zh="收到这两条消息后，模型给出正常的回复")
def test_correction_works_on_the_model(learner, world):
    session, question, broken, _, messages = correction(learner, world)
    session.answer([{"role": "user", "content": question}, *messages])
    expect(session.transcript[-1].layout != "broken", "correction_ignored", reply=broken, got=shown(messages))


# ---------------------------------------------------------------- TODO 1.4 execute_tool

def run_execute_tool(learner, world, name, args, crash_key="tool_crashed"):
    """execute_tool(tools, name, args) on the grader's tools: (what it returned, the tool calls)."""
    toolbox = ToolBox(world)
    try:
        result = learner.call("execute_tool", registry(world, ALL_TOOLS), name, args, tools=toolbox)
    except Fail as failure:
        if not failure.raised:
            raise
        raise Fail(crash_key, detail=failure.detail, name=name, args=args, type=failure.params["type"],
                   message=failure.params["message"]) from None
    return result, toolbox.calls


def expect_error_text(result, name, args, words, *others):
    """The error text holds `words` (or one of `others`, other words for the same mistake)."""
    expect(isinstance(result, str) and any(w in result for w in (words, *others)), "tool_error_wrong", name=name,
           args=args, got=quoted(result), expected=words)


@check("1.4", points=1, en="runs the tool with the args as keywords; its result as text",
       zh="以关键字参数执行工具，结果以文本返回")
def test_runs_the_tool(learner, world):
    v = numbers(world, "arithmetic")
    args = {"b": v["a"], "a": v["c"]}  # not in the order of subtract(a, b): only keywords get it right
    result, calls = run_execute_tool(learner, world, "subtract", args)
    expect(calls, "tool_not_called", name="subtract", args=args, got=quoted(result))
    expect(isinstance(calls[0].input, dict), "not_keywords", args=args)
    expected = str(v["c"] - v["a"])
    expect(result == expected, "tool_result_wrong", name="subtract", args=args, got=quoted(result),
           expected=repr(expected))


@check("1.4", points=1, en="runs the tool once per call, not again for its result",
       zh="每次调用只执行工具一次，不会为了取结果再执行一遍")
def test_runs_the_tool_once(learner, world):
    v = numbers(world, "arithmetic")
    args = {"a": v["a"], "b": v["b"]}
    result, calls = run_execute_tool(learner, world, "multiply", args)
    expect(calls, "tool_not_called", name="multiply", args=args, got=quoted(result))
    expect(len(calls) == 1, "tool_ran_twice", name="multiply", args=args, times=len(calls))


@check("1.4", points=1, en="an unknown tool gives an error text that names it", zh="未知工具返回点名该工具的错误文本")
def test_unknown_tool(learner, world):
    v = numbers(world, "arithmetic")
    args = {"expression": f"{v['a']} * {v['b']}"}
    result, _ = run_execute_tool(learner, world, "calculator", args, crash_key="unknown_tool_crashed")
    expect_error_text(result, "calculator", args, "calculator")


@check("1.4", points=1, en="a tool that raises gives an error text", zh="工具抛异常时返回错误文本")
def test_tool_that_raises(learner, world):
    args = {"a": numbers(world, "arithmetic")["c"], "b": 0}
    result, _ = run_execute_tool(learner, world, "divide", args)
    expect_error_text(result, "divide", args, "division by zero")


@check("1.4", points=1, en="arguments the tool does not take give an error text", zh="工具不接受的参数返回错误文本")
def test_wrong_arguments(learner, world):
    v = numbers(world, "wrong_args")
    args = {"x": v["b"], "y": v["d"]}  # what the model writes first in the wrong_args task
    result, _ = run_execute_tool(learner, world, "multiply", args)
    if not names_every_argument(result, args):  # else Python's own words for the call
        expect_error_text(result, "multiply", args, *argument_errors(world, "multiply", args))


@check("1.4", points=1, en="args that are not an object give an error text", zh="args 不是对象时返回错误文本")
def test_args_not_an_object(learner, world):
    v = numbers(world, "arithmetic")
    args = [v["a"], v["b"]]  # a model that wrote "args": [5, 6]
    result, _ = run_execute_tool(learner, world, "multiply", args)
    expect(isinstance(result, str) and result.strip() and result != str(v["a"] * v["b"]), "args_not_object",
           args=args, got=quoted(result))


# ---------------------------------------------------------------- TODO 1.5 react_agent

def run_agent(learner, world, scenario, *max_steps):
    """Your react_agent on a task of scenarios.yaml, with add, multiply and subtract registered."""
    try:
        run = learner.run_agent("react_agent", scenario, registry(world, LOOP_TOOLS), *max_steps)
    except Fail as failure:
        if failure.key == "bad_prompt":  # the validator's own message speaks of llm_call(prompt)
            raise Fail("llm_not_messages", got=failure.params.get("status", "?")) from None
        run = learner.runs[-1] if learner.runs else None
        if run is not None:
            expect_fresh_start(world, run)  # a list kept from the run before: said before what it caused
        if not failure.raised or not run or not run.exchanges:
            raise
        last = run.exchanges[-1]
        params = dict(detail=failure.detail, reply=last.reply, type=failure.params["type"],
                      message=failure.params["message"])
        if last.layout == "broken":
            raise Fail("crashed_on_broken", **params) from None
        failed_tool = run.tool_calls and run.tool_calls[-1].failed and run.tool_calls[-1].round == len(run.exchanges)
        if failed_tool or (last.decision.get("type") == "tool" and not failure.raised_a("ValueError")):
            raise Fail("crashed_on_tool", **params) from None
        raise Fail("crashed_on_reply", **params) from None
    expect_fresh_start(world, run)
    return run


def explain(run, max_steps=8):
    """Fail with the first mistake the transcript shows, if it shows one."""
    expect_question_asked(run)
    question = run.scenario.question
    if any(e.layout == after.layout == "broken" for e, after in zip(run.exchanges, run.exchanges[1:])):
        # the same broken reply twice in a row: the model was never told about it
        explain_broken(run, next(e.reply for e in run.exchanges if e.layout == "broken"))
    for number, (before, after) in enumerate(zip(run.exchanges, run.exchanges[1:]), start=1):
        # a readable reply, answered with something other than its tool's result: a correction
        sent = after.messages[len(before.messages):]
        ran = any(c.round == number for c in run.tool_calls)
        if before.layout != "broken" and after.reply == before.reply and sent and not ran and not any(
                m.get("role") == "tool" for m in sent):
            expect(False, "valid_reply_rejected", reply=before.reply, got=shown(sent))
    asked = [tool_call_text(e.decision) for e in run.exchanges
             if e.layout != "broken" and e.decision.get("type") == "tool"]
    repeated = max(asked, key=asked.count) if asked else None
    if repeated and asked.count(repeated) >= 2:  # the model never saw that call's result
        last = run.exchanges[-1].messages
        if not any(m.get("role") == "tool" for m in last):
            roles = sorted({str(m.get("role")) for before, m in zip(last, last[1:])
                            if m.get("role") not in ("assistant", "tool", "system") and question not in content_text(m)
                            and BROKEN_LEAD not in content_text(before)})  # a correction is no result
            expect(not roles, "result_wrong_role", call=repeated, role=", ".join(roles))
        expect(False, "history_not_fed_back", call=repeated, calls=asked.count(repeated))
    expect_history_kept(run)
    expect_bare_results(run, call_text_of)
    last = run.exchanges[-1]
    if (last.decision.get("type") == "tool" and last.layout != "broken" and len(run.exchanges) < max_steps
            and run.returned_last_round(last.decision)):
        expect(False, "returned_before_final", got=quoted(run.answer), call=tool_call_text(last.decision))
    # a reply with no decision in it, returned: parse_decision took it for one
    expect(last.layout != "broken" or len(run.exchanges) >= max_steps, "returned_broken_reply",
           reply=last.reply, got=quoted(run.answer))


def call_text_of(call) -> str:
    """A tool call as it ran: multiply(a=5, b=6)."""
    args = call.input if isinstance(call.input, dict) else {}
    return f"{call.name}({', '.join(f'{k}={v!r}' for k, v in args.items())})"


def explain_broken(run, reply):
    """The broken reply came again: say what the messages lacked."""
    messages = run.exchanges[-1].messages
    squashed = "".join(reply.split())
    echoed = [i for i, m in enumerate(messages)
              if m.get("role") == "assistant" and squashed in "".join(content_text(m).split())]
    expect(echoed, "broken_not_sent_back", reply=reply, calls=sum(e.layout == "broken" for e in run.exchanges))
    expect(False, "broken_no_error", reply=reply, calls=sum(e.layout == "broken" for e in run.exchanges))


@check("1.5", points=1, en="the arithmetic task: replies bare, in a fence and in prose; the answer holds the result",
       zh="算术题：回复有单独的、代码块里的、夹在文字中的；答案里有计算结果")
def test_arithmetic_task(learner, world):
    v = numbers(world, "arithmetic")
    run = run_agent(learner, world, "arithmetic")
    expect_answer(run, str(v["a"] * v["b"] + v["c"]), explain)


@check("1.5", points=1, en="starts with the system prompt, then the question", zh="先是 system prompt，然后是问题")
def test_starts_with_system_prompt(learner, world):
    run = run_agent(learner, world, "arithmetic")
    expect(run.exchanges, "no_llm_call")
    first = run.exchanges[0].messages
    if first and first[0].get("role") == "system":  # a system prompt, but not of the tools the loop was given
        missing = [name for name in LOOP_TOOLS if name not in content_text(first[0])]
        expect(not missing, "system_prompt_not_given_tools", tool=missing and missing[0], names=", ".join(LOOP_TOOLS))
    ok = (len(first) >= 2 and first[0].get("role") == "system" and all(n in content_text(first[0]) for n in LOOP_TOOLS)
          and first[1].get("role") == "user" and run.scenario.question in content_text(first[1]))  # labelled or not
    expect(ok, "no_system_prompt", question=run.scenario.question, got=shown(first[:2]))


@check("1.5", points=1, en="keeps the model's reply, then a tool message with the result",
       zh="保留模型的回复，再追加一条带结果的 tool 消息")
def test_history(learner, world):
    v = numbers(world, "arithmetic")
    run = run_agent(learner, world, "arithmetic")
    explain(run)
    first = run.exchanges[0].decision
    expect(len(run.exchanges) >= 2, "returned_before_final", got=quoted(run.answer), call=tool_call_text(first))
    messages = run.exchanges[1].messages
    result = str(v["a"] * v["b"])
    found = [i for i, m in enumerate(messages) if m.get("role") == "tool" and content_text(m).strip() == result]
    wrapped = [content_text(m) for m in messages if m.get("role") == "tool" and wraps_result(content_text(m), result)]
    expect(found or not wrapped, "result_wrapped", call=tool_call_text(first), got=repr(wrapped[:1] and wrapped[0]),
           result=repr(result))
    expect(found, "observation_not_appended", call=tool_call_text(first), result=result, got=shown(messages))
    before = messages[found[0] - 1]
    expect(before.get("role") != "assistant" or isinstance(before.get("content"), str), "reply_not_text",
           type=type(before.get("content")).__name__, got=shown(before))
    holds = first["name"] in content_text(before) and "tool" in content_text(before)
    expect(before.get("role") == "assistant" and holds, "reply_not_appended", reply=run.exchanges[0].reply,
           got=shown(messages))
    expect_each_reply_once(learner, run)


def expect_each_reply_once(learner, run):
    """No request holds two assistant messages in a row: each reply goes into the messages once, then
    its tool result or its correction follows it. A loop that appends the reply as soon as it comes,
    and again with the result (or with correction_messages), shows the model each turn twice."""
    for number, exchange in enumerate(run.exchanges, start=1):
        messages = exchange.messages or []
        pairs = [(a, b) for a, b in zip(messages, messages[1:])
                 if isinstance(a, dict) and isinstance(b, dict) and a.get("role") == b.get("role") == "assistant"]
        if pairs and not assistant_twice_in_correction(learner):  # that is TODO 1.3's mistake, said there
            expect(False, "reply_appended_twice", request=number, got=shown(list(pairs[0])))


def assistant_twice_in_correction(learner) -> bool:
    """Whether your correction_messages itself returns two assistant messages in a row."""
    try:
        messages = learner.call("correction_messages", "{\"type\": \"tool\"", "no complete JSON object")
    except Fail:
        return False
    roles = [m.get("role") for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []
    return any(a == b == "assistant" for a, b in zip(roles, roles[1:]))


@check("1.5", points=1, en="broken JSON: a correction round, then the answer, no crash",
       zh="坏掉的 JSON：来一轮纠正，然后得出答案，不崩溃")
def test_correction_round(learner, world):
    v = numbers(world, "malformed")
    run = run_agent(learner, world, "malformed")
    expect_correction_order(learner, run)
    expect_answer(run, str(v["a"] * v["d"] + v["b"]), explain)
    broken = [e for e in run.exchanges if e.layout == "broken"]
    expect(len(broken) == 1, "broken_not_sent_back", reply=broken[0].reply if broken else "", calls=len(broken))
    expect_each_reply_once(learner, run)
    for before, after in zip(run.exchanges, run.exchanges[1:]):
        sent = after.messages[len(before.messages):]
        if before.layout == "broken" and any(m.get("role") == "tool" for m in sent):
            expect(writes_tool_message(learner, before.reply), "correction_as_tool", reply=before.reply,
                   got=shown(sent))
        if before.layout == "broken":  # the correction says what parse_decision found wrong, not a fixed text
            error = parse_error(learner, before.reply)
            told = [content_text(m) for m in sent if m.get("role") == "user"]
            said = {error, repr(error)[1:-1], json.dumps(error, ensure_ascii=False)[1:-1]}  # as written, or escaped
            expect(not error or not told or any(form in text for form in said for text in told),
                   "correction_error_fixed", error=error, got=told[-1] if told else "")
    # a broken reply after a tool round: the correction adds to the conversation, it does not start it over
    v = numbers(world, "relapse")
    run = run_agent(learner, world, "relapse")
    expect_correction_order(learner, run)
    expect_rounds_kept(run)
    expect_answer(run, str(v["d"] * v["a"] + v["c"]), explain)


def tool_rounds(messages) -> list[tuple[str, str]]:
    """The rounds a request holds: each tool message, with the message right before it (the reply)."""
    messages = [m for m in messages or [] if isinstance(m, dict)]
    return [(content_text(before), content_text(m)) for before, m in zip(messages, messages[1:])
            if m.get("role") == "tool"]


def expect_rounds_kept(run):
    """The request after a broken reply still holds every round of the request before it: a loop that
    rebuilds its messages for the correction (messages = messages[:2] + correction) throws away the
    tool calls already made, and the model starts the task over."""
    for number, (before, after) in enumerate(zip(run.exchanges, run.exchanges[1:]), start=2):
        if before.layout != "broken":
            continue
        kept = tool_rounds(after.messages)
        lost = [r for r in tool_rounds(before.messages) if r not in kept]
        expect(not lost, "correction_dropped_rounds", request=number, broken=number - 1,
               reply=lost and lost[0][0], result=lost and repr(lost[0][1]), got=shown(after.messages))


def expect_correction_order(learner, run):
    """After a broken reply, the loop's next request does not hold it as an assistant message but
    quotes it in a user message that comes right after an assistant message: the loop called
    correction_messages(str(error), reply), its arguments swapped, while correction_messages itself,
    called as correction_messages(reply, error), puts the reply first (else TODO 1.3 says so)."""
    for before, after in zip(run.exchanges, run.exchanges[1:]):
        if before.layout != "broken":
            continue
        squashed = "".join(before.reply.split())
        sent = [m for m in after.messages or [] if isinstance(m, dict)]
        if any(m.get("role") == "assistant" and squashed in "".join(content_text(m).split()) for m in sent):
            continue
        swapped = [(a, b) for a, b in zip(sent, sent[1:]) if a.get("role") == "assistant" and b.get("role") == "user"
                   and squashed in "".join(content_text(b).split())]
        if swapped and puts_reply_first(learner, before.reply):
            expect(False, "correction_args_swapped", reply=before.reply, got=shown(list(swapped[0])))


def puts_reply_first(learner, reply) -> bool:
    """Whether your correction_messages(reply, error) starts with the reply as an assistant message."""
    try:
        messages = learner.call("correction_messages", reply, "no complete JSON object")
    except Fail:
        return False
    first = messages[0] if isinstance(messages, list) and messages else None
    return isinstance(first, dict) and first.get("role") == "assistant" and content_text(first).strip() == reply.strip()


def parse_error(learner, reply) -> str:
    """The message of the ValueError the learner's parse_decision raises for `reply` ("" if none)."""
    try:
        learner.call("parse_decision", reply)
    except Fail as failure:
        return str(failure.params.get("message", "")).strip() if failure.raised_a("ValueError") else ""
    return ""


def writes_tool_message(learner, reply) -> bool:
    """Whether your correction_messages itself answers with a tool message: TODO 1.3's mistake,
    which its own check reports, not the loop's."""
    try:
        messages = learner.call("correction_messages", reply, "no complete JSON object")
    except Fail:
        return False
    return isinstance(messages, list) and any(isinstance(m, dict) and m.get("role") == "tool" for m in messages)


@check("1.5", points=1, en="a tool error goes back as the tool's result, and the model recovers",
       zh="工具报错作为工具结果交回，模型自我纠正")
def test_tool_error_recovers(learner, world):
    v = numbers(world, "wrong_args")
    run = run_agent(learner, world, "wrong_args")
    expect_answer(run, str(v["b"] * v["d"] + v["c"]), explain)


@check("1.5", points=1, en="a model that never finishes: exactly max_steps calls, then a fallback; an answer with the last call allowed is returned",
       zh="模型永不结束：恰好调用 max_steps 次，然后返回兜底信息；随允许的最后一次调用回来的答案照样返回")
def test_stops_at_max_steps(learner, world):
    expect_step_limit(run_agent(learner, world, "endless", 4), 4, explain)
    expect_answer_at_limit(learner, world)


def expect_answer_at_limit(learner, world):
    """The arithmetic task with max_steps = the calls it takes: the answer comes with the last call
    allowed. The limit stops the loop from calling the model again; it never throws away a reply that
    came (a loop that tests its counter before it reads the reply returns its fallback instead)."""
    v = numbers(world, "arithmetic")
    expected = str(v["a"] * v["b"] + v["c"])
    full = run_agent(learner, world, "arithmetic")
    if not (isinstance(full.answer, str) and expected in full.answer):
        return  # no answer even with steps to spare: the arithmetic task's check says why
    needed = len(full.exchanges)
    run = run_agent(learner, world, "arithmetic", needed)
    last = run.exchanges[-1] if run.exchanges else None
    if len(run.exchanges) == needed and last.layout != "broken" and last.decision.get("type") == "final":
        expect(isinstance(run.answer, str) and expected in run.answer, "answer_at_limit_dropped", max_steps=needed,
               answer=quoted(last.decision.get("content")), got=quoted(run.answer))


@check("1.5", points=1, en="returns the final decision's content, not the reply text",
       zh="返回 final 决策的 content，而不是回复原文")
def test_returns_content(learner, world):
    run = run_agent(learner, world, "arithmetic")
    expect(run.exchanges, "no_llm_call")
    last = run.exchanges[-1]
    if last.decision.get("type") != "final" or last.layout == "broken":
        explain(run)
        expect(False, "returned_before_final", got=quoted(run.answer), call=tool_call_text(last.decision))
    got = run.answer.strip() if isinstance(run.answer, str) else run.answer
    if got != last.decision["content"]:
        explain(run)  # a final reply the parser refused ends the run at its limit: said as that
    expect(got == last.decision["content"], "raw_reply", got=quoted(run.answer), expected=last.decision["content"])


@check("1.4", points=1, en="an unknown tool's error says there is no such tool, not that it failed",
       zh="未知工具的错误说明没有这个工具，而不是说它执行失败")
def test_unknown_tool_said(learner, world):
    v = numbers(world, "arithmetic")
    args = {"expression": f"{v['a']} * {v['b']}"}
    result, _ = run_execute_tool(learner, world, "calculator", args, crash_key="unknown_tool_crashed")
    expect_unknown_tool_said(result, "calculator", result, ALL_TOOLS)


@check("1.5", points=1, en="the step limit's message is the agent's own, not the question handed back",
       zh="步数上限时返回的是 Agent 自己的信息，而不是把问题原样返回")
def test_fallback_is_its_own(learner, world):
    expect_own_fallback(run_agent(learner, world, "endless", 4), 4)


@check("1.5", points=1, en="a correction round costs a step: still exactly max_steps calls",
       zh="纠正回合也算一步：仍然恰好调用 max_steps 次")
def test_correction_costs_a_step(learner, world):
    run = run_agent(learner, world, "garbled", 4)
    calls, broken = len(run.exchanges), sum(e.layout == "broken" for e in run.exchanges)
    expect(calls <= 4 or calls - broken > 4, "correction_free", max_steps=4, calls=calls, broken=broken)
    expect_step_limit(run, 4, explain)
    # the calls are correction rounds only if each broken reply went back with what was wrong
    if any(e.layout == after.layout == "broken" for e, after in zip(run.exchanges, run.exchanges[1:])):
        expect_correction_order(learner, run)
        explain_broken(run, next(e.reply for e in run.exchanges if e.layout == "broken"))
