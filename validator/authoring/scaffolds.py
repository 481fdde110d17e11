"""The files `validate.py new` writes (scaffold.py), as string.Template texts: $name is the lesson's
name, $protocol its protocol. One tool, one scenario, one TODO, one check: the smallest lesson that
grades, for its author to make their own."""

LESSON_YAML = """\
# $name — everything the validator needs to know about this lesson, besides the checks themselves.
# Made by `python validate.py new`; README "Adding a lesson" says what each line does.
title:
  en: "$name: convert units"
  zh: "$name：单位换算"
exercise: $name.py        # the file learners edit, made from the solution: check-lesson --fix
${solution_line}checks: checks.py         # pytest tests, each tagged with its TODO and points
time_limit: 3             # seconds one check may run before it counts as a hang
llm_call_budget: 10       # model calls per agent run; past it the mock refuses and the check fails
${model_line}live: [convert]           # what `validate.py $name --live` asks a real model

course:   # this lesson's row in the root README's course table (`validate.py check-lesson --fix` writes it)
  writes: "the agent loop, one tool"
  audit: not measured   # the mutation audit: killed/counted (`validate.py check-lesson $name --audit --fix` writes it)

todos:
  - id: "1.1"
    function: agent
    title: {en: "the agent loop", zh: "Agent 主循环"}
    hints:
      - en: "Ask the model; when it asks for a tool, run it and give it the result; stop at its final answer."
        zh: "向模型提问；它要用工具时就执行工具，把结果交还给它；拿到最终答案就停。"

# Messages of this lesson's checks; {names} are filled in by the check.
messages:
  answer_lacks_result:
    en: "the answer should hold the tool's result, {expected}, but it was {got}"
    zh: "答案里应该有工具的结果 {expected}，实际是 {got}"
"""

SCENARIOS_YAML = """\
# The tasks the $name checks give the agent, and what the mock model does for each.
protocol: $protocol

vars:
  km: {default: 42, between: [2, 90]}   # seed 0: the default; any other seed draws one

tools:
  km_to_miles: "Converts kilometres to miles. Input: the distance in km."

data:
  factors: {km_to_miles: 0.621371}

scenarios:
  convert:
    question: "How many miles is {km} km?"
    calls:
      - $call
    answer: "{km} km is {obs1} miles."
"""

TOOLS_PY = '''\
"""The tools the grader runs for $name's agent, with the data of scenarios.yaml."""


def tools(world) -> dict:
    def km_to_miles(km) -> str:
        return f"{float(km) * world.factors['km_to_miles']:.1f}"
    return {"km_to_miles": km_to_miles}
'''

CHECKS_PY = '''\
"""$name's checks: plain pytest tests, each tagged with its TODO; they use only validator.checking."""
from validator.checking import check, expect, registry_arg, shown


def run_agent(learner, world, scenario):
    """The learner's agent on a scenario, with the lesson's tool (also what `--live` runs)."""
    return learner.run_agent("agent", scenario, registry_arg(["km_to_miles"]))


@check("1.1", points=1, en="the answer holds the tool's result", zh="答案里有工具的结果")
def test_the_answer_holds_the_result(learner, world):
    run = run_agent(learner, world, "convert")
    expected = world.tools["km_to_miles"](run.scenario.values["km"])
    expect(isinstance(run.answer, str) and expected in run.answer, "answer_lacks_result", expected=expected,
           got=shown(run.answer))
    run.expect_from_model(expected)
'''

README_MD = """\
# $name — convert units

What this lesson teaches, in a sentence or two. (`validate.py new` wrote this text: make it the
lesson's.)

## Your task

**TODO 1.1 · `agent`**: the agent loop. Ask the model; when it asks for the `km_to_miles` tool, run
it and give the model its result; stop at its final answer.

Grade your copy with `python validate.py $name`.

<!-- lesson navigation -->
"""

README_ZH_MD = """\
# $name — 单位换算

用一两句话说明这一课教什么。（这段文字由 `validate.py new` 生成：请改成这一课自己的内容。）

## 你的任务

**TODO 1.1 · `agent`**：Agent 主循环。向模型提问；模型要用 `km_to_miles` 工具时就执行它，把结果交还给模型；
拿到最终答案就停。

用 `python validate.py $name` 给你的副本评分。

<!-- lesson navigation -->
"""

FILES = {"lesson.yaml": LESSON_YAML, "scenarios.yaml": SCENARIOS_YAML, "tools.py": TOOLS_PY,
         "checks.py": CHECKS_PY, "README.md": README_MD, "README.zh.md": README_ZH_MD}

HEAD = '''\
"""$name — convert units.

Fill in TODO 1.1, then run `python validate.py $name`; run this file to watch your agent.
"""
'''

DEMO = '''

if __name__ == "__main__":
    print(agent("How many miles is 42 km?", {"km_to_miles": lambda km: f"{float(km) * 0.621371:.1f}"}))
'''

LIMIT = '''\
    return "no answer within the step limit"
    # END SOLUTION
'''

# the decision protocols' loop: DECIDE reads the model's reply as `decision`, SAID is the reply as sent back
DECISION_LOOP = '''

def agent(question: str, tools: dict, max_steps: int = 5) -> str:
    """TODO 1.1: the agent loop."""
    # BEGIN SOLUTION
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
DECIDE
        if decision["type"] == "final":
            return decision["content"]
        messages.append({"role": "assistant", "content": SAID})
        messages.append({"role": "tool", "content": str(tools[decision["name"]](**decision["args"]))})
''' + LIMIT + DEMO

DECISIONS = HEAD + '''\
import mock_llm


def llm(messages: list[dict]) -> dict:
    """The model: {"type": "tool", "name": …, "args": {…}} or {"type": "final", "content": …}."""
    return mock_llm.reply("$name", messages)
''' + DECISION_LOOP.replace("DECIDE", "        decision = llm(messages)").replace("SAID", "decision")

JSON = HEAD + '''\
import json

import mock_llm


def llm(messages: list[dict]) -> str:
    """The model: a decision written as JSON text, sometimes in a code fence or between sentences."""
    return mock_llm.reply("$name", messages)
''' + DECISION_LOOP.replace("DECIDE", '''        reply = llm(messages)
        decision = json.loads(reply[reply.index("{"):reply.rindex("}") + 1])''').replace("SAID", "reply")

TEXT_PROMPT = '''\
FORMAT = """Answer the question. You can use the tool km_to_miles (converts kilometres to miles; input: the
distance in km). Write one step at a time:
Thought: what to do next
Action: the tool's name
Action Input: its input
Observation: the tool's result (written for you)
and when you know the answer:
Final Answer: the answer"""


def read_step(reply: str) -> tuple[str, str, str] | str:
    """A reply up to its request: (the step's text, tool, input); or the final answer's text."""
    step = reply.split("Observation:")[0].rstrip()  # what the model made up after its request is not real
    if "Final Answer:" in step:
        return step.split("Final Answer:", 1)[1].strip()
    tool = re.search(r"Action:\\s*(.+)", step)[1].strip()
    return step, tool, re.search(r"Action Input:\\s*(.+)", step)[1].strip()
'''

TEXT = HEAD + '''\
import re

import mock_llm

''' + TEXT_PROMPT + '''

def llm_call(prompt: str) -> str:
    """The model: Thought / Action / Action Input text, or a Final Answer."""
    return mock_llm.reply("$name", prompt)


def agent(question: str, tools: dict, max_steps: int = 5) -> str:
    """TODO 1.1: the agent loop."""
    # BEGIN SOLUTION
    prompt = f"{FORMAT}\\n\\nQuestion: {question}\\n"
    for _ in range(max_steps):
        step = read_step(llm_call(prompt))
        if isinstance(step, str):
            return step
        text, tool, tool_input = step
        prompt += f"{text}\\nObservation: {tools[tool](tool_input)}\\n"
''' + LIMIT + DEMO

CLIENT = '''\
from mock_llm.http import openai_client

client = openai_client("$name")
MODEL = "mock-react-1"
'''

CHAT = HEAD + '''\
import json

''' + CLIENT + '''
TOOLS = [{"type": "function", "function": {
    "name": "km_to_miles", "description": "Converts kilometres to miles.",
    "parameters": {"type": "object", "properties": {"km": {"type": "number"}}, "required": ["km"]}}}]


def agent(question: str, tools: dict, max_steps: int = 5) -> str:
    """TODO 1.1: the agent loop."""
    # BEGIN SOLUTION
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        message = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS).choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            result = tools[call.function.name](**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": str(result)})
''' + LIMIT + DEMO

TEXT_CHAT = HEAD + '''\
import re

''' + CLIENT + '''
''' + TEXT_PROMPT + '''

def agent(question: str, tools: dict, max_steps: int = 5) -> str:
    """TODO 1.1: the agent loop."""
    # BEGIN SOLUTION
    messages = [{"role": "system", "content": FORMAT}, {"role": "user", "content": question}]
    for _ in range(max_steps):
        step = read_step(client.chat.completions.create(model=MODEL, messages=messages).choices[0].message.content)
        if isinstance(step, str):
            return step
        text, tool, tool_input = step
        messages.append({"role": "assistant", "content": text})
        messages.append({"role": "user", "content": f"Observation: {tools[tool](tool_input)}"})
''' + LIMIT + DEMO

SOLUTIONS = {"decisions": DECISIONS, "json": JSON, "text": TEXT, "chat": CHAT, "text_chat": TEXT_CHAT}
