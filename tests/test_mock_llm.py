"""The day06 text-ReAct mock model (TextReactSession), the mock's calculator, and scenario loading.

Every test plays the part of a learner's agent: it writes a prompt, reads the mock's reply, and
writes the next prompt the way a ReAct loop would.
"""
import importlib.util
import inspect
from pathlib import Path

import pytest

import mock_llm
import mock_llm.tools
from mock_llm import BudgetExceeded, ScenarioError, TextReactSession, load_world
from mock_llm.tools import calculate
from mock_llm.text_react import (find_observations, imagined, read_final, read_request, read_steps,
                                 written_after_request)

ROOT = Path(__file__).resolve().parent.parent
WORLD = load_world("day06")
CALC_Q = "What is 3 + 5 * 2?"
WEATHER_Q = "How is the weather in 上海 today?"
FAHRENHEIT_Q = "What is the temperature in 北京 today, in degrees Fahrenheit?"

INSTRUCTIONS = (
    "Answer the question. You can use these tools:\n"
    "- Calculator: evaluates arithmetic\n"
    "- Weather: today's weather in a city\n\n"
    "Use this format:\n"
    "Thought: [your reasoning]\n"
    "Action: [tool name]\n"
    "Action Input: [the input]\n"
    "Observation: ...\n"
    "Final Answer: [the answer]\n\n"
)


def session(name: str, world=WORLD, **kwargs) -> TextReactSession:
    return TextReactSession(world.scenarios[name], **kwargs)


def step(tool: str, tool_input: str, observation: str) -> str:
    """One step of history, as a learner's build_react_prompt writes it."""
    return f"Thought: ok\nAction: {tool}\nAction Input: {tool_input}\nObservation: {observation}\n"


def parsed(reply: str) -> dict:
    """The mock's reply as {key: value}; Final Answer keeps every line after it."""
    if "Final Answer:" in reply:
        return {"Final Answer": reply.split("Final Answer:", 1)[1].strip()}
    fields = {}
    for line in reply.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


# ---------------------------------------------------------------- the basic ReAct exchange

def test_first_prompt_gets_the_scripted_action():
    mock = session("calculator")
    reply = parsed(mock.reply(INSTRUCTIONS + f"Question: {CALC_Q}\n"))
    assert reply["Action"] == "Calculator"
    assert reply["Action Input"] == "3 + 5 * 2"
    assert mock.issued == [("Calculator", "3 + 5 * 2")]


def test_observation_in_prompt_gives_final_answer_quoting_it():
    mock = session("calculator")
    prompt = INSTRUCTIONS + f"Question: {CALC_Q}\n"
    mock.reply(prompt)
    reply = mock.reply(prompt + step("Calculator", "3 + 5 * 2", "13"))
    assert parsed(reply) == {"Final Answer": "3 + 5 * 2 = 13"}


def test_a_wrong_observation_shows_in_the_answer():
    mock = session("calculator")
    prompt = INSTRUCTIONS + f"Question: {CALC_Q}\n"
    mock.reply(prompt)
    reply = mock.reply(prompt + step("Calculator", "3 + 5 * 2", "16"))
    assert parsed(reply) == {"Final Answer": "3 + 5 * 2 = 16"}


def test_the_same_prompt_again_asks_for_the_same_call():
    mock = session("calculator")
    prompt = INSTRUCTIONS + f"Question: {CALC_Q}\n"
    first, second = mock.reply(prompt), mock.reply(prompt)
    assert first == second
    assert len(mock.transcript) == 2
    assert [e.prompt for e in mock.transcript] == [prompt, prompt]


def test_two_step_fahrenheit_computes_the_second_input_from_the_first_observation():
    mock = session("fahrenheit")
    prompt = INSTRUCTIONS + f"Question: {FAHRENHEIT_Q}\n"
    assert parsed(mock.reply(prompt))["Action"] == "Weather"
    prompt += step("Weather", "北京", "sunny, 25°C")
    reply = parsed(mock.reply(prompt))
    assert (reply["Action"], reply["Action Input"]) == ("Calculator", "25 * 9 / 5 + 32")
    prompt += step("Calculator", "25 * 9 / 5 + 32", "77")
    answer = parsed(mock.reply(prompt))["Final Answer"]
    assert "77°F" in answer and "sunny, 25°C" in answer


def test_two_step_follows_whatever_observation_it_is_given():
    mock = session("fahrenheit")
    prompt = f"Question: {FAHRENHEIT_Q}\n"
    mock.reply(prompt)
    reply = parsed(mock.reply(prompt + step("Weather", "北京", "rainy, 10°C")))
    assert reply["Action Input"] == "10 * 9 / 5 + 32"


def test_an_observation_for_another_input_does_not_count():
    mock = session("calculator")
    prompt = f"Question: {CALC_Q}\n"
    mock.reply(prompt)
    reply = parsed(mock.reply(prompt + step("Calculator", "3 + 5", "8")))
    assert reply["Action Input"] == "3 + 5 * 2"


# ---------------------------------------------------------------- prompts of every shape

def test_history_before_the_question():
    mock = session("calculator")
    mock.reply(INSTRUCTIONS + f"Question: {CALC_Q}\n")
    prompt = INSTRUCTIONS + "Steps so far:\n" + step("Calculator", "3 + 5 * 2", "13") + f"\nQuestion: {CALC_Q}\n"
    assert parsed(mock.reply(prompt)) == {"Final Answer": "3 + 5 * 2 = 13"}


def test_history_after_the_question():
    mock = session("weather")
    prompt = INSTRUCTIONS + f"Question: {WEATHER_Q}\n"
    assert parsed(mock.reply(prompt))["Action Input"] == "上海"
    reply = mock.reply(prompt + step("Weather", "上海", "cloudy, 28°C"))
    assert parsed(reply) == {"Final Answer": "Today in 上海: cloudy, 28°C."}


@pytest.mark.parametrize("placeholder", ["...", "[工具返回的结果]", "<result>", "(the tool's output)"])
def test_placeholder_lines_in_the_instructions_are_not_history(placeholder):
    instructions = (f"Format:\nThought: ...\nAction: Calculator\nAction Input: 3 + 5 * 2\n"
                    f"Observation: {placeholder}\nFinal Answer: ...\n\n")
    mock = session("calculator")
    assert parsed(mock.reply(instructions + f"Question: {CALC_Q}\n"))["Action"] == "Calculator"
    # and on a later prompt still (the instructions are sent every time)
    assert parsed(mock.reply(instructions + f"Question: {CALC_Q}\n"))["Action"] == "Calculator"


def test_few_shot_example_with_another_call_is_not_history():
    example = ("Example:\nQuestion: What is 1 + 1?\n" + step("Calculator", "1 + 1", "2")
               + "Final Answer: 2\n\n")
    mock = session("calculator")
    prompt = INSTRUCTIONS + example + f"Question: {CALC_Q}\n"
    assert parsed(mock.reply(prompt))["Action Input"] == "3 + 5 * 2"
    assert parsed(mock.reply(prompt + step("Calculator", "3 + 5 * 2", "13"))) == {
        "Final Answer": "3 + 5 * 2 = 13"}


def test_few_shot_example_with_the_same_call_is_not_history():
    # The instructions show exactly the scenario's call and its result. It was already in the first
    # prompt, so it is an example, not a step the agent took.
    example = "Example:\nAction: Calculator\nAction Input: 3 + 5 * 2\nObservation: 13\nFinal Answer: 13\n\n"
    mock = session("calculator")
    prompt = INSTRUCTIONS + example + f"Question: {CALC_Q}\n"
    assert parsed(mock.reply(prompt))["Action"] == "Calculator"
    assert parsed(mock.reply(prompt))["Action"] == "Calculator"  # still nothing new on a resend
    assert parsed(mock.reply(prompt + step("Calculator", "3 + 5 * 2", "13"))) == {
        "Final Answer": "3 + 5 * 2 = 13"}


def test_chinese_instructions_and_full_width_colons():
    instructions = ("请回答用户的问题。可用工具：\n- Weather: 查询天气\n\n格式：\n思考：你的想法\n"
                    "Action：[工具名]\nAction Input：[工具输入]\nObservation：[工具返回的结果]\n\n")
    mock = session("weather")
    prompt = instructions + f"问题：{WEATHER_Q}\n\n"
    reply = parsed(mock.reply(prompt))
    assert (reply["Action"], reply["Action Input"]) == ("Weather", "上海")
    history = "思考：查天气\nAction：Weather\nAction Input：上海\nObservation：cloudy, 28°C\n"
    assert parsed(mock.reply(prompt + history)) == {"Final Answer": "Today in 上海: cloudy, 28°C."}


@pytest.mark.parametrize("written", ['"上海"', "'上海'", "`上海`", "“上海”"])
def test_quoted_action_input(written):
    mock = session("weather")
    prompt = f"Question: {WEATHER_Q}\n"
    mock.reply(prompt)
    reply = mock.reply(prompt + step("Weather", written, "cloudy, 28°C"))
    assert parsed(reply) == {"Final Answer": "Today in 上海: cloudy, 28°C."}


def test_markdown_and_lowercase_keys():
    mock = session("calculator")
    prompt = f"Question: {CALC_Q}\n"
    mock.reply(prompt)
    history = "**Action:** calculator\n**Action Input:** 3+5*2\n**Observation:** 13\n"
    assert parsed(mock.reply(prompt + history)) == {"Final Answer": "3 + 5 * 2 = 13"}


def test_no_question_in_the_prompt():
    mock = session("calculator")
    reply = mock.reply(INSTRUCTIONS + "Question: \n")
    assert "Action" not in parsed(reply)
    assert "do not see a question" in reply


def test_a_bracketed_real_observation_is_read():
    mock = session("unknown_tool")
    prompt = f"Question: {WORLD.scenarios['unknown_tool'].question}\n"
    assert parsed(mock.reply(prompt))["Action"] == "WebSearch"
    prompt += step("WebSearch", "3 * 2 + 5", "(error: unknown tool WebSearch)")
    assert parsed(mock.reply(prompt))["Action"] == "Calculator"


def test_observation_stops_at_a_chinese_key_line():
    mock = session("calculator")
    mock.reply(f"问题：{CALC_Q}\n")
    prompt = "历史：\n" + step("Calculator", "3 + 5 * 2", "13") + f"问题：{CALC_Q}\n"
    assert parsed(mock.reply(prompt)) == {"Final Answer": "3 + 5 * 2 = 13"}


@pytest.mark.parametrize("boundary", [
    "---", "===", "***", "___", "----------------", "- - -", "* * *", "  ===  ", "──────",
    "=== Step 2 ===", "----- next step -----",
    "```", "```text", "</step>", "<step>", "## Step 2", "Step 2:", "**Step 2**", "Round 2",
    "第 2 步：", "步骤 2", "Steps so far:",
])
def test_a_separator_or_heading_ends_an_observation(boundary):
    # The history of a correct agent that frames its steps; the separator is not part of the result.
    history = (step("Weather", "北京", "sunny, 25°C") + boundary + "\n"
               + step("Calculator", "25 * 9 / 5 + 32", "77") + boundary + "\n")
    assert find_observations(history, "Weather", "北京") == ["sunny, 25°C"]
    assert find_observations(history, "Calculator", "25 * 9 / 5 + 32") == ["77"]
    mock = session("fahrenheit")
    prompt = f"Question: {FAHRENHEIT_Q}\n"
    mock.reply(prompt)
    answer = parsed(mock.reply(prompt + history))["Final Answer"]
    assert answer == ("It is 77°F in 北京 today.\n"
                      "(Weather report: sunny, 25°C; 25°C * 9 / 5 + 32 = 77°F.)")


def test_an_observation_still_runs_on_to_a_plain_next_line():
    history = "Action: Weather\nAction Input: 北京\nObservation: sunny, 25°C\nwind from the north\n\n"
    assert find_observations(history, "Weather", "北京") == ["sunny, 25°C\nwind from the north"]


@pytest.mark.parametrize("history", [
    "- Thought: ok\n- Action: Weather\n- Action Input: 北京\n- Observation: sunny, 25°C\n",
    "**Thought:** ok\n**Action:** Weather\n**Action Input:** 北京\n**Observation:** sunny, 25°C\n",
    "Thought 1: ok\nAction 1: Weather\nAction Input 1: 北京\nObservation 1: sunny, 25°C\n",
    "1. Action: Weather\n2. Action Input: 北京\n3. Observation: sunny, 25°C\n",
    "思考：查天气\nAction：Weather\nAction Input：北京\nObservation：sunny, 25°C\n",
    "### Step 1\n> Action: `Weather`\n> Action Input: `北京`\n> Observation: sunny, 25°C\n### Step 2\n",
])
def test_layouts_a_model_would_read(history):
    assert find_observations(history, "Weather", "北京") == ["sunny, 25°C"]
    assert [(s.tool.strip("`"), s.tool_input.strip("`")) for s in read_steps(history)] == [("Weather", "北京")]


def test_read_steps_gives_each_step_where_it_is_written():
    history = step("Weather", "北京", "sunny, 25°C") + "\n" + step("Calculator", "25 * 9 / 5 + 32", "77")
    steps = read_steps("Question: q\n" + history)
    assert [(s.tool, s.tool_input, s.observation, s.line) for s in steps] == [
        ("Weather", "北京", "sunny, 25°C", 2), ("Calculator", "25 * 9 / 5 + 32", "77", 7)]


# ---------------------------------------------------------------- what the mock makes up

def test_a_calculator_request_goes_on_with_a_made_up_observation():
    reply = session("calculator").reply(INSTRUCTIONS + f"Question: {CALC_Q}\n")
    assert reply.endswith("Action: Calculator\nAction Input: 3 + 5 * 2\nObservation: 16")
    assert read_request(reply) == ("Calculator", "3 + 5 * 2")
    assert written_after_request(reply) == "Observation: 16"


def test_a_weather_request_ends_at_its_action_input():
    reply = session("weather").reply(f"Question: {WEATHER_Q}\n")
    assert reply.endswith("Action Input: 上海")
    assert written_after_request(reply) == ""


def test_the_made_up_observation_is_believed_when_the_prompt_repeats_it():
    # A loop that copies the raw reply into its history shows the model its own invention first.
    mock = session("calculator")
    prompt = f"Question: {CALC_Q}\n"
    reply = mock.reply(prompt)
    assert parsed(mock.reply(prompt + reply + "\nObservation: 13\n")) == {"Final Answer": "3 + 5 * 2 = 16"}
    # Written from the parsed fields, the real result is what it reads.
    assert parsed(mock.reply(prompt + step("Calculator", "3 + 5 * 2", "13"))) == {
        "Final Answer": "3 + 5 * 2 = 13"}


@pytest.mark.parametrize("tool, given, guess", [
    ("Calculator", "3 + 5 * 2", "16"), ("Calculator", "25 * 9 / 5 + 32", "77"),
    ("Calculator", "10 / 4", "2.5"), ("Calculator", "2 - -3 * 2", "10"), ("Calculator", "1 / 0", None),
    ("Calculator", "(3 + 5) * 2", None), ("Calculator", "7", None), ("Weather", "北京", None),
])
def test_imagined(tool, given, guess):
    assert imagined(tool, given) == guess


@pytest.mark.parametrize("reply, asked, final", [
    ("Thought: t\nAction: Weather\nAction Input: 北京", ("Weather", "北京"), None),
    ("Thought: t\nAction: Weather\nAction Input: 北京\nObservation: x\nAction: Calculator\nAction Input: 1",
     ("Weather", "北京"), None),
    ("Thought: t\nFinal Answer: a\nb", None, "a\nb"),
    ("Thought: t\nAction: None\nFinal Answer: 2", None, "2"),
    ("Thought: t\nFinal Answer: 2\nAction: Calculator\nAction Input: 1 + 1", None,
     "2\nAction: Calculator\nAction Input: 1 + 1"),
    ("Thought: t\nAction: Calculator\nAction Input: 1 + 1\nFinal Answer: 2", ("Calculator", "1 + 1"), None),
])
def test_reading_a_reply(reply, asked, final):
    assert read_request(reply) == asked
    assert read_final(reply) == final


# ---------------------------------------------------------------- budget, endless, seeds

def test_budget_raises_after_budget_calls():
    mock = session("calculator", budget=3)
    prompt = f"Question: {CALC_Q}\n"
    for _ in range(3):
        mock.reply(prompt)
    with pytest.raises(BudgetExceeded):
        mock.reply(prompt)
    assert len(mock.transcript) == 3


def test_endless_scenario_never_finishes():
    mock = session("endless", budget=100)
    prompt = f"Question: {WORLD.scenarios['endless'].question}\n"
    inputs = []
    for _ in range(30):
        reply = parsed(mock.reply(prompt))
        assert "Final Answer" not in reply
        inputs.append(reply["Action Input"])
        prompt += step("Calculator", reply["Action Input"], calculate(reply["Action Input"]))
    assert inputs[:3] == ["1 + 1", "2 + 1", "3 + 1"]
    assert len(set(inputs)) == 30  # it counts on: each observation was read


def test_seed_0_uses_the_lesson_numbers():
    assert WORLD.scenarios["calculator"].question == CALC_Q
    assert WORLD.scenarios["weather"].question == WEATHER_Q
    assert WORLD.scenarios["fahrenheit"].question == FAHRENHEIT_Q
    assert WORLD.weather["北京"] == "sunny, 25°C"
    assert WORLD.tool_descriptions.keys() == {"Calculator", "Weather"}


def test_another_seed_draws_other_values_reproducibly():
    seven, again = load_world("day06", 7), load_world("day06", 7)
    questions = {name: s.question for name, s in seven.scenarios.items()}
    assert questions == {name: s.question for name, s in again.scenarios.items()}
    assert seven.weather == again.weather
    assert questions["calculator"] != CALC_Q
    assert seven.weather != WORLD.weather
    assert load_world("day06", 8).scenarios["calculator"].question != questions["calculator"]


def test_another_seed_scripts_its_own_numbers():
    world = load_world("day06", 7)
    story = world.scenarios["calculator"]
    expression = f"{story.values['a']} + {story.values['b']} * {story.values['c']}"
    mock = TextReactSession(story)
    prompt = f"Question: {story.question}\n"
    assert parsed(mock.reply(prompt))["Action Input"] == expression
    answer = parsed(mock.reply(prompt + step("Calculator", expression, calculate(expression))))
    assert answer == {"Final Answer": f"{expression} = {calculate(expression)}"}


def test_reply_routes_by_question(monkeypatch):
    monkeypatch.setattr(mock_llm, "_sessions", {})
    assert parsed(mock_llm.reply("day06", f"Question: {CALC_Q}"))["Action"] == "Calculator"
    assert parsed(mock_llm.reply("day06", f"Question: {WEATHER_Q}"))["Action"] == "Weather"
    prompt = f"Question: {CALC_Q}\n" + step("Calculator", "3 + 5 * 2", "13")
    assert parsed(mock_llm.reply("day06", prompt)) == {"Final Answer": "3 + 5 * 2 = 13"}
    stranger = mock_llm.reply("day06", "Question: What is the capital of France?")
    assert "Final Answer" in stranger and "None of the tools I was given can help" in stranger


def test_off_script_the_mock_names_the_tools_it_was_given(monkeypatch):
    """Not the lesson's whole table: the tools the learner's prompt describes."""
    monkeypatch.setattr(mock_llm, "_sessions", {})
    only_calculator = "You can use these tools:\n- Calculator: evaluates arithmetic\nQuestion: Who wrote Hamlet?"
    answer = mock_llm.reply("day06", only_calculator)
    assert "(I was given: Calculator)" in answer and "Weather" not in answer
    assert "(I was given: none)" in mock_llm.reply("day06", "Question: Who painted the Mona Lisa?")


def test_questions_no_scenario_scripts_are_answered_with_the_tools(monkeypatch):
    """A learner playing with their agent: any city of the table, any arithmetic, both at once."""
    monkeypatch.setattr(mock_llm, "_sessions", {})
    weather = mock_llm.reply("day06", "Question: How is the weather in 广州 today?")
    assert (parsed(weather)["Action"], parsed(weather)["Action Input"]) == ("Weather", "广州")
    both = "Question: In 成都, what is 12*7?\n"
    first = parsed(mock_llm.reply("day06", both))
    assert (first["Action"], first["Action Input"]) == ("Weather", "成都")
    second = parsed(mock_llm.reply("day06", both + step("Weather", "成都", "overcast, 19°C")))
    assert (second["Action"], second["Action Input"]) == ("Calculator", "12*7")
    done = mock_llm.reply("day06", both + step("Weather", "成都", "overcast, 19°C") + step("Calculator", "12*7", "84"))
    assert parsed(done)["Final Answer"] == "成都: overcast, 19°C; 12*7: 84"


# ---------------------------------------------------------------- the grader's calculator

@pytest.mark.parametrize("expression, result", [
    ("3 + 5 * 2", "13"), ("25 * 9 / 5 + 32", "77"), ("2 - 5", "-3"), ("10 / 4", "2.5"),
    ("-(2 + 1)", "-3"), (" 7 // 2 ", "3"), ("2 ** 10", "1024"), ("3*2+5", "11"),
])
def test_calculate_arithmetic(expression, result):
    assert calculate(expression) == result


@pytest.mark.parametrize("expression", [
    "__import__('os')", "open('x')", "x", "(1).__class__", "().__class__.__bases__", "2 ** 10000",
    "'a' * 3", "[1, 2]", "1 if 1 else 2", "lambda: 1", "True + 1", "", "import os",
    "print(1)", "3 +",
])
def test_calculate_rejects_anything_but_arithmetic(expression):
    with pytest.raises(ValueError):
        calculate(expression)


@pytest.mark.parametrize("expression", ["1 / 0", "2.5 / (3 - 3)", "7 // 0", "7 % 0"])
def test_calculate_divides_by_zero_as_the_lessons_calculators_do(expression):
    """ZeroDivisionError, with Python's words: a learner's `except ZeroDivisionError` for the
    lesson's own calculator meets the same in the grader."""
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        calculate(expression)


def test_calculate_never_evals():
    source = inspect.getsource(mock_llm.tools)
    assert "eval(" not in source and "exec(" not in source


def test_calculate_float_overflow_is_a_value_error():
    with pytest.raises(ValueError):
        calculate("(10.0 ** 100) ** 4")


def test_calculate_refuses_huge_intermediate_numbers():
    with pytest.raises(ValueError):
        calculate("(9 ** 99) ** 99 - (9 ** 99) ** 99")  # a 9400-digit number on the way to 0


def test_calculate_refuses_complex_results():
    with pytest.raises(ValueError):
        calculate("(-8) ** 0.5")


# ---------------------------------------------------------------- scenarios.yaml errors

def test_malformed_yaml_names_the_file(tmp_path):
    path = tmp_path / "scenarios.yaml"
    path.write_text("scenarios: [unclosed\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="not valid YAML") as error:
        load_world("day06", path=path)
    assert str(path) in str(error.value)


@pytest.mark.parametrize("text", [
    "just a string\n",
    "vars: {}\n",
    "protocol: text\nscenarios:\n  calc:\n    calls: []\n",  # no question
    "protocol: text\nscenarios:\n  calc:\n    question: 'What is {nope}?'\n",  # unknown placeholder
    "protocol: text\nvars:\n  a: {between: [1, 2]}\nscenarios: {}\n",  # no default for seed 0
    "scenarios:\n  calc:\n    question: 'What?'\n",  # no protocol
    "protocol: txet\nscenarios:\n  calc:\n    question: 'What?'\n",  # a protocol nobody knows
])
def test_unusable_scenarios_name_the_file(tmp_path, text):
    path = tmp_path / "scenarios.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as error:
        load_world("day06", path=path)
    assert str(path) in str(error.value)


@pytest.mark.parametrize("protocol", ["text", "text_chat"])
def test_an_endless_text_scenario_must_ask_something_new_each_time(tmp_path, protocol):
    """The text mock reads a call's result from the prompt by the call's input: a repeated call with
    the same input would read the first result again and again, and the grader would never return."""
    path = tmp_path / "scenarios.yaml"
    path.write_text(f"protocol: {protocol}\nscenarios:\n  endless:\n    question: 'Count?'\n    repeat: true\n"
                    "    calls:\n      - {tool: Calculator, input: '1 + 1'}\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"repeat: true needs \{n\}") as error:
        load_world(tmp_path)
    assert str(path) in str(error.value) and "endless" in str(error.value)
    counting = path.read_text(encoding="utf-8").replace("'1 + 1'", "'{n} + 1'")
    path.write_text(counting, encoding="utf-8")
    assert load_world(tmp_path).scenarios["endless"].repeat


def test_missing_scenarios_file(tmp_path):
    with pytest.raises(ScenarioError, match="no such file"):
        load_world("day06", path=tmp_path / "absent.yaml")


# ---------------------------------------------------------------- call options: made_up, guess, strict

from mock_llm.scenarios import Call, Scenario  # noqa: E402  (the options' own tests, kept together)


def scripted(*calls: Call, answer: str = "{obs1}", question: str = "What is 3 + 5 * 2?") -> TextReactSession:
    return TextReactSession(Scenario("options", question, [[c] for c in calls], answer, ["Calculator"],
                                     repeat=False, values={"city": "上海"}))


def test_made_up_none_stops_at_the_action_input():
    reply = scripted(Call("Calculator", "3 + 5 * 2", made_up="none")).reply(f"Question: {CALC_Q}\n")
    assert reply.endswith("Action Input: 3 + 5 * 2") and written_after_request(reply) == ""


def test_made_up_final_adds_a_final_answer_built_on_the_made_up_observation():
    mock = scripted(Call("Calculator", "3 + 5 * 2", made_up="final"), answer="3 + 5 * 2 = {obs1}")
    reply = mock.reply(f"Question: {CALC_Q}\n")
    assert read_request(reply) == ("Calculator", "3 + 5 * 2")  # the request still comes first
    assert written_after_request(reply) == (
        "Observation: 16\nThought: I now know the final answer.\nFinal Answer: 3 + 5 * 2 = 16")
    # with the real result in the prompt, the real answer
    assert parsed(mock.reply(f"Question: {CALC_Q}\n" + step("Calculator", "3 + 5 * 2", "13"))) == {
        "Final Answer": "3 + 5 * 2 = 13"}


def test_made_up_answer_goes_straight_on_to_a_final_answer_with_no_observation():
    """A cut at `Observation:` leaves this reply whole; only one after the Action Input drops the answer."""
    mock = scripted(Call("Calculator", "3 + 5 * 2", made_up="answer"), answer="3 + 5 * 2 = {obs1}")
    reply = mock.reply(f"Question: {CALC_Q}\n")
    assert read_request(reply) == ("Calculator", "3 + 5 * 2")
    assert written_after_request(reply) == "Thought: I now know the final answer.\nFinal Answer: 3 + 5 * 2 = 16"


def fahrenheit_reply(made_up: str) -> str:
    """The first reply on a two-step task (the weather, then °C → °F), with `made_up` on its first call."""
    mock = scripted(Call("Weather", "{city}", made_up=made_up, guess="sunny, 25°C"),
                    Call("Calculator", "{obs1:number} * 9 / 5 + 32"),
                    answer="{obs2}°F ({obs1})", question="How hot is 上海 in °F?")
    reply = mock.reply("Question: How hot is 上海 in °F?\n")
    assert read_request(reply) == ("Weather", "上海")
    return reply


def test_made_up_final_imagines_the_rest_of_the_script():
    assert read_final(written_after_request(fahrenheit_reply("final"))) == "77°F (sunny, 25°C)"


def test_made_up_rounds_rambles_through_the_rest_of_the_task_to_an_answer():
    reply = fahrenheit_reply("rounds")
    assert written_after_request(reply).splitlines() == [
        "Observation: sunny, 25°C", "Thought: I should use a tool.", "Action: Calculator",
        "Action Input: 25 * 9 / 5 + 32", "Observation: 77", "Thought: I now know the final answer.",
        "Final Answer: 77°F (sunny, 25°C)"]


def test_echo_copies_the_prompts_format_lines_while_the_conversation_is_only_the_prompt():
    prompt = ("Use a tool:\nThought: what to do\nAction: the tool's name\nAction Input: its input\n"
              "Or answer:\nFinal Answer: the answer\n\nQuestion: Weather in 上海?\n")
    mock = scripted(Call("Weather", "{city}", made_up="none", echo=True), question="Weather in 上海?")
    first = mock.reply(prompt)
    assert first.startswith("Thought: what to do\nAction: the tool's name\nAction Input: its input\n"
                            "Or answer:\nFinal Answer: the answer\n\nThought: I should use a tool.")
    assert read_request(first) == ("the tool's name", "its input") and first.endswith("Action Input: 上海")
    assert mock.reply(prompt) == first  # the same request, the same echo
    answered = f"{prompt}Thought: what to do\nAction: the tool's name\nAction Input: its input\nObservation: no such tool"
    assert read_request(mock.reply(answered)) == ("Weather", "上海")  # anything more: it asks cleanly


def test_guess_is_the_made_up_observation_of_any_tool():
    reply = scripted(Call("Weather", "{city}", guess="sunny, 25°C"), question="Weather in 上海?").reply(
        "Question: Weather in 上海?\n")
    assert written_after_request(reply) == "Observation: sunny, 25°C"


def test_made_up_final_without_a_guess_writes_nothing_made_up():
    reply = scripted(Call("Weather", "{city}", made_up="final"), question="Weather in 上海?").reply(
        "Question: Weather in 上海?\n")
    assert written_after_request(reply) == ""


def test_strict_asks_only_for_a_tool_the_prompt_names():
    mock = scripted(Call("Calculator", "3 + 5 * 2", strict=True), answer="3 + 5 * 2 = {obs1}")
    without = mock.reply(f"Question: {CALC_Q}\n")
    assert read_request(without) is None and read_final(without) == "3 + 5 * 2 = 16"
    assert read_request(mock.reply(INSTRUCTIONS + f"Question: {CALC_Q}\n")) == ("Calculator", "3 + 5 * 2")


def test_strict_reads_the_steps_only_in_order():
    calls = (Call("Weather", "{city}", strict=True), Call("Calculator", "{obs1:number} * 9 / 5 + 32", strict=True))
    mock = scripted(*calls, answer="{obs2}°F", question="How hot is 上海 in °F?")
    prompt = INSTRUCTIONS + "Question: How hot is 上海 in °F?\n"
    weather, calculator = step("Weather", "上海", "cloudy, 28°C"), step("Calculator", "28 * 9 / 5 + 32", "82.4")
    assert read_request(mock.reply(prompt)) == ("Weather", "上海")  # the first prompt: instructions only
    assert parsed(mock.reply(prompt + weather + calculator)) == {"Final Answer": "82.4°F"}
    assert read_request(mock.reply(prompt + calculator + weather)) == ("Calculator", "28 * 9 / 5 + 32")
    # not strict: the same history, newest first, is read anyway
    loose = scripted(*(Call(c.tool, c.input) for c in calls), answer="{obs2}°F", question="How hot is 上海 in °F?")
    loose.reply(prompt)
    assert parsed(loose.reply(prompt + calculator + weather)) == {"Final Answer": "82.4°F"}


def test_strict_does_not_count_an_example_in_the_first_prompt():
    example = "Example:\n" + step("Calculator", "3 + 5 * 2", "13")
    mock = scripted(Call("Calculator", "3 + 5 * 2", strict=True), answer="= {obs1}")
    assert read_request(mock.reply(INSTRUCTIONS + example + f"Question: {CALC_Q}\n")) == ("Calculator", "3 + 5 * 2")
    later = INSTRUCTIONS + example + f"Question: {CALC_Q}\n" + step("Calculator", "3 + 5 * 2", "13")
    assert parsed(mock.reply(later)) == {"Final Answer": "= 13"}


def test_an_unknown_made_up_option_names_the_file(tmp_path):
    path = tmp_path / "scenarios.yaml"
    path.write_text("protocol: text\nscenarios:\n  calc:\n    question: 'What?'\n"
                    "    calls:\n      - {tool: Calculator, input: '1 + 1', made_up: always}\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="made_up") as error:
        load_world("day06", path=path)
    assert str(path) in str(error.value)


# ---------------------------------------------------------------- call options: off_format, misspelt

SHANGHAI_Q = "Weather in 上海?"
SLIP = "好的，我这就查一下{city}的天气。"
REMINDER = "Your reply did not follow the format: write Thought, Action and Action Input lines."


def test_off_format_slips_until_the_prompt_names_the_format():
    mock = scripted(Call("Weather", "{city}", off_format=SLIP), answer="{obs1}", question=SHANGHAI_Q)
    first = f"Question: {SHANGHAI_Q}\n"
    slip = mock.reply(first)
    assert slip == "好的，我这就查一下上海的天气。" and read_request(slip) is None and read_final(slip) is None
    assert mock.reply(first) == slip  # the same prompt again: the same slip
    assert mock.reply(first + slip + "\nPlease go on.") == slip  # something new, but not the format
    corrected = first + slip + "\n" + REMINDER
    assert read_request(mock.reply(corrected)) == ("Weather", "上海")
    assert mock.reply(corrected + "\n" + step("Weather", "上海", "cloudy, 28°C")).endswith("cloudy, 28°C")


def test_off_format_correction_in_chinese_counts():
    mock = scripted(Call("Weather", "{city}", off_format=SLIP), answer="{obs1}", question=SHANGHAI_Q)
    first = f"Question: {SHANGHAI_Q}\n"
    slip = mock.reply(first)
    assert read_request(mock.reply(first + slip + "\n请按照规定的格式继续回答。")) == ("Weather", "上海")


def test_off_format_is_off_by_default():
    reply = scripted(Call("Weather", "{city}"), question=SHANGHAI_Q).reply(f"Question: {SHANGHAI_Q}\n")
    assert read_request(reply) == ("Weather", "上海")


def test_misspelt_asks_for_the_wrong_name_first_then_the_listed_one():
    mock = scripted(Call("Weather", "{city}", misspelt="Wether"), answer="{obs1}", question=SHANGHAI_Q)
    first = f"Question: {SHANGHAI_Q}\n"
    assert read_request(mock.reply(first)) == ("Wether", "上海")
    told = first + step("Wether", "上海", "Error: no tool named 'Wether'. Available tools: Weather, Calculator")
    assert read_request(mock.reply(told)) == ("Weather", "上海")
    # {obs1} is the real tool's result, not the error about the wrong name
    assert read_final(mock.reply(told + step("Weather", "上海", "cloudy, 28°C"))) == "cloudy, 28°C"


def test_misspelt_gives_up_when_the_observation_does_not_list_the_tools():
    mock = scripted(Call("Weather", "{city}", misspelt="Wether"), answer="{obs1}", question=SHANGHAI_Q)
    mock.reply(f"Question: {SHANGHAI_Q}\n")
    reply = mock.reply(f"Question: {SHANGHAI_Q}\n" + step("Wether", "上海", "Error: unknown tool"))
    assert read_request(reply) is None and "Error: unknown tool" in read_final(reply)


def test_off_format_then_misspelt_in_one_call():
    mock = scripted(Call("Weather", "{city}", off_format=SLIP, misspelt="Wether", guess="sunny, 36°C"),
                    answer="{obs1}", question=SHANGHAI_Q)
    prompt = f"Question: {SHANGHAI_Q}\n"
    slip = mock.reply(prompt)
    prompt += slip + "\n" + REMINDER + "\n"
    wrong = mock.reply(prompt)
    assert read_request(wrong) == ("Wether", "上海") and written_after_request(wrong) == "Observation: sunny, 36°C"
    prompt += step("Wether", "上海", "Error: Available tools: Weather")
    assert read_request(mock.reply(prompt)) == ("Weather", "上海")


def test_off_format_and_misspelt_are_read_from_scenarios_yaml():
    world = load_world("day08")
    call = world.scenarios["rough"].turns[0][0]
    assert call.off_format and call.misspelt == "get_wether"
    assert world.scenarios["weather"].turns[0][0].off_format is None


@pytest.mark.parametrize("lesson", ["day01", "day02"])
def test_a_tool_never_builds_a_huge_repetition_in_the_grader(lesson):
    """The learner's code chooses multiply's arguments: "x" * 60,000 repeated 300,000 times would be
    18 GB of the grader's memory, built before any check could look at it."""
    multiply = load_world(lesson).tools["multiply"]
    assert (multiply(5, 6), multiply("ab", 3), multiply(2.5, 2)) == (30, "ababab", 5.0)
    with pytest.raises(ValueError, match="result too large"):
        multiply("x" * 60_000, 300_000)
    with pytest.raises(ValueError, match="result too large"):
        multiply(10**7, [0])


@pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")  # the checks' own @check marks
def test_day11s_screens_pass_stocks_out_of_alphabetical_order_at_every_seed():
    """screen() returns the stocks that pass "in the order given": at every seed the data passes two
    that the screens name out of alphabetical order, so a screen that sorts what passes never
    happens to be right (most seeds other than 0 passed one stock, or an alphabetical few)."""
    spec = importlib.util.spec_from_file_location("day11_checks", ROOT / "lessons" / "day11" / "checks.py")
    checks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(checks)
    for seed in range(60):
        world = load_world("day11", seed)
        for tickers in (checks.SCREEN, checks.OUTAGE):
            passing = checks.expected_screen(world, tickers)
            assert passing != sorted(passing), (seed, tickers, passing)


@pytest.mark.parametrize("lesson, tool, wrong", [("day11", "get_news", {"symbol": "AAPL"}),
                                                 ("day01", "add", {"x": 1})])
def test_a_tools_argument_error_names_the_tool_not_the_factory_it_was_made_in(lesson, tool, wrong):
    """The learner's code sees a grader tool's TypeError as it is: "get_news() got an unexpected
    keyword argument", not "tools.<locals>.get_news() ...", the kit's own inner workings."""
    with pytest.raises(TypeError) as raised:
        load_world(lesson).tools[tool](**wrong)
    assert str(raised.value).startswith(f"{tool}() ") and "<locals>" not in str(raised.value)
