"""Day 09 checks: plain pytest tests, one behaviour each, listed in the report in this order.

A conversation runs through your file's `converse(question, session, *follow_ups)`: the checks
build your ChatSession in your process (with the grader's get_weather, and sometimes a small
max_messages), and each request your client sends is answered by the mock model, which reads the
latest user message to know which turn of the conversation it is in (scenarios.yaml).
"""
import ast
import json

from validator.checking import (Fail, chat_text, check, expect, expect_accepted, expect_system_prompt_used,
                                is_own_message, learner_object, registry_arg, request_messages, shown)

MODEL = "mock-react-1"


# ---------------------------------------------------------------- running a conversation

def run_conversation(learner, world, scenario, questions=None, **options):
    """Your converse() on a conversation of scenarios.yaml: its first question, then `questions`
    (default: its follow-ups), through one new ChatSession(tool_impl, **options)."""
    story = world.scenarios[scenario]
    follow = [turn.question for turn in story.follow_ups] if questions is None else questions
    session = learner_object("ChatSession", registry_arg(story.tools), **options)
    try:
        run = learner.run_agent("converse", scenario, session, *follow)
    except Fail:
        expect_accepted(learner.runs[-1], roles=roles)
        raise
    expect_accepted(run, roles=roles)
    expect(run.exchanges, "no_request")
    asked = any((e.response or {}).get("choices", [{}])[0].get("message", {}).get("tool_calls") for e in run.exchanges)
    if asked and not run.tool_calls:  # the tools it was given never ran: its own did, or none did
        fail_tools_not_used(learner, run)
    answers = run.answer
    expect(isinstance(answers, list) and len(answers) == len(follow) + 1, "answers_wrong",
           count=len(follow) + 1, got=shown(answers))
    return run


def fail_tools_not_used(learner, run):
    """Why none of the given tools ran, as far as the source and the conversation show it. The session
    keeps its argument (__init__, or a dataclass's field) and another method names the module's tools
    (TOOL_IMPL, get_weather): ask runs those. It keeps it, and each tool message ask sent back is an
    error, no tool's result: no tool ran at all, for the way ask calls execute_tool. Else the session
    runs tools of its own: __init__'s mistake."""
    own = {"TOOL_IMPL", *run.scenario.tools}
    results = tool_results(run)
    for cls in session_classes(learner):
        methods = [item for item in cls.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))]
        init = next((m for m in methods if m.name == "__init__"), None)
        kept = kept_argument(init) if init else dataclass_field(cls)
        for method in methods if kept else ():
            name = next((n.id for n in ast.walk(method) if isinstance(n, ast.Name) and n.id in own), None)
            if method is not init and name:
                raise Fail("tool_impl_not_used", method=method.name, attribute=kept, name=name)
        if kept and results and not any("temp_c" in result for _, result in results):
            call, result = results[0]
            raise Fail("tool_call_failed", call=call, result=result, attribute=kept)
    raise Fail("tool_impl_not_kept")


def tool_results(run) -> list[tuple[str, str]]:
    """Each tool call the model asked for, as `name(arguments)`, with the content of the tool message
    a later request of the conversation answered it with (the calls no request answered left out)."""
    found = []
    for index, exchange in enumerate(run.exchanges):
        choices = (exchange.response or {}).get("choices") if exchange.status == 200 else None
        for call in (choices[0].get("message") or {}).get("tool_calls") or [] if choices else []:
            answers = (chat_text(m) for later in run.exchanges[index + 1:] for m in request_messages(later)
                       if m.get("role") == "tool" and m.get("tool_call_id") == call.get("id"))
            result = next(answers, None)
            if result is not None:
                function = call.get("function") or {}
                found.append((f"{function.get('name')}({function.get('arguments')})", result))
    return found


def session_classes(learner) -> list[ast.ClassDef]:
    """Each ChatSession class of the learner's source ([] when it does not parse)."""
    tree = learner.syntax_tree()
    return [node for node in (ast.walk(tree) if tree else ()) if isinstance(node, ast.ClassDef)
            and node.name == "ChatSession"]


def dataclass_field(cls: ast.ClassDef) -> str | None:
    """The first field of a @dataclass ChatSession with no __init__ of its own (where the dataclass
    keeps tool_impl, the first argument)."""
    if not any("dataclass" in ast.unparse(d) for d in cls.decorator_list):
        return None
    return next((item.target.id for item in cls.body
                 if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)), None)


def session_methods(learner) -> list[list]:
    """The methods of each ChatSession class in the learner's source ([] when it does not parse)."""
    return [[item for item in cls.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))]
            for cls in session_classes(learner)]


def ignores_max_messages(learner) -> bool:
    """Whether ChatSession.__init__, as the source shows it, takes max_messages and never uses it
    (self.max_messages = MAX_MESSAGES): a session made with max_messages=6 trims to the default."""
    for methods in session_methods(learner):
        for init in (m for m in methods if m.name == "__init__"):
            params = [a.arg for a in init.args.posonlyargs + init.args.args + init.args.kwonlyargs]
            used = {n.id for n in ast.walk(init) if isinstance(n, ast.Name)}
            return "max_messages" in params and "max_messages" not in used
    return False


def changes_max_messages(learner) -> str | None:
    """The expression ChatSession.__init__ keeps in place of its max_messages argument, when it keeps
    one computed from it (self.max_messages = max_messages - 1): the session trims to another number."""
    for methods in session_methods(learner):
        for init in (m for m in methods if m.name == "__init__"):
            for node in ast.walk(init):
                if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) for t in node.targets)
                        and isinstance(node.value, ast.BinOp)
                        and any(isinstance(n, ast.Name) and n.id == "max_messages" for n in ast.walk(node.value))):
                    return ast.unparse(node.value)
    return None


def trim_calls(learner) -> list[tuple[ast.AST, ast.Call, ast.AST]]:
    """Each call of trim_history in a ChatSession method but __init__, as (method, call, its parent)."""
    found = []
    for methods in session_methods(learner):
        for method in (m for m in methods if m.name != "__init__"):
            for parent in ast.walk(method):
                for child in ast.iter_child_nodes(parent):
                    if isinstance(child, ast.Call) and (getattr(child.func, "id", None) == "trim_history"
                                                        or getattr(child.func, "attr", None) == "trim_history"):
                        found.append((method, child, parent))
    return found


def discards_trim(learner) -> bool:
    """Whether ask calls trim_history and never uses what it returns: a statement of its own
    (trim_history(self.messages, …)), or a name it is kept in that nothing reads."""
    for method, call, parent in trim_calls(learner):
        if isinstance(parent, ast.Expr):
            return True
        if isinstance(parent, ast.Assign) and all(isinstance(t, ast.Name) for t in parent.targets):
            names = {t.id for t in parent.targets}
            if not any(isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load)
                       for n in ast.walk(method)):
                return True
    return False


def trims_to_other(learner) -> str | None:
    """The limit ask hands trim_history when it is computed from max_messages, not max_messages itself
    (trim_history(self.messages, self.max_messages - 1)): the requests trim to another number."""
    for _, call, _ in trim_calls(learner):
        given = call.args[1:2] + [k.value for k in call.keywords if k.arg == "max_messages"]
        for limit in given:
            plain = isinstance(limit, ast.Name) or isinstance(limit, ast.Attribute)
            if not plain and any(getattr(n, "attr", getattr(n, "id", None)) == "max_messages"
                                 for n in ast.walk(limit)):
                return ast.unparse(limit)
    return None


def kept_argument(init: ast.FunctionDef) -> str | None:
    """The attribute __init__ keeps its first argument in (self.tool_impl = tool_impl), if any."""
    params = init.args.posonlyargs + init.args.args
    if len(params) < 2:
        return None
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and any(isinstance(n, ast.Name) and n.id == params[1].arg
                                                for n in ast.walk(node.value)):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and getattr(target.value, "id", None) == params[0].arg:
                    return target.attr
    return None


def run_agent(learner, world, scenario):
    """For `validate.py day09 --live`: a whole conversation with a real model."""
    return run_conversation(learner, world, scenario)



def roles(messages) -> str:
    """A messages list as a learner pictures it: system → user → assistant(tool_calls) → tool → …"""
    if not isinstance(messages, list):
        return shown(messages)
    return " → ".join(f"{m.get('role')}(tool_calls)" if isinstance(m, dict) and m.get("tool_calls")
                      else str(m.get("role")) if isinstance(m, dict) else shown(m) for m in messages)


def turn_requests(run, question: str) -> list:
    """The requests of the turn whose question is `question`: those whose last user message holds it."""
    found = []
    for exchange in run.exchanges:
        users = [chat_text(m) for m in request_messages(exchange) if m.get("role") == "user"]
        if users and question in users[-1]:
            found.append(exchange)
    return found


def expect_each_reply_once(run):
    """No request holds two assistant messages in a row: each reply goes into the history once, then
    its tool results or the next question follow it. A turn that appends the reply as soon as it comes,
    then the answer again before returning it, resends every answer twice, and the trim drops earlier
    turns sooner."""
    for number, exchange in enumerate(run.exchanges, start=1):
        messages = request_messages(exchange)
        pairs = [(a, b) for a, b in zip(messages, messages[1:]) if a.get("role") == b.get("role") == "assistant"]
        expect(not pairs, "reply_appended_twice", request=number, got=shown(list(pairs[0])) if pairs else "")


def expect_in_answer(run, index, question, expected):
    answer = run.answer[index]
    expect(isinstance(answer, str) and expected in answer, "answer_missing", question=question,
           expected=expected, got=shown(answer))
    run.expect_from_model(expected, answer)


# ---------------------------------------------------------------- TODO 1.1 ChatSession.__init__

def first_request(learner, world, scenario):
    """The first request of a new conversation, even when the conversation fails later on (that
    is another TODO's failure); Fail when there is none."""
    try:
        run = run_conversation(learner, world, scenario, questions=[])
    except Fail:
        run = learner.runs[-1] if learner.runs else None
        if not (run and run.exchanges and run.exchanges[0].status == 200):
            raise
    return run.scenario.question, request_messages(run.exchanges[0])


@check("1.1", points=1, en="a new session's first request: the system message and the question, nothing else",
       zh="新会话的第一个请求：system 消息加问题，别无其他")
def test_first_request(learner, world):
    question, messages = first_request(learner, world, "there")
    expect_no_leak(learner, messages, question)
    expect(not (len(messages) == 2 and messages[0].get("role") != "system" and chat_text(messages[1]) == question),
           "system_prompt_role", role=messages[0].get("role") if messages else None, got=roles(messages))
    ok = (len(messages) == 2 and messages[0].get("role") == "system" and chat_text(messages[0]).strip()
          and messages[1].get("role") == "user" and chat_text(messages[1]) == question)
    if not ok and len(messages) > 2 and messages[0].get("role") == "system":
        if trimmed_length(learner, [messages[0], {"role": "user", "content": question}], 20) > 2:
            return  # trim_history adds to a history that fits, not __init__: 2.1's checks say so
    expect(ok, "first_request_wrong", got=roles(messages), question=question)
    expect_system_prompt_used(learner, chat_text(messages[0]))


@check("1.1", points=1, en="keeps the tool_impl it is given: those are the tools that run",
       zh="保存传入的 tool_impl：运行的就是这些工具")
def test_keeps_tool_impl(learner, world):
    try:
        run_conversation(learner, world, "there", questions=[])
    except Fail as failure:  # anything else went wrong in ask, after a first request: 3.1's checks say what
        if failure.key == "tool_impl_not_kept" or not_set_by_init(learner, failure):
            raise


def not_set_by_init(learner, failure: Fail) -> bool:
    """The conversation failed before its first request (no session: __init__ raised, or is not
    written), or on ask's AttributeError for an attribute of the session's that __init__ never set."""
    run = learner.runs[-1] if learner.runs else None
    return not (run and run.exchanges) or (
        failure.params.get("type") == "AttributeError"
        and "'ChatSession' object has no attribute" in str(failure.params.get("message", "")))


@check("1.1", points=1, en="keeps the max_messages it is given: ChatSession(max_messages=6) trims to 6",
       zh="保存传入的 max_messages：ChatSession(max_messages=6) 裁剪到 6 条")
def test_keeps_max_messages(learner, world):
    try:
        run = run_conversation(learner, world, "trip", max_messages=6)
    except Fail as failure:  # ask's failure, which 3.1's checks say, unless __init__ left it out
        if not_set_by_init(learner, failure):
            raise
        if not failure.raised:  # the conversation ran to its end, judged wrong afterwards
            expect_limit_shown(learner, learner.runs[-1], 6)
        return
    too_long = any(len(request_messages(exchange)) > 6 for exchange in run.exchanges)
    expect(not (too_long and ignores_max_messages(learner)), "max_messages_not_kept")
    expect_limit_shown(learner, run, 6)
    kept = changes_max_messages(learner)
    too_short = all(len(request_messages(exchange)) < 6 for exchange in run.exchanges)
    expect(not (too_short and kept), "max_messages_changed", kept=kept)


def expect_limit_shown(learner, run, limit):
    """Requests of `limit` messages or fewer show a limit kept only from a conversation that grew past
    it: a session that keeps nothing never has more than `limit` to send, nor anything to trim. Then
    only the source can show it: an __init__ that never uses its max_messages argument keeps none.
    (A session that forgets its turns, but keeps max_messages, loses TODO 3.1's points, not these.)"""
    sent = {json.dumps(m, sort_keys=True, ensure_ascii=False, default=str)
            for exchange in run.exchanges for m in request_messages(exchange)}
    expect(len(sent) > limit or not ignores_max_messages(learner), "max_messages_never_reached",
           count=len(sent), requests=len(run.exchanges))


@check("1.1", points=1, en="a fresh session does not see the conversation before it",
       zh="新会话看不到之前那个会话的内容")
def test_fresh_session(learner, world):
    try:  # one turn is enough: a history that outlives its session holds this question now
        run_conversation(learner, world, "there", questions=[])
    except Fail:
        pass
    question, messages = first_request(learner, world, "there_alone")
    expect_no_leak(learner, messages, question)
    # Sessions made one after another look fresh when __init__ empties a shared list and refills it:
    # two sessions alive at once still write into one list. The checks build one session per
    # conversation, so the source says it.
    shared = shared_list_reset(learner)
    if shared:
        raise Fail("leaked_shared_reset", line=shared[0], how=shared[1], attribute=shared[2])


MUTATORS = {"clear", "append", "extend", "insert", "pop", "remove", "sort", "reverse", "appendleft", "popleft",
            "extendleft", "update", "setdefault", "popitem", "__setitem__", "__delitem__", "__iadd__"}


def shared_list_reset(learner) -> tuple[str, str, str] | None:
    """(where the list is made, how __init__ resets it, the attribute) when ChatSession's __init__ (or
    a method it calls, or its base class's __init__) empties or refills in place a list made once for
    every session: a list in the class body that __init__ never replaces with one of its own
    (self.x = [...]), or a module-level list or a default argument's list it keeps (self.x = HISTORY)."""
    tree = learner.syntax_tree()
    if not tree:
        return None
    module_lists = {t.id: f"{t.id} = [...]" for item in tree.body
                    if isinstance(item, (ast.Assign, ast.AnnAssign)) and is_mutable(item.value)
                    for t in (item.targets if isinstance(item, ast.Assign) else [item.target]) if isinstance(t, ast.Name)}
    classes = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    session = classes.get("ChatSession")
    if session is None:
        return None
    lineage = [session] + [classes[b.id] for b in session.bases if isinstance(b, ast.Name) and b.id in classes]
    class_lists = {}  # attribute -> its line in a class body
    for cls in lineage:
        for item in cls.body:
            if isinstance(item, (ast.Assign, ast.AnnAssign)) and is_mutable(item.value):
                for t in item.targets if isinstance(item, ast.Assign) else [item.target]:
                    if isinstance(t, ast.Name):
                        class_lists.setdefault(t.id, f"{ast.unparse(t)} = [...]")
    family, defaults = [], {}  # the methods that make a session; parameter -> its list default
    for cls in lineage:
        methods = {m.name: m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for init in (methods.get("__init__"), methods.get("__post_init__")):
            params = (init.args.posonlyargs + init.args.args) if init else []
            if not params:
                continue
            called = {n.func.attr for n in ast.walk(init) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                      and isinstance(n.func.value, ast.Name) and n.func.value.id == params[0].arg}
            family += [init] + [m for name, m in methods.items() if name in called and m is not init]
            pairs = list(zip(params[len(params) - len(init.args.defaults):], init.args.defaults))
            pairs += [(a, d) for a, d in zip(init.args.kwonlyargs, init.args.kw_defaults) if d is not None]
            defaults |= {a.arg: f"{a.arg}={ast.unparse(d)}" for a, d in pairs
                         if is_mutable(d) and not isinstance(d, ast.Dict)}
    if not family:
        return None

    def own_attribute(node, method) -> str | None:
        params = method.args.posonlyargs + method.args.args
        if (params and isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id == params[0].arg):
            return node.attr
        return None

    shared, own, names = {}, set(), {}  # shared: attribute -> where its list is made; names: alias -> attribute
    for method in family:
        for node in ast.walk(method):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr":
                return None  # attributes set by name: the source does not say which
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                attr, value = own_attribute(target, method), node.value
                if attr is None:
                    continue
                if isinstance(value, ast.Name) and (value.id in module_lists or value.id in defaults):
                    shared[attr] = defaults.get(value.id) or module_lists[value.id]  # where the list is made
                    names[value.id] = attr
                elif (isinstance(value, ast.Attribute) and value.attr in class_lists
                      and own_attribute(value, method) is None):
                    shared[attr] = ast.unparse(node)  # self.messages = ChatSession.messages
                else:
                    own.add(attr)  # a list of its own (or anything else the source cannot tell)
    for attr, line in class_lists.items():
        shared.setdefault(attr, line)
    for method in family:
        for node in ast.walk(method):
            targets = []
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
                targets = [node.func.value]  # self.messages.clear(), .append(…), .extend(…)
            elif isinstance(node, ast.Delete):
                targets = [t.value for t in node.targets if isinstance(t, ast.Subscript)]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = [t.value for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                           if isinstance(t, ast.Subscript)]
            elif isinstance(node, ast.AugAssign):
                targets = [node.target]
            for target in targets:
                attr = own_attribute(target, method) or (names.get(target.id) if isinstance(target, ast.Name) else None)
                if attr in shared and attr not in own:
                    return shared[attr], ast.unparse(node).split("\n")[0], attr
    return None


def expect_no_leak(learner, messages, question):
    """A new session's first request holds nothing but the system message and its question. (A
    request that starts with a user message and holds no system message has its system prompt
    under the wrong role: test_first_request says so, not that it leaked.)"""
    system_as_user = not any(m.get("role") == "system" for m in messages)
    for index, message in enumerate(messages):
        if index == 0 and system_as_user and message.get("role") == "user":
            continue
        if message.get("role") in ("assistant", "tool") or (message.get("role") == "user"
                                                             and question not in chat_text(message)):
            fail_leak(learner, chat_text(message) or roles([message]))


def fail_leak(learner, found):
    """The history outlived its session: say where it is kept, if the source shows it."""
    tree = learner.syntax_tree()
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, ast.ClassDef) and node.name == "ChatSession":
            grown = grown_attributes(node)
            for item in node.body:  # a list in the class body that methods add to: shared by every instance
                value = item.value if isinstance(item, (ast.Assign, ast.AnnAssign)) else None
                names = {t.id for t in (item.targets if isinstance(item, ast.Assign) else [getattr(item, "target", None)])
                         if isinstance(t, ast.Name)}
                if is_mutable(value) and names & grown:
                    target = item.targets[0] if isinstance(item, ast.Assign) else item.target
                    shape = {ast.List: "[...]", ast.Dict: "{...}", ast.Set: "{...}"}.get(type(value), "...()")
                    raise Fail("leaked_class_attribute", found=found, line=f"{ast.unparse(target)} = {shape}")
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    args = item.args
                    positional = args.posonlyargs + args.args
                    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
                    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
                    for arg, default in pairs:
                        if is_mutable(default) and not isinstance(default, ast.Dict):  # tool_impl={…} is fine
                            raise Fail("leaked_default", found=found, param=f"{arg.arg}={ast.unparse(default)}")
    raise Fail("leaked", found=found)


def grown_attributes(cls: ast.ClassDef) -> set[str]:
    """The names a class's methods add to through self (self.x.append(…), self.x += …, self.x[i] = …):
    a class constant they only read (TOOLS = [...]) is no history, and is not blamed."""
    def attribute(node) -> str | None:
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return node.attr
        return None
    grown = set()
    for node in ast.walk(cls):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "append", "extend", "insert", "update", "add", "setdefault", "__setitem__"):
            grown.add(attribute(node.func.value))
        elif isinstance(node, ast.AugAssign):
            grown.add(attribute(node.target))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Subscript):
                    grown.add(attribute(target.value))
    return grown - {None}


def is_mutable(node) -> bool:
    return isinstance(node, (ast.List, ast.Dict, ast.Set)) or (
        isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("list", "dict", "set", "deque"))


# ---------------------------------------------------------------- TODO 2.1 trim_history

def call(call_id, city):
    return {"id": call_id, "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps({"city": city}, ensure_ascii=False)}}


def history(world) -> list[dict]:
    """Three turns as a session keeps them; the second with two calls in one reply."""
    w = world.weather
    report = {city: json.dumps({"city": city, **w[city]}, ensure_ascii=False) for city in ("北京", "上海", "广州")}
    return [
        {"role": "system", "content": "You are a weather assistant."},
        {"role": "user", "content": "北京天气怎么样？"},
        {"role": "assistant", "content": "我查一下北京的天气。", "tool_calls": [call("call_a1", "北京")]},
        {"role": "tool", "tool_call_id": "call_a1", "content": report["北京"]},
        {"role": "assistant", "content": f"北京今天{w['北京']['sky']}，{w['北京']['temp_c']}°C。"},
        {"role": "user", "content": "那上海和广州呢？"},
        {"role": "assistant", "content": "我同时查上海和广州。",
         "tool_calls": [call("call_b1", "上海"), call("call_b2", "广州")]},
        {"role": "tool", "tool_call_id": "call_b1", "content": report["上海"]},
        {"role": "tool", "tool_call_id": "call_b2", "content": report["广州"]},
        {"role": "assistant", "content": f"上海 {w['上海']['temp_c']}°C；广州 {w['广州']['temp_c']}°C。"},
        {"role": "user", "content": "哪个更潮湿？"},
    ]


def trim(learner, messages, max_messages):
    got = learner.call("trim_history", messages, max_messages)
    expect(isinstance(got, list) and all(isinstance(m, dict) for m in got), "not_a_list", got=shown(got))
    return got


def expect_trimmed(learner, world, messages, max_messages):
    """trim_history's result is what a request may carry: system first, at most max_messages, the
    most recent messages in order, accepted by the API, and no shorter than a cut at a user message."""
    got = trim(learner, messages, max_messages)
    params = {"max": max_messages, "got": roles(got), "count": len(got), "total": len(messages)}
    expect(got and got[0] == messages[0], "trim_no_system", **params)
    expect(len(got) <= max_messages, "trim_too_long", **params)
    expect(len(got) == 1 or got[1:] == messages[len(messages) - len(got) + 1:], "trim_not_recent", **params)
    expect_accepted_history(world, got, params)
    users = [i for i, m in enumerate(messages) if i and m["role"] == "user" and len(messages) - i <= max_messages - 1]
    best = 1 + len(messages) - users[0] if users else 1
    expect(len(got) >= best, "trim_too_short", best=best, **params)


def expect_accepted_history(world, got, params):
    """The API takes the trimmed history: no tool result whose call was cut off."""
    status, body = world.session("there").handle("POST", "/v1/chat/completions", {"model": MODEL, "messages": got})
    if status == 400:
        raise Fail("trim_orphan", message=body["error"]["message"], **params)


@check("2.1", points=1, en="a history that fits comes back whole", zh="放得下的历史原样返回")
def test_trim_fits(learner, world):
    messages = history(world)
    for max_messages in (len(messages), len(messages) + 5):
        got = trim(learner, messages, max_messages)
        expect(got == messages, "trim_changed", max=max_messages, count=len(messages), got=roles(got))
    expect_cuts(learner, world, messages)


def expect_cuts(learner, world, messages):
    """A history that fits, given back whole, counts only from a trim_history that also cuts one that
    does not fit: returning every history unchanged trims nothing."""
    try:
        expect_trimmed(learner, world, messages, 7)
    except Fail as failure:
        raise Fail("trim_must_cut_first", count=len(messages), got=roles(trimmed(learner, messages, 7))) from failure


@check("2.1", points=1, en="too long: the system message, then the most recent messages",
       zh="太长时：保留 system 消息，再接上最近的消息")
def test_trim_keeps_system_and_recent(learner, world):
    messages = history(world)
    expect_trimmed(learner, world, messages, 7)  # the cut falls on a user message
    got = trim(learner, messages, 1)  # nothing fits after the system message (a [-0:] slice keeps everything)
    params = {"max": 1, "got": roles(got), "count": len(got), "total": len(messages)}
    expect(got and got[0] == messages[0], "trim_no_system", **params)
    expect(len(got) == 1, "trim_system_only", **params)


@check("2.1", points=1, en="a cut that falls on a tool result drops it with its call",
       zh="裁剪点落在工具结果上时，连同它的调用一起去掉")
def test_trim_no_orphan(learner, world):
    expect_trimmed(learner, world, history(world), 9)  # the cut falls on the first tool message


def three_calls_history(world) -> list[dict]:
    """One turn whose reply made three calls at once, then a question: more results in a row than
    a trim that skips a fixed number of them (an `if` or two in place of a `while`) moves past."""
    w = world.weather
    cities = ("北京", "上海", "广州")
    ids = [f"call_d{n}" for n in range(1, 4)]
    return [
        {"role": "system", "content": "You are a weather assistant."},
        {"role": "user", "content": "北京、上海和广州天气怎么样？"},
        {"role": "assistant", "content": "我同时查三个城市。", "tool_calls": [call(i, c) for i, c in zip(ids, cities)]},
        *({"role": "tool", "tool_call_id": i, "content": json.dumps({"city": c, **w[c]}, ensure_ascii=False)}
          for i, c in zip(ids, cities)),
        {"role": "assistant", "content": "；".join(f"{c} {w[c]['temp_c']}°C" for c in cities) + "。"},
        {"role": "user", "content": "哪个最热？"},
    ]


@check("2.1", points=1, en="several results of one reply: all go, or all stay with their call",
       zh="同一次回复的多个结果：要么全都去掉，要么全都和它们的调用一起保留")
def test_trim_parallel_results(learner, world):
    messages = history(world)
    for max_messages in (5, 4):  # the cut falls on the first, then the second, of two tool messages
        expect_trimmed(learner, world, messages, max_messages)
    three = three_calls_history(world)
    for max_messages in (6, 5, 4):  # the cut falls on the first, second, then third of three tool messages
        expect_trimmed(learner, world, three, max_messages)


# ---------------------------------------------------------------- TODO 3.1 ChatSession.ask

@check("3.1", points=1, en="one question: the answer holds the tool's weather", zh="一个问题：回答里有工具查到的天气")
def test_one_question(learner, world):
    run = run_conversation(learner, world, "there", questions=[])
    city = run.scenario.values["city"]
    expect_in_answer(run, 0, run.scenario.question, f"{world.weather[city]['temp_c']}°C")


@check("3.1", points=1, en="remembers: \"那里\" is the city of the first question",
       zh="记得住：“那里”就是第一个问题里的城市")
def test_remembers(learner, world):
    run = run_conversation(learner, world, "there")
    city = run.scenario.values["city"]
    follow = run.scenario.follow_ups[0]
    expected = f"{city}现在 {world.weather[city]['temp_c']}°C"
    if not (isinstance(run.answer[1], str) and expected in run.answer[1]):
        requests = turn_requests(run, follow.question)
        if requests and not any(m.get("role") == "user" and run.scenario.question in chat_text(m)
                                for m in request_messages(requests[0])):
            raise Fail("not_remembered", question=follow.question, got=shown(run.answer[1]),
                       roles=roles(request_messages(requests[0])))
    expect_in_answer(run, 1, follow.question, expected)


@check("3.1", points=1, en="the next turn's request carries the whole turn before it, answer included",
       zh="下一轮的请求带着完整的上一轮，包括回答")
def test_turn_kept_whole(learner, world):
    run = run_conversation(learner, world, "there")
    question, follow = run.scenario.question, run.scenario.follow_ups[0].question
    requests = turn_requests(run, follow)
    expect(requests, "no_request")
    expect_each_reply_once(run)
    messages = request_messages(requests[0])
    answer = run.answer[0] if isinstance(run.answer[0], str) else ""
    if not any(m.get("role") == "user" and question in chat_text(m) for m in messages):
        raise Fail("turn_not_kept", question=follow, earlier=question, got=roles(messages))
    if answer and not any(m.get("role") == "assistant" and answer in chat_text(m) for m in messages):
        raise Fail("answer_not_kept", question=follow, answer=answer)
    # The calls the model made in the first turn of this conversation, and the turn as the request
    # carries it: from the last user message that asked it to the follow-up.
    first_turn = run.exchanges[:next(i for i, e in enumerate(run.exchanges) if e is requests[0])]
    ids = [c["id"] for e in first_turn if e.status == 200
           for c in e.response["choices"][0]["message"].get("tool_calls") or []]
    asked = [i for i, m in enumerate(messages) if m.get("role") == "user" and question in chat_text(m)]
    turn = messages[asked[-1]:] if asked else []
    called = [c.get("id") for m in turn if m.get("role") == "assistant"
              for c in m.get("tool_calls") or [] if isinstance(c, dict)]
    answered = [m.get("tool_call_id") for m in turn if m.get("role") == "tool"]
    ok = (len(turn) >= 3 and turn[-1].get("role") == "user" and follow in chat_text(turn[-1])
          and turn[-2].get("role") == "assistant" and answer in chat_text(turn[-2])
          and called == ids and sorted(answered) == sorted(ids))
    expect(ok, "turn_not_kept", question=follow, earlier=question, got=roles(messages))


def trimmed(learner, messages, max_messages) -> list:
    """What the learner's trim_history keeps; [] when it gives no list."""
    try:
        got = learner.call("trim_history", messages, max_messages)
    except Fail:
        return []
    return got if isinstance(got, list) else []


def trimmed_length(learner, messages, max_messages) -> int:
    """How many messages the learner's trim_history keeps; 0 when it gives no list."""
    return len(trimmed(learner, messages, max_messages))


@check("3.1", points=1, en="a long conversation, max_messages=6: every request trimmed, none refused, every answer right",
       zh="长对话，max_messages=6：每个请求都裁剪过、没有被拒绝、每个回答都对")
def test_long_conversation(learner, world):
    run = run_conversation(learner, world, "trip", max_messages=6)
    first = request_messages(run.exchanges[0]) if run.exchanges else []
    started_with_system = bool(first) and first[0].get("role") == "system"
    expect_each_reply_once(run)
    for number, exchange in enumerate(run.exchanges, start=1):
        messages = request_messages(exchange)
        if len(messages) > 6:
            kept = trimmed_length(learner, messages, 6)  # too long from trim_history itself? Then say so.
            expect(kept <= 6, "request_too_long_trimmed", request=number, count=len(messages), max=6, got=kept)
            expect(not ignores_max_messages(learner), "max_messages_not_kept")
            expect(not discards_trim(learner), "trim_result_discarded", request=number, count=len(messages), max=6)
            raise Fail("request_too_long", request=number, count=len(messages), max=6)
        if started_with_system:  # else __init__ gave no system message to keep: 1.1's checks say so
            expect(messages and messages[0].get("role") == "system", "request_no_system", request=number,
                   roles=roles(messages))
    story, values, w = run.scenario, run.scenario.values, world.weather
    try:
        expect_in_answer(run, 0, story.question, f"{w[values['city']]['temp_c']}°C")
        follow = story.follow_ups
        expect_in_answer(run, 1, follow[0].question, f"{values['city']}现在 {w[values['city']]['temp_c']}°C")
        for city in (values["other"], values["third"]):
            expect_in_answer(run, 2, follow[1].question, f"{city}现在 {w[city]['temp_c']}°C")
    except Fail:  # a wrong answer: from a trim that cut a turn that still fitted, or kept the wrong ones?
        talk = [{"role": "system", "content": "s"}] + [{"role": ("user", "assistant")[i % 2], "content": str(i)}
                                                        for i in range(7)]
        kept = trimmed(learner, talk, 6)
        expect(len(kept) in (0, 6), "trimmed_too_much", count=len(talk), max=6, got=len(kept))
        expect(not kept or kept == talk[:1] + talk[-5:], "trimmed_wrong_ones", count=len(talk), max=6,
               got=", ".join(str(m.get("content")) if isinstance(m, dict) else "?" for m in kept))
        changed = changes_max_messages(learner)
        longest = max((len(request_messages(e)) for e in run.exchanges), default=0)
        expect(not changed or longest >= 6, "max_messages_changed", kept=changed)
        other = trims_to_other(learner)
        expect(not other or longest >= 6, "trims_to_other", limit=other, longest=longest, max=6)
        raise


@check("3.1", points=1, en="MAX_ROUNDS requests at most: an answer with the last one is returned; a model that never finishes gets a message of its own",
       zh="最多 MAX_ROUNDS 个请求：最后一个请求带回的答案照样返回；模型永不结束时返回自己的信息")
def test_stops_at_max_rounds(learner, world):
    run = run_conversation(learner, world, "endless", questions=[])
    rounds = 5  # the file's MAX_ROUNDS, as the lesson gives it
    expect(len(run.exchanges) == rounds, "rounds_wrong", rounds=rounds, count=len(run.exchanges))
    answer = run.answer[0]
    expect(is_own_message(answer, run), "no_fallback", got=repr(answer) if isinstance(answer, str) else shown(answer))
    # A turn that needs every request the limit allows: four calls, then the answer with request 5.
    # The limit stops the loop from asking again; it never throws away a reply that came.
    run = run_conversation(learner, world, "recheck", questions=[])
    question, answer = run.scenario.question, run.answer[0]
    got = repr(answer) if isinstance(answer, str) else shown(answer)
    last = run.exchanges[-1].response if run.exchanges[-1].status == 200 else {}
    reply = ((last or {}).get("choices") or [{}])[0].get("message") or {}
    if reply.get("tool_calls"):  # the model was not done when the loop stopped
        expect(len(run.exchanges) >= rounds, "last_round_not_sent", question=question, rounds=rounds,
               count=len(run.exchanges), got=got)
        return
    final = chat_text(reply).strip()
    expect(not final or (isinstance(answer, str) and final in answer), "last_round_answer_lost",
           question=question, request=len(run.exchanges), rounds=rounds, answer=final, got=got)



def steps_history(world) -> list[dict]:
    """One turn of two steps, a call and its result each, then the answer."""
    w = world.weather
    report = {city: json.dumps({"city": city, **w[city]}, ensure_ascii=False) for city in ("北京", "上海")}
    return [
        {"role": "system", "content": "You are a weather assistant."},
        {"role": "user", "content": "北京和上海哪个更热？"},
        {"role": "assistant", "content": "先查北京。", "tool_calls": [call("call_c1", "北京")]},
        {"role": "tool", "tool_call_id": "call_c1", "content": report["北京"]},
        {"role": "assistant", "content": "再查上海。", "tool_calls": [call("call_c2", "上海")]},
        {"role": "tool", "tool_call_id": "call_c2", "content": report["上海"]},
        {"role": "assistant", "content": f"北京 {w['北京']['temp_c']}°C，上海 {w['上海']['temp_c']}°C。"},
    ]


@check("2.1", points=1, en="a turn of several steps, and a history that ends in results: only orphans go",
       zh="多步的一轮，以及以工具结果结尾的历史：只去掉孤立的结果")
def test_trim_steps_and_ending_results(learner, world):
    expect_trimmed(learner, world, steps_history(world), 5)  # the cut falls on the first step's result
    ending = history(world)[:9]  # as the loop trims before the request that follows two results
    for max_messages in (2, 3):  # nothing after the system message fits but results
        got = trim(learner, ending, max_messages)
        params = {"max": max_messages, "got": roles(got), "count": len(got), "total": len(ending)}
        expect(got and got[0] == ending[0], "trim_no_system", **params)
        expect(len(got) <= max_messages, "trim_too_long", **params)
        expect_accepted_history(world, got, params)
