"""Day 06 checks: plain pytest tests, one behaviour each, listed in the report in this order.

Your functions run in a separate process; `learner.call` calls one of them, `run_agent`
runs your loop on a task from scenarios.yaml against the mock model. Numbers come from `world`, so
with another seed every expected value changes.
"""
from mock_llm.text_react import find_observations
from mock_llm.scenarios import first_number
from mock_llm.tools import calculate
from validator.checking import shown, ToolBox, check, expect, steps_arg, tools_arg
from validator.runner import Record

OTHER_TOOLS = {
    "Translator": "Translates a sentence into English. Input: the sentence.",
    "Clock": "Tells the current time in a time zone. Input: a zone such as Asia/Shanghai.",
}



def returned_str(func, value):
    expect(isinstance(value, str), "not_a_string", func=func, got=shown(value))
    return value


# ---------------------------------------------------------------- TODO 1.2 get_tools_description

@check("1.2", points=1, en="names and describes every tool", zh="列出每个工具的名字和描述")
def test_describes_every_tool(learner, world):
    tools = tools_arg(world, ["Calculator", "Weather"])
    text = returned_str("get_tools_description", learner.call("get_tools_description", tools))
    for name, description in world.tool_descriptions.items():
        expect(name in text and description in text, "tool_missing_from_description",
               tool=name, got=text)


@check("1.2", points=1, en="describes the tools it is given, not a fixed list",
       zh="描述传入的工具，而不是固定清单")
def test_describes_any_tool_list(learner, world):
    tools = tools_arg(world, list(OTHER_TOOLS), extra=OTHER_TOOLS)
    text = returned_str("get_tools_description", learner.call("get_tools_description", tools))
    for name, description in OTHER_TOOLS.items():
        expect(name in text and description in text, "tool_missing_from_description",
               tool=name, got=text)


# ---------------------------------------------------------------- TODO 1.3 execute_tool

def run_execute_tool(learner, world, action, action_input):
    toolbox = ToolBox(world)
    result = learner.call("execute_tool", tools_arg(world, ["Calculator", "Weather"]), action,
                          action_input, tools=toolbox)
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


@check("1.3", points=1, en="an unknown tool is a failed result, not a crash",
       zh="未知工具返回失败结果，而不是崩溃")
def test_unknown_tool(learner, world):
    result, _ = run_execute_tool(learner, world, "Translator", "你好")
    expect_tool_result(result, False, "Translator", "Translator", "你好")


@check("1.3", points=1, en="a tool that raises is a failed result with the error",
       zh="工具抛异常时返回带错误信息的失败结果")
def test_tool_that_raises(learner, world):
    expression = f"{world.scenarios['calculator'].values['a']} / 0"  # the Calculator raises ValueError
    result, _ = run_execute_tool(learner, world, "Calculator", expression)
    expect_tool_result(result, False, "division by zero", "Calculator", expression)


# ---------------------------------------------------------------- TODO 2.1 build_react_prompt

def build_prompt(learner, world, question, steps):
    tools = tools_arg(world, ["Calculator", "Weather"])
    prompt = learner.call("build_react_prompt", question, tools, steps_arg(steps))
    return returned_str("build_react_prompt", prompt)


@check("2.1", points=1, en="holds the question and every tool description",
       zh="包含问题和每个工具的描述")
def test_prompt_has_question_and_tools(learner, world):
    question = world.scenarios["weather"].question
    prompt = build_prompt(learner, world, question, [])
    expect(question in prompt, "prompt_missing", what="question", value=question)
    for name, description in world.tool_descriptions.items():
        expect(description in prompt, "prompt_missing", what=f"{name} description", value=description)


@check("2.1", points=1, en="holds every step so far, in order", zh="按顺序包含之前的每一步")
def test_prompt_has_history_in_order(learner, world):
    story = world.scenarios["fahrenheit"]
    city = story.values["hot_city"]
    report = world.weather[city]
    expression = f"{first_number(report)} * 9 / 5 + 32"
    steps = [
        {"thought": "First the weather.", "action": "Weather", "action_input": city,
         "observation": report},
        {"thought": "Now convert it.", "action": "Calculator", "action_input": expression,
         "observation": calculate(expression)},
    ]
    prompt = build_prompt(learner, world, story.question, steps)
    positions = []
    for number, step in enumerate(steps, start=1):
        for key in ("action", "action_input", "observation"):
            line = f"{'Action Input' if key == 'action_input' else key.title()}: {step[key]}"
            expect(line in prompt, "prompt_missing", what=f"step {number}", value=line)
        readable = find_observations(prompt, step["action"], step["action_input"])
        expect(step["observation"] in readable, "prompt_step_unreadable", number=number)
        positions.append(prompt.index(f"Observation: {step['observation']}"))
    expect(positions[0] < positions[1], "prompt_history_order", first=1, second=2)


@check("2.1", points=1, en="explains the reply format", zh="说明回复格式")
def test_prompt_explains_format(learner, world):
    prompt = build_prompt(learner, world, world.scenarios["calculator"].question, [])
    for line in ("Thought", "Action:", "Action Input:", "Observation", "Final Answer:"):
        expect(line in prompt, "prompt_format_missing", line=line)


# ---------------------------------------------------------------- TODO 3.1 parse_react_response

def expect_parsed(learner, reply, expected):
    got = learner.call("parse_react_response", reply)
    ok = isinstance(got, (tuple, list)) and len(got) == 3 and all(isinstance(x, str) for x in got)
    ok = ok and tuple(x.strip() for x in got) == expected
    expect(ok, "parse_wrong", got=shown(got), reply=reply, expected=repr(expected))


@check("3.1", points=1, en="reads Thought, Action and Action Input", zh="读出 Thought、Action 和 Action Input")
def test_parses_an_action(learner, world):
    city = world.scenarios["weather"].values["city"]
    reply = f"Thought: I should look up the weather.\nAction: Weather\nAction Input:  {city} \n"
    expect_parsed(learner, reply, ("I should look up the weather.", "Weather", city))


@check("3.1", points=1, en="a Final Answer gives action '' and the answer", zh="Final Answer 时 action 为空串、答案放 action_input")
def test_parses_a_final_answer(learner, world):
    v = world.scenarios["calculator"].values
    expression = f"{v['a']} + {v['b']} * {v['c']}"
    answer = f"{expression} = {calculate(expression)}"
    reply = f"Thought: I now know the final answer.\nFinal Answer: {answer}"
    expect_parsed(learner, reply, ("I now know the final answer.", "", answer))


@check("3.1", points=1, en="keeps a Final Answer that spans several lines", zh="多行的 Final Answer 完整保留")
def test_parses_a_multiline_answer(learner, world):
    answer = "It is 77°F in 北京 today.\n- sunny\n- 25°C * 9 / 5 + 32 = 77"
    reply = f"Thought: I have both numbers.\nFinal Answer: {answer}\n"
    expect_parsed(learner, reply, ("I have both numbers.", "", answer))


@check("3.1", points=1, en="a Final Answer wins over an Action in the same reply",
       zh="同一回复里既有 Action 又有 Final Answer 时，以 Final Answer 为准")
def test_final_answer_wins(learner, world):
    reply = "Thought: I already know it.\nAction: Calculator\nAction Input: 1 + 1\nFinal Answer: 2"
    expect_parsed(learner, reply, ("I already know it.", "", "2"))


# ---------------------------------------------------------------- TODO 4.1 react_agent

def run_agent(learner, world, scenario, *max_steps):
    """Your react_agent on a task of scenarios.yaml, with the tools that task gives it."""
    tools = tools_arg(world, world.scenarios[scenario].tools)
    return learner.run_agent("react_agent", scenario, tools, *max_steps)


def expect_answer(run, expected, key="answer_missing"):
    """The answer contains `expected`; if not, say why, from the transcript when it shows it."""
    answer = run.answer
    if isinstance(answer, str) and expected in answer:
        return
    asked = [e.reply for e in run.exchanges if "Action:" in e.reply]
    repeats = max((asked.count(r) for r in asked), default=0)
    expect(repeats < 2, "history_not_fed_back", calls=repeats)
    expect(False, key, expected=expected, got=shown(answer))


@check("4.1", points=1, en="the calculator task: the answer holds the tool's result",
       zh="计算题：答案里有工具算出的结果")
def test_calculator_task(learner, world):
    v = world.scenarios["calculator"].values
    run = run_agent(learner, world, "calculator")
    expect_answer(run, calculate(f"{v['a']} + {v['b']} * {v['c']}"))


@check("4.1", points=1, en="the weather task: the answer holds the weather report",
       zh="天气题：答案里有查询到的天气")
def test_weather_task(learner, world):
    run = run_agent(learner, world, "weather")
    expect_answer(run, world.weather[run.scenario.values["city"]])


@check("4.1", points=1, en="two tools in a row: Weather, then Calculator (°C → °F)",
       zh="连续两个工具：先查天气，再换算华氏度")
def test_two_step_task(learner, world):
    run = run_agent(learner, world, "fahrenheit")
    celsius = first_number(world.weather[run.scenario.values["hot_city"]])
    expect_answer(run, f"{calculate(f'{celsius} * 9 / 5 + 32')}°F")


@check("4.1", points=1, en="an unknown tool's error goes back to the model, which recovers",
       zh="未知工具的报错回传给模型，模型自我纠正")
def test_recovers_from_unknown_tool(learner, world):
    v = world.scenarios["unknown_tool"].values
    run = run_agent(learner, world, "unknown_tool")
    expect_answer(run, calculate(f"{v['a']} * {v['c']} + {v['b']}"))


@check("4.1", points=1, en="a failing tool's error reaches the answer", zh="工具报错时，错误信息进入最终答案")
def test_reports_failing_tool(learner, world):
    city = world.scenarios["failing_tool"].values["nowhere"]
    run = run_agent(learner, world, "failing_tool")
    expect_answer(run, f"unknown city: {city}", key="error_not_observed")


@check("4.1", points=1, en="a model that never finishes: exactly max_steps calls, then a fallback",
       zh="模型永不结束：恰好调用 max_steps 次，然后返回兜底信息")
def test_stops_at_max_steps(learner, world):
    run = run_agent(learner, world, "endless", 4)
    expect(len(run.exchanges) == 4, "wrong_step_count", max_steps=4, calls=len(run.exchanges))
    expect(isinstance(run.answer, str) and run.answer.strip(), "no_fallback", got=shown(run.answer))


@check("4.1", points=1, en="returns the parsed Final Answer, not the raw reply",
       zh="返回解析出的 Final Answer，而不是原始回复")
def test_returns_parsed_answer(learner, world):
    run = run_agent(learner, world, "calculator")
    expect(run.exchanges, "no_llm_call")
    if "Final Answer:" not in run.exchanges[-1].reply:  # never got that far: say why instead
        v = world.scenarios["calculator"].values
        expect_answer(run, calculate(f"{v['a']} + {v['b']} * {v['c']}"))
    final = run.exchanges[-1].reply.split("Final Answer:", 1)[-1].strip()
    got = run.answer.strip() if isinstance(run.answer, str) else run.answer
    expect(got == final, "raw_reply", got=shown(run.answer), expected=final)


@check("4.1", points=1, en="really uses the model and the tools (transcript)",
       zh="真的调用了模型和工具（看对话记录）")
def test_really_uses_model_and_tools(learner, world):
    run = run_agent(learner, world, "fahrenheit")
    expect(run.exchanges, "no_llm_call")
    for index, exchange in enumerate(run.exchanges):
        if "Action Input:" not in exchange.reply:
            continue
        tool = exchange.reply.split("Action:", 1)[1].splitlines()[0].strip()
        tool_input = exchange.reply.split("Action Input:", 1)[1].strip()
        calls = [c for c in run.tool_calls if c.name == tool and c.input.strip() == tool_input]
        expect(calls, "tool_not_run", tool=tool, input=tool_input)
        later_prompts = [e.prompt for e in run.exchanges[index + 1:]]
        expect(any(calls[0].output in p for p in later_prompts), "observation_not_real",
               output=calls[0].output)
