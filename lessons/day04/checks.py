"""Day 04 checks: your parser, on a table of replies shaped like real model output.

Each check hands your functions replies and compares what they return with what the grader reads
in them. Some replies are the lesson text's own; the others are written for the seed being graded:
their numbers, cities and label spellings change with it, so a parser that knows the table by heart
fails. The mock model is not called: these are plain function calls.
"""
import itertools
import random
import re

from validator.checking import Fail, Record, calculate, check, expect, imagined, shown

LABELS = ("Thought", "Action", "Action Input", "Observation", "Final Answer")

# How models write a label line: the case of the label, and what surrounds it and its colon.
CASES = (lambda s: s, str.lower, str.upper, lambda s: s.replace(" ", "_"), str.title,
         str.capitalize)  # sentence case: "Final answer", "Action input"
LAYOUTS = ("{label}: {value}", "{label}:{value}", "{label} : {value}", "  {label}:   {value}",
           "{label}：{value}", "**{label}:** {value}", "**{label}**: {value}")


class Spellings:
    """The label spellings of one check's hidden replies, for the seed being graded: every layout
    and every case in a seeded order, each before any comes again, so a check of seven label lines
    or more meets every spelling the lesson accepts at every seed (a random pick could leave one out)."""

    def __init__(self, world, name: str):
        rng = random.Random(f"day04:{name}:{world.seed}")
        self.layouts = itertools.cycle(rng.sample(LAYOUTS, len(LAYOUTS)))
        self.cases = itertools.cycle(rng.sample(CASES, len(CASES)))


def spelled(label: str, value: str, spellings: Spellings) -> str:
    """A label line as some model writes it; the value's further lines follow as they are."""
    first, *more = value.split("\n")
    line = next(spellings.layouts).format(label=next(spellings.cases)(label), value=first).rstrip()
    return "\n".join([line, *more])


def mixed_case(label: str, rng: random.Random) -> str:
    """The label in a case drawn letter by letter ("aCtIoN iNpuT"): none of the usual ones, so a parser
    that lists the cases it knows instead of comparing in lower case fails it."""
    usual = {label, label.lower(), label.upper(), label.title(), label.capitalize(), label.swapcase()}
    while True:
        written = "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in label)
        if written not in usual:
            return written


def numbers(world) -> dict:
    """The seed's task values, and what the tools and a careless model make of them."""
    v = dict(world.scenarios["calculator"].values)
    v["expr"] = f"{v['a']} + {v['b']} * {v['c']}"
    v["result"] = calculate(v["expr"])
    v["guess"] = imagined("Calculator", v["expr"])  # left to right: what a model makes up
    return v


def norm(text) -> str:
    """A value as the checks compare it: each line stripped, the whole stripped."""
    return "\n".join(line.strip() for line in str(text).strip().splitlines())


# ---------------------------------------------------------------- the grader's own reading

def reference_split(line: str):
    head, colon, rest = line.replace("：", ":").partition(":")
    name = "".join(c for c in head.lstrip(" \t*->#") if c not in " \t_*").lower()
    for label in LABELS:
        if colon and name == label.replace(" ", "").lower():
            return label, rest.strip().strip("*").strip()
    return None


def reference_fields(reply: str) -> list:
    fields = []
    for line in reply.splitlines():
        found = reference_split(line)
        if found:
            fields.append([found[0], [found[1]]])
        elif fields:
            fields[-1][1].append(line)
    return [(label, "\n".join(lines).strip()) for label, lines in fields]


def as_pairs(value):
    """The learner's fields as a list of (label, value), when they have that shape; else None."""
    if not isinstance(value, (list, tuple)):
        return None
    pairs = []
    for item in value:
        if not (isinstance(item, (list, tuple)) and len(item) == 2 and all(isinstance(x, str) for x in item)):
            return None
        pairs.append((item[0], item[1]))
    return pairs


def same_fields(got, expected) -> bool:
    """The same fields, values compared line by line without the spaces at their ends (an indented line
    of a value may keep its indent or not); each value stripped as a whole, as the lesson says."""
    pairs = as_pairs(got)
    return (pairs is not None and [(l, norm(v)) for l, v in pairs] == [(l, norm(v)) for l, v in expected]
            and all(v == v.strip() for _, v in pairs))


def unstripped(got):
    """The first value the learner's fields keep spaces or blank lines around, else None."""
    return next((v for _, v in as_pairs(got) or [] if v != v.strip()), None)


def shown_pair(pair) -> str:
    return "None" if pair is None else f"({pair[0]!r}, {pair[1]!r})"


def call_quietly(learner, func, *args):
    """The learner's func(*args), or Fail when it raises or is not written yet (for diagnoses)."""
    try:
        return learner.call(func, *args)
    except Fail as failure:
        return failure


def run_agent(learner, world, scenario):
    """For `validate.py day04 --live`: the file's one_round (ask once, parse, run the tool) on a task."""
    return learner.run_agent("one_round", scenario)


# ---------------------------------------------------------------- TODO 1.1 split_label

def expect_split(learner, line: str, expected, key: str = "split_wrong"):
    got = learner.call("split_label", line)
    pair = isinstance(got, (tuple, list)) and len(got) == 2 and all(isinstance(x, str) for x in got)
    ok = got is None if expected is None else pair and got[0] == expected[0] and got[1] == expected[1]
    if ok:
        return
    written = reference_head(line)  # the word(s) before the colon, as the line spells them
    if pair and got[0] != written and written.lower().startswith(got[0].lower()):
        raise Fail("split_prefix", line=line, got=shown(got), expected=shown_pair(expected),
                   longer=written, shorter=got[0])  # a label taken for the start of a longer word
    if pair and expected and got[0] == expected[0] and got[1].strip() == expected[1]:  # README: ("Action", "Weather")
        raise Fail("split_not_stripped", line=line, got=shown(got), expected=shown_pair(expected))
    if got is None and expected and expected[1] == "":
        raise Fail("split_empty_value", line=line, got=shown(got), expected=shown_pair(expected))
    if pair and expected and got[0] == expected[0] and unquoted(got[1]) == unquoted(expected[1]):
        raise Fail("split_quotes", line=line, got=shown(got), expected=shown_pair(expected))
    raise Fail(key, line=line, got=shown(got), expected=shown_pair(expected))


def unquoted(text: str) -> str:
    return re.sub(r"[\"'`“”‘’]", "", text).strip()


def reference_head(line: str) -> str:
    """The text before the first colon, without Markdown and with single spaces: "Action Input"."""
    head = line.replace("：", ":").partition(":")[0]
    return " ".join(head.replace("*", " ").replace("_", " ").split())


@check("1.1", points=1, en="reads a label whatever its case and spacing", zh="不管大小写和空格，都能认出标签")
def test_split_case_and_spacing(learner, world):
    v = numbers(world)
    rows = [
        ("Thought: I need to calculate 3 + 5 * 2.", ("Thought", "I need to calculate 3 + 5 * 2.")),
        ("  action :  Weather", ("Action", "Weather")),
        ("ACTION INPUT: 上海", ("Action Input", "上海")),
        ("Action_Input: 上海", ("Action Input", "上海")),
        ("final answer:3 + 5 * 2 = 13", ("Final Answer", "3 + 5 * 2 = 13")),
        ("Observation : 13", ("Observation", "13")),
        ("Final Answer: The train leaves at 10:30.", ("Final Answer", "The train leaves at 10:30.")),  # the value's own colon
        ("Action Input:", ("Action Input", "")),  # nothing after the colon: an empty input, still a label line
        (f"Action  Input: {v['city']}", ("Action Input", v["city"])),  # two spaces inside the label
        (f"Final _Answer: {v['result']}", ("Final Answer", v["result"])),
        (f"Final answer: {v['expr']} = {v['result']}", ("Final Answer", f"{v['expr']} = {v['result']}")),  # sentence case
        (f"Action input: {v['expr']}", ("Action Input", v["expr"])),
    ]
    rng = random.Random(f"day04:mixed:{world.seed}")
    rows += [(f"{mixed_case('Action', rng)}: Weather", ("Action", "Weather")),
             (f"{mixed_case('Action Input', rng)}: {v['city']}", ("Action Input", v["city"]))]
    spellings = Spellings(world, "split")
    values = {"Thought": f"I need to calculate {v['expr']}.", "Action": "Calculator",
              "Action Input": v["expr"], "Observation": v["result"],
              "Final Answer": f"{v['expr']} = {v['result']}"}
    rows += [(spelled(label, value, spellings), (label, value)) for label, value in values.items()]
    for line, expected in rows:
        expect_split(learner, line, expected)


@check("1.1", points=1, en="a full-width colon or Markdown bold still makes a label",
       zh="全角冒号、Markdown 加粗也照样认作标签")
def test_split_full_width_and_bold(learner, world):
    v = numbers(world)
    rows = [
        ("Thought：我需要查询北京的天气。", ("Thought", "我需要查询北京的天气。")),
        ("Action：Weather", ("Action", "Weather")),
        ("**Action:** Weather", ("Action", "Weather")),
        (f"**Action Input:** {v['city']}", ("Action Input", v["city"])),
        (f"**Final Answer**: {v['expr']} = {v['result']}", ("Final Answer", f"{v['expr']} = {v['result']}")),
        (f"Action Input：{v['hot_city']}", ("Action Input", v["hot_city"])),
        (f"Final Answer：{v['city']} 的火车 {v['a']}:30 出发", ("Final Answer", f"{v['city']} 的火车 {v['a']}:30 出发")),
        ("**Action Input:**", ("Action Input", "")),  # an empty input, in bold
        # the stars come off, quotes stay: parse_react_response takes one pair off the Action Input alone
        (f"**Action Input:** \"{v['city']}\"", ("Action Input", f"\"{v['city']}\"")),
        (f"**Thought:** The user wrote '{v['keyword']}'", ("Thought", f"The user wrote '{v['keyword']}'")),
    ]
    for line, expected in rows:
        expect_split(learner, line, expected)


@check("1.1", points=1, en="'Action Input' is not 'Action', and a label must start the line",
       zh="'Action Input' 不是 'Action'，标签必须在行首")
def test_split_whole_label_at_line_start(learner, world):
    v = numbers(world)
    expect_split(learner, f"Action Input: {v['city']}", ("Action Input", v["city"]))
    expect_split(learner, "Actions: none needed, I know this one", None)
    expect_split(learner, "Final Answers: see below", None)
    for line in (f"Answer: {v['result']}", f"Input: {v['city']}"):  # the end of a label is not one either
        expect_split(learner, line, None, key="split_part_of_label")
    for line in (f"I will use Action: Weather with {v['city']}", f"Note: Observation: {v['guess']}",
                 "The train leaves at 10:30", "Thought I should look it up"):
        expect_split(learner, line, None, key="split_mid_line")


# ---------------------------------------------------------------- TODO 1.2 read_fields

def expect_fields(learner, reply: str, key: str = "fields_wrong"):
    expected = reference_fields(reply)
    got = learner.call("read_fields", reply)
    if same_fields(got, expected):
        return
    again = call_quietly(learner, "read_fields", reply)  # the same reply again, read another way: state kept
    expect(isinstance(again, Fail) or again == got, "fields_kept_between_calls", got=shown(got), again=shown(again),
           reply=reply)
    expect_lines_split(learner, reply)
    pairs = as_pairs(got)
    if pairs is not None and any(v == "" for _, v in expected) and (
            [(l, norm(v)) for l, v in pairs] == [(l, norm(v)) for l, v in expected if v != ""]):
        raise Fail("fields_empty_dropped", got=shown(got), reply=reply, expected=shown(expected),
                   labels=[l for l, v in expected if v == ""])
    value = unstripped(got)
    if value is not None and [(l, norm(v)) for l, v in as_pairs(got)] == [(l, norm(v)) for l, v in expected]:
        raise Fail("fields_not_stripped", got=shown(got), reply=reply, expected=shown(expected), value=value)
    raise Fail(key, got=shown(got), reply=reply, expected=shown(expected))


def lines_split_right(learner, reply: str) -> bool:
    try:
        expect_lines_split(learner, reply)
    except Fail as failure:
        if failure.key != "because_split_label":
            raise
        return False
    return True


def expect_lines_split(learner, reply: str):
    """Each line of the reply split as a label line should be: one split_label misreads is the cause
    of what is read wrong after it (TODO 1.1)."""
    for line in reply.splitlines():
        split = call_quietly(learner, "split_label", line)
        wanted = reference_split(line)
        if isinstance(split, Fail):
            break
        right = split is None if wanted is None else (
            isinstance(split, (tuple, list)) and len(split) == 2 and tuple(split)[0] == wanted[0]
            and tuple(split)[1] == wanted[1])  # the value too: "3 + 5  2" is not "3 + 5 * 2", "  x" is not "x"
        if not right:
            raise Fail("because_split_label", line=line, got=shown(split), expected=shown_pair(wanted))


@check("1.2", points=1, en="reads every field, in order", zh="按顺序读出每个字段")
def test_fields_in_order(learner, world):
    v = numbers(world)
    expect_fields(learner, "Thought: I need to calculate 3 + 5 * 2.\nAction: Calculator\nAction Input: 3 + 5 * 2")
    expect_fields(learner, "Thought: First the weather.\nAction: Weather\nAction Input: 北京\n"
                           "Observation: sunny, 25°C\nThought: Now convert it.\nAction: Calculator\n"
                           "Action Input: 25 * 9 / 5 + 32")
    # a field with nothing after its colon is still a field, with the value "": an empty input (a clock tool).
    # A split_label that reads no label in "Action Input:" loses on TODO 1.1 for it, not here too.
    for reply in ("Thought: The Clock tool needs no input.\nAction: Clock\nAction Input:",
                  f"Thought:\nAction: Weather\nAction Input: {v['city']}\nObservation:\n\n"
                  f"Final Answer: It is sunny in {v['city']}."):
        if lines_split_right(learner, reply):
            expect_fields(learner, reply)
    spellings = Spellings(world, "fields")
    for tool, given in (("Calculator", v["expr"]), ("Weather", v["city"])):
        lines = [spelled("Thought", f"I should use the {tool}.", spellings), spelled("Action", tool, spellings),
                 spelled("Action Input", given, spellings)]
        if tool == "Calculator":
            lines.append(spelled("Observation", v["guess"], spellings))
        expect_fields(learner, "\n".join(lines))


@check("1.2", points=1, en="a value runs over several lines, blank lines kept",
       zh="一个值可以跨好几行，中间的空行也保留")
def test_fields_multiline(learner, world):
    v = numbers(world)
    expect_fields(learner, "Thought: I have both numbers.\nFinal Answer: It is 77°F in 北京 today.\n"
                           "- Weather: sunny, 25°C\n- 25 * 9 / 5 + 32 = 77", key="fields_one_line")
    expect_fields(learner, "Thought: The user wants degrees Fahrenheit.\nF = C * 9 / 5 + 32, so I need "
                           "the Celsius first.\nAction: Weather\nAction Input: 北京", key="fields_one_line")
    spellings = Spellings(world, "multiline")
    answer = f"In {v['city']} it is cloudy today.\n\nTake an umbrella, just in case."
    expect_fields(learner, "\n".join([spelled("Thought", "I know enough now.", spellings),
                                      spelled("Final Answer", answer, spellings)]), key="fields_one_line")
    expect_fields(learner, "\n".join([spelled("Action", "Knowledge", spellings),
                                      spelled("Action Input", f"{v['keyword']}\nand how it began", spellings)]),
                  key="fields_one_line")
    # blank lines between the fields and at the end: around a value, not inside it
    expect_fields(learner, f"Thought: I know it now.\n\nFinal Answer:   {v['expr']} = {v['result']}\n\n",
                  key="fields_one_line")


@check("1.2", points=1, en="lines before the first label belong to no field",
       zh="第一个标签之前的行不属于任何字段")
def test_fields_prose_before_labels(learner, world):
    v = numbers(world)
    expect_fields(learner, f"I should look up the weather in {v['city']}.\nAction: Weather\n"
                           f"Action Input: {v['city']}", key="fields_before_label")
    expect_fields(learner, f"Sure! Let me work this out.\n\nThought: I need to calculate {v['expr']}.\n"
                           f"Action: Calculator\nAction Input: {v['expr']}", key="fields_before_label")


# ---------------------------------------------------------------- TODO 2.1 format_error

# What a message says is missing: the label a word of negation governs ("no 'Action:' line", "is not
# followed by an Action Input", "without an Action", "缺少 Action Input", "前面没有Action行"). A message
# that says the line the reply has is missing sends the model to rewrite the wrong line.
# A negation governs the first thing named after it, in its own clause, so a label only counts when it is
# that thing:
# - not across a colon ("Action Input is missing: your Action needs…", "缺少输入：Action 下面…"), unless the
#   negation heads its clause and the colon follows it at once ("Missing: Action Input", "缺少：Action");
# - not when another word is named first ("no input for your Action", "没有输入的 Action" - the input is the
#   thing missing, the Action has it): a Chinese phrase ending in 的 describes the label, unless it is one
#   like 对应的 that says which line ("没有对应的 Action");
# - not when the label only says whose or where ("missing the Action's input", "没有在 Action 下面写…",
#   "缺少 Action 对应的输入");
# - not when the label is who or what something is for ("没有给 Action 提供输入", "没有为 Action Input 指明
#   工具", "缺少 Action 所需的输入", "没有指明 Action Input 用哪个工具", "No Action without an Action Input");
# - not across a line's end ("Action: missing\nAction Input: present", "…is missing\n  Action: <tool>": a
#   status line or an example's);
# - 别忘了 / 不要忘记 is a reminder, 无需 / 无论 are no negation.
NEGATION = (r"(?:\b(?:no|not|without|missing|lacks?|lacking|neither|nor|never|absent)\b|n['’]t\b|没有|缺少|缺了|缺|少了|"
            r"无(?!法|需|须|论|关|误|效|妨|非|疑|所|意|从)|未|(?<!别)(?<!不要)(?<!不用)(?<!勿)(?<!莫)(?<!不能)(?<!不可)忘(?:了|记))")
FILLER = (r"(?:[ \t'\"`“”‘’*<(\[]|\b(?:a|an|the|any|its|your|one|single|such|preceding|following|followed|"
          r"preceded|by|prior|matching|corresponding|separate|proper|valid)\b)*")
CLAIM = re.compile(r"(?P<negation>" + NEGATION + r")(?P<between>(?P<colon>[ \t*]*[:：])?" + FILLER
                   + r"(?:(?P<run>[\u4e00-\u9fff]{1,6})" + FILLER + r")?)"
                   r"(?P<label>action[\s_]*input|action(?![\s_]*input)|final[\s_]*answer|thought|observation)(?![A-Za-z])"
                   r"(?!\s*(?:(?:行|line|field)\s*)?(?:['’]s\b|的|对应|相应|后|下|之后|以后|前|之前|以前|上|里|中|内|"
                   r"所|需|要|该|应|用|使用|调用|交给|提供|配|without\b))",
                   re.IGNORECASE)
# a 的 phrase that says which line is missing, not what the line has: "没有对应的 Action Input"
WHICH = ("对应", "相应", "匹配", "配套", "单独", "独立", "有效", "正确", "合法", "任何", "需要", "必要", "必需", "必须")
# a word that makes the label the one something is for, not the thing missing: 给 / 为 / 对 / 向 / 与 …
TO_OR_FOR = ("给", "为", "對", "对", "向", "替", "跟", "与", "和", "同")
# A "not" that points at the wrong place instead of saying a line is missing: "on its own 'Action Input:' line,
# not the 'Action:' line", "write 'Action Input: x', not 'Action: tool(x)'", "never the Action line". That is a
# "not" (or "never") with nothing but quotes and a "the" / "your" / "its" before the label, and no "but" before it
# ("an Action but not the Action Input" does say it is missing).
CONTRAST_BETWEEN = re.compile(r"(?:[\s'\"`“”‘’*<(\[:：]|\b(?:the|your|its)\b)*", re.IGNORECASE)


def contrasted(message: str, match) -> bool:
    if match.group("negation").lower() not in ("not", "never"):
        return False
    if not CONTRAST_BETWEEN.fullmatch(match.group("between")):
        return False
    # only the spaces before the match and the 4 characters before them can hold a "but" that ends there:
    # searching all the text before each match would take a long message's length squared
    start = end = match.start()
    while end and message[end - 1].isspace():  # str.isspace: the whitespace \s matches
        end -= 1
    return not re.search(r"\bbut\s*$", message[max(end - 4, 0):start], re.IGNORECASE)


def governs(message: str, match) -> bool:
    """Whether the label of a CLAIM match is what its negation says is missing (see above)."""
    if match.group("colon"):  # "Missing: Action Input" heads its clause; "Action Input is missing: your Action" does not
        end = match.start()  # message[:match.start()].rstrip(" \t*"), without copying a long message once per match
        while end and message[end - 1] in " \t*":
            end -= 1
        if end and message[end - 1] not in ".:;!?。：；！？,，、-—–(（[【\n":
            return False
    run = match.group("run") or ""
    if "的" in run and not run.rpartition("的")[0].endswith(WHICH):  # "没有输入的 Action": the Action lacks the input
        return False
    if run.startswith(TO_OR_FOR):  # "没有给 Action 提供输入", "没有为这个 Action Input 指明工具": the label is who it is for
        return False
    return not contrasted(message, match)


def claimed_missing(message: str) -> set:
    """The labels a message says are missing, spelt as in LABELS."""
    return {" ".join(re.split(r"[\s_]+", m.group("label"))).title() for m in CLAIM.finditer(message)
            if governs(message, m)}


def expect_not_claimed(got: str, labels: list, present: str, missing: str):
    expect(present not in claimed_missing(got), "error_claims_present", labels=labels, got=shown(got),
           present=present, missing=missing)


def drawn_labels(world, kind: str) -> list[list[str]]:
    """Two label lists of one kind, drawn for the seed being graded, four or five labels long (longer than
    the fixed ones): a format_error that looks the fixed lists up in a table of its own fails them.
    "input": an Action, no Action Input; "action": an Action Input last, no Action; "both": neither;
    "none": a Final Answer, or an Action then its Action Input."""
    rng = random.Random(f"day04:labels:{kind}:{world.seed}")

    def fillers(count):
        return [rng.choice(("Thought", "Observation")) for _ in range(count)]
    drawn = []
    for number in range(2):
        length = rng.randint(4, 5)
        if kind == "both":
            labels = fillers(length)
        elif kind == "action":
            labels = fillers(length - 1) + ["Action Input"]
        elif kind == "input":
            labels = fillers(length - 1)
            labels.insert(rng.randint(0, length - 1), "Action")
        elif number == 0:  # a Final Answer somewhere
            labels = fillers(length - 1)
            labels.insert(rng.randint(0, length - 1), "Final Answer")
        else:  # an Action, then its Action Input last
            labels = fillers(length - 2)
            labels.insert(rng.randint(0, length - 2), "Action")
            labels.append("Action Input")
        drawn.append(labels)
    return drawn


def error_of(learner, labels: list[str]):
    return learner.call("format_error", labels)


def is_message(value) -> bool:
    return isinstance(value, str) and bool(value.strip())


@check("2.1", points=1, en="an Action with no Action Input: a message that asks for one",
       zh="有 Action 没有 Action Input：提示模型补上")
def test_error_missing_input(learner, world):
    for labels in (["Thought", "Action"], ["Action"], ["Thought", "Action", "Thought"], *drawn_labels(world, "input")):
        got = error_of(learner, labels)
        expect(is_message(got), "error_missing_input", labels=labels, got=shown(got))
        expect("action input" in got.lower(), "error_not_named", labels=labels, got=shown(got),
               label="Action Input")
        expect_not_claimed(got, labels, present="Action", missing="Action Input")


@check("2.1", points=1, en="an Action Input with no Action before it: a message",
       zh="Action Input 前面没有 Action：返回提示")
def test_error_missing_action(learner, world):
    for labels in (["Thought", "Action Input"], ["Action Input"], *drawn_labels(world, "action")):
        got = error_of(learner, labels)
        expect(is_message(got), "error_missing_action", labels=labels, got=shown(got))
        # says what is missing: "Action Input" alone names the other line; "没有Action行" names it (no \b
        # there: Python counts a Chinese character as a word's)
        named = re.search(r"(?<![A-Za-z])action(?![A-Za-z])(?![\s_]*input)", got, re.IGNORECASE)
        expect(named, "error_not_named", labels=labels, got=shown(got), label="Action")
        expect_not_claimed(got, labels, present="Action Input", missing="Action")


@check("2.1", points=1, en="neither an Action nor a Final Answer: a message that names both",
       zh="既没有 Action 也没有 Final Answer：提示里两条出路都要提到")
def test_error_missing_both(learner, world):
    for labels in ([], ["Thought"], ["Thought", "Observation"], *drawn_labels(world, "both")):
        got = error_of(learner, labels)
        expect(is_message(got), "error_missing_both", labels=labels, got=shown(got))
        for label in ("Final Answer", "Action"):
            expect(label.lower() in got.lower(), "error_not_named", labels=labels, got=shown(got), label=label)


@check("2.1", points=1, en="a Final Answer, or an Action with its Action Input: no error",
       zh="有 Final Answer，或者 Action 带着 Action Input：没有错误")
def test_no_error(learner, world):
    for labels in (["Thought", "Final Answer"], ["Final Answer"], ["Thought", "Action", "Final Answer"],
                   ["Thought", "Action", "Action Input"], ["Action", "Thought", "Action Input"],
                   *drawn_labels(world, "none")):
        got = error_of(learner, labels)
        expect(got is None or got == "", "error_unexpected", labels=labels, got=shown(got))
    # "no error" says something only from a format_error that does give one for a broken reply
    broken = [drawn_labels(world, kind)[0] for kind in ("input", "action", "both")]
    verdicts = [error_of(learner, labels) for labels in broken]
    expect(any(map(is_message, verdicts)), "error_missing_both", labels=broken[2], got=shown(verdicts[2]))


# ---------------------------------------------------------------- TODO 2.2 parse_react_response

def wanted(thought="", action="", action_input="", final_answer=None, error=False) -> dict:
    """What a reply should parse to (a reply with no Thought label: thought "")."""
    return dict(thought=thought, action=action, action_input=action_input, final_answer=final_answer,
                error=error)


def described(want: dict) -> str:
    if want["error"]:
        return "ParsedReply(action='', final_answer=None, error='<a message for the model>')"
    thought = repr(want["thought"])
    return (f"ParsedReply(thought={thought}, action={want['action']!r}, "
            f"action_input={want['action_input']!r}, final_answer={want['final_answer']!r}, error=None)")


def parsed_right(got, want: dict) -> bool:
    if not isinstance(got, Record):
        return False
    f = got.fields
    if want["error"]:
        return is_message(f.get("error")) and not f.get("action") and f.get("final_answer") is None
    if f.get("error"):
        return False
    if norm(f.get("thought") or "") != norm(want["thought"]):
        return False
    if not isinstance(f.get("thought"), str):  # ParsedReply's thought is text: "" when the reply has none
        return False
    if want["final_answer"] is not None:
        final = f.get("final_answer")
        return isinstance(final, str) and norm(final) == norm(want["final_answer"]) and not f.get("action")
    return (f.get("final_answer") is None and f.get("action") == want["action"]
            and isinstance(f.get("action_input"), str) and norm(f["action_input"]) == norm(want["action_input"]))


def cut_labels(reply: str) -> list:
    """The labels of a reply's fields up to its end, its first Action Input: what format_error is given."""
    labels = [label for label, _ in reference_fields(reply)]
    return labels[:labels.index("Action Input") + 1] if "Action Input" in labels else labels


def expect_parsed(learner, reply: str, want: dict, key: str = "parse_wrong"):
    try:
        got = learner.call("parse_react_response", reply)
    except Fail as failure:
        if failure.key != "crashed":
            raise
        labels = cut_labels(reply)  # format_error let a broken reply through?
        verdict = call_quietly(learner, "format_error", labels)
        if not isinstance(verdict, Fail) and is_message(verdict) != want["error"]:
            raise Fail("because_format_error", labels=labels, got=shown(verdict), reply=reply) from None
        if key == "parse_error_uncut":  # format_error is right on the cut labels: it was handed the uncut ones
            raise Fail(key, got=f"raised {failure.params.get('type', '')}: {failure.params.get('message', '')}",
                       reply=reply, labels=labels) from None
        if key == "parse_made_up":  # a sound request, and the parser trips on the lines made up after it
            raise Fail("parse_made_up_raised", type=failure.params.get("type", ""),
                       message=failure.params.get("message", ""), reply=reply, expected=described(want)) from None
        raise Fail("parse_raised", detail=failure.detail, type=failure.params.get("type", ""),
                   message=failure.params.get("message", ""), reply=reply) from None
    expect(isinstance(got, Record) and got.type == "ParsedReply", "not_a_parsed_reply", got=shown(got))
    if parsed_right(got, want):
        return got
    fields = call_quietly(learner, "read_fields", reply)  # wrong already there? Then say so.
    expected = reference_fields(reply)
    if not isinstance(fields, Fail) and not same_fields(fields, expected):
        expect_lines_split(learner, reply)
        raise Fail("because_read_fields", reply=reply, got=shown(fields), expected=shown(expected))
    if key == "parse_error_uncut":
        raise Fail(key, got=f"returned {shown(got)}", reply=reply, labels=cut_labels(reply))
    raise Fail(key, got=shown(got), reply=reply, expected=described(want))


@check("2.2", points=1, en="a tool request: thought, action and action_input",
       zh="工具请求：读出 thought、action 和 action_input")
def test_parse_request(learner, world):
    v = numbers(world)
    expect_parsed(learner, "Thought: I need to calculate 3 + 5 * 2.\nAction: Calculator\nAction Input: 3 + 5 * 2",
                  wanted("I need to calculate 3 + 5 * 2.", "Calculator", "3 + 5 * 2"))
    expect_parsed(learner, "Thought：我需要查询北京的天气。\nAction：Weather\nAction Input：北京",
                  wanted("我需要查询北京的天气。", "Weather", "北京"))
    expect_parsed(learner, "Action: Clock\nAction Input:", wanted("", "Clock", ""))  # no Thought: ""
    first = f"The user asks about {v['city']}."
    expect_parsed(learner, f"Thought: {first}\nThought: The Weather tool knows.\nAction: Weather\n"
                           f"Action Input: {v['city']}", wanted(first, "Weather", v["city"]), key="parse_first_thought")
    expect_parsed(learner, f"Thought: I need to calculate {v['expr']}.\nAction: Calculator\nAction: Knowledge\n"
                           f"Action Input: {v['expr']}",
                  wanted(f"I need to calculate {v['expr']}.", "Calculator", v["expr"]), key="parse_first_action")
    given = f"{v['keyword']}\nand who uses it"  # an input over two lines, no fence
    expect_parsed(learner, f"Thought: I will look it up.\nAction: Knowledge\nAction Input: {given}\n"
                           f"Observation: {v['guess']}",
                  wanted("I will look it up.", "Knowledge", given), key="parse_input_lines")
    spellings = Spellings(world, "request")
    for tool, given in (("Calculator", v["expr"]), ("Weather", v["city"]), ("Knowledge", v["keyword"])):
        thought = f"I will ask the {tool} about {given}."
        reply = "\n".join([spelled("Thought", thought, spellings), spelled("Action", tool, spellings),
                           spelled("Action Input", given, spellings)])
        expect_parsed(learner, reply, wanted(thought, tool, given))


@check("2.2", points=1, en="a Final Answer ends the run, all of its lines", zh="Final Answer 结束运行，多行内容完整保留")
def test_parse_final_answer(learner, world):
    v = numbers(world)
    answer = "It is 77°F in 北京 today.\n- Weather: sunny, 25°C\n- 25 * 9 / 5 + 32 = 77"
    expect_parsed(learner, f"Thought: I have both numbers.\nFinal Answer: {answer}",
                  wanted("I have both numbers.", final_answer=answer))
    spellings = Spellings(world, "final")
    answer = f"{v['expr']} = {v['result']}.\n\nMultiplication comes before addition."
    expect_parsed(learner, "\n".join([spelled("Thought", "I now know the final answer.", spellings),
                                      spelled("Final Answer", answer, spellings)]),
                  wanted("I now know the final answer.", final_answer=answer))
    # an empty Final Answer is still a Final Answer line (or, if you prefer, a format error): never a crash or a tool run
    expect_empty_final(learner, "Thought: I have nothing to add.\nFinal Answer:", "I have nothing to add.")
    expect_empty_final(learner, "\n".join([spelled("Thought", "I know it.", spellings),
                                           spelled("Final Answer", "", spellings), "  ", ""]), "I know it.")


def expect_empty_final(learner, reply: str, thought: str):
    """An empty 'Final Answer:' ends the run with "" (the reference), or gets a format error: both are fine.
    Testing the answer's truthiness instead of whether the field is there lets it fall through to a crash
    (no Action Input to read) or to the tool request after it."""
    try:
        got = learner.call("parse_react_response", reply)
    except Fail as failure:
        if failure.key != "crashed":
            raise
        raise Fail("parse_empty_final", got=f"raised {failure.params.get('type', '')}: "
                   f"{failure.params.get('message', '')}", reply=reply) from None
    if parsed_right(got, wanted(thought, final_answer="")) or parsed_right(got, wanted(error=True)):
        return
    fields = call_quietly(learner, "read_fields", reply)
    expected = reference_fields(reply)
    if not isinstance(fields, Fail) and not same_fields(fields, expected):
        expect_lines_split(learner, reply)
        raise Fail("because_read_fields", reply=reply, got=shown(fields), expected=shown(expected))
    expect(isinstance(got, Record) and got.type == "ParsedReply", "not_a_parsed_reply", got=shown(got))
    raise Fail("parse_empty_final", got=f"returned {shown(got)}", reply=reply)


@check("2.2", points=1, en="the reply ends at its first Action Input: a made-up Observation is not read",
       zh="回复在第一个 Action Input 处结束：编出来的 Observation 不读")
def test_parse_ignores_made_up_observation(learner, world):
    v = numbers(world)
    thought = f"I need to calculate {v['expr']}."
    reply = f"Thought: {thought}\nAction: Calculator\nAction Input: {v['expr']}\nObservation: {v['guess']}"
    expect_parsed(learner, reply, wanted(thought, "Calculator", v["expr"]), key="parse_made_up")
    reply = (f"Thought: I should look up the weather.\nAction: Weather\nAction Input: {v['city']}\n"
             "Observation: sunny, 25°C, a perfect day for a run")
    expect_parsed(learner, reply, wanted("I should look up the weather.", "Weather", v["city"]),
                  key="parse_made_up")


@check("2.2", points=1, en="a second Action or a Final Answer after the request is made up too",
       zh="请求之后的第二个 Action 或 Final Answer 同样是编的")
def test_parse_ignores_made_up_steps(learner, world):
    v = numbers(world)
    thought = f"I need to calculate {v['expr']}."
    reply = (f"Thought: {thought}\nAction: Calculator\nAction Input: {v['expr']}\nObservation: {v['guess']}\n"
             f"Thought: I now know the final answer.\nFinal Answer: {v['expr']} = {v['guess']}")
    expect_parsed(learner, reply, wanted(thought, "Calculator", v["expr"]), key="parse_made_up")
    first = f"First I need today's weather in {v['hot_city']}."
    reply = (f"Thought: {first}\nAction: Weather\nAction Input: {v['hot_city']}\nObservation: sunny, 30°C\n"
             "Thought: It is 30°C; F = C * 9 / 5 + 32.\nAction: Calculator\nAction Input: 30 * 9 / 5 + 32")
    expect_parsed(learner, reply, wanted(first, "Weather", v["hot_city"]), key="parse_made_up")
    # no Observation line to cut at: the request still ends where its Action Input line does
    reply = (f"Thought: {thought}\nAction: Calculator\nAction Input: {v['expr']}\n"
             f"Thought: I now know the final answer.\nFinal Answer: {v['guess']}")
    expect_parsed(learner, reply, wanted(thought, "Calculator", v["expr"]), key="parse_made_up")
    # no Thought before the request: the made-up one after it is not the thought either
    reply = (f"Action: Weather\nAction Input: {v['city']}\nObservation: sunny, 25°C\n"
             f"Thought: I now know the final answer.\nFinal Answer: It is sunny in {v['city']}.")
    expect_parsed(learner, reply, wanted("", "Weather", v["city"]), key="parse_made_up")


@check("2.2", points=1, en="a Final Answer before any Action Input ends the run",
       zh="Final Answer 出现在任何 Action Input 之前，就结束运行")
def test_parse_final_before_request(learner, world):
    v = numbers(world)
    expect_parsed(learner, "Thought: I already know it.\nAction: None\nFinal Answer: 2",
                  wanted("I already know it.", final_answer="2"), key="parse_final_first")
    expect_parsed(learner, f"Thought: I can do this one myself.\nAction: Calculator\n"
                           f"Final Answer: {v['expr']} = {v['result']}",
                  wanted("I can do this one myself.", final_answer=f"{v['expr']} = {v['result']}"),
                  key="parse_final_first")
    # a whole request after the Final Answer: the reply ends at that Action Input, the Final Answer is within it
    expect_parsed(learner, f"Thought: I know this one.\nFinal Answer: {v['result']}\nAction: Calculator\n"
                           f"Action Input: {v['expr']}",
                  wanted("I know this one.", final_answer=str(v["result"])), key="parse_final_first")
    spellings = Spellings(world, "final_first")
    expect_parsed(learner, "\n".join([spelled("Thought", f"It is sunny in {v['city']}.", spellings),
                                      spelled("Action", "Weather", spellings),
                                      spelled("Final Answer", f"Sunny in {v['city']}.", spellings),
                                      spelled("Action Input", v["city"], spellings)]),
                  wanted(f"It is sunny in {v['city']}.", final_answer=f"Sunny in {v['city']}."),
                  key="parse_final_first")


@check("2.2", points=1, en="quotes, backticks or a code fence around the input are taken off",
       zh="去掉输入两端的引号、反引号或代码块标记")
def test_parse_quoted_input(learner, world):
    v = numbers(world)
    rows = [(f'"{v["city"]}"', "Weather", v["city"]), (f"'{v['expr']}'", "Calculator", v["expr"]),
            (f"`{v['keyword']}`", "Knowledge", v["keyword"]), (f"“{v['hot_city']}”", "Weather", v["hot_city"]),
            (f"\n```\n{v['expr']}\n```", "Calculator", v["expr"]),
            (f"\n```python\n{v['expr']}\n```", "Calculator", v["expr"]),  # a fence may name a language
            (f"```text\n{v['city']}\n```", "Weather", v["city"]),
            (f"\n```\n{v['keyword']}\nand who made it\n```", "Knowledge", f"{v['keyword']}\nand who made it"),
            (f"```python\n{v['a']} + {v['b']}\n* {v['c']}\n```", "Calculator", f"{v['a']} + {v['b']}\n* {v['c']}"),
            (f"‘{v['city']}’", "Weather", v["city"]),
            (f"\"what is '{v['keyword']}'\"", "Knowledge", f"what is '{v['keyword']}'"),  # its own quotes stay
            (f"\"'{v['keyword']}'\"", "Knowledge", f"'{v['keyword']}'"),  # two pairs: one comes off
            (f"'“{v['city']}”'", "Weather", f"“{v['city']}”"),
            (f"\"{v['keyword']}\" or '{v['city']}'", "Knowledge", f"\"{v['keyword']}\" or '{v['city']}'")]  # ends that don't pair
    for written, tool, given in rows:
        reply = f"Thought: I will use the {tool}.\nAction: {tool}\nAction Input: {written}"
        expect_parsed(learner, reply, wanted(f"I will use the {tool}.", tool, given), key="parse_quotes")


@check("2.2", points=1, en="a reply that breaks the format gives an error, not a tool call or a crash",
       zh="不合格式的回复给出 error，而不是执行工具或崩溃")
def test_parse_format_errors(learner, world):
    v = numbers(world)
    for reply in (f'Thought: I will look the weather up.\nAction: search_weather("{v["hot_city"]}")',
                  f"The answer is {v['result']}.",
                  f"Thought: Let me check.\nAction Input: {v['city']}"):
        got = expect_parsed(learner, reply, wanted(error=True), key="parse_no_error")
        expect_told_by_format_error(learner, reply, got.fields["error"])
    # broken up to its end, the first Action Input, with made-up lines after it that would look fine: the
    # labels format_error is given are those of the fields kept, not of the whole reply
    for reply in (f"Thought: Let me check.\nAction Input: {v['city']}\nObservation: sunny, 25°C\n"
                  f"Final Answer: It is sunny in {v['city']}.",
                  f"Action Input: {v['expr']}\nAction: Calculator\nAction Input: {v['expr']}"):
        expect_parsed(learner, reply, wanted(error=True), key="parse_error_uncut")


def expect_told_by_format_error(learner, reply: str, error: str):
    """The error sent back is format_error's message, which says what is missing (a prefix or more words are
    fine): a text of the parser's own, such as a caught KeyError's "Invalid format", tells the model nothing."""
    labels = cut_labels(reply)
    message = call_quietly(learner, "format_error", labels)
    expect(not is_message(message) or message.strip() in error, "parse_error_not_told", reply=reply, got=error,
           labels=labels, expected=message)


@check("2.1", points=1, en="each of the three mistakes gets its own message", zh="三种错误各有各的提示")
def test_errors_differ(learner, world):
    cases = (["Thought", "Action"], ["Thought", "Action Input"], ["Thought"])
    drawn = [drawn_labels(world, kind)[0] for kind in ("input", "action", "both")]  # and the seed's own
    for cases in (cases, drawn):
        expect_errors_differ(learner, cases)


def expect_errors_differ(learner, cases):
    messages = [error_of(learner, labels) for labels in cases]
    for labels, got, key in zip(cases, messages, ("error_missing_input", "error_missing_action", "error_missing_both")):
        expect(is_message(got), key, labels=labels, got=shown(got))  # no message at all tells nothing apart
    for i, first in enumerate(cases):
        for j in range(i + 1, len(cases)):
            expect(not is_message(messages[i]) or messages[i] != messages[j], "errors_alike", got=shown(messages[i]),
                   first=first, second=cases[j])
