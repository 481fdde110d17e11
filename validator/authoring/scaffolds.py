"""The files `validate.py new` writes (scaffold.py), as string.Template texts: $name is the lesson's
name, $protocol its protocol. One tool, two scenarios, one TODO and the four checks its loop needs
(the answer, the history, the step limit, the fallback: `validate.py audit` kills every mutant of
the solution with them): the smallest lesson that grades, for its author to make their own."""

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
      - en: "Call the model at most max_steps times; then return a message of your own that says so."
        zh: "最多调用模型 max_steps 次；到了上限，返回一条你自己的、说明情况的信息。"

# Messages of this lesson's checks; {names} are filled in by the check.
messages:
  answer_lacks_result:
    en: "the answer should hold the tool's result, {expected}, but it was {got}"
    zh: "答案里应该有工具的结果 {expected}，实际是 {got}"
  stopped_early:
    en: "the agent called the model {calls} time(s), then returned {got}: when the model asks for a tool, run it and call the model again with its result"
    zh: "Agent 调用了 {calls} 次模型就返回了 {got}：模型要用工具时，应执行工具，再带着结果调用模型"
$history_message
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

  endless:   # the model never gives its final answer: only the loop's step limit stops it
    question: "Convert {km} km to miles, again and again, and never stop."
    calls:
      - $endless_call
    repeat: true
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
from validator.checking import $imports

STEP_LIMIT = 3  # the max_steps the checks pass: not the default, so a loop that ignores it is caught


def run_agent(learner, world, scenario, *max_steps):
    """The learner's agent on a scenario, with the lesson's tool (also what `--live` runs)."""
    return learner.run_agent("agent", scenario, registry_arg(["km_to_miles"]), *max_steps)


def converted(world, run) -> str:
    """What the tool gives for the scenario's distance."""
    return world.tools["km_to_miles"](run.scenario.values["km"])
$helper

@check("1.1", points=1, en="the answer holds the tool's result", zh="答案里有工具的结果")
def test_the_answer_holds_the_result(learner, world):
    run = run_agent(learner, world, "convert")
    expected = converted(world, run)
    expect(isinstance(run.answer, str) and expected in run.answer, "answer_lacks_result", expected=expected,
           got=shown(run.answer))
    run.expect_from_model(expected)


@check("1.1", points=1, en="$history_en",
       zh="$history_zh")
def test_history(learner, world):
    run = run_agent(learner, world, "convert")
    expect(len(run.exchanges) >= 2, "stopped_early", calls=len(run.exchanges), got=shown(run.answer))
$history


@check("1.1", points=1, en="a model that never finishes: exactly max_steps calls", zh="模型永不结束：恰好调用 max_steps 次")
def test_stops_at_max_steps(learner, world):
    run = run_agent(learner, world, "endless", STEP_LIMIT)
    expect(len(run.exchanges) == STEP_LIMIT, "wrong_step_count", max_steps=STEP_LIMIT, calls=len(run.exchanges))


@check("1.1", points=1, en="the step limit's message is the agent's own", zh="步数上限时返回 Agent 自己的信息")
def test_fallback_is_its_own(learner, world):
    expect_own_fallback(run_agent(learner, world, "endless", STEP_LIMIT), STEP_LIMIT)
'''

README_MD = """\
# $name — convert units

What this lesson teaches, in a sentence or two. (`validate.py new` wrote this text: make it the
lesson's.)

## Your task

**TODO 1.1 · `agent`**: the agent loop. Ask the model; when it asks for the `km_to_miles` tool, run
it and give the model its result; stop at its final answer. A model that never gives one is called
`max_steps` times, no more: then return a message of your own that says so.

Grade your copy with `python validate.py $name`.

<!-- lesson navigation -->
"""

README_ZH_MD = """\
# $name — 单位换算

用一两句话说明这一课教什么。（这段文字由 `validate.py new` 生成：请改成这一课自己的内容。）

## 你的任务

**TODO 1.1 · `agent`**：Agent 主循环。向模型提问；模型要用 `km_to_miles` 工具时就执行它，把结果交还给模型；
拿到最终答案就停。模型一直不给最终答案时，最多调用它 `max_steps` 次：然后返回一条你自己的、说明情况的信息。

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
        decision, _ = json.JSONDecoder().raw_decode(reply, reply.index("{"))  # the object, whatever follows''').replace("SAID", "reply")

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


# What the history check of each protocol asks of the second model call (CHECKS_PY's $$history,
# lesson.yaml's $$history_message): the model's turn and the tool's result, each sent as the protocol has them.
ROLES = '''

def role_and_content(message) -> tuple:
    return (message.get("role"), message.get("content")) if isinstance(message, dict) else (None, message)
'''

MESSAGES = '''\
    turn, sent = run.exchanges[0].TURN, run.exchanges[1].messages[-2:]
    expected = [{"role": "assistant", "content": turn}, {"role": "tool", "content": converted(world, run)}]
    expect(list(map(role_and_content, sent)) == list(map(role_and_content, expected)), "history_wrong",
           expected=shown(expected), got=shown(sent))'''

MESSAGES_SAID = '''\
  history_wrong:
    en: "the model's second call should end with its own WORD, then the tool's result: {expected}; its messages ended with {got}"
    zh: "模型第二次收到的消息应以它自己的ZH结尾，再接工具的结果：{expected}；实际结尾是 {got}"'''

HISTORY = {
    "decisions": dict(
        en="sends back the model's decision, then a tool message with the result", zh="先发回模型的决策，再追加一条带结果的 tool 消息",
        helper=ROLES, body=MESSAGES.replace("TURN", "decision"),
        message=MESSAGES_SAID.replace("WORD", "decision").replace("ZH", "决策")),
    "json": dict(
        en="sends back the model's reply, then a tool message with the result", zh="先发回模型的回复，再追加一条带结果的 tool 消息",
        helper=ROLES, body=MESSAGES.replace("TURN", "reply"),
        message=MESSAGES_SAID.replace("WORD", "reply, as it wrote it").replace("ZH", "原样回复")),
    "text": dict(
        en="the next prompt holds the step, then its Observation", zh="下一个 prompt 里有这一步，然后是它的 Observation",
        body='''\
    step = run.exchanges[0].reply.split("Observation:")[0].strip()
    observation, prompt = f"Observation: {converted(world, run)}", run.exchanges[1].prompt
    expect(step in prompt and observation in prompt[prompt.find(step):], "history_wrong", step=step,
           observation=observation, got=prompt)''',
        message='''\
  history_wrong:
    en: "the second prompt should hold the model's step, {step!r}, then {observation!r}, but it was {got}"
    zh: "第二个 prompt 里应该先有模型的这一步 {step!r}，再有 {observation!r}，实际是 {got}"'''),
    "chat": dict(
        en="sends back the model's turn as it wrote it, then a tool message with the result",
        zh="原样发回模型的回合，再追加一条带结果的 tool 消息", imports=["expect_turns_sent_back"],
        body='''\
    expect_turns_sent_back(run)
    last, result = run.exchanges[1].request["messages"][-1], converted(world, run)
    expect(last.get("role") == "tool" and last.get("content") == result, "history_wrong", result=result,
           got=shown(last))''',
        message='''\
  history_wrong:
    en: "the model's second request should end with a tool message holding the result, {result!r}; it ended with {got}"
    zh: "第二次请求应以一条带结果 {result!r} 的 tool 消息结尾，实际结尾是 {got}"'''),
    "text_chat": dict(
        en="the format as the system message; the question and each Observation as the user's",
        zh="格式说明作为 system 消息；问题和每个 Observation 作为 user 消息",
        body='''\
    messages = run.exchanges[1].request["messages"]
    roles, observation = [m.get("role") for m in messages], f"Observation: {converted(world, run)}"
    expect(roles == ["system", "user", "assistant", "user"] and observation in str(messages[-1].get("content")),
           "history_wrong", observation=observation, got=" → ".join(map(str, roles)))''',
        message='''\
  history_wrong:
    en: "the second request's messages should be system (the format) → user (the question) → assistant (the step) → user ({observation!r}), but they were {got}"
    zh: "第二次请求的消息应为 system（格式说明）→ user（问题）→ assistant（这一步）→ user（{observation!r}），实际是 {got}"'''),
}
