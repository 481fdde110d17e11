"""Day 08 checks: plain pytest tests, one behaviour each, listed in the report in this order.

Your functions run in a separate process; `learner.call` calls one of them, `run_agent` runs your
loop on a task of scenarios.yaml. Your openai client's requests are answered by the mock model,
which writes ReAct text as the message content and makes the mistakes each task scripts: a reply
out of format, a misspelt tool, an Observation of its own. Every number comes from `world`, so
with another seed every expected value changes.
"""
import re
import time
from datetime import datetime, timedelta, timezone

from validator.checking import (LEARNER_UTC_HOURS, Fail, ToolBox, action_naming, answer_text, calculate, chat_text,
                                check, expect, expect_accepted, expect_asked_tools_ran, expect_fresh_start,
                                expect_observation_labelled, find_observations, first_number, is_own_message,
                                learner_object, names_tool, read_final, read_request, request_messages, quoted,
                                request_text, shown, text_from, tool_arg, tools_arg, unseen, written_after_request)

GIVEN_TOOLS = ["get_weather", "calculate", "search_knowledge"]  # the grader runs these
OTHER_TOOLS = {  # tools the file's TOOLS doesn't hold: the system prompt offers the ones run_agent is given
    "convert_currency": "Converts an amount between currencies. Input: such as 100 USD to CNY.",
    "get_air_quality": "Today's air quality index in a city. Input: the city name.",
}
BEIJING = timezone(timedelta(hours=8))
OBSERVATION = re.compile(r"^\s*Observation\s*:", re.IGNORECASE)


# ---------------------------------------------------------------- TODO 1.1 execute_tool

def run_execute_tool(learner, world, action, given):
    toolbox = ToolBox(world)
    got = learner.call("execute_tool", tools_arg(world, GIVEN_TOOLS), action, given, tools=toolbox)
    expect(isinstance(got, str), "not_a_string", func="execute_tool", got=shown(got))
    return got, toolbox.calls


@check("1.1", points=1, en="runs the tool once and returns its output", zh="执行工具一次并返回它的输出")
def test_runs_the_tool(learner, world):
    city = world.scenarios["weather"].values["city"]
    got, calls = run_execute_tool(learner, world, "get_weather", city)
    expect(calls, "tool_not_called", got=got)
    expect(len(calls) == 1, "execute_ran_twice", action="get_weather", given=city, times=len(calls))
    expect(world.weather[city] in got, "tool_result_wrong", action="get_weather", given=city, got=got,
           expected=world.weather[city])


def expect_runs_a_known_tool(learner, world):
    """execute_tool runs a tool it is given and returns its output: its job, which a check of what it
    says about a name that is no tool's counts only once done (an execute_tool that answers every
    name with the list of tools runs none). The same failure in each check, said once."""
    city = world.scenarios["weather"].values["city"]
    got, calls = run_execute_tool(learner, world, "get_weather", city)
    expect(calls and world.weather[city] in got, "known_tool_not_run", given=city, got=got,
           expected=world.weather[city])


@check("1.1", points=1, en="an unknown tool: the Observation lists the real tools", zh="未知工具：Observation 里列出真实的工具")
def test_unknown_tool_lists_real_ones(learner, world):
    expect_runs_a_known_tool(learner, world)
    for wrong in ("get_wether", "calculator"):
        got, _ = run_execute_tool(learner, world, wrong, "北京")
        ok = wrong in got and all(names_tool(got, name) for name in GIVEN_TOOLS)
        expect(ok, "unknown_not_listed", action=wrong, got=got, names=", ".join(GIVEN_TOOLS))
    given = [name for number, name in enumerate(GIVEN_TOOLS) if number != world.seed % len(GIVEN_TOOLS)]
    got = learner.call("execute_tool", tools_arg(world, given), "get_wether", "北京")  # fewer tools than the file has
    expect(isinstance(got, str), "not_a_string", func="execute_tool", got=shown(got))
    extra = [name for name in [*GIVEN_TOOLS, "get_current_time"] if name not in given and names_tool(got, name)]
    expect(not extra, "unknown_lists_other_tools", got=got, names=", ".join(given), extra=", ".join(extra))


@check("1.1", points=1, en="a tool that raises: its error is the Observation, nothing raised",
       zh="工具抛异常：报错信息就是 Observation，不往外抛")
def test_tool_failure_is_an_observation(learner, world):
    nowhere = world.scenarios["unknown_city"].values["nowhere"]
    a = world.scenarios["misspelt"].values["a"]
    for action, given, error in (("get_weather", nowhere, f"no weather data for {nowhere}"),
                                 ("calculate", f"{a} / 0", "division by zero"),  # ZeroDivisionError
                                 ("calculate", f"abs(-{a})", "not arithmetic")):  # ValueError
        got, _ = run_execute_tool(learner, world, action, given)
        expect(error in got, "error_lost", action=action, given=given, got=got, error=error)


# ---------------------------------------------------------------- TODO 1.2 current_time

SHOWN = 3  # the items a message lists, "…" after them when there are more


def listed(items: list[str], most: int = SHOWN) -> str:
    return ", ".join(repr(item) for item in items[:most]) + (", …" if len(items) > most else "")


def moment(timestamp: float, zone) -> str:
    return datetime.fromtimestamp(timestamp, zone).strftime("%Y-%m-%d %H:%M")


def said_at(text, timestamp: float, zone) -> str | None:
    """The moment as `text` writes it, the README's "2026-05-20 14:30" or ISO 8601's "2026-05-20T14:30"
    (isoformat), or None when it holds neither."""
    if not isinstance(text, str):
        return None
    written = moment(timestamp, zone)
    return next((form for form in (written, written.replace(" ", "T")) if form in text), None)


# A date and time as the README writes it, and a time of day alone (14:30, 14:30:00, 2:30 PM, 下午2:30);
# not a zone's offset (+08:00, UTC-05:00), which is no time.
STAMP = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{2})(?!\d)")
# (?!(?<=\s)\s): no match starts inside a run of spaces (one from the space before would have been tried
# first, and no match ends on a space): each start would read the whole run again, a long run's length squared.
CLOCK_TIME = re.compile(r"(上午|下午|晚上|凌晨|早上|中午)?(?!(?<=\s)\s)\s*(?<![\d:+\-−])(\d{1,2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?![\d:])"
                        r"(?:\s*([AaPp])\.?\s?[Mm]\b\.?)?")


# One time besides Beijing's is more said (the same moment in UTC, for the reader): several are a
# list of zones, the Beijing one among them, which a file that never converts can print.
OTHER_TIMES_ALLOWED = 1


def other_times(text: str, timestamp: float) -> list[str]:
    """The dates and times `text` holds besides the moment in Beijing: the same clock rendered in
    other zones (an output that lists every zone holds the Beijing one too), or another time."""
    beijing = datetime.fromtimestamp(timestamp, BEIJING)
    others = [m.group(0) for m in STAMP.finditer(text)
              if tuple(int(g) for g in m.groups()) != (beijing.year, beijing.month, beijing.day, beijing.hour,
                                                        beijing.minute)]
    for m in CLOCK_TIME.finditer(text):
        if len(others) > max(SHOWN, OTHER_TIMES_ALLOWED):  # more than are told or allowed: the rest changes
            break  # nothing (and a text of countless times would cost their number squared, " ".join below)
        before, hour, minute, half = m.group(1), int(m.group(2)), int(m.group(3)), (m.group(4) or "").lower()
        if half or before in ("上午", "凌晨", "早上"):  # 12-hour: 12 AM is 0, 2 PM is 14
            hour = hour % 12 + (12 if half == "p" else 0)
        elif before in ("下午", "晚上") and hour < 12 or before == "中午" and hour < 11:
            hour += 12
        # the 15 characters before the time hold any match that ends there (14 long at most, and a last \n)
        if re.search(r"offset\W{0,3}(?:is\W{1,3})?$", text[max(m.start() - 15, 0):m.start()], re.IGNORECASE):
            continue  # a zone's offset written without its sign ("UTC offset 08:00"): no time
        # the Beijing time said on a 12-hour clock, in words of any language ("2:30 in the afternoon")
        twelve_hour = (hour % 12, minute) == (beijing.hour % 12, beijing.minute)
        said = m.group(0).strip()
        if not twelve_hour and (hour, minute) != (beijing.hour, beijing.minute) and said not in " ".join(others):
            others.append(said)
    return others


def expect_time(learner, clock: str, timestamp: float):
    got = learner.call("current_time", tool_arg(clock))
    expect(isinstance(got, str), "not_a_string", func="current_time", got=shown(got))
    expected = moment(timestamp, BEIJING)
    if said_at(got, timestamp, BEIJING):
        # the right time among others (every zone, in case): the model can't tell which one is Beijing's
        others = other_times(got, timestamp)
        expect(len(others) <= OTHER_TIMES_ALLOWED, "time_among_others", got=got, expected=expected,
               others=listed(others))
        return
    if said_at(got, timestamp, timezone.utc):
        raise Fail("time_utc", got=got, expected=expected)
    zones = [timezone(timedelta(minutes=15 * quarters)) for quarters in range(-12 * 4, 14 * 4 + 1)]  # all there are
    now = time.time()
    if any(said_at(got, t, zone) for t in (now, now - 60) for zone in [*zones, None]):
        raise Fail("time_machine", expected=expected)
    local = timedelta(hours=LEARNER_UTC_HOURS)  # the child's own zone (jail.py): neither UTC nor Beijing
    for zone in zones:
        if said_at(got, timestamp, zone):  # the clock's time, in another zone
            offset = zone.utcoffset(None)
            key = {local: "time_local", local + timedelta(hours=8): "time_local_plus_eight"}.get(offset, "time_other_zone")
            raise Fail(key, got=got, expected=expected, zone=zone.tzname(None), machine=timezone(local).tzname(None))
    raise Fail("time_wrong", got=got, expected=expected)


@check("1.2", points=1, en="the injected clock's date and time, in Beijing", zh="注入时钟给出的日期和时间（北京时间）")
def test_time_from_the_clock(learner, world):
    expect_time(learner, "clock", world.clock)


@check("1.2", points=1, en="just after midnight in Beijing, still the day before in UTC: the Beijing date",
       zh="北京刚过午夜、UTC 还是前一天：日期按北京时间")
def test_time_zone(learner, world):
    expect_time(learner, "clock_night", world.clock_night)


# ---------------------------------------------------------------- TODO 2.1 cut_reply

def expect_cut(learner, reply, expected, key="cut_wrong", **params):
    got = learner.call("cut_reply", reply)
    expect(isinstance(got, str), "not_a_string", func="cut_reply", got=shown(got))
    expect(got.strip() == expected.strip(), key, got=got, reply=reply, expected=expected, **params)


def weather_request(world, scenario="weather"):
    story = world.scenarios[scenario]
    call = story.turns[0][0]
    city = story.render(call.input, [])
    return request_text(story.render(call.thought, []), "get_weather", city), city, story.render(call.guess, [])


def expect_cuts_made_up_observation(learner, world):
    """cut_reply cuts an Observation the model made up after its request: its job, which a check of
    what it must leave alone counts only once done (returning every reply as it came leaves any reply
    alone). The same failure in each check, said once."""
    request, _, guess = weather_request(world)
    expect_cut(learner, f"{request}\nObservation: {guess}", request, key="cut_kept_made_up", tool="get_weather")


@check("2.1", points=1, en="a made-up Observation after the request is cut off", zh="请求后面编造的 Observation 被截掉")
def test_cut_made_up_observation(learner, world):
    expect_cuts_made_up_observation(learner, world)


@check("2.1", points=1, en="a made-up Final Answer after the request is cut off, with or without an Observation",
       zh="请求后面编造的 Final Answer 被截掉，不管前面有没有 Observation")
def test_cut_made_up_answer(learner, world):
    request, city, guess = weather_request(world, "made_up_final")
    answer = answer_text("I now know the final answer.", f"{city}今天{guess}。")
    expect_cut(learner, f"{request}\nObservation: {guess}\n{answer}", request, key="cut_kept_made_up", tool="get_weather")
    # the answer straight after the request, no Observation line to cut at: the cut is after Action Input
    expect_cut(learner, f"{request}\n{answer}", request, key="cut_kept_made_up", tool="get_weather")


@check("2.1", points=1, en="several requests in one reply (the prompt's format echoed, made-up rounds): cut after the first",
       zh="一条回复里有好几个请求（照抄的格式行、编造的几轮）：在第一个之后截断")
def test_cut_at_first_request(learner, world):
    request, city, guess = weather_request(world)
    echo = ("Thought: what to do next\nAction: the tool's name, exactly as listed above\n"
            "Action Input: the tool's input, on one line")
    expect_cut(learner, f"{echo}\nWhen you know the answer:\nFinal Answer: the answer to the question\n\n{request}",
               echo, key="cut_kept_echo")
    then = request_text("Now I convert it.", "calculate", "36 * 9 / 5 + 32")
    rambling = f"{request}\nObservation: {guess}\n{then}\nObservation: 96.8\n" + answer_text(
        "I now know the final answer.", f"{city}今天 96.8°F。")
    expect_cut(learner, rambling, request, key="cut_kept_rambling")


@check("2.1", points=1, en="an Observation before any request is cut off too", zh="出现在任何请求之前的 Observation 也要截掉")
def test_cut_observation_without_request(learner, world):
    _, city, guess = weather_request(world)
    start = f"Thought: I remember the weather in {city}."
    reply = f"{start}\nObservation: {guess}\n" + answer_text("I now know the final answer.", f"{city}今天{guess}。")
    expect_cut(learner, reply, start)
    # an Observation as the reply's very first line (a model writing on from the one it was just sent):
    # nothing stays, though no newline comes before it
    first = f"Observation: {guess}\n" + answer_text("I now know the final answer.", f"{city}今天{guess}。")
    expect_cut(learner, first, "", key="cut_kept_first_observation")


@check("2.1", points=1, en="a Final Answer, prose, and a request with nothing after it come back whole",
       zh="Final Answer、普通文字、后面什么都没有的请求，都原样返回")
def test_cut_keeps_answers(learner, world):
    expect_cuts_made_up_observation(learner, world)
    city = world.scenarios["weather"].values["city"]
    request, _, _ = weather_request(world)  # its Action Input the reply's last line, with no newline after it
    for reply in (answer_text("I now know the final answer.", f"{city}今天{world.weather[city]}。\n- 带伞？不用。"),
                  # "Observation:" inside a line is the answer's own words: only a line that starts with it is cut
                  answer_text("I now know the final answer.", f"按工具的 Observation: {city}今天{world.weather[city]}。"),
                  world.scenarios["off_format"].render(world.scenarios["off_format"].turns[0][0].off_format, []),
                  request.rstrip()):
        expect_cut(learner, reply, reply)


# ---------------------------------------------------------------- TODO 2.2 parse_reply

def parsed(learner, reply):
    got = learner.call("parse_reply", reply)
    ok = got is None or (isinstance(got, (tuple, list)) and len(got) == 3 and all(isinstance(x, str) for x in got))
    return got, ok


def expect_parsed(learner, reply, expected, key="parse_wrong"):
    got, ok = parsed(learner, reply)
    ok = ok and got is not None and tuple(x.strip() for x in got) == expected
    expect(ok, key, got=shown(got), reply=reply, expected=repr(expected))


def expect_reads_a_request(learner, world):
    """parse_reply reads a request: its job, which a check of what it must refuse (None) counts only
    once done (a parse_reply that returns None for everything refuses anything). The same failure in
    each check, said once."""
    request, city, _ = weather_request(world)
    expect_parsed(learner, request, (read_thought(request), "get_weather", city))


@check("2.2", points=1, en="a request: thought, action and input", zh="请求：读出 thought、action 和 input")
def test_parse_request(learner, world):
    expect_reads_a_request(learner, world)
    v = world.scenarios["misspelt"].values
    expression = f"{v['a']} * {v['b']} + {v['c']}"
    expect_parsed(learner, f"Action: calculate\nAction Input: {expression}", ("", "calculate", expression))


def read_thought(reply: str) -> str:
    return reply.splitlines()[0].removeprefix("Thought:").strip()


@check("2.2", points=1, en="a Final Answer: action '' and the whole answer, even after a stray Action line",
       zh="Final Answer：action 为空串，答案完整，前面多了一行 Action 也一样")
def test_parse_final_answer(learner, world):
    city = world.scenarios["weather"].values["city"]
    answer = f"{city}今天{world.weather[city]}。\n- 出门不用带伞。"
    expect_parsed(learner, answer_text("I now know the final answer.", answer), ("I now know the final answer.", "", answer))
    # a stray Action line with no Action Input before the Final Answer (day 04): still an answer, not half a request
    v = world.scenarios["misspelt"].values
    result = calculate(f"{v['a']} * {v['b']} + {v['c']}")
    for stray in ("None", "calculate"):
        expect_parsed(learner, f"Thought: I already know it.\nAction: {stray}\nFinal Answer: {result}",
                      ("I already know it.", "", result), key="parse_stray_action")


@check("2.2", points=1, en="prose that follows no format: None", zh="不合格式的普通文字：返回 None")
def test_parse_prose(learner, world):
    expect_reads_a_request(learner, world)
    story = world.scenarios["off_format"]
    reply = story.render(story.turns[0][0].off_format, [])
    got, ok = parsed(learner, reply)
    expect(got is None, "parse_not_none", got=shown(got), reply=reply)


@check("2.2", points=1, en="half a request (an Action with no Action Input): None",
       zh="半个请求（有 Action 没有 Action Input）：返回 None")
def test_parse_half_request(learner, world):
    expect_reads_a_request(learner, world)
    nowhere = world.scenarios["unknown_city"].values["nowhere"]
    reply = f"Thought: I should look up the weather in {nowhere}.\nAction: get_weather(\"{nowhere}\")"
    got, ok = parsed(learner, reply)
    expect(got is None, "parse_half", got=shown(got), reply=reply)


# ---------------------------------------------------------------- TODO 3.1 run_agent

def agent_tools(world) -> list:
    """The four tools, as your Tool objects: the grader runs three; get_current_time is your
    TimeTool, reading the grader's clock."""
    clock = learner_object("TimeTool", tool_arg("clock"))
    return tools_arg(world, GIVEN_TOOLS) + [learner_object(
        "Tool", "get_current_time", world.tool_descriptions["get_current_time"], clock)]


def run_agent(learner, world, scenario, *max_steps):
    """Your run_agent on a task of scenarios.yaml; a request the API refused is named in the failure."""
    try:
        run = learner.run_agent("run_agent", scenario, agent_tools(world), *max_steps)
    except Fail:
        expect_accepted(learner.runs[-1])
        raise
    expect_accepted(run)
    return run



def prompt(exchange) -> str:
    """A request as the text model reads it: every message's content, in order."""
    return "\n\n".join(chat_text(m) for m in request_messages(exchange))


def reply(exchange) -> str:
    if exchange.status != 200:
        return ""
    return exchange.response["choices"][0]["message"].get("content") or ""


def guess_of(run) -> str | None:
    call = run.scenario.turns[0][0]
    return run.scenario.render(call.guess, []) if call.guess else None


def expect_answer(learner, run, expected):
    """The answer holds `expected` (and no made-up Observation); if not, say why, from the
    transcript when it shows it."""
    expect(run.exchanges, "no_request")
    answer, guess = run.answer, guess_of(run)
    believed = guess and isinstance(answer, str) and guess in answer
    if isinstance(answer, str) and expected in answer and not believed and run.model_said(expected):
        return
    explain_transcript(learner, run)
    if believed:
        raise Fail("made_up_answer", got=answer, guess=guess, real=expected)
    explain_answer(run)
    run.expect_from_model(expected)
    raise Fail("answer_missing", expected=expected, got=shown(answer))


def explain(learner, run):
    """Fail with the first mistake the transcript shows, if it shows one."""
    explain_transcript(learner, run)
    explain_answer(run)


def explain_transcript(learner, run):
    """What the requests show: a question left out, a made-up line sent back, a slip never
    corrected, a misspelt tool answered without the real names, an error never fed back."""
    exchanges = run.exchanges
    expect_fresh_start(learner.world, run)
    for number, exchange in enumerate(exchanges, start=1):
        users = " ".join(chat_text(m) for m in request_messages(exchange) if m.get("role") == "user")
        expect(run.scenario.question in users, "question_missing", request=number, question=run.scenario.question)
    for number, exchange in enumerate(exchanges[:-1], start=1):  # each request it acted on goes back
        asked = read_request(reply(exchange))
        if asked and not action_naming(asked[0]).search(prompt(exchanges[number])):
            raise Fail("reply_not_kept", request=number + 1, tool=asked[0], input=asked[1])
    for number, exchange in enumerate(exchanges, start=1):  # the request's input, cut short or changed
        asked = read_request(reply(exchange))
        if asked is None:
            continue
        kept = read_request(text_from(learner, "cut_reply", reply(exchange)))
        if kept and kept[1] != asked[1] and asked[1].startswith(kept[1]):
            raise Fail("input_cut_short", tool=asked[0], asked=asked[1], kept=kept[1])
        ran = [c for c in run.tool_calls if c.round == number and c.name == asked[0]]
        expect(not ran or any(str(c.input).strip() == asked[1] for c in ran), "tool_input_not_as_asked",
               tool=asked[0], asked=asked[1], ran=ran and str(ran[0].input))
    expect_observation_labelled(run.tool_calls, exchanges)
    outputs = [str(c.output) for c in run.tool_calls]
    for index, exchange in enumerate(exchanges[:-1]):  # what it made up after a request, sent back later
        for line in written_after_request(reply(exchange)).splitlines():
            made_up = OBSERVATION.match(line) or line.strip().startswith("Final Answer")
            later = [n for n, e in enumerate(exchanges[index + 1:], start=index + 2) if line.strip() in prompt(e)]
            if made_up and later and not any(out in line for out in outputs):
                if line.strip() in text_from(learner, "cut_reply", reply(exchange)):  # cut_reply keeps it: fix that first
                    raise Fail("made_up_kept_by_cut", request=later[0], line=line.strip())
                raise Fail("made_up_kept", request=later[0], line=line.strip())
    explain_slips(run)
    explain_misspelt(run)
    explain_tool_not_run(learner, run)
    for failed in (c for c in run.tool_calls if c.failed):
        later = [prompt(e) for e in exchanges[failed.round:]]
        expect(any(str(failed.output) in p for p in later), "error_not_fed_back", tool=failed.name,
               error=str(failed.output), got=shown(run.answer))


def explain_tool_not_run(learner, run):
    """A request for one of the loop's tools that no tool ran for before the next request. When the
    learner's cut_reply and parse_reply read it right, the loop lost it (execute_tool's arguments
    in another order, a lookup of its own); when they don't, their own checks say so."""
    for number, exchange in enumerate(run.exchanges[:-1], start=1):
        asked = read_request(reply(exchange))
        if not asked or asked[0] not in run.handed or any(c.round == number for c in run.tool_calls):
            continue
        try:
            parsed = learner.call("parse_reply", text_from(learner, "cut_reply", reply(exchange)))
        except Fail:
            return
        if isinstance(parsed, (list, tuple)) and len(parsed) == 3 and [str(p).strip() for p in parsed[1:]] == list(asked):
            told = [chat_text(m) for m in request_messages(run.exchanges[number]) if m.get("role") == "user"]
            raise Fail("tool_not_run", call=f"{asked[0]}({asked[1]!r})", round=number,
                       observation=quoted(told[-1] if told else None))
        return


def explain_answer(run):
    """The answer is not the model's Final Answer: the run ended on a request, or reworded it."""
    exchanges = run.exchanges
    final = read_final(reply(exchanges[-1])) if exchanges else None
    if final is None and exchanges and read_request(reply(exchanges[-1])) and len(exchanges) < 8:
        raise Fail("not_the_models_answer", got=shown(run.answer), reply=reply(exchanges[-1]))
    if final is not None and isinstance(run.answer, str) and run.answer.strip() != final:
        raise Fail("not_the_models_answer", got=run.answer, reply=reply(exchanges[-1]))


def is_prose(text_: str) -> bool:
    """A reply with no request and no Final Answer: out of format."""
    return bool(text_.strip()) and read_request(text_) is None and read_final(text_) is None


def explain_slips(run):
    slips = [reply(e) for e in run.exchanges if is_prose(reply(e))]
    if slips and isinstance(run.answer, str) and run.answer.strip() == slips[0].strip():
        raise Fail("returned_off_format", reply=slips[0])
    if len(slips) >= 2:
        raise Fail("never_corrected", count=len(slips), reply=slips[0])


def explain_misspelt(run):
    call = run.scenario.turns[0][0]
    if not call.misspelt:
        return
    given = run.scenario.render(call.input, [])
    for index, exchange in enumerate(run.exchanges[:-1]):
        if read_request(reply(exchange)) == (call.misspelt, given):
            told = find_observations(prompt(run.exchanges[index + 1]), call.misspelt, given)
            if told and not names_tool(told[-1], call.tool):
                raise Fail("misspelt_not_listed", wrong=call.misspelt, observation=told[-1], right=call.tool)


@check("3.1", points=1, en="the messages: a system prompt for the tools it is given, each Observation a user message",
       zh="消息：系统提示描述的是传入的工具，每条 Observation 都是 user 消息")
def test_messages_as_described(learner, world):
    others = unseen(world, OTHER_TOOLS)
    run = learner.run_agent("run_agent", "weather", agent_tools(world) + tools_arg(world, list(others), extra=others))
    expect_accepted(run)
    expect(run.exchanges, "no_request")
    system = " ".join(chat_text(m) for m in request_messages(run.exchanges[0]) if m.get("role") == "system")
    for name, description in others.items():
        expect(description in system, "system_prompt_not_given_tools", tool=name, description=description,
               names=", ".join(others))
    for number, exchange in enumerate(run.exchanges[1:], start=2):
        for message in request_messages(exchange):
            first_line = next((line for line in chat_text(message).splitlines() if line.strip()), "")
            expect(message.get("role") == "user" or not OBSERVATION.match(first_line), "observation_not_user",
                   request=number, role=str(message.get("role")), got=first_line)
    expect_answer(learner, run, world.weather[run.scenario.values["city"]])


@check("3.1", points=1, en="the weather task: the tool runs once, and the answer holds the real report",
       zh="天气题：工具只执行一次，答案里是真实的天气")
def test_weather(learner, world):
    run = run_agent(learner, world, "weather")
    expect_answer(learner, run, world.weather[run.scenario.values["city"]])
    expect_each_request_ran_once(learner, world, run)


def expect_each_request_ran_once(learner, world, run):
    """Between two requests, a tool that worked ran no more than once: the reply before asked for one
    call. A loop that runs execute_tool twice for it (once to look at the result, to log a failure,
    once for the Observation) runs every tool twice. Unless the file's execute_tool alone already
    runs a tool twice: TODO 1.1's first check says so."""
    for number in range(1, len(run.exchanges) + 1):
        ran = [c for c in run.tool_calls if c.round == number and not c.failed]
        if len(ran) <= 1:
            continue
        city = world.scenarios["weather"].values["city"]
        try:
            alone = len(run_execute_tool(learner, world, "get_weather", city)[1])
        except Fail:
            alone = 0
        if alone > 1:
            return
        raise Fail("loop_tool_ran_twice", call=f"{ran[0].name}({str(ran[0].input)!r})", request=number,
                   times=len(ran))


@check("3.1", points=1, en="two tools in a row: get_weather, then calculate (°C → °F); a number the model picks",
       zh="连续两个工具：先 get_weather，再 calculate（摄氏换华氏）；模型自己挑的数")
def test_two_tools(learner, world):
    expect_fahrenheit(learner, run_agent(learner, world, "fahrenheit"), world)
    # a number of the model's choosing, in its reply alone: the loop must run what the model asks
    picked = run_agent(learner, world, "pick")
    expect_answer(learner, picked, str(picked.scenario.values["pick"] ** 2))


def expect_fahrenheit(learner, run, world):
    """The answer holds the hot city's temperature in °F, as calculate gives it."""
    celsius = first_number(world.weather[run.scenario.values["hot_city"]])
    expect_answer(learner, run, f"{calculate(f'{celsius} * 9 / 5 + 32')}°F")


@check("3.1", points=1, en="search_knowledge: the answer quotes the knowledge base", zh="search_knowledge：答案引用知识库")
def test_knowledge(learner, world):
    run = run_agent(learner, world, "knowledge")
    expect_answer(learner, run, world.knowledge[run.scenario.values["topic"].lower()])


@check("3.1", points=1, en="\"现在几点了？\": answered from the injected clock", zh="“现在几点了？”：按注入的时钟回答")
def test_time(learner, world):
    run = run_agent(learner, world, "time")
    expected = said_at(run.answer, world.clock, BEIJING)  # as the tool wrote it: with a space, or ISO 8601's T
    if not (expected and len(other_times(run.answer, world.clock)) <= OTHER_TIMES_ALLOWED):
        expect_time(learner, "clock", world.clock)  # the tool's time wrong already: current_time's failure (TODO 1.2)
    expected = expected or moment(world.clock, BEIJING)
    expect_answer(learner, run, expected)
    others = other_times(run.answer, world.clock)
    expect(len(others) <= OTHER_TIMES_ALLOWED, "time_answer_among_others", got=run.answer, expected=expected,
           others=listed(others))


@check("3.1", points=1, en="a reply out of format, first or after a tool ran: the format again in a user message, "
       "the earlier rounds kept, and the agent recovers",
       zh="回复不合格式（第一条，或者在工具执行之后）：用 user 消息重申格式，之前的各轮都保留，然后恢复正常")
def test_recovers_from_off_format(learner, world):
    run = run_agent(learner, world, "off_format")
    expect_reminder_from_user(run)
    expect_answer(learner, run, world.weather[run.scenario.values["city"]])
    # out of format after a round with a tool: the reminder goes on the conversation, which keeps that round
    late = run_agent(learner, world, "late_slip")
    expect_rounds_kept(late)
    expect_reminder_from_user(late)
    expect_fahrenheit(learner, late, world)


FORMAT_WORDS = re.compile(r"\bAction\b|Final[ _]?Answer|\bformat|格式", re.IGNORECASE)  # as the mock reads a correction


def expect_rounds_kept(run):
    """What one request held of the rounds before it (the model's requests, the tools' results), the
    next one holds too: a loop that rebuilds its messages (after a reply out of format, say) from the
    system prompt and the question drops the rounds before, and the model starts the task over."""
    rounds = []  # (request number, the call, its Action pattern, its results)
    for number, exchange in enumerate(run.exchanges, start=1):
        text_ = prompt(exchange)
        for done, call, action, outputs in rounds:
            if action.search(text_) and all(o in text_ for o in outputs):
                continue
            before = prompt(run.exchanges[number - 2])
            if not (action.search(before) and all(o in before for o in outputs)):
                continue  # never sent whole: other checks say what went wrong
            slips = [reply(e).strip() for e in run.exchanges[done:number - 1] if is_prose(reply(e))]
            if slips:
                raise Fail("round_lost_after_slip", request=number, previous=number - 1, round=done, call=call,
                           slip=slips[-1])
            raise Fail("round_lost", request=number, previous=number - 1, round=done, call=call)
        asked = read_request(reply(exchange))
        if asked:
            outputs = [str(c.output).strip() for c in run.tool_calls if c.round == number and str(c.output).strip()]
            action = action_naming(asked[0])
            rounds.append((number, f"{asked[0]}({asked[1]!r})", action, outputs))


def expect_steps_taken(run):
    """Each request that asked for a tool was followed by that tool's run before the next request: a
    loop's steps count only once it takes them (a loop that sends every reply back with the reminder,
    and never reads one, makes max_steps requests too). The same failure in each check, said once."""
    try:
        expect_asked_tools_ran(run)
    except Fail as failure:
        raise Fail("steps_without_tools", **failure.params) from None


def expect_reminder_from_user(run):
    """What the loop sends back after a reply out of format (the reminder, like an Observation) is a
    user message: the README's messages, and many chat models take a system message only first."""
    for number, exchange in enumerate(run.exchanges[:-1], start=2):
        if not is_prose(reply(exchange)):
            continue
        # the reply itself goes back before the reminder (an assistant message, or quoted, or in one
        # prompt of the loop's own): a reminder about a reply the conversation no longer shows
        slip = reply(exchange).strip()
        expect(prompt(run.exchanges[number - 1]).count(slip) > prompt(exchange).count(slip), "slip_not_kept",
               request=number, reply=slip)
        # every slip gets its reminder, the second and third too: after the reply, words that name the format
        after = after_new_copy(request_messages(run.exchanges[number - 1]), slip, prompt(exchange).count(slip))
        expect(FORMAT_WORDS.search(after), "slip_not_reminded", request=number, reply=slip,
               nth=sum(is_prose(reply(e)) for e in run.exchanges[:number - 1]))
        added = request_messages(run.exchanges[number - 1])[len(request_messages(exchange)):]  # since that reply
        kept = next((i for i, m in enumerate(added) if m.get("role") == "assistant"), None)  # the reply itself
        for message in (m for i, m in enumerate(added) if i != kept):
            first_line = next((line for line in chat_text(message).splitlines() if line.strip()), "")
            expect(message.get("role") == "user", "reminder_not_user", request=number, role=str(message.get("role")),
                   got=first_line, reply=reply(exchange))


def after_new_copy(messages, slip: str, seen: int) -> str:
    """What a request says from the first copy of `slip` the request before it didn't hold (the reply
    sent back, as an assistant message or quoted) on: the rest of the message that holds it, the slip
    itself left out (a reminder may come first and quote the reply after it), and every message after."""
    for index, message in enumerate(messages):
        text_ = chat_text(message)
        copies = text_.count(slip)
        if seen >= copies:
            seen -= copies
            continue
        start = -1
        for _ in range(seen + 1):
            start = text_.find(slip, start + 1)
        own = text_[:start] + text_[start + len(slip):]
        return "\n\n".join([own, *(chat_text(m) for m in messages[index + 1:])])
    return ""


@check("3.1", points=1, en="a misspelt tool: the Observation lists the real ones, and the model recovers",
       zh="工具名拼错：Observation 列出真实工具，模型自我纠正")
def test_recovers_from_misspelt_tool(learner, world):
    run = run_agent(learner, world, "misspelt")
    v = run.scenario.values
    expect_answer(learner, run, calculate(f"{v['a']} * {v['b']} + {v['c']}"))


@check("3.1", points=1, en="a city the weather tool doesn't know: the error goes back, the answer is honest",
       zh="天气工具不认识的城市：报错交回给模型，答案如实说明")
def test_unknown_city(learner, world):
    expect_honest(learner, run_agent(learner, world, "unknown_city"))


def expect_honest(learner, run):
    nowhere = run.scenario.values["nowhere"]
    guess = guess_of(run)
    if isinstance(run.answer, str) and guess in run.answer:
        explain(learner, run)
        raise Fail("dishonest", city=nowhere, got=run.answer, guess=guess)
    expect_answer(learner, run, f"no weather data for {nowhere}")
    explain_answer(run)  # the error, but is it the model's answer, or the loop's?


@check("3.1", points=1, en="off format, then a misspelt tool, then an unknown city: recovers each time, answers honestly",
       zh="先格式不对，再拼错工具名，再遇到不认识的城市：每次都恢复，如实作答")
def test_rough_ride(learner, world):
    expect_honest(learner, run_agent(learner, world, "rough"))


@check("3.1", points=1, en="a made-up Observation and Final Answer never reach the answer",
       zh="模型编造的 Observation 和 Final Answer 绝不进入答案")
def test_made_up_never_reaches_the_answer(learner, world):
    for scenario in ("made_up_final", "made_up_answer"):  # with an Observation made up first, and without
        run = run_agent(learner, world, scenario)
        expect_answer(learner, run, world.weather[run.scenario.values["hot_city"]])
        explain(learner, run)  # right answer, but was a made-up line sent back on the way?


def placeholder(run) -> str | None:
    """The tool the run's first reply asked for: an echoed prompt's placeholder, on the echo task."""
    request = read_request(reply(run.exchanges[0])) if run.exchanges else None
    return request[0] if request else None


@check("3.1", points=1, en="a first reply that echoes the prompt's format lines: the placeholder is no request, "
       "and the model goes on", zh="第一条回复照抄了提示词里的格式行：占位符不是真请求，模型接着往下做")
def test_survives_prompt_echo(learner, world):
    try:
        run = run_agent(learner, world, "echo")
    except Fail as failure:
        run = learner.runs[-1] if learner.runs else None
        if failure.key == "crashed" and run and len(run.exchanges) == 1 and placeholder(run):
            raise Fail("echo_crashed", placeholder=placeholder(run), type=failure.params["type"],
                       message=failure.params["message"]) from None
        raise
    if len(run.exchanges) == 1 and placeholder(run):
        copied = re.search(r"Final Answer\s*:\s*(.+)", reply(run.exchanges[0]))  # the format lines' own
        if copied and isinstance(run.answer, str) and run.answer.strip().startswith(copied.group(1).strip()):
            raise Fail("echo_final_taken", placeholder=placeholder(run), got=repr(run.answer))
        raise Fail("echo_ended", placeholder=placeholder(run), got=shown(run.answer))
    expect_answer(learner, run, world.weather[run.scenario.values["city"]])


@check("3.1", points=1, en="a reply that rambles on through made-up rounds to an answer: only its first request counts",
       zh="回复一路编下去，编出好几轮直到答案：只有第一个请求算数")
def test_survives_rambling(learner, world):
    run = run_agent(learner, world, "rambling")
    expect_fahrenheit(learner, run, world)
    explain(learner, run)  # right answer, but was a made-up line sent back on the way?


@check("3.1", points=1, en="replies out of format again and again: each reminder costs a step, max_steps requests in all",
       zh="回复一再不合格式：每次提醒都算一步，总共 max_steps 次请求")
def test_reminders_cost_steps(learner, world):
    limit = 5  # the model slips, asks for one call, then slips on and on: two slips in a row, each with a next request
    try:
        run = run_agent(learner, world, "prose", limit)
    except Fail as failure:
        if failure.key == "budget":  # every reminder free: the model's prose never ends the loop
            raise Fail("reminder_free", max_steps=limit, calls=failure.params.get("budget")) from None
        raise
    reminders = sum(read_request(reply(e)) is None and read_final(reply(e)) is None for e in run.exchanges)
    expect(len(run.exchanges) <= limit or not reminders, "reminder_free", max_steps=limit, calls=len(run.exchanges))
    expect(len(run.exchanges) == limit, "wrong_step_count", max_steps=limit, calls=len(run.exchanges))
    expect_steps_taken(run)
    expect_rounds_kept(run)  # a slip after the calculate round leaves that round in the conversation
    expect_reminder_from_user(run)  # each slip its reminder, not only the first, nor only after another round


@check("3.1", points=1, en="max_steps: a model that never finishes gets exactly max_steps requests, then your own "
       "message; an answer with the last request allowed is returned",
       zh="max_steps：模型永不结束时恰好请求 max_steps 次，然后返回你自己的提示；在允许的最后一次请求拿到的答案照样返回")
def test_stops_at_max_steps(learner, world):
    run = run_agent(learner, world, "endless", 4)
    expect(len(run.exchanges) == 4, "wrong_step_count", max_steps=4, calls=len(run.exchanges))
    expect_asked_tools_ran(run)
    replies = {reply(e).strip() for e in run.exchanges}
    ok = is_own_message(run.answer, run) and run.answer.strip() not in replies
    expect(ok, "no_fallback", got=shown(run.answer))
    # two tools, then the Final Answer: 3 requests, exactly what max_steps=3 allows
    limit = 3
    run = run_agent(learner, world, "fahrenheit", limit)
    try:
        expect_fahrenheit(learner, run, world)
    except Fail as failure:
        expect_answer_at_limit(run, limit, failure)
        raise


def expect_answer_at_limit(run, limit: int, failure: Fail) -> None:
    """An answer missing from a run whose last request allowed (the `limit`-th) got the model's Final
    Answer: the loop tested its limit between that request and its reply, and threw the answer away
    for its own message."""
    if failure.key not in ("answer_missing", "not_the_models_answer") or len(run.exchanges) != limit:
        return
    final = read_final(reply(run.exchanges[-1]))
    if final is None:
        return
    raise Fail("answer_at_limit_dropped", max_steps=limit, answer=final.strip(), got=shown(run.answer)) from None
