"""Day 05 checks: the scratchpad, the prompt, the cut, and a loop that uses them.

`learner.call` calls one of your functions in your process; `run_agent` runs your loop on a task of
scenarios.yaml against the mock model, which reads your prompts as a model with no memory would and,
like a model without a stop sequence, makes things up after each request. Numbers come from
`world`, so with another seed every expected value changes.
"""
import random
import re

from validator.checking import (ACTION_INPUT, OBSERVATION, Fail, LessonError, calculate, check, expect,
                                expect_asked_tools_ran, expect_requests_run, expect_final_returned,
                                expect_format_explained, expect_own_fallback, first_number, glued_on, imagined,
                                labelled_twice, learner_object, names_tool, quoted, read_final, read_request,
                                read_steps, request_text, sees_question, shown, text_from, tools_arg, unseen,
                                written_after_request)

OTHER_TOOLS = {  # tools the file's TOOLS doesn't hold: a prompt describes the ones it is given
    "Dictionary": "Looks up an English word and gives its meaning. Input: the word.",
    "Timer": "Counts down a number of minutes. Input: the minutes.",
}


def returned_str(func, value):
    expect(isinstance(value, str), "not_a_string", func=func, got=shown(value))
    return value


def step_arg(reply: str, observation: str) -> dict:
    return learner_object("Step", reply=reply, observation=observation)


def squashed(text: str) -> str:
    return "".join(text.split())


def fahrenheit_steps(world) -> list[dict]:
    """The two steps of the fahrenheit task, as the loop keeps them: the cut replies, the results."""
    city = world.scenarios["fahrenheit"].values["hot_city"]
    report = world.weather[city]
    expression = f"{first_number(report)} * 9 / 5 + 32"
    return [
        {"tool": "Weather", "input": city, "observation": report,
         "reply": request_text(f"First I need today's weather in {city}.", "Weather", city)},
        {"tool": "Calculator", "input": expression, "observation": calculate(expression),
         "reply": request_text(f"It is {first_number(report)}°C; F = C * 9 / 5 + 32.", "Calculator", expression)},
    ]


EXECUTE_ERROR = "Error: unknown tool 'WebSearch'. The tools are: Calculator, Weather"  # execute_tool's text


def history_steps(world) -> list[dict]:
    """Three steps for the fahrenheit question: a tool the model made up first (its error is the
    result), then the task's two. More than two, so that a builder that keeps only the latest
    steps leaves one out."""
    search = f"temperature in {world.scenarios['fahrenheit'].values['hot_city']} today"
    return [{"tool": "WebSearch", "input": search, "observation": EXECUTE_ERROR,
             "reply": request_text("Let me search the web first.", "WebSearch", search)}] + fahrenheit_steps(world)


def new_calls(text: str, step: dict, first: str = "") -> list:
    """Where the model reads `step`'s call in `text`, past the times `first` (instructions) shows it."""
    calls = [s for s in read_steps(text) if s.is_call(step["tool"], step["input"])]
    return calls[len([s for s in read_steps(first) if s.is_call(step["tool"], step["input"])]):]


def expect_steps_readable(text: str, steps: list[dict], shown_as: str, key: str, first: str = "",
                          func: str = "build_scratchpad"):
    """Every step reads, as the mock reads it, as done with its real result, in order. `first`: what
    the model already saw before any step (instructions): a step shown there does not count."""
    positions = []
    for number, step in enumerate(steps, start=1):
        calls = new_calls(text, step, first)
        if not calls:
            # gone altogether, while a later one is there: only the latest steps were kept
            later = next((n for n, s in enumerate(steps[number:], start=number + 1) if new_calls(text, s, first)), None)
            if later and squashed(step["observation"]) not in squashed(text):
                raise Fail("pad_dropped_step", func=func, count=len(steps), later=later, number=number,
                           tool=step["tool"], input=step["input"], observation=step["observation"])
            glued = next((line for line in text.splitlines()
                          if step["input"] in line and re.search(r"Observation\s*[:：]", line)
                          and not OBSERVATION.match(line)), None)
            expect(glued is None, "pad_one_line", line=glued)
            raise Fail(key, got=shown_as, number=number, tool=step["tool"], input=step["input"],
                       observation=step["observation"])
        read = next((c for c in calls if c.observation is not None), None)
        if read is None or squashed(step["observation"]) not in squashed(read.observation):
            if read is None:
                raise Fail(key, got=shown_as, number=number, tool=step["tool"], input=step["input"],
                           observation=step["observation"])
            raise Fail("pad_wrong_observation", number=number, got=read.observation, expected=step["observation"])
        glued = glued_on(read.observation, step["observation"])
        expect(glued is None, "pad_glued", number=number, line=glued)
        # the result read starts with a label of its own: "Observation: Observation: 13"
        expect(not OBSERVATION.match(read.observation), "pad_labelled_twice", func=func, number=number,
               line=f"Observation: {read.observation}".split("\n", 1)[0])
        positions.append(read.line)
    for number in range(1, len(positions)):
        expect(positions[number - 1] < positions[number], "pad_order", first=number, second=number + 1)


# ---------------------------------------------------------------- TODO 1.1 build_scratchpad

def scratchpad(learner, steps: list[dict]) -> str:
    """build_scratchpad's text for `steps`; it must leave the list as it was (the loop keeps using it), and
    give the same text for the same steps (nothing kept from an earlier call)."""
    args = [step_arg(s["reply"], s["observation"]) for s in steps]
    text = returned_str("build_scratchpad", learner.call("build_scratchpad", args, watch=True))
    expect(not learner.changed_args, "pad_changed_steps", count=len(steps))
    again = learner.call("build_scratchpad", args)
    expect(again == text, "pad_kept_between_calls", got=text, again=again)
    return text


@check("1.1", points=1, en="a step is its reply, then the Observation on a line of its own",
       zh="一步就是它的回复，加上另起一行的 Observation")
def test_scratchpad_one_step(learner, world):
    v = world.scenarios["calculator"].values
    expression = f"{v['a']} + {v['b']} * {v['c']}"
    step = {"tool": "Calculator", "input": expression, "observation": calculate(expression),
            "reply": request_text(f"I need to calculate {expression}.", "Calculator", expression)}
    text = scratchpad(learner, [step])
    expect_steps_readable(text, [step], text, key="pad_step_unreadable")
    city = world.scenarios["run"].values["city"]  # a reply kept with its newline: the same
    step = {"tool": "Weather", "input": city, "observation": world.weather[city],
            "reply": request_text(f"I need today's weather in {city} first.", "Weather", city) + "\n"}
    text = scratchpad(learner, [step])
    expect_steps_readable(text, [step], text, key="pad_step_unreadable")


@check("1.1", points=1, en="every step, oldest first; no steps, an empty scratchpad",
       zh="按时间顺序写出每一步；没有步骤就是空的 scratchpad")
def test_scratchpad_in_order(learner, world):
    empty = scratchpad(learner, [])
    expect(empty.strip() == "", "pad_not_empty", got=shown(empty))
    steps = history_steps(world)
    text = scratchpad(learner, steps)
    expect_steps_readable(text, steps, text, key="pad_step_unreadable")


# ---------------------------------------------------------------- TODO 1.2 build_react_prompt

def build_prompt(learner, world, question: str, steps: list[dict]) -> str:
    tools = tools_arg(world, ["Calculator", "Weather"])
    prompt = learner.call("build_react_prompt", question, tools,
                          [step_arg(s["reply"], s["observation"]) for s in steps])
    return returned_str("build_react_prompt", prompt)


def expect_question_and_tools(prompt: str, world, question: str, steps: int):
    expect(sees_question(prompt, question), "prompt_no_question", question=question, steps=steps)
    for name, description in world.tool_descriptions.items():
        expect(description in prompt, "prompt_no_tool", tool=name, description=description, steps=steps)


@check("1.2", points=1, en="holds the question and every tool", zh="包含问题和每个工具")
def test_prompt_question_and_tools(learner, world):
    question = world.scenarios["run"].question
    expect_question_and_tools(build_prompt(learner, world, question, []), world, question, 0)


@check("1.2", points=1, en="describes the tools it is given, not the file's TOOLS",
       zh="描述传入的工具，而不是文件里的 TOOLS")
def test_prompt_describes_given_tools(learner, world):
    others = unseen(world, OTHER_TOOLS)
    question = world.scenarios["run"].question
    prompt = returned_str("build_react_prompt", learner.call(
        "build_react_prompt", question, tools_arg(world, list(others), extra=others), []))
    for name, description in others.items():
        expect(description in prompt, "prompt_not_given_tools", tool=name, description=description,
               names=", ".join(others))


@check("1.2", points=1, en="once there are steps: still the question and the tools, and every step in order",
       zh="有了步骤之后：仍有问题和工具，并按顺序包含每一步")
def test_prompt_with_steps(learner, world):
    question = world.scenarios["fahrenheit"].question
    steps = history_steps(world)
    prompt = build_prompt(learner, world, question, steps)
    expect_question_and_tools(prompt, world, question, len(steps))
    if pad_unreadable_in(learner, prompt, steps):
        return  # the prompt holds build_scratchpad's steps, as it should: they don't read, which 1.1 says
    instructions = build_prompt(learner, world, question, [])
    expect_steps_readable(prompt, steps, prompt, key="prompt_no_step", first=instructions, func="build_react_prompt")
    start = steps[0]["reply"].splitlines()[0].strip()  # where the scratchpad meets the text before it
    glued = next((line for line in prompt.splitlines() if start in line and line.strip() != start), None)
    expect(glued is None or any(line.strip() == start for line in prompt.splitlines()), "prompt_pad_glued",
           line=glued, start=start)


def shows_a_lone_step(learner) -> bool:
    """Whether build_react_prompt shows a step it is given alone (else it leaves steps out, and a
    loop that keeps its steps right still sends the same prompt twice)."""
    world = learner.world
    question, steps = world.scenarios["fahrenheit"].question, fahrenheit_steps(world)[:1]
    try:
        prompt, first = build_prompt(learner, world, question, steps), build_prompt(learner, world, question, [])
    except Fail:
        return True  # its own checks say what is wrong with it
    try:
        expect_steps_readable(prompt, steps, prompt, key="prompt_no_step", first=first)
    except Fail:
        return pad_unreadable_in(learner, prompt, steps)  # there, in a scratchpad that doesn't read: 1.1's
    return True


PAD_STATE = ("pad_changed_steps", "pad_kept_between_calls")


def pad_unreadable_in(learner, text: str, steps: list[dict]) -> bool:
    """Whether `text` holds the learner's own scratchpad of `steps`, and that scratchpad does not
    read as those steps (build_scratchpad's mistake, TODO 1.1, not the code around it). A
    scratchpad that is the same with no steps (a constant) is not one: it hides no steps of 1.1's."""
    try:
        pad = scratchpad(learner, steps)
        if pad == scratchpad(learner, []):
            return False
    except Fail as failure:  # a scratchpad that changes its steps or keeps text between calls: 1.1 says so
        return failure.key in PAD_STATE
    if not pad.strip() or pad.strip() not in text:
        return False
    try:
        expect_steps_readable(pad, steps, pad, key="pad_step_unreadable")
    except Fail:
        return True
    return False


@check("1.2", points=1, en="explains the reply format, in every prompt", zh="每个 prompt 都说明回复格式")
def test_prompt_explains_format(learner, world):
    question = world.scenarios["fahrenheit"].question
    first = build_prompt(learner, world, question, [])
    steps = fahrenheit_steps(world)
    later = build_prompt(learner, world, question, steps)
    # the scratchpad's lines are the cut replies and the results
    expect_format_explained(first, later, [part for step in steps
                                           for part in (*step["reply"].splitlines(), step["observation"])])


# ---------------------------------------------------------------- TODO 2.1 cut_reply

def mock_reply(world, scenario: str) -> str:
    """The mock's first reply on a task: its request, then what it makes up."""
    story = world.scenarios[scenario]
    return world.session(scenario).reply(f"Tools: Calculator, Weather\nQuestion: {story.question}\n")


def lines_of(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").rstrip().splitlines()]


def observation_first(reply: str) -> tuple[str, str] | None:
    """(the line, the reply before it) of an Observation line the model wrote before any request
    (its first line, or a request after it): the cut is right before that line, not after an Action
    Input line further on. None when the reply's first request comes before any Observation line."""
    lines = reply.splitlines()
    for number, line in enumerate(lines):
        if OBSERVATION.match(line):
            before = "\n".join(lines[:number])
            return (line, before) if read_request(before) is None else None
    return None


def expect_cut(learner, reply: str, input_line: str = ""):
    """cut_reply keeps the request as written, and nothing of what follows it. `input_line`: the
    request's Action Input line, when the reply spells that label its own way. An Observation line
    before any request ends the reply there: what is kept, and the request kept (none), are the lines
    before it."""
    got = returned_str("cut_reply", learner.call("cut_reply", reply))
    kept = got.rstrip()
    kept_made_up = (any(OBSERVATION.match(line) for line in got.splitlines()) or read_final(got) is not None
                    or written_after_request(got).strip())  # after the Action Input line: all made up
    first = observation_first(reply)
    if first:  # no Action Input line to cut after: the cut is at the Observation line, a request after it dropped
        line, before = first
        expect(not kept_made_up and read_request(got) is None, "cut_kept_observation", line=line.strip(), got=got,
               reply=reply)
    expect(not (kept_made_up and input_line), "cut_input_spelling", line=input_line, got=got, reply=reply)
    expect(not kept_made_up, "cut_kept_made_up", got=got, reply=reply)
    request = None if first else read_request(reply)
    expect(reply.startswith(kept) and read_request(got) == request, "cut_lost_request", got=got, reply=reply)


def expect_cuts_made_up_observation(learner, world):
    """cut_reply cuts an Observation the model made up after its request: its job, which a check of
    what it must leave alone counts only once done (returning every reply as it came leaves any reply
    alone). The same failure in each check, said once."""
    v = world.scenarios["calculator"].values
    expression = f"{v['a']} + {v['b']} * {v['c']}"
    thought = f"I need to calculate {expression}."
    expect_cut(learner, request_text(thought, "Calculator", expression)
               + f"\nObservation: {imagined('Calculator', expression)}")


@check("2.1", points=1, en="cuts the Observation the model made up", zh="截掉模型编出来的 Observation")
def test_cut_made_up_observation(learner, world):
    expect_cuts_made_up_observation(learner, world)


@check("2.1", points=1, en="cuts a made-up Final Answer, after a made-up Observation or straight after the request",
       zh="截掉编出来的 Final Answer，不管它前面有没有编出来的 Observation")
def test_cut_made_up_final_answer(learner, world):
    for scenario in ("calculator", "run", "fahrenheit"):
        reply = mock_reply(world, scenario)
        made_up = written_after_request(reply)
        if not read_final(made_up):
            raise LessonError(f"the mock's {scenario} reply makes up no answer")
        expect_cut(learner, reply)
        # the same answer with no Observation line before it: the cut is after the Action Input line
        expect_cut(learner, reply[:len(reply) - len(made_up)].rstrip() + "\n"
                   + "\n".join(line for line in made_up.splitlines() if not OBSERVATION.match(line)))
    # a second request made up straight after the first: the cut is after the first Action Input line
    steps = fahrenheit_steps(world)
    expect_cut(learner, steps[0]["reply"] + "\n" + steps[1]["reply"])
    # the request's labels in a model's own spelling, the made-up answer straight after them
    city = world.scenarios["run"].values["city"]
    for action, tool_input in REQUEST_SPELLINGS:
        line = tool_input.format(x=city)
        expect_cut(learner, f"Thought: I need today's weather in {city} first.\n{action.format(x='Weather')}\n"
                   f"{line}\nThought: I now know the final answer.\nFinal Answer: Today in {city}: sunny, 25°C.",
                   input_line=line)


REQUEST_SPELLINGS = (("action: {x}", "action input: {x}"), ("**Action:** {x}", "**Action Input:** {x}"),
                     ("**Action**: {x}", "**Action Input**: {x}"),  # bold, the colon inside or after it
                     ("Action：{x}", "Action Input：{x}"), ("ACTION: {x}", "ACTION INPUT : {x}"))


OBSERVATION_SPELLINGS = ("observation: {x}", "OBSERVATION : {x}", "**Observation:** {x}", "Observation：{x}",
                         "  Observation:{x}", "**observation**: {x}")


@check("2.1", points=1, en="an Observation line in any spelling is cut", zh="任何写法的 Observation 行都截掉")
def test_cut_any_spelling(learner, world):
    v = world.scenarios["calculator"].values
    rng = random.Random(f"day05:cut:{world.seed}")
    cases = []
    for spelling in rng.sample(OBSERVATION_SPELLINGS, len(OBSERVATION_SPELLINGS)):  # every one, every seed
        a, b = rng.randint(2, 40), rng.randint(2, 12)
        expression = f"{a} + {b} * {v['c']}"
        made_up = (spelling.format(x=imagined("Calculator", expression)) + "\nThought: Done.\nFinal Answer: "
                   + imagined("Calculator", expression))
        cases.append((expression, made_up))
    for expression, made_up in cases:  # after the request, as the mock writes it
        expect_cut(learner, request_text(f"I need to calculate {expression}.", "Calculator", expression) + "\n"
                   + made_up)
    for expression, made_up in cases:  # before any request too: no Action Input line to cut after
        expect_cut(learner, f"Thought: I remember what {expression} is.\n{made_up}")
        expect_cut(learner, made_up)  # the reply's first line: no newline before the label
        # a request after it: the cut is still at the Observation, the first of the two labels
        expect_cut(learner, f"Thought: I remember what {expression} is.\n{made_up.splitlines()[0]}\n"
                   + request_text(f"Let me check {expression} anyway.", "Calculator", expression))


@check("2.1", points=1, en="a reply with no Observation comes back whole", zh="没有 Observation 的回复原样返回")
def test_cut_leaves_clean_replies(learner, world):
    expect_cuts_made_up_observation(learner, world)
    city = world.scenarios["fahrenheit"].values["hot_city"]
    report = world.weather[city]
    celsius = first_number(report)
    for reply in (request_text(f"First I need today's weather in {city}.", "Weather", city),
                  # a Thought that mentions the words: the label starts its line, then a colon
                  request_text(f"I will pass {city} to Weather as the Action Input.", "Weather", city),
                  f"Thought: I now know the final answer.\nFinal Answer: It is {calculate(f'{celsius} * 9 / 5 + 32')}°F"
                  f" in {city} today.\n\n(Weather report: {report}; my observation: it feels warmer.)",
                  # a line that starts with the word, no label: "Observations" and more words before the colon
                  f"Thought: I now know the final answer.\nFinal Answer: Not a good day for a run in {city}.\n"
                  f"Observations from the weather report: {report}."):
        got = returned_str("cut_reply", learner.call("cut_reply", reply))
        if lines_of(got) != lines_of(reply):
            last = (lines_of(got) or [""])[-1]  # cut after a line that names the label, not one it starts
            mention = last.strip() and last in lines_of(reply) and "action input" in last.lower()
            expect(not mention or ACTION_INPUT.match(last), "cut_at_mention", line=last.strip(), reply=reply,
                   got=got)
            raise Fail("cut_changed", reply=reply, got=got)


# ---------------------------------------------------------------- TODO 3.1 react_agent

def run_agent(learner, world, scenario, *max_steps):
    """Your react_agent on a task of scenarios.yaml, with the tools that task gives it."""
    tools = tools_arg(world, world.scenarios[scenario].tools)
    return learner.run_agent("react_agent", scenario, tools, *max_steps)


def kept_part(reply: str) -> str:
    """The part of a reply a loop keeps and parses: up to its request's Action Input line (the rest
    was made up before any tool ran), or the whole reply when it asks for no tool."""
    made_up, reply = written_after_request(reply), reply.rstrip()
    return reply[:len(reply) - len(made_up)].rstrip() if made_up else reply.strip()


THOUGHT = re.compile(r"^[^\S\n]*Thought\s*[:：][ \t]*(?![ \t])(.*\S)", re.MULTILINE)


def thought_of(reply: str) -> str:
    """The text of a reply's Thought line ("" when it has none)."""
    found = THOUGHT.search(reply)
    return found.group(1).strip() if found else ""


def reply_words(kept: str) -> list[tuple[str, str]]:
    """The reply's own words, by label, as the given parse_react_response reads them: its Thought,
    then its Action and Action Input, or its Final Answer. Empty ones left out."""
    request, final = read_request(kept), read_final(kept)
    words = [("Thought", thought_of(kept))]
    words += [("Action", request[0]), ("Action Input", request[1])] if request else [("Final Answer", final or "")]
    return [(label, value) for label, value in words if value]


def expect_fields_in_order(run):
    """parse_react_response returns (thought, action, action_input). A loop that takes them in
    another order (action, thought, action_input = …, or result[0] as the tool) hands on one of the
    reply's words where another belongs: it runs the tool on the Thought, or gives execute_tool the
    Thought, the Action Input or the Final Answer as a tool's name. execute_tool names that tool,
    quoted, in its error ("unknown tool 'I need to …'"), which the next prompt shows as the step's
    Observation. Either way the parser and the tools are right and the place of the names is not:
    said before "the tool never ran" or "the wrong input", which are what it leads to."""
    for number, exchange in enumerate(run.exchanges, start=1):
        kept = kept_part(exchange.reply)
        words, request = reply_words(kept), read_request(kept)
        ran = [c for c in run.tool_calls if c.round == number]
        for call in ran if request else []:  # the tool it asked for, run on another of the reply's words
            given = str(call.input).strip()
            label = next((label for label, value in words if value == given and label != "Action Input"), None)
            expect(label is None or given == request[1], "fields_order_input", round=number, reply=kept,
                   label=label, value=given, tool=request[0], input=request[1])
        if ran or number >= len(run.exchanges):
            continue
        # no tool ran: the loop's step, in the next prompt, says which name execute_tool was given
        before = set(exchange.prompt.splitlines())
        added = [OBSERVATION.match(line).group(1).strip() for line in run.exchanges[number].prompt.splitlines()
                 if OBSERVATION.match(line) and line not in before]  # the results of this round's step
        asked = repr(request[0]) if request else None  # an error that names the tool asked for: its own
        for label, value in words:
            said = next((text for text in added if repr(value) in text and (asked is None or asked not in text)),
                        None)
            expect(label == "Action" or said is None, "fields_order_tool", round=number, reply=kept, label=label,
                   value=value, observation=said)


def said_in_order(run, judge, *args):
    """judge(*args), and when it fails because the loop took the parser's values in another order,
    that reason instead of judge's. Asked only once judge failed: a check the loop passes (counting
    the steps of a loop that runs the tool on its Thought) stays passed."""
    try:
        judge(*args)
    except Fail:
        expect_fields_in_order(run)
        raise


def explain(learner, run, real: str = "", max_steps: int = 8):
    """Fail with the first mistake the transcript shows, if it shows one (max_steps: the run's, react_agent's
    default unless the check gave one)."""
    if run.exchanges:  # a new question's first prompt, holding a step an earlier question's run took
        leaked = next((s for s in read_steps(run.exchanges[0].prompt) if s.observation and any(
            s.is_call(c.name, str(c.input)) and s.observation.strip() == str(c.output).strip() for c in run.earlier)), None)
        if leaked:
            expect_pad_stateless(learner, "steps_leaked_by_pad", tool=leaked.tool, input=leaked.tool_input)
        expect(leaked is None, "steps_leaked", tool=leaked and leaked.tool, input=leaked and leaked.tool_input)
    expect_labelled_once(learner, run)
    for number, exchange in enumerate(run.exchanges, start=1):
        expect(sees_question(exchange.prompt, run.scenario.question), "question_dropped", round=number,
               question=run.scenario.question)
        for tool in run.scenario.tools:
            expect(names_tool(exchange.prompt, tool), "tool_not_in_prompt", round=number, tool=tool,
                   reply=exchange.reply)
    expect_fields_in_order(run)  # the parser's values taken in another order: the cause of what follows
    for number, exchange in enumerate(run.exchanges[:-1], start=1):  # a request that never ran
        request = read_request(exchange.reply)
        # (one for a tool the loop lacks runs nothing of the grader's: execute_tool's error is its result)
        if request and request[0] in run.handed and not any(c.round == number for c in run.tool_calls):
            for line in written_after_request(exchange.reply).splitlines():
                expect(not line.strip() or line.strip() not in run.exchanges[number].prompt, "made_up_not_run",
                       tool=request[0], input=request[1], line=line.strip())
            raise Fail("tool_not_run", tool=request[0], input=request[1])
    answer = run.answer.strip() if isinstance(run.answer, str) else None
    for number, exchange in enumerate(run.exchanges, start=1):  # a made-up answer, believed
        made_up = written_after_request(exchange.reply)
        fake = read_final(made_up)
        if fake and answer == fake.strip() and not any(c.round == number for c in run.tool_calls):
            guess = made_up.splitlines()[0].split(":", 1)[1].strip()
            raise Fail("answer_made_up", got=run.answer, fake=guess, real=real)
    for number, exchange in enumerate(run.exchanges, start=1):
        request = read_request(exchange.reply)
        if request is None:
            continue
        tool, asked = request
        ran = [c for c in run.tool_calls if c.round == number and c.name == tool]
        if ran and not any(str(c.input).strip() == asked for c in ran):
            kept = read_request(text_from(learner, "cut_reply", exchange.reply))  # the cut took part of the request?
            expect(kept is not None, "input_line_cut", tool=tool, asked=asked)
            expect(not (kept[1] != asked and asked.startswith(kept[1])), "input_cut_short", tool=tool, asked=asked,
                   kept=kept[1])
            expect(False, "tool_input_not_as_asked", tool=tool, asked=asked, ran=str(ran[0].input))
        if ran and number < len(run.exchanges):  # what it made up, copied into the next prompt
            outputs = [str(c.output) for c in ran]
            for line in written_after_request(exchange.reply).splitlines():
                line = line.strip()
                copied = line and line not in exchange.prompt and line in run.exchanges[number].prompt
                expect(not copied or any(out in line for out in outputs), "made_up_in_prompt", line=line,
                       tool=tool)
    last = len(run.exchanges)  # the loop returned right after a tool ran, not asking the model again
    ran_last = next((c for c in run.tool_calls if c.round == last), None)
    expect(ran_last is None or last >= max_steps or not read_request(run.exchanges[-1].reply), "stopped_after_tool",
           got=repr(run.answer),
           tool=ran_last and ran_last.name, input=ran_last and str(ran_last.input), round=last)
    asked = [read_request(e.reply) for e in run.exchanges]
    asked = [a for a in asked if a]
    repeats = max((asked.count(a) for a in asked), default=0)
    if repeats >= 2:
        tool, given = max(asked, key=asked.count)
        done = [s for s in read_steps(run.exchanges[-1].prompt) if s.is_call(tool, given) and s.observation]
        # The step did reach the prompt. One round late, when a prompt came again unchanged after a tool
        # ran (built before the step was kept); else out of order.
        prompts = [e.prompt for e in run.exchanges]
        for n in range(1, len(prompts)):  # a step a prompt showed, gone from the next: the list was replaced
            kept = read_steps(prompts[n])
            lost = next((s for s in read_steps(prompts[n - 1]) if s.observation and not any(
                k.is_call(s.tool, s.tool_input) and k.observation == s.observation for k in kept)), None)
            if lost:
                expect_pad_stateless(learner, "steps_lost_to_pad", tool=lost.tool, input=lost.tool_input,
                                     round=n + 1, previous=n)
                raise Fail("steps_dropped", tool=lost.tool, input=lost.tool_input, round=n + 1, previous=n)
        again = [n for n in range(1, len(prompts))
                 if prompts[n] == prompts[n - 1] and any(c.round == n for c in run.tool_calls)]
        if done and again:
            dropped = not shows_a_lone_step(learner)  # the prompt builder's mistake, not the loop's
            raise Fail("prompt_drops_a_step" if dropped else "prompt_one_step_behind", tool=tool, input=given,
                       calls=repeats, round=again[0] + 1, previous=again[0])
        ran = next((c for c in run.tool_calls if c.name == tool and str(c.input).strip() == given), None)
        # fed back, by a scratchpad the model can't read (an Observation above its reply reads as out of order too)
        if ran is not None and 0 < ran.round <= len(prompts):
            step = {"tool": tool, "input": given, "observation": str(ran.output),
                    "reply": text_from(learner, "cut_reply", run.exchanges[ran.round - 1].reply)}
            expect(not pad_unreadable_in(learner, prompts[-1], [step]), "pad_unreadable_in_run", tool=tool,
                   input=given, calls=repeats)
        expect(not done, "steps_out_of_order", tool=tool, input=given, calls=repeats)
        glued = next((line for line in run.exchanges[-1].prompt.splitlines() if given in line
                      and re.search(r"Observation\s*[:：]", line) and not OBSERVATION.match(line)), None)
        expect(glued is None, "pad_one_line", line=glued)
        shown_alone = ran is not None and any(OBSERVATION.match(line) and str(ran.output).strip() in line
                                              for line in prompts[-1].splitlines())
        # the Observation is there, not the Action lines that asked for it: the step kept part of the reply
        expect(not shown_alone, "step_without_request", tool=tool, input=given, calls=repeats,
               output=str(ran.output).strip() if ran else "")
        # the loop keeps its steps, but the prompt builder shows none of them (and no two prompts alike)
        expect(shows_a_lone_step(learner), "prompt_hides_steps", tool=tool, input=given, calls=repeats)
        raise Fail("history_not_fed_back", calls=repeats)


def expect_pad_stateless(learner, key: str, **params):
    """Fail with `key` when build_scratchpad empties the steps it is given or keeps text between calls
    (TODO 1.1 says which): then that, not the loop, is why a run's prompts lose or leak steps."""
    try:
        scratchpad(learner, fahrenheit_steps(learner.world))
    except Fail as failure:
        expect(failure.key not in PAD_STATE, key, **params)


def expect_labelled_once(learner, run):
    """A tool's result reaches the prompt under one label: a Step that holds "Observation: 13", which
    build_scratchpad labels again, shows "Observation: Observation: 13". Judged when build_scratchpad
    labels a right Step once (else its own checks, TODO 1.1, say so)."""
    found = labelled_twice(run)
    if found and 0 < found[0].round <= len(run.exchanges):
        call, twice = found
        reply = text_from(learner, "cut_reply", run.exchanges[call.round - 1].reply)
        pad = text_from(learner, "build_scratchpad", [step_arg(reply, str(call.output))])
        expect(any(OBSERVATION.match(s.observation or "") for s in read_steps(pad)), "observation_labelled_twice",
               line=f"Observation: {twice.observation}", output=str(call.output))


def expect_answer_alone(run):
    """The answer is the Final Answer, without the Thought before it glued on: the model's
    reasoning is not part of what it answers."""
    reply = run.exchanges[-1].reply if run.exchanges else ""
    final, thought = read_final(reply) or "", thought_of(reply)
    expect(not thought or thought in final or thought not in str(run.answer), "answer_has_thought",
           thought=thought, got=run.answer, expected=final.strip())


RAW_REPLY = re.compile(r"Final Answer\s*[:：]|^[^\S\n]*Thought\s*[:：]", re.IGNORECASE | re.MULTILINE)


def expect_answer(learner, run, expected: str, real: str):
    if isinstance(run.answer, str) and expected in run.answer and run.model_said(expected):
        return
    expect(run.exchanges, "no_llm_call")
    explain(learner, run, real)
    run.expect_from_model(expected)
    expect_final_returned(run)
    expect_not_thought(run)
    expect(False, "answer_missing", expected=expected, got=shown(run.answer))


def expect_not_thought(run):
    """The run did not return its last reply's Thought in place of its Final Answer: `return thought`,
    or `return action_input` after values unpacked in another order (the Thought first, as the parser
    gives it, taken for action_input). The message names both."""
    last = kept_part(run.exchanges[-1].reply) if run.exchanges else ""
    words = dict(reply_words(last))
    answer = run.answer.strip() if isinstance(run.answer, str) else None
    thought, final = words.get("Thought"), words.get("Final Answer")
    expect(not (final and thought) or answer != thought or thought in final, "returned_thought", reply=last,
           got=answer, expected=final)


@check("3.1", points=1, en="the calculator task: the real result, not the one the model made up",
       zh="计算题：真实的结果，而不是模型编的那个")
def test_calculator_task(learner, world):
    v = world.scenarios["calculator"].values
    result = calculate(f"{v['a']} + {v['b']} * {v['c']}")
    run = run_agent(learner, world, "calculator")
    expect_answer(learner, run, result, result)
    final = read_final(run.exchanges[-1].reply)  # the answer is what follows the label, not the reply
    expect(not RAW_REPLY.search(run.answer), "raw_reply", got=run.answer, expected=final)
    expect_answer_alone(run)


@check("3.1", points=1, en="the run question: the real weather, not made-up sunshine",
       zh="跑步的问题：真实的天气，而不是编出来的晴天")
def test_run_task(learner, world):
    report = world.weather[world.scenarios["run"].values["city"]]
    run = run_agent(learner, world, "run")
    expect_answer(learner, run, report, report)


@check("3.1", points=1, en="two tools in a row: Weather, then Calculator (°C → °F)",
       zh="连续两个工具：先查天气，再换算华氏度")
def test_two_step_task(learner, world):
    report = world.weather[world.scenarios["fahrenheit"].values["hot_city"]]
    fahrenheit = calculate(f"{first_number(report)} * 9 / 5 + 32")
    run = run_agent(learner, world, "fahrenheit")
    expect_answer(learner, run, f"{fahrenheit}°F", report)
    final = read_final(run.exchanges[-1].reply) or ""  # two lines: the answer, then the report it rests on
    lost = [line.strip() for line in final.splitlines() if line.strip() and line.strip() not in run.answer]
    expect(not lost, "answer_cut_short", line=lost and lost[0], expected=final, got=run.answer)


@check("3.1", points=1, en="only real results reach the prompt, every requested tool runs, and an unknown tool's error goes back to the model (transcript)",
       zh="只有真实结果进入 prompt，每个请求的工具都真的执行了，请求不存在的工具时报错也交回给模型（看对话记录）")
def test_only_real_observations(learner, world):
    run = run_agent(learner, world, "fahrenheit")
    expect(run.exchanges, "no_llm_call")
    explain(learner, run, world.weather[run.scenario.values["hot_city"]])
    expect_requests_run(run)
    # a number of the model's choosing, in its reply alone: the loop must read what the model asks
    picked = run_agent(learner, world, "pick")
    expect_requests_run(picked)
    v = picked.scenario.values
    expect_answer(learner, picked, str(v["pick"] * v["pick"]), "")
    # a tool the model made up: its request is a step like any other, its result execute_tool's error
    expect_unknown_tool_observed(learner, world)


def unknown_request(run) -> tuple[int, str, str] | None:
    """The first request of the run for a tool the loop was not given, as (round, tool, input)."""
    for number, exchange in enumerate(run.exchanges, start=1):
        request = read_request(exchange.reply)
        if request and request[0] not in run.handed:
            return number, *request
    return None


def expect_unknown_tool_observed(learner, world):
    """The model asks for WebSearch, a tool it made up, before the Calculator. The request goes to
    execute_tool like any other, whose error, kept as the step's Observation, names the real tools:
    reading it in the next prompt, the model asks for the Calculator and finishes. A loop that takes
    the unknown tool for the end of the run (returns, breaks), crashes on it (a lookup of its own),
    skips it or answers it with an error that names no tool never gets there."""
    v = world.scenarios["unknown_tool"].values
    result = calculate(f"{v['a']} * {v['c']} + {v['b']}")
    try:
        run = run_agent(learner, world, "unknown_tool")
    except Fail as failure:
        crashed = learner.runs[-1]
        asked = unknown_request(crashed) if failure.raised else None
        if asked and asked[0] == len(crashed.exchanges):  # it raised in the round that asked for it
            raise Fail("unknown_tool_crashed", detail=failure.detail, tool=asked[1], input=asked[2],
                       tools=", ".join(crashed.scenario.tools), type=failure.params.get("type", ""),
                       message=failure.params.get("message", "")) from None
        raise
    asked = unknown_request(run)
    if asked:
        number, tool, given = asked
        tools = ", ".join(run.scenario.tools)
        # the run ended on it: no step limit's doing (react_agent's default, 8 model calls) but the loop's
        expect(number < len(run.exchanges) or number >= 8, "unknown_tool_ended_run", tool=tool, input=given,
               tools=tools, got=quoted(run.answer))
        if number < len(run.exchanges):
            told = [s.observation for s in read_steps(run.exchanges[number].prompt)
                    if s.is_call(tool, given) and s.observation]
            expect(told, "unknown_tool_not_shown", tool=tool, input=given, tools=tools)
            # the error must say which tools there are: that is how the model finds the one it needs
            needed = run.scenario.turns[0][0].tool
            expect(any(names_tool(o, needed) for o in told), "unknown_tool_error_replaced", tool=tool, input=given,
                   tools=tools, observation=told[-1])
    expect_answer(learner, run, result, result)


@check("3.1", points=1, en="a model that never finishes: exactly max_steps calls, then a fallback",
       zh="模型永不结束：恰好调用 max_steps 次，然后返回兜底信息")
def test_stops_at_max_steps(learner, world):
    run = run_agent(learner, world, "endless", 4)
    if len(run.exchanges) < 4:
        explain(learner, run, max_steps=4)
    expect(len(run.exchanges) == 4, "wrong_step_count", max_steps=4, calls=len(run.exchanges))
    said_in_order(run, expect_asked_tools_ran, run)
    expect(isinstance(run.answer, str) and run.answer.strip(), "no_fallback", got=shown(run.answer))


@check("3.1", points=1, en="the step limit's message is the agent's own, not the question or the model's words handed back",
       zh="步数上限时返回的是 Agent 自己的信息，而不是把问题或模型写的内容原样返回")
def test_fallback_is_its_own(learner, world):
    run = run_agent(learner, world, "endless", 4)
    said_in_order(run, expect_own_fallback, run, 4)  # nor a line of a reply without its label (the last Action Input)
