"""Day 06 checks: plain pytest tests, one behaviour each, listed in the report in this order.

Your functions run in a separate process; `learner.call` calls one of them, `run_agent`
runs your loop on a task from scenarios.yaml against the mock model. Numbers come from `world`, so
with another seed every expected value changes.
"""
import json
import re
import unicodedata

from validator.checking import (ACTION, ACTION_INPUT, OBSERVATION, Fail, Record, ToolBox, answer_text, calculate,
                                check, expect, expect_asked_once, expect_asked_tools_ran, expect_requests_run,
                                expect_final_returned, expect_format_explained, expect_own_fallback,
                                expect_unknown_tool_said, first_number, glued_on, imagined, labelled_twice,
                                read_final, read_request, read_steps, request_text, sees_question, shown, steps_arg,
                                tools_arg, unseen, written_after_request)

OTHER_TOOLS = {
    "Translator": "Translates a sentence into English. Input: the sentence.",
    "Clock": "Tells the current time in a time zone. Input: a zone such as Asia/Shanghai.",
}

# The tool of the no_input task (scenarios.yaml), which no other task is given: it takes no input.
NO_INPUT_TOOL = {"Today": "Tells today's date. Input: none, leave the Action Input empty."}



def returned_str(func, value):
    expect(isinstance(value, str), "not_a_string", func=func, got=shown(value))
    return value


def expect_only_read(changed_args: list[int], func: str, params: list[str]) -> None:
    """A watched call left its arguments as they were (`changed_args`, the learner's after it): the
    loop hands the same list of tools (and of steps) to every function and every round, so a sort or
    a removal in one of them shows up everywhere after it."""
    changed = [params[i] for i in changed_args if i < len(params)]
    expect(not changed, "argument_changed", func=func, param=changed[0] if changed else "")


def expect_not_escaped(text: str, tool: str, description: str):
    """json.dumps writes non-ASCII text as \\uXXXX unless told not to: the description is there,
    but not in a form the model reads."""
    escaped = json.dumps(description)[1:-1]
    expect(escaped == description or escaped not in text, "description_escaped", tool=tool, escaped=escaped)


# ---------------------------------------------------------------- TODO 1.2 get_tools_description

def expect_described(text: str, described: dict[str, str]):
    for name, description in described.items():
        if name not in text or description not in text:
            expect_not_escaped(text, name, description)
            raise Fail("tool_missing_from_description", tool=name, got=text)


def expect_line_each(text: str, names) -> None:
    """Each tool has a line that names it and no other tool (the README's "one line per tool", in any
    layout: "- name: …", "1. name - …", a table row, a JSON object's "name" line; a header line that
    names them all is fine besides): tools run together on one line blur where each one ends."""
    def named(line, name):
        return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", line) is not None  # 工具Weather too
    lines = text.splitlines()
    for name in names:
        if not any(named(line, name) and not any(named(line, other) for other in names if other != name)
                   for line in lines):
            shared = next((line for line in lines if named(line, name)), text)
            raise Fail("tools_share_a_line", tool=name, line=shared.strip(),
                       others=", ".join(other for other in names if other != name and named(shared, other)))


def tools_listed(learner, tools) -> str:
    """What get_tools_description returns for `tools`, watched: `learner.changed_args` says
    whether it changed the list (a sort in place)."""
    return returned_str("get_tools_description", learner.call("get_tools_description", tools, watch=True))


@check("1.2", points=1, en="names and describes every tool, one line each, and leaves the list as it was",
       zh="列出每个工具的名字和描述，每个工具一行，并且不改动传入的列表")
def test_describes_every_tool(learner, world):
    tools = tools_arg(world, ["Weather", "Calculator"])  # not in order: a sort in place changes the list
    text = tools_listed(learner, tools)
    expect_described(text, world.tool_descriptions)
    expect_only_read(learner.changed_args, "get_tools_description", ["tools"])
    expect_line_each(text, ["Weather", "Calculator"])


@check("1.2", points=1, en="describes the tools it is given, not a fixed list",
       zh="描述传入的工具，而不是固定清单")
def test_describes_any_tool_list(learner, world):
    others = unseen(world, OTHER_TOOLS)
    tools = tools_arg(world, list(others), extra=others)
    text = tools_listed(learner, tools)
    expect_described(text, others)


# ---------------------------------------------------------------- TODO 1.3 execute_tool

def run_execute_tool(learner, world, action, action_input, names=("Weather", "Calculator"), extra=None):
    """execute_tool on the tools `names` (watched: `learner.changed_args` says whether it changed them)."""
    toolbox = ToolBox(world)
    result = learner.call("execute_tool", tools_arg(world, list(names), extra), action,
                          action_input, tools=toolbox, watch=True)
    expect(isinstance(result, Record) and result.type == "ToolResult", "not_a_tool_result",
           got=shown(result))
    return result, toolbox.calls


def expect_tool_result(result, success, expected, action, given):
    ok = result.success is success and isinstance(result.output, str) and expected in result.output
    expect(ok, "tool_result_wrong", action=action, given=given, got=shown(result),
           success=success, expected=expected)


@check("1.3", points=1, en="runs the tool and returns its output", zh="执行工具并返回它的输出")
def test_runs_the_tool(learner, world):
    v = world.scenarios["calculator"].values
    expression = f"{v['a']} * {v['b']} - {v['c']}"
    result, calls = run_execute_tool(learner, world, "Calculator", expression)
    expect(calls, "tool_not_called", got=shown(result))
    expect_tool_result(result, True, calculate(expression), "Calculator", expression)
    expect(len(calls) == 1, "tool_ran_twice", action="Calculator", given=expression, times=len(calls))
    expect_only_read(learner.changed_args, "execute_tool", ["tools"])
    # a tool that takes no input: an empty action_input is run all the same
    tool = next(iter(NO_INPUT_TOOL))
    result, calls = run_execute_tool(learner, world, tool, "", ["Weather", "Calculator", tool], NO_INPUT_TOOL)
    expect(calls, "empty_input_not_run_by_execute_tool", tool=tool, got=shown(result))
    expect_tool_result(result, True, world.today, tool, "")


def runs_empty_input(learner, world) -> bool:
    """Whether the learner's parser reads a request with an empty Action Input as one, and its
    execute_tool runs it (else TODO 3.1's and 1.3's checks say what is wrong, not the loop's)."""
    tool = next(iter(NO_INPUT_TOOL))
    try:
        parsed = learner.call("parse_react_response", request_text("It takes no input.", tool, ""))
        if not (isinstance(parsed, (tuple, list)) and len(parsed) == 3
                and [str(x).strip() for x in parsed[1:]] == [tool, ""]):
            return False
        toolbox = ToolBox(world)
        learner.call("execute_tool", tools_arg(world, ["Weather", "Calculator", tool], NO_INPUT_TOOL), tool, "",
                     tools=toolbox)
        return bool(toolbox.calls)
    except Fail:
        return False


@check("1.3", points=1, en="an unknown tool is a failed result, not a crash",
       zh="未知工具返回失败结果，而不是崩溃")
def test_unknown_tool(learner, world):
    result, _ = run_execute_tool(learner, world, "Translator", "你好")
    expect_tool_result(result, False, "Translator", "Translator", "你好")
    # names that are part of a tool's name, or hold one, are no tool's name either: only the tool
    # whose name equals the action runs (a lookup by `in`, startswith or a substring runs another)
    v = world.scenarios["calculator"].values
    expression = f"{v['a']} + {v['b']}"
    for action in near_names(["Weather", "Calculator"]):
        result, calls = run_execute_tool(learner, world, action, expression)
        expect(not calls, "unknown_tool_ran_another", action=action, given=expression, ran=calls[0].name if calls else "",
               got=shown(result))
        expect(result.success is False, "tool_result_wrong", action=action, given=expression, got=shown(result),
               success=False, expected=action)
    expect_known_tool_runs(learner, world)


def near_names(names: list[str]) -> list[str]:
    """Actions that name none of the tools `names` but come close: the start of a name, the middle of
    one, a name with more after it, and the empty action."""
    first, second = names[0], names[-1]
    return [second[:4], first[1:-1], f"{first}Report", ""]


@check("1.3", points=1, en="a tool that raises is a failed result with the error",
       zh="工具抛异常时返回带错误信息的失败结果")
def test_tool_that_raises(learner, world):
    expression = f"{world.scenarios['calculator'].values['a']} / 0"  # the Calculator raises ValueError
    result, calls = run_execute_tool(learner, world, "Calculator", expression)
    expect(calls, "tool_not_called", got=shown(result))  # the tool's own error, not one typed in
    expect_tool_result(result, False, "division by zero", "Calculator", expression)


def expect_known_tool_runs(learner, world):
    """A tool of the list given runs: an execute_tool that calls every action unknown (or runs
    nothing) says nothing about which tools there are."""
    try:
        result, calls = run_execute_tool(learner, world, "Calculator", "1 + 1")
    except Fail:
        return  # it raised, or returned no ToolResult: the first check of TODO 1.3 says so
    expect(calls, "known_tool_not_run", got=shown(result))


# ---------------------------------------------------------------- TODO 2.1 build_react_prompt

def build_prompt(learner, world, question, steps, tools=("Calculator", "Weather"), watch=False, extra=None):
    """build_react_prompt's prompt (`watch`: `learner.changed_args` says whether it changed its
    arguments; `extra`: descriptions of tools besides the lesson's)."""
    prompt = learner.call("build_react_prompt", question, tools_arg(world, list(tools), extra), steps_arg(steps),
                          watch=watch)
    return returned_str("build_react_prompt", prompt)


def undescribed_tool(learner, world, prompt: str, tools=("Calculator", "Weather")) -> tuple[str, str] | None:
    """(name, description) of the first tool the prompt does not describe. None when it describes
    them all, or when it holds what get_tools_description returns: what that function leaves out
    is its own fault, and its checks (TODO 1.2) say so; not when that is the same text for other
    tools (a constant): then no listing of 1.2's is in the prompt. `tools`: the prompt's, in order."""
    missing = [(name, text) for name, text in world.tool_descriptions.items() if text not in prompt]
    if not missing:
        return None
    try:
        listing = learner.call("get_tools_description", tools_arg(world, list(tools)))
        if listing == learner.call("get_tools_description", tools_arg(world, ["Calculator"])):
            listing = None
    except Fail:  # it does not run on its own, so the prompt did not get its tool list from it
        listing = None
    if isinstance(listing, str) and listing.strip() and listing in prompt:
        return None
    expect_not_escaped(prompt, *missing[0])
    return missing[0]


@check("2.1", points=1, en="holds the question and every tool description",
       zh="包含问题和每个工具的描述")
def test_prompt_has_question_and_tools(learner, world):
    question = world.scenarios["weather"].question
    prompt = build_prompt(learner, world, question, [])
    expect(sees_question(prompt, question), "prompt_missing", what="question", value=question)
    if missing := undescribed_tool(learner, world, prompt):
        raise Fail("prompt_missing", what=f"{missing[0]} description", value=missing[1])


@check("2.1", points=1, en="still holds the question and the tools once there are steps",
       zh="有了历史步骤之后，仍然包含问题和工具清单")
def test_prompt_keeps_question_with_history(learner, world):
    story = world.scenarios["weather"]
    city = story.values["city"]
    steps = [{"thought": f"I should look up the weather in {city}.", "action": "Weather",
              "action_input": city, "observation": world.weather[city]}]
    order = ("Weather", "Calculator")  # not in order: a sort in place changes the list
    prompt = build_prompt(learner, world, story.question, steps, tools=order, watch=True)
    changed = list(learner.changed_args)
    expect(sees_question(prompt, story.question), "prompt_dropped_question", question=story.question)
    if missing := undescribed_tool(learner, world, prompt, order):
        raise Fail("prompt_dropped_tool", tool=missing[0], description=missing[1])
    # it only reads its arguments, judged when get_tools_description, which it may call, does (else
    # TODO 1.2's checks say so)
    if changed == [1]:
        try:
            tools_listed(learner, tools_arg(world, ["Weather", "Calculator"]))
            if learner.changed_args:
                return
        except Fail:
            pass
    expect_only_read(changed, "build_react_prompt", ["user_input", "tools", "steps"])


def fahrenheit_steps(world) -> list[dict]:
    """The two steps of the fahrenheit task, as the loop has them after its second tool call."""
    city = world.scenarios["fahrenheit"].values["hot_city"]
    report = world.weather[city]
    expression = f"{first_number(report)} * 9 / 5 + 32"
    return [
        {"thought": "First the weather.", "action": "Weather", "action_input": city,
         "observation": report},
        {"thought": "Now convert it.", "action": "Calculator", "action_input": expression,
         "observation": calculate(expression)},
    ]


def history_steps(world) -> list[dict]:
    """Three steps for the fahrenheit question: a tool the model made up first (its error is the
    result), then the task's two. More than two, so that a prompt that keeps only the latest steps
    leaves one out."""
    search = f"temperature in {world.scenarios['fahrenheit'].values['hot_city']} today"
    return [{"thought": "Let me search the web first.", "action": "WebSearch", "action_input": search,
             "observation": "Error: unknown tool 'WebSearch'. Available tools: Calculator, Weather"},
            *fahrenheit_steps(world)]


@check("2.1", points=1, en="holds every step so far, in order", zh="按顺序包含之前的每一步")
def test_prompt_has_history_in_order(learner, world):
    question = world.scenarios["fahrenheit"].question
    first = build_prompt(learner, world, question, [])
    # six steps, as given and in the other order: a prompt that shuffles them is in order by chance
    # once in 720² (three steps, once in six: a file's grade would hang on the draws of its calls)
    hot = world.scenarios["fahrenheit"].values["hot_city"]
    more = [{"thought": f"And in {city}?", "action": "Weather", "action_input": city, "observation": world.weather[city]}
            for city in sorted(world.weather) if city != hot][:3]
    for steps in (history_steps(world) + more, (history_steps(world) + more)[::-1]):
        expect_steps_in_order(build_prompt(learner, world, question, steps), first, steps)
    expect_empty_input_step(learner, world)


def expect_empty_input_step(learner, world) -> None:
    """A step whose input is empty (a tool that takes no input) is written like any other: its
    'Action Input:' line is there, with nothing after it, right under its Action. Left out, the
    model never reads the step as done and asks for the tool again and again."""
    tool = next(iter(NO_INPUT_TOOL))
    step = {"thought": "The Today tool tells the date; it takes no input.", "action": tool, "action_input": "",
            "observation": world.today}
    question, tools = world.scenarios["no_input"].question, ("Calculator", "Weather", tool)
    first = build_prompt(learner, world, question, [], tools, extra=NO_INPUT_TOOL)
    prompt = build_prompt(learner, world, question, [step], tools, extra=NO_INPUT_TOOL)
    if new_reads(prompt, first, step):
        return
    lines = [line.strip() for line in prompt.splitlines()]
    for i, line in enumerate(lines):
        action = ACTION.match(line)
        if action and action.group(1).strip().strip("`'\"*").lower() == tool.lower():
            following = next((x for x in lines[i + 1:] if x), "")
            if not re.match(r"^[\s>*#\-+•\d.)]*Action[ _]?Input", following, re.IGNORECASE):
                raise Fail("prompt_step_empty_input", tool=tool, line=line, following=following)
    raise unreadable_step(prompt, 1, step)


def expect_steps_in_order(prompt: str, first: str, steps: list[dict]) -> None:
    positions = []
    for number, step in enumerate(steps, start=1):
        if not (readable := new_reads(prompt, first, step)):
            # gone altogether, while a later one is there: only the latest steps were kept
            later = next((n for n, s in enumerate(steps[number:], start=number + 1) if new_reads(prompt, first, s)), None)
            if later and squashed(step["observation"]) not in squashed(prompt):
                raise Fail("prompt_step_dropped", count=len(steps), later=later, number=number, tool=step["action"],
                           input=step["action_input"], observation=step["observation"])
            raise unreadable_step(prompt, number, step)
        glued = glued_on(readable[-1].observation, step["observation"])
        expect(glued is None, "prompt_step_glued", number=number, line=glued)
        expect(not OBSERVATION.match(readable[-1].observation), "prompt_step_labelled_twice", number=number,
               line=f"Observation: {readable[-1].observation}".split("\n", 1)[0])
        positions.append(readable[-1].line)
    for number in range(1, len(positions)):
        expect(positions[number - 1] < positions[number], "prompt_history_order", first=number, second=number + 1)


def builds_in_order(learner, world) -> bool:
    """Whether build_react_prompt shows two steps in the order it is given them (its own check says
    what is wrong when it doesn't)."""
    question, steps = world.scenarios["fahrenheit"].question, fahrenheit_steps(world)
    try:
        prompt, first = build_prompt(learner, world, question, steps), build_prompt(learner, world, question, [])
    except Fail:
        return False
    reads = [new_reads(prompt, first, step) for step in steps]
    return all(reads) and reads[0][-1].line < reads[1][-1].line


def expect_steps_oldest_first(learner, world, run):
    """The loop keeps its steps oldest first: the run's last prompt shows the tools' results in the
    order they ran (judged when build_react_prompt keeps the order it is given)."""
    reads = read_steps(run.exchanges[-1].prompt) if run.exchanges else []
    spots = []
    for call in sorted(run.tool_calls, key=lambda c: c.round):
        step = {"action": call.name, "action_input": str(call.input).strip(), "observation": str(call.output)}
        spot = next((index for index, read in enumerate(reads) if reads_as(read, step)), None)
        if spot is not None:
            spots.append((spot, call.name))
    for (spot, earlier), (later_spot, later) in zip(spots, spots[1:]):
        if later_spot < spot and builds_in_order(learner, world):
            raise Fail("steps_newest_first", first=earlier, second=later)


def shows_a_lone_step(learner) -> bool:
    """Whether build_react_prompt shows a step it is given alone (else it leaves steps out, and a
    loop that keeps its steps right still sends the same prompt twice)."""
    world = learner.world
    question, step = world.scenarios["fahrenheit"].question, fahrenheit_steps(world)[0]
    try:
        return bool(new_reads(build_prompt(learner, world, question, [step]), build_prompt(learner, world, question, []),
                              step))
    except Fail:
        return True  # its own checks say what is wrong with it


def new_reads(prompt: str, first: str, step: dict) -> list:
    """Where the model reads `step` as done in the prompt, as the mock reads it; nowhere if no more
    often than in the first prompt, the instructions (a few-shot example is not history)."""
    readable = [s for s in read_steps(prompt) if reads_as(s, step)]
    return readable if len(readable) > len([s for s in read_steps(first) if reads_as(s, step)]) else []


def reads_as(read, step: dict) -> bool:
    """Whether a step the mock read from the prompt is `step`, its real result in its Observation."""
    return (read.is_call(step["action"], step["action_input"]) and read.observation is not None
            and squashed(step["observation"]) in squashed(read.observation))


def squashed(text: str) -> str:
    return "".join(text.split())


LABELS = {"Action": ACTION, "Action Input": ACTION_INPUT, "Observation": OBSERVATION}


def unreadable_step(prompt: str, number: int, step: dict) -> Fail:
    """Why the mock cannot read step `number` in the prompt, as precisely as the prompt shows it."""
    tool, given, result = step["action"], step["action_input"], step["observation"]
    lines = [line.strip() for line in prompt.splitlines()]
    calls = [s for s in read_steps(prompt) if s.is_call(tool, given)]
    if calls:  # its Action and Action Input are read; its Observation is not
        read = next((s.observation for s in calls if s.observation is not None), None)
        if read is not None:
            return Fail("prompt_step_wrong_observation", number=number, got=read, expected=result)
        for line in lines[calls[0].line + 1:]:
            if ACTION.match(line):
                break
            if (found := colon_missing(line, "Observation")) is not None:
                return Fail("prompt_step_colon", number=number, line=line, label="Observation", **found)
        return Fail("prompt_step_no_observation", number=number, tool=tool, input=given)
    for i, line in enumerate(lines):  # an Action line for this tool, not followed by its Action Input
        action = ACTION.match(line)
        if action and action.group(1).strip().strip("`'\"*").lower() == tool.lower():
            following = next((x for x in lines[i + 1:] if x), "")
            if (found := colon_missing(following, "Action Input")) is not None:
                return Fail("prompt_step_colon", number=number, line=following, label="Action Input", **found)
            return Fail("prompt_step_no_input", number=number, line=line, following=following,
                        expected=f"Action Input: {given}")
    for line in (x for x in lines if tool in x):  # its Action is written, but not as the model reads it
        if (found := colon_missing(line, "Action")) is not None:
            return Fail("prompt_step_colon", number=number, line=line, label="Action", **found)
        labels = re.findall(r"\b(?:Thought|Action Input|Action|Observation)\s*[:：]", line)
        if len(labels) >= 2 and (given in line or result in line):
            return Fail("prompt_step_one_line", number=number, line=line)
    if squashed(result) not in squashed(prompt):
        return Fail("prompt_step_missing", number=number, tool=tool, input=given, observation=result)
    return Fail("prompt_step_unreadable", number=number, tool=tool, input=given, observation=result)


def colon_missing(line: str, label: str) -> dict | None:
    """When `line` starts with `label` (Markdown and a step number allowed) but the model does not
    read it as that label: what stands where the colon should be, and that character's name."""
    if LABELS[label].match(line):
        return None
    pattern = label.replace(" ", "[ _]?")
    match = re.match(rf"^[\s>*#\-+•\d.)]*{pattern}(?:\s*\d+)?[\s*]*(.?)", line, re.IGNORECASE)
    if not match or (label == "Action" and re.match(r"^[\s>*#\-+•\d.)]*Action[ _]?Input", line, re.I)):
        return None
    found = match.group(1)
    return {"found": repr(found) if found else "nothing",
            "name": f" ({unicodedata.name(found, 'U+%04X' % ord(found))})" if found else ""}


@check("2.1", points=1, en="explains the reply format, in every prompt", zh="每个 prompt 都说明回复格式")
def test_prompt_explains_format(learner, world):
    question = world.scenarios["fahrenheit"].question
    first = build_prompt(learner, world, question, [])
    steps = fahrenheit_steps(world)
    later = build_prompt(learner, world, question, steps)
    expect_format_explained(first, later, [value for step in steps for value in step.values()])


# ---------------------------------------------------------------- TODO 3.1 parse_react_response

def expect_parsed(learner, reply, expected, key="parse_wrong"):
    """Each value as expected, and stripped of the spaces around it (the lesson asks for that): the
    action and its input go to execute_tool exactly as they come back."""
    got = learner.call("parse_react_response", reply)
    ok = isinstance(got, (tuple, list)) and len(got) == 3 and all(isinstance(x, str) for x in got)
    ok = ok and tuple(x.strip() for x in got) == expected
    expect(ok, key, got=shown(got), reply=reply, expected=repr(expected))
    for field, value in zip(("thought", "action", "action_input"), got):
        expect(value == value.strip(), "parse_not_stripped", got=shown(got), reply=reply, field=field,
               value=value, expected=repr(expected))


# The replies below are written as the mock writes them (request_text, answer_text): one label a
# line, ASCII colons. Whatever a prompt shows, this is what the parser must read.

@check("3.1", points=1, en="reads Thought, Action and Action Input", zh="读出 Thought、Action 和 Action Input")
def test_parses_an_action(learner, world):
    city = world.scenarios["weather"].values["city"]
    reply = f"Thought: I should look up the weather.\nAction: Weather\nAction Input:  {city} \n"
    expect_parsed(learner, reply, ("I should look up the weather.", "Weather", city))
    # a tool that takes no input: an empty Action Input line, a request all the same
    thought, tool = "The Today tool tells the date; it takes no input.", next(iter(NO_INPUT_TOOL))
    expect_parsed(learner, request_text(thought, tool, ""), (thought, tool, ""), key="parse_empty_input")


@check("3.1", points=1, en="a Final Answer gives action '' and the answer", zh="Final Answer 时 action 为空串、答案放 action_input")
def test_parses_a_final_answer(learner, world):
    v = world.scenarios["calculator"].values
    expression = f"{v['a']} + {v['b']} * {v['c']}"
    answer = f"{expression} = {calculate(expression)}"
    reply = answer_text("I now know the final answer.", answer)
    expect_parsed(learner, reply, ("I now know the final answer.", "", answer))


@check("3.1", points=1, en="keeps a Final Answer that spans several lines", zh="多行的 Final Answer 完整保留")
def test_parses_a_multiline_answer(learner, world):
    city = world.scenarios["fahrenheit"].values["hot_city"]
    celsius = first_number(world.weather[city])  # the seed's: no answer typed in for seed 0 passes
    fahrenheit = calculate(f"{celsius} * 9 / 5 + 32")
    answer = f"It is {fahrenheit}°F in {city} today.\n- {world.weather[city]}\n- {celsius}°C * 9 / 5 + 32 = {fahrenheit}"
    reply = answer_text("I have both numbers.", answer) + "\n"
    expect_parsed(learner, reply, ("I have both numbers.", "", answer))


@check("3.1", points=1, en="a Final Answer wins over a stray Action line",
       zh="Final Answer 优先于多余的 Action 行")
def test_final_answer_wins(learner, world):
    v = world.scenarios["calculator"].values
    answer = str(v["a"] * v["c"])
    reply = f"Thought: I already know it.\nAction: None\nFinal Answer: {answer}"
    expect_parsed(learner, reply, ("I already know it.", "", answer))


@check("3.1", points=1, en="stops at the Action Input line: a made-up Observation or Final Answer is not read",
       zh="读到 Action Input 这一行为止：模型自己编的 Observation 和 Final Answer 都不读")
def test_ignores_made_up_observation(learner, world):
    v = world.scenarios["calculator"].values
    expression = f"{v['a']} + {v['b']} * {v['c']}"
    thought = f"I need to calculate {expression}."
    made_up = imagined("Calculator", expression)  # what a model that cannot wait writes next
    reply = request_text(thought, "Calculator", expression) + f"\nObservation: {made_up}"
    expect_parsed(learner, reply, (thought, "Calculator", expression), key="parse_made_up")
    # and the answer it goes on to build on that invention: a parser that looks for it first, before
    # cutting, returns it and the tool never runs
    answer = "\n" + answer_text("I now know the final answer.", f"{expression} = {made_up}")
    expect_parsed(learner, reply + answer, (thought, "Calculator", expression), key="parse_made_up_answer")
    # the answer straight after the request, with no Observation line to cut at: only a parser that
    # ends the reply at its Action Input line, as the lesson says, runs the tool
    request = request_text(thought, "Calculator", expression)
    expect_parsed(learner, request + answer, (thought, "Calculator", expression), key="parse_answer_after_request")


@check("3.1", points=1, en="two Action blocks in one reply: the first one counts",
       zh="一条回复里有两个 Action：以第一个为准")
def test_first_action_wins(learner, world):
    city = world.scenarios["fahrenheit"].values["hot_city"]
    guess = int(float(first_number(world.weather[city]))) + 7  # a temperature the model made up
    first = f"First I need today's weather in {city}."
    reply = (request_text(first, "Weather", city) + f"\nObservation: sunny, {guess}°C\n"
             + request_text(f"It is {guess}°C; F = C * 9 / 5 + 32.", "Calculator", f"{guess} * 9 / 5 + 32"))
    expect_parsed(learner, reply, (first, "Weather", city), key="parse_second_action")


# ---------------------------------------------------------------- TODO 4.1 react_agent

def run_agent(learner, world, scenario, *max_steps):
    """Your react_agent on a task of scenarios.yaml, with the tools that task gives it."""
    tools = tools_arg(world, world.scenarios[scenario].tools)
    return learner.run_agent("react_agent", scenario, tools, *max_steps)


def expect_answer(learner, run, expected, key="answer_missing"):
    """The answer contains `expected`; if not, say why, from the transcript when it shows it."""
    answer = run.answer
    if isinstance(answer, str) and expected in answer and run.model_said(expected):
        return
    explain_transcript(run, learner)
    expect_stopped_at_final(learner, run)
    expect_final_returned(run)
    asked = [e.reply for e in run.exchanges if "Action:" in e.reply]
    repeats = max((asked.count(r) for r in asked), default=0)
    if repeats >= 2 and (request := read_request(max(asked, key=asked.count))):
        # The model never saw that call as done. Did the prompts show the step, unreadably?
        tool, given = request
        first, last = run.exchanges[0].prompt, run.exchanges[-1].prompt
        if squashed(last).count(squashed(given)) > squashed(first).count(squashed(given)):
            # it does: if build_react_prompt writes a right step readably, the loop built the step wrong
            expect(not writes_readably(learner, run, tool, given), "step_built_wrong", calls=repeats, tool=tool,
                   input=given, step=written_as(last, given))
            raise Fail("history_unreadable", calls=repeats, tool=tool, input=given)
    expect(repeats < 2, "history_not_fed_back", calls=repeats)
    last = run.exchanges[-1].reply if run.exchanges else ""
    if read_final(last) is None and (request := read_request(last)):
        expect(False, "returned_before_final", got=shown(answer), tool=request[0], input=request[1])
    expect_not_thought(run, read_final(last))
    run.expect_from_model(expected)
    expect(False, key, expected=expected, got=shown(answer))


def expect_not_thought(run, final: str | None) -> None:
    """The run did not return its last reply's Thought in place of its Final Answer, or glued onto it."""
    thought = re.search(r"^[^\S\n]*Thought:[ \t]*(.*)$", run.exchanges[-1].reply, re.MULTILINE) if run.exchanges else None
    answer = run.answer.strip() if isinstance(run.answer, str) else None
    thought = thought.group(1).strip() if thought else ""
    expect(final is None or not thought or answer != thought, "returned_thought", got=repr(answer), expected=final)
    glued = bool(final and thought) and thought not in final and thought in (answer or "")
    expect(not glued or read_final(answer) is not None, "answer_has_thought",  # labels and all: the raw reply's
           thought=thought, got=answer, expected=final)


def writes_readably(learner, run, tool: str, given: str) -> bool:
    """Whether build_react_prompt, given a right AgentStep for this call, writes a step the model
    reads as done."""
    output = next((c.output for c in run.tool_calls if c.name == tool and str(c.input).strip() == given),
                  f"the result of {tool}")  # (a tool the grader has not got: any result will do)
    step = {"thought": f"I need {tool}.", "action": tool, "action_input": given, "observation": output}
    other = "Weather" if tool == "Calculator" else "Calculator"  # a step after it: all steps, not the last
    later = {"thought": f"I need {other} too.", "action": other, "action_input": "1 + 1", "observation": "2"}
    question = run.scenario.question
    return bool(new_reads(build_prompt(learner, learner.world, question, [step, later]),
                          build_prompt(learner, learner.world, question, []), step))


def written_as(prompt: str, given: str) -> str:
    """That step as the prompt writes it: the lines around its last Action Input line (else around
    the last mention of its input)."""
    lines = prompt.splitlines()
    mentions = [i for i, line in enumerate(lines) if squashed(given) in squashed(line)]
    inputs = [i for i in mentions if ACTION_INPUT.match(lines[i])]
    at = (inputs or mentions or [len(lines) - 1])[-1]
    return "\n".join(line for line in lines[max(at - 2, 0):at + 2] if line.strip())


def expect_stopped_at_final(learner, run):
    """A Final Answer ends the run: fail when the loop asked the model again after one that your own
    parser reads as the answer (one it misreads is TODO 3.1's fault, and its checks say so)."""
    finals = [e.reply for e in run.exchanges[:-1] if read_final(e.reply) is not None]
    if finals:
        parsed = learner.call("parse_react_response", finals[0])
        read_as_answer = isinstance(parsed, (tuple, list)) and len(parsed) == 3 and parsed[1] == ""
        count = len(finals) + (read_final(run.exchanges[-1].reply) is not None)
        expect(not read_as_answer, "final_answer_ignored", count=count, answer=read_final(finals[0]))


def expect_labelled_once(learner, run):
    """A tool's result reaches the prompt under one label: an AgentStep whose observation is
    "Observation: 13", which build_react_prompt labels again, shows "Observation: Observation: 13".
    Judged when build_react_prompt labels a right AgentStep once (else TODO 2.1's checks say so)."""
    found = labelled_twice(run)
    if found:
        call, twice = found
        step = {"thought": f"I need {call.name}.", "action": call.name, "action_input": str(call.input),
                "observation": str(call.output)}
        try:
            prompt = build_prompt(learner, learner.world, run.scenario.question, [step])
        except Fail:
            return  # the builder's own checks say what is wrong with it
        expect(any(OBSERVATION.match(s.observation or "") for s in read_steps(prompt)), "observation_labelled_twice",
               line=f"Observation: {twice.observation}", output=str(call.output))


def explain_transcript(run, learner=None):
    """Fail with the first mistake the transcript shows, if it shows one (`learner`: to tell a
    prompt builder's mistake from the loop's)."""
    expect_asked_once(run)
    if learner is not None:
        expect_labelled_once(learner, run)
    for number, exchange in enumerate(run.exchanges, start=1):
        expect(sees_question(exchange.prompt, run.scenario.question), "question_dropped", round=number,
               question=run.scenario.question)
        if number > 1 and exchange.prompt == run.exchanges[number - 2].prompt:
            # the same prompt again, though a tool ran in between whose result a later prompt shows:
            # each prompt was built before the step before it was appended
            ran = next((c for c in run.tool_calls if c.round == number - 1), None)
            late = ran and any(str(ran.output) in e.prompt for e in run.exchanges[number:])
            if late and str(ran.output) not in exchange.prompt:
                dropped = learner is not None and not shows_a_lone_step(learner)  # the builder's, not the loop's
                raise Fail("prompt_drops_a_step" if dropped else "prompt_one_step_behind", round=number,
                           previous=number - 1, tool=ran.name, input=str(ran.input))
        request = read_request(exchange.reply)
        if request is None:
            continue
        tool, asked = request
        ran = [c for c in run.tool_calls if c.round == number and c.name == tool]
        if ran and not any(str(c.input).strip() == asked for c in ran):
            expect(False, "tool_input_not_as_asked", tool=tool, asked=asked, ran=str(ran[0].input))
        if ran and number < len(run.exchanges):  # what it made up after the request, in the next prompt
            outputs = [str(c.output) for c in ran]  # (judged only when the grader saw the real result)
            for line in written_after_request(exchange.reply).splitlines():
                line = line.strip()
                copied = line and line not in exchange.prompt and line in run.exchanges[number].prompt
                expect(not copied or any(out in line for out in outputs), "made_up_in_prompt", line=line,
                       tool=tool)


@check("4.1", points=1, en="the calculator task: the answer holds the tool's result",
       zh="计算题：答案里有工具算出的结果")
def test_calculator_task(learner, world):
    v = world.scenarios["calculator"].values
    run = run_agent(learner, world, "calculator")
    expect_answer(learner, run, calculate(f"{v['a']} + {v['b']} * {v['c']}"))


@check("4.1", points=1, en="the weather task: the answer holds the weather report",
       zh="天气题：答案里有查询到的天气")
def test_weather_task(learner, world):
    run = run_agent(learner, world, "weather")
    expect_answer(learner, run, world.weather[run.scenario.values["city"]])


@check("4.1", points=1, en="two tools in a row: Weather, then Calculator (°C → °F)",
       zh="连续两个工具：先查天气，再换算华氏度")
def test_two_step_task(learner, world):
    run = run_agent(learner, world, "fahrenheit")
    celsius = first_number(world.weather[run.scenario.values["hot_city"]])
    expect_answer(learner, run, f"{calculate(f'{celsius} * 9 / 5 + 32')}°F")


@check("4.1", points=1, en="an unknown tool's error goes back to the model, which recovers",
       zh="未知工具的报错回传给模型，模型自我纠正")
def test_recovers_from_unknown_tool(learner, world):
    v = world.scenarios["unknown_tool"].values
    run = run_agent(learner, world, "unknown_tool")
    expect_answer(learner, run, calculate(f"{v['a']} * {v['c']} + {v['b']}"))


@check("4.1", points=1, en="a failing tool's error reaches the answer", zh="工具报错时，错误信息进入最终答案")
def test_reports_failing_tool(learner, world):
    city = world.scenarios["failing_tool"].values["nowhere"]
    run = run_agent(learner, world, "failing_tool")
    expect_answer(learner, run, f"unknown city: {city}", key="error_not_observed")


@check("4.1", points=1, en="a model that never finishes: exactly max_steps calls, then a fallback; an answer on the last call allowed is kept",
       zh="模型永不结束：恰好调用 max_steps 次，然后返回兜底信息；在允许的最后一次调用里给出的答案照样返回")
def test_stops_at_max_steps(learner, world):
    run = run_agent(learner, world, "endless", 4)
    if len(run.exchanges) < 4:  # the run stopped early: say why, if the transcript shows it
        explain_transcript(run, learner)
    expect(len(run.exchanges) == 4, "wrong_step_count", max_steps=4, calls=len(run.exchanges))
    expect_asked_tools_ran(run)
    expect(isinstance(run.answer, str) and run.answer.strip(), "no_fallback", got=shown(run.answer))
    expect_answer_at_limit(learner, world, "fahrenheit")


def expect_answer_at_limit(learner, world, scenario: str) -> None:
    """The task again, with max_steps = the model calls it takes: its Final Answer comes with the
    last call allowed. max_steps stops the loop from asking again; it never throws away a reply that
    came. Judged when the run without a limit ends on a Final Answer: the limited run must return
    what that one returned."""
    free = run_agent(learner, world, scenario)
    needed = len(free.exchanges)
    if not needed or read_final(free.exchanges[-1].reply) is None:
        return  # it never got to the answer: the task's own check says why
    run = run_agent(learner, world, scenario, needed)
    final = read_final(run.exchanges[-1].reply) if len(run.exchanges) == needed else None
    if final is not None:
        expect(run.answer == free.answer, "answer_at_limit_dropped", max_steps=needed, answer=final,
               got=shown(run.answer))


@check("4.1", points=1, en="returns the parsed Final Answer, not the raw reply",
       zh="返回解析出的 Final Answer，而不是原始回复")
def test_returns_parsed_answer(learner, world):
    run = run_agent(learner, world, "calculator")
    expect(run.exchanges, "no_llm_call")
    final = read_final(run.exchanges[-1].reply)
    if final is None:  # the run ended on a tool request: say why the answer is wrong, else that
        v = world.scenarios["calculator"].values
        expect_answer(learner, run, calculate(f"{v['a']} + {v['b']} * {v['c']}"))
        tool, asked = read_request(run.exchanges[-1].reply) or ("?", "?")
        expect(False, "returned_before_final", got=shown(run.answer), tool=tool, input=asked)
    got = run.answer.strip() if isinstance(run.answer, str) else run.answer
    if got != final:
        expect_stopped_at_final(learner, run)
        expect_final_returned(run)
        expect_not_thought(run, final)
    expect(got == final, "raw_reply", got=shown(run.answer), expected=final)


def expect_fresh_steps(before, run) -> None:
    """The run's first prompt shows no step of the run `before` it more often than the first prompt
    of `before` did (an example in the instructions is in both): a steps list that outlives each
    run (at module level, a default argument) hands a new question the old one's steps."""
    if not (before.exchanges and run.exchanges):
        return
    fresh, first = read_steps(before.exchanges[0].prompt), read_steps(run.exchanges[0].prompt)
    for call in before.tool_calls:
        step = {"action": call.name, "action_input": str(call.input).strip(), "observation": str(call.output)}
        leaked = sum(reads_as(read, step) for read in first) > sum(reads_as(read, step) for read in fresh)
        expect(not leaked, "steps_leaked", tool=call.name, input=step["action_input"])


@check("4.1", points=1, en="a new question starts with no steps (two runs in a row)",
       zh="新问题从没有步骤开始（连续运行两次）")
def test_new_question_starts_fresh(learner, world):
    v = world.scenarios["calculator"].values
    before = run_agent(learner, world, "calculator")
    expect_answer(learner, before, calculate(f"{v['a']} + {v['b']} * {v['c']}"))  # steps to leak, or why none
    run = run_agent(learner, world, "weather")
    expect(run.exchanges, "no_llm_call")
    expect_fresh_steps(before, run)


@check("4.1", points=1, en="really uses the model and the tools (transcript)",
       zh="真的调用了模型和工具（看对话记录）")
def test_really_uses_model_and_tools(learner, world):
    run = run_agent(learner, world, "fahrenheit")
    expect(run.exchanges, "no_llm_call")
    explain_transcript(run, learner)
    expect_stopped_at_final(learner, run)
    expect_steps_oldest_first(learner, world, run)
    expect_requests_run(run)
    expect_each_request_ran_once(learner, world, run)
    # a number of the model's choosing, in its reply alone: the loop must read what the model asks
    picked = run_agent(learner, world, "pick")
    expect_requests_run(picked)
    expect_each_request_ran_once(learner, world, picked)
    v = world.scenarios["pick"].values
    expect_answer(learner, picked, str(v["pick"] * v["pick"]))
    # a tool that takes no input: its request has an empty Action Input, and runs all the same
    if runs_empty_input(learner, world):
        tools = tools_arg(world, world.scenarios["no_input"].tools, extra=NO_INPUT_TOOL)
        blank = learner.run_agent("react_agent", "no_input", tools)
        expect_empty_input_run(blank)
        expect_answer(learner, blank, world.today)


def expect_each_request_ran_once(learner, world, run) -> None:
    """Between two model calls, the tools ran at most once: a reply asks for one tool, and a loop
    that runs execute_tool twice for it (once to print or test the result, once for the step) runs
    every tool twice. Unless the file's execute_tool alone already runs a tool twice for one call:
    TODO 1.3's first check says so."""
    for number in range(1, len(run.exchanges) + 1):
        ran = [c for c in run.tool_calls if c.round == number]
        if len(ran) < 2:
            continue
        try:
            alone = len(run_execute_tool(learner, world, "Calculator", "1 + 1")[1])
        except Fail:
            alone = 0
        if alone > 1:
            return
        raise Fail("loop_tool_ran_twice", tool=ran[0].name, input=str(ran[0].input), round=number, times=len(ran))


def expect_empty_input_run(run) -> None:
    """Every request with an empty Action Input ran its tool: only an empty action ends the run."""
    for number, exchange in enumerate(run.exchanges, start=1):
        request = read_request(exchange.reply)
        if request is None or request[1].strip():
            continue
        tool = request[0]
        later = run.exchanges[number].prompt if number < len(run.exchanges) else ""
        if (any(c.round == number and c.name == tool for c in run.tool_calls)
                or any(s.is_call(tool, "") and s.observation for s in read_steps(later))):
            continue  # it ran, or the loop handed it to execute_tool (whose result is judged below)
        if number == len(run.exchanges):
            raise Fail("empty_input_returned", tool=tool, got=shown(run.answer))
        raise Fail("empty_input_skipped", tool=tool, round=number)


@check("1.3", points=1, en="an unknown tool's error says there is no such tool, not that it failed",
       zh="未知工具的错误说明没有这个工具，而不是说它执行失败")
def test_unknown_tool_said(learner, world):
    result, _ = run_execute_tool(learner, world, "Translator", "你好")
    expect_unknown_tool_said(result.output, "Translator", result, ["Calculator", "Weather"])
    # given other tools than the module's TOOLS: an error that lists tools lists these, the ones the
    # agent has, and no other (the model picks its next tool from that list)
    others = unseen(world, {"Clock": OTHER_TOOLS["Clock"]})
    given = ["Weather", *others]
    result, _ = run_execute_tool(learner, world, "Translator", "你好", given, others)
    expect_unknown_tool_said(result.output, "Translator", result, given)
    wrong = [name for name in world.tool_descriptions
             if name not in given and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", str(result.output))]
    expect(not wrong, "unknown_tool_lists_other_tools", name="Translator", given=", ".join(given),
           wrong=", ".join(wrong), got=shown(result))
    expect_known_tool_runs(learner, world)


@check("4.1", points=1, en="the step limit's message is the agent's own, not the question handed back",
       zh="步数上限时返回的是 Agent 自己的信息，而不是把问题原样返回")
def test_fallback_is_its_own(learner, world):
    expect_own_fallback(run_agent(learner, world, "endless", 4), 4)
