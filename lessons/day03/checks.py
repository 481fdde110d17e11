"""Day 03 checks: plain pytest tests, one behaviour each, listed in the report in this order.

No model in this lesson: each check calls one of your functions (they run in a separate process) and
looks at what comes back. Docstrings and schemas are written for functions your file does not have,
drawn from scenarios.yaml for the seed, and the numbers change with the seed too, so nothing can be
hard-coded. The JSON Schemas your describe_tool writes are checked with the jsonschema library,
a complete implementation of the standard: first against its meta-schema, then put to use.
"""
import ast
import json
import math
import re

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from validator.checking import (UNKNOWN_TOOL, Fail, Record, calculate, check, expect, expect_unknown_tool_said,
                               quoted, shown)

GIVEN = ("calculator", "convert_temperature", "split_bill", "send_message", "create_event")
PYTHON_TYPES = {"int": "integer", "float": "number", "str": "string", "bool": "boolean", "list": "array",
                "dict": "object"}
# How a problem may name a type, in any case: JSON Schema's word, Python's, or the usual Chinese
# ones ("浮点" is in 浮点数, "布尔" in 布尔值).
TYPE_WORDS = {"integer": ("integer", "int", "整数", "整型"),
              "number": ("number", "float", "数字", "数值", "浮点", "小数"),
              "string": ("string", "str", "字符串"), "boolean": ("boolean", "bool", "布尔"),
              "array": ("array", "list", "数组", "列表"), "object": ("object", "dict", "对象", "字典")}

# Words that say a returned value is an error message, not a result.
ERROR_WORDS = re.compile(r"error|invalid|not allowed|refuse|unsupported|错误|不允许|非法|不支持", re.IGNORECASE)


def call_or_raised(learner, func, *args):
    """(what func returned, None), or (None, the Fail saying what it raised)."""
    try:
        return learner.call(func, *args), None
    except Fail as failure:
        if failure.key in ("crashed", "stop_iteration"):
            return None, failure
        raise


def raised_text(failure: Fail) -> str:
    """What a call raised, as one line: "KeyError: 'book_table'"."""
    return f"{failure.params.get('type', '?')}: {failure.params.get('message', '')}"


def as_json(value) -> str:
    """A value as the model or the API would see it: JSON text."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return shown(value)


def squashed(text) -> str:
    return " ".join(str(text).split())


def one_line(text) -> str:
    """A summary as the README asks for it: its lines joined with single spaces. Spaces a line kept
    at either end (stripped or not, no mistake) squash; a newline left in does not."""
    return re.sub(" +", " ", str(text).strip())


# ---------------------------------------------------------------- TODO 1.1 parse_docstring

def as_written(doc) -> str:
    """A docstring as it looks in the source of a module-level function."""
    return "None" if doc is None else f'def f():\n    """{doc}"""'


def parsed(learner, doc):
    got = learner.call("parse_docstring", doc)
    ok = (isinstance(got, (tuple, list)) and len(got) == 2 and isinstance(got[0], str)
          and isinstance(got[1], dict) and all(isinstance(v, str) for v in got[1].values()))
    expect(ok, "docstring_not_a_pair", got=shown(got))
    return one_line(got[0]), {k: squashed(v) for k, v in got[1].items()}, got  # a name is looked up as it is


def expected_pair(case: dict) -> str:
    return shown((case["summary"], case["params"]))


def expect_read(learner, case: dict, key: str, **extra):
    """parse_docstring reads the docstring of `case` as expected; if not, the failure `key` says
    why, unless what went wrong is a description cut at a colon of its own."""
    summary, params, got = parsed(learner, case["doc"])
    for name, text in case["params"].items():
        if ":" in text and params.get(name) == squashed(text.split(":")[0]):
            raise Fail("docstring_colon", param=name, got=params[name], expected=text, doc=as_written(case["doc"]))
    if summary != case["summary"] and squashed(summary) == case["summary"]:  # the right words, still on their lines
        raise Fail("summary_lines_kept", got=repr(got[0]), expected=repr(case["summary"]), doc=as_written(case["doc"]))
    if case.get("details") and " ".join(case["details"].split()[:3]) in squashed(summary):
        raise Fail("summary_two_paragraphs", got=repr(got[0]), expected=repr(case["summary"]),  # the next paragraph too
                   doc=as_written(case["doc"]))
    expect((summary, params) == (case["summary"], case["params"]), key, got=shown(got),
           doc=as_written(case["doc"]), expected=expected_pair(case), **extra)


@check("1.1", points=1, en="reads the summary and the Args section", zh="读出摘要和 Args 小节")
def test_reads_summary_and_args(learner, world):
    expect_read(learner, world.docstrings["plain"], "docstring_wrong")
    expect_read(learner, world.docstrings["described"], "docstring_wrong")  # a second paragraph before Args


@check("1.1", points=1, en="joins a summary and a description that run over two lines",
       zh="摘要和描述跨两行时连成一句")
def test_joins_wrapped_lines(learner, world):
    expect_read(learner, world.docstrings["wrapped"], "docstring_wrapped")
    expect_read(learner, world.docstrings["wrapped_colon"], "docstring_wrapped")  # "key: value" on the second line


@check("1.1", points=1, en="stops at the next section, whatever its name: Returns, Raises, Yields, … hold no parameters",
       zh="读到下一个小节为止，不管它叫什么：Returns、Raises、Yields……里都没有参数")
def test_stops_at_next_section(learner, world):
    for case in (world.docstrings["sections"], world.docstrings["raises_first"]):  # right after the last parameter
        expect_read(learner, case, "docstring_sections", section=case["next"])
    for case in world.docstrings["other_sections"]:  # Yields:, Example:, Note: (a list of names misses some)
        expect_read(learner, case, "docstring_other_section", section=case["next"])


@check("1.1", points=1, en="no Args section, or no docstring at all (None)", zh="没有 Args 小节，或者根本没有文档字符串（None）")
def test_no_args_or_no_docstring(learner, world):
    for case in (world.docstrings["summary_only"], world.docstrings["none"]):
        summary, params, got = parsed(learner, case["doc"])
        expect((summary, params) == (case["summary"], case["params"]), "docstring_empty", got=shown(got),
               doc=repr(case["doc"]), expected=expected_pair(case))


# ---------------------------------------------------------------- TODO 1.2 describe_tool

def read_docstring(doc) -> tuple[str, dict]:
    """The grader's own parse_docstring, to know what the given functions' descriptions are."""
    lines = [line.rstrip() for line in (doc or "").expandtabs().splitlines()]
    margin = min((len(x) - len(x.lstrip()) for x in lines[1:] if x.strip()), default=0)
    lines = [lines[0].strip()] + [x[margin:] for x in lines[1:]] if lines else []
    while lines and not lines[0]:
        lines.pop(0)
    summary = []
    for line in lines:
        if not line.strip():
            break
        summary.append(line.strip())
    params, current, names_at = {}, None, None
    if "Args:" in [x.strip() for x in lines]:
        start = [x.strip() for x in lines].index("Args:")
        outer = len(lines[start]) - len(lines[start].lstrip())
        for line in lines[start + 1:]:
            at = len(line) - len(line.lstrip())
            if not line.strip() or at <= outer:
                break
            names_at = at if names_at is None else names_at
            if at == names_at:
                current, _, text = line.partition(":")
                current = current.strip()
                params[current] = text.strip()
            elif current:
                params[current] += " " + line.strip()
    return " ".join(summary), params


def given_function(learner, name: str) -> dict:
    """One of the file's given functions as its source says: its docstring and its parameters,
    (name, annotation, whether it has a default). Read from the source: functions do not cross
    from the learner's process to the grader's, descriptions do."""
    tree = learner.syntax_tree() or ast.Module(body=[], type_ignores=[])
    found = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name]
    if not found:
        raise Fail("missing", func=name)
    node = found[-1]  # the last def of a name is the one that counts
    args = node.args.posonlyargs + node.args.args
    first_default = len(args) - len(node.args.defaults)
    params = [(a.arg, ast.unparse(a.annotation) if a.annotation else "", i >= first_default)
              for i, a in enumerate(args)]
    params += [(a.arg, ast.unparse(a.annotation) if a.annotation else "", d is not None)
               for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults)]
    return {"name": name, "doc": ast.get_docstring(node, clean=False), "params": params}


def find_python_object(value):
    """The first value in a description that is no JSON (a class, a tuple's repr, …), or None."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return key
            if (found := find_python_object(item)) is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for item in value:
            if (found := find_python_object(item)) is not None:
                return found
    elif not (value is None or isinstance(value, (str, int, float, bool))):
        return value
    return None


def described(learner, name: str) -> dict:
    """describe_tool(the function `name`), through the file's api_tools, as JSON (what the API gets)."""
    tools = learner.call("api_tools", [name])
    tool = tools[0] if isinstance(tools, list) and len(tools) == 1 else tools
    expect(isinstance(tool, dict), "tool_not_a_dict", func=name, got=shown(tool))
    odd = find_python_object(tool)
    expect(odd is None, "tool_not_json", func=name, value=shown(odd), got=shown(tool))
    tool = json.loads(json.dumps(tool))  # tuples become lists, as they do on their way to the API
    function = tool.get("function")
    shaped = (tool.get("type") == "function" and isinstance(function, dict) and "name" in function
              and isinstance(function.get("description"), str) and isinstance(function.get("parameters"), dict))
    expect(shaped, "tool_shape", func=name, got=as_json(tool))
    expect(function["name"] == name, "tool_name", func=name, got=function["name"])
    return function


def valid_parameters(learner, name: str) -> dict:
    """The function's parameters schema, once the jsonschema library accepts it as a schema."""
    parameters = described(learner, name)["parameters"]
    try:
        Draft202012Validator.check_schema(parameters)
    except SchemaError as error:
        raise Fail("schema_invalid", func=name, error=error.message, where=error.json_path,
                   got=as_json(parameters)) from None
    expect(parameters.get("type") == "object" and isinstance(parameters.get("properties"), dict),
           "schema_not_object", func=name, got=as_json(parameters))
    return parameters


def matching_properties(learner, name: str) -> tuple[dict, dict]:
    """(the parameters schema, the function as its source says), once there is one property per
    parameter."""
    parameters, function = valid_parameters(learner, name), given_function(learner, name)
    expected = [p for p, _, _ in function["params"]]
    expect(sorted(parameters["properties"]) == sorted(expected), "properties_wrong", func=name,
           got=as_json(list(parameters["properties"])), expected=as_json(expected))
    return parameters, function


def unseen_function(world, fn: dict) -> dict:
    """The function `fn` of scenarios.yaml as the child makes it: a real function, with its
    signature and the docstring written for it, that no file has seen before."""
    return {"$function": {"name": fn["name"], "doc": world.module.write(fn),
                          "params": [[p["name"], p["type"], p["optional"], p["example"]] for p in fn["params"]]}}


def expect_describes_any_function(learner, world):
    """describe_tool reads a function it has never seen from the function itself: its name and one
    property per parameter. The checks of the five given tools count only once it does, or a table
    of their five descriptions typed into the file (keyed by __name__) would earn them: the same
    failure in each of them, said once. Looser than test_describes_unseen_function (no types, no
    texts): what is wrong beyond that, their own checks and that one say."""
    fn = world.functions[-1]  # drawn for the seed
    tool, failure = call_or_raised(learner, "describe_tool", unseen_function(world, fn))
    function = tool.get("function") if isinstance(tool, dict) else None
    parameters = function.get("parameters") if isinstance(function, dict) else None
    properties = parameters.get("properties") if isinstance(parameters, dict) else None
    ok = (failure is None and isinstance(properties, dict) and function.get("name") == fn["name"]
          and sorted(map(str, properties)) == sorted(p["name"] for p in fn["params"]))
    expect(ok, "describes_only_given", func=fn["name"], params=", ".join(p["name"] for p in fn["params"]),
           got=raised_text(failure) if failure is not None else shown(tool))


@check("1.2", points=1, en="the Chat Completions shape, named after the function",
       zh="Chat Completions 要求的形状，以函数名命名")
def test_tool_shape(learner, world):
    for name in GIVEN:
        described(learner, name)
    expect_describes_any_function(learner, world)


@check("1.2", points=1, en="the parameters are a valid JSON Schema (checked by jsonschema)",
       zh="parameters 是合法的 JSON Schema（用 jsonschema 库检查）")
def test_valid_json_schema(learner, world):
    for name in GIVEN:
        valid_parameters(learner, name)
    expect_describes_any_function(learner, world)


GOOD = {"integer": 3, "number": 2.5, "string": "some text", "boolean": True, "array": ["a", "b"],
        "object": {"key": "value"}}
BAD = {"integer": [2.5, "3", True], "number": ["2.5", True], "string": [3, ["some text"]],
       "boolean": ["yes", 1], "array": ["a, b", {"0": "a"}], "object": ["key=value", ["key", "value"]]}


@check("1.2", points=1, en="one property per parameter, with its JSON type (int → integer, …)",
       zh="每个参数一个 property，类型是对应的 JSON 类型（int → integer，…）")
def test_property_types(learner, world):
    for name in GIVEN:
        parameters, function = matching_properties(learner, name)
        for param, annotation, _ in function["params"]:
            json_type = PYTHON_TYPES.get(annotation)
            if json_type is None:
                continue  # an annotation the lesson does not map: the function was changed
            schema = parameters["properties"][param]  # each property is a schema of its own
            accepts = Draft202012Validator(schema).is_valid
            common = dict(func=name, param=param, annotation=annotation, expected=json_type, got=as_json(schema))
            expect(accepts(GOOD[json_type]), "type_rejects", value=as_json(GOOD[json_type]), **common)
            for value in BAD[json_type]:
                expect(not accepts(value), "type_lets_through", value=as_json(value), **common)
    expect_describes_any_function(learner, world)


@check("1.2", points=1, en="required: exactly the parameters without a default",
       zh="required：恰好是没有默认值的参数")
def test_required(learner, world):
    for name in GIVEN:
        parameters, function = matching_properties(learner, name)
        expected = [p for p, _, has_default in function["params"] if not has_default]
        got = parameters.get("required", [])
        expect(sorted(got) == sorted(expected), "required_wrong", func=name, expected=as_json(expected),
               got=as_json(got) if "required" in parameters else "(none)")
    expect_describes_any_function(learner, world)


@check("1.2", points=1, en="descriptions from the docstring: the summary, each parameter's text",
       zh="描述来自文档字符串：摘要，以及每个参数的说明")
def test_descriptions(learner, world):
    for name in GIVEN:
        tool = described(learner, name)
        function = given_function(learner, name)
        summary, documented = read_docstring(function["doc"])
        theirs = None  # what their own parse_docstring reads: a mistake there is TODO 1.1's

        def accepted(got, expected, pick):
            nonlocal theirs
            if squashed(got) == squashed(expected):
                return True
            if theirs is None:
                value, failure = call_or_raised(learner, "parse_docstring", function["doc"])
                theirs = value if failure is None and isinstance(value, (list, tuple)) and len(value) == 2 else ()
            return bool(theirs) and squashed(got) == squashed(pick(theirs))

        expect(accepted(tool["description"], summary, lambda t: t[0]), "description_wrong", func=name,
               expected=summary, got=tool["description"])
        properties = tool["parameters"].get("properties") or {}
        for param, text in documented.items():
            got = (properties.get(param) or {}).get("description") if isinstance(properties.get(param), dict) else None
            expect(isinstance(got, str) and accepted(got, text, lambda t: t[1].get(param, "") if isinstance(t[1], dict) else ""),
                   "param_description_wrong", func=name, param=param, expected=text, got=got)
    expect_describes_any_function(learner, world)


@check("1.2", points=1, en="a function it has never seen, described from its signature and docstring",
       zh="一个从没见过的函数，照它的签名和文档字符串来描述")
def test_describes_unseen_function(learner, world):
    fn = world.functions[-1]  # drawn for the seed: no table typed into the file describes it
    made = unseen_function(world, fn)
    doc = made["$function"]["doc"]
    tool = learner.call("describe_tool", made)
    value, failure = call_or_raised(learner, "parse_docstring", doc)  # its own reading: a mistake there is 1.1's
    summary, texts = value if failure is None and isinstance(value, (list, tuple)) and len(value) == 2 else ("", {})
    texts = texts if isinstance(texts, dict) else {}
    odd = find_python_object(tool)
    expect(isinstance(tool, dict) and odd is None, "tool_not_json", func=fn["name"], value=shown(odd), got=shown(tool))
    function = json.loads(json.dumps(tool)).get("function")
    function = function if isinstance(function, dict) else {}
    parameters = function.get("parameters") if isinstance(function.get("parameters"), dict) else {}
    properties = parameters.get("properties") if isinstance(parameters.get("properties"), dict) else {}
    expected = fn["parameters"]
    same = (function.get("name") == fn["name"]
            and squashed(function.get("description")) in (squashed(fn["summary"]), squashed(summary))
            and sorted(properties) == sorted(expected["properties"])
            and all(isinstance(properties[name], dict) and properties[name].get("type") == want["type"]
                    and squashed(properties[name].get("description")) in (squashed(want["description"]),
                                                                          squashed(texts.get(name) or ""))
                    for name, want in expected["properties"].items())
            and sorted(map(str, parameters.get("required") or [])) == sorted(expected["required"]))
    wanted = {"type": "function", "function": {"name": fn["name"], "description": fn["summary"], "parameters": expected}}
    expect(same, "unseen_function_wrong", func=fn["name"], got=as_json(tool), expected=as_json(wanted))


@check("1.2", points=1, en="arguments the function does not take are not allowed",
       zh="函数不接受的参数，schema 也不允许")
def test_rejects_unknown_arguments(learner, world):
    for name in GIVEN:
        parameters, function = matching_properties(learner, name)
        arguments = {p: GOOD.get(PYTHON_TYPES.get(annotation), "x") for p, annotation, _ in function["params"]}
        validator = Draft202012Validator(parameters)
        if not validator.is_valid(arguments):
            continue  # refused for a type: test_property_types says which
        arguments["unexpected"] = "surprise"
        expect(not validator.is_valid(arguments), "extra_allowed", func=name, arguments=as_json(arguments))
    expect_describes_any_function(learner, world)


# ---------------------------------------------------------------- TODO 1.3 validate_arguments

def problems(learner, parameters: dict, arguments) -> list:
    got, failure = call_or_raised(learner, "validate_arguments", parameters, arguments)
    if failure is not None:
        raise Fail("validation_raised", detail=failure.detail, arguments=as_json(arguments),
                   type=failure.params.get("type", "?"), message=failure.params.get("message", ""))
    expect(isinstance(got, list) and all(isinstance(p, str) for p in got), "problems_not_a_list",
           got=shown(got))
    return got


def names(problem: str, *words: str, flags=0) -> bool:
    """Each word is in the text, as a word of its own (next to Chinese text too: "缺少参数text")."""
    return all(re.search(rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])", problem, flags)
               for word in words)


def names_type(problem: str, json_type: str) -> bool:
    """The text names the type, in any of its words and any case ("Integer", "INT", "整型")."""
    return any(names(problem, word, flags=re.IGNORECASE) for word in TYPE_WORDS[json_type])


def named(found: list, name: str, json_type: str | None = None) -> bool:
    """Some problem names the argument (as spelt: names are case-sensitive), and, for a wrong type,
    the type it should have."""
    return any(names(p, name) and (json_type is None or names_type(p, json_type)) for p in found)


def full_arguments(fn: dict) -> dict:
    return {p["name"]: p["example"] for p in fn["params"]}


def with_param(functions: list, predicate):
    """The first function (in the seed's order) with a parameter that fits, and that parameter."""
    for fn in functions:
        for p in fn["params"]:
            if predicate(p):
                return fn, p
    raise AssertionError("scenarios.yaml: no function has such a parameter")


def near_miss(name: str) -> str:
    """An argument name a model could write instead of `name`."""
    return name[:-1] if name.endswith("s") else name + "s"


def finds_a_problem(learner, world) -> tuple[bool, dict]:
    """Whether validate_arguments reports a real problem: a required argument left out (of a
    schema the grader writes), named; and what the failure would say if not."""
    fn = world.functions[1]
    gone = [p["name"] for p in fn["params"] if not p["optional"]][-1]
    arguments = {k: v for k, v in full_arguments(fn).items() if k != gone}
    try:
        got, failure = call_or_raised(learner, "validate_arguments", fn["parameters"], arguments)
    except Fail as stopped:
        if stopped.key != "not_implemented":
            raise
        got, failure = None, stopped  # not written yet: it finds nothing
    found = [p for p in got if isinstance(p, str)] if failure is None and isinstance(got, list) else []
    return named(found, gone), dict(name=gone, arguments=as_json(arguments),
                                    got=shown(got) if failure is None else
                                    "NotImplementedError" if failure.key == "not_implemented" else raised_text(failure))


def expect_finds_a_problem(learner, world):
    """validate_arguments reports a real problem. A check that only asks for no problem (right
    arguments, an optional one left out, 0 or "" given, an integer for a number) counts only once
    it does, or `return []` would earn them: the same failure in each of them, said once."""
    ok, params = finds_a_problem(learner, world)
    expect(ok, "validation_finds_nothing", **params)


@check("1.3", points=1, en="arguments that are all right: no problem, and the schema left as it was",
       zh="完全正确的参数：没有问题，schema 也原样不动")
def test_valid_arguments(learner, world):
    fn = world.functions[0]
    arguments = full_arguments(fn)
    got = problems(learner, fn["parameters"], arguments)
    expect_optional_known(fn, got)
    expect(got == [], "valid_rejected", got=shown(got), schema=as_json(fn["parameters"]),
           arguments=as_json(arguments))
    # The caller keeps its schema for the next call: one ticked off (a name removed from required)
    # reports nothing missing ever after. Watched on good arguments and on bad ones.
    bad = {k: v for k, v in arguments.items() if k != fn["parameters"]["required"][0]}
    bad[near_miss(fn["params"][0]["name"])] = fn["params"][0]["example"]
    for given in (arguments, bad):
        expect_left_as_given(learner, fn["parameters"], given)
    expect_finds_a_problem(learner, world)


def expect_left_as_given(learner, parameters: dict, arguments: dict) -> None:
    """validate_arguments(parameters, arguments) changes neither: it only reads them."""
    try:
        learner.call("validate_arguments", parameters, arguments, watch=True)
    except Fail as failure:
        if failure.key in ("crashed", "stop_iteration"):
            return  # raising is said by the checks that look at what it returns
        raise
    if learner.changed_args:
        n = learner.changed_args[0]
        raise Fail("validation_changed_input", which="parameters" if n == 0 else "arguments",
                   schema=as_json(parameters), arguments=as_json(arguments))


def expect_optional_known(fn: dict, got) -> None:
    """Problems that name an optional parameter given a right value: it was looked for in `required`
    (which lists only the parameters that must be there), not in `properties`."""
    optional = [p["name"] for p in fn["params"] if p["optional"]]
    named = [name for name in optional if any(isinstance(problem, str) and names(problem, name) for problem in got or [])]
    expect(not named, "optional_taken_for_unknown", name=named and named[0], got=shown(got),
           properties=", ".join(p["name"] for p in fn["params"]), required=", ".join(fn["parameters"]["required"]))


@check("1.3", points=1, en="optional arguments may be left out", zh="可选参数可以不传")
def test_optional_left_out(learner, world):
    fn = next(f for f in world.functions if any(p["optional"] for p in f["params"]))
    arguments = {p["name"]: p["example"] for p in fn["params"] if not p["optional"]}
    got = problems(learner, fn["parameters"], arguments)
    left_out = ", ".join(p["name"] for p in fn["params"] if p["optional"])
    expect(got == [], "optional_rejected", got=shown(got), arguments=as_json(arguments), names=left_out,
           schema=as_json(fn["parameters"]))
    expect_finds_a_problem(learner, world)


@check("1.3", points=1, en="a missing argument: a problem that names it", zh="缺少参数：问题里点出它的名字")
def test_missing_argument(learner, world):
    fn = world.functions[1]
    required = [p["name"] for p in fn["params"] if not p["optional"]]
    gone = required[-1]
    arguments = {k: v for k, v in full_arguments(fn).items() if k != gone}
    got = problems(learner, fn["parameters"], arguments)
    expect(named(got, gone), "missing_not_named", name=gone, arguments=as_json(arguments), got=shown(got))


FALSY = {"integer": 0, "number": 0.0, "string": "", "boolean": False, "array": [], "object": {}}  # given, all of them


@check("1.3", points=1, en="0, \"\" or false is a value given, not a missing argument",
       zh="0、\"\" 或 false 是传了的值，不是缺少参数")
def test_falsy_is_given(learner, world):
    for fn in world.functions:
        arguments = {p["name"]: FALSY[p["type"]] for p in fn["params"] if not p["optional"]}
        got = problems(learner, fn["parameters"], arguments)
        for name in (name for name in arguments if named(got, name)):
            raise Fail("falsy_taken_for_missing", name=name, value=as_json(arguments[name]),
                       arguments=as_json(arguments), got=shown(got))
    expect_finds_a_problem(learner, world)


@check("1.3", points=1, en="an unknown argument: a problem that names it", zh="多出不认识的参数：问题里点出它的名字")
def test_unknown_argument(learner, world):
    fn = world.functions[2]
    arguments = full_arguments(fn)
    first = fn["params"][0]["name"]
    unknown = near_miss(first)
    arguments = {unknown if k == first else k: v for k, v in arguments.items()}
    optional_first = dict(fn["parameters"], required=[r for r in fn["parameters"]["required"] if r != first])
    got = problems(learner, optional_first, arguments)  # only the unknown name is wrong
    expect(named(got, unknown), "unknown_not_named", name=unknown, arguments=as_json(arguments), got=shown(got))


def wrong_values(json_type: str, example) -> list:
    """What models send instead of a value of this type."""
    if json_type in ("array", "object"):
        return [json.dumps(example, ensure_ascii=False)]  # JSON text inside the JSON
    if json_type == "integer":
        return [str(example), example + 0.5]
    if json_type == "number":
        return [str(example)]
    if json_type == "string":
        return [len(str(example))]
    return [str(example).lower()]  # boolean: "true" or "false", as text


@check("1.3", points=1, en="a value of the wrong type: a problem naming the argument and its type",
       zh="值的类型不对：问题里点出参数名和应有的类型")
def test_wrong_types(learner, world):
    for json_type in ("integer", "number", "string", "boolean", "array", "object"):
        fn, p = with_param(world.functions, lambda p: p["type"] == json_type)
        for value in wrong_values(json_type, p["example"]):
            arguments = dict(full_arguments(fn), **{p["name"]: value})
            got = problems(learner, fn["parameters"], arguments)
            expect(named(got, p["name"], json_type), "type_not_named", name=p["name"], value=as_json(value),
                   type=json_type, arguments=as_json(arguments), got=shown(got))


@check("1.3", points=1, en="true is a boolean, not an integer nor a number; 1 and 0 are no booleans",
       zh="true 是布尔值，不是 integer，也不是 number；1 和 0 也不是布尔值")
def test_bool_is_not_a_number(learner, world):
    for json_type in ("integer", "number"):
        fn, p = with_param(world.functions, lambda p: p["type"] == json_type)
        arguments = dict(full_arguments(fn), **{p["name"]: True})
        got = problems(learner, fn["parameters"], arguments)
        expect(named(got, p["name"]), "bool_accepted", name=p["name"], type=json_type,
               arguments=as_json(arguments))
    # and the other way round: 1 == True and 0 == False in Python, so `value in (True, False)` takes them
    fn, p = with_param(world.functions, lambda p: p["type"] == "boolean")
    value = int(p["example"])
    arguments = dict(full_arguments(fn), **{p["name"]: value})
    got = problems(learner, fn["parameters"], arguments)
    expect(named(got, p["name"]), "int_accepted_as_bool", name=p["name"], value=value,
           arguments=as_json(arguments))


@check("1.3", points=1, en="an integer is a number too", zh="整数也是 number")
def test_integer_is_a_number(learner, world):
    fn, p = with_param(world.functions, lambda p: p["type"] == "number")
    value = int(p["example"])
    arguments = dict(full_arguments(fn), **{p["name"]: value})
    got = problems(learner, fn["parameters"], arguments)
    expect_optional_known(fn, got)
    expect(got == [], "int_rejected", name=p["name"], value=value, arguments=as_json(arguments), got=shown(got))
    expect_finds_a_problem(learner, world)


@check("1.3", points=1, en="arguments that are not a dict: a problem, not a crash", zh="参数不是 dict：报告问题，而不是崩溃")
def test_not_a_dict(learner, world):
    fn = world.functions[0]
    text = json.dumps(full_arguments(fn), ensure_ascii=False)  # the JSON text, never parsed
    listed = list(full_arguments(fn).values())  # the values without their names, in order
    for arguments, key in ((text, "not_dict_accepted"), (listed, "not_dict_list_accepted")):
        got, failure = call_or_raised(learner, "validate_arguments", fn["parameters"], arguments)
        shown_arguments = repr(arguments) if isinstance(arguments, str) else as_json(arguments)
        if failure is not None:
            raise Fail("not_dict_raised", detail=failure.detail, arguments=shown_arguments,
                       type=failure.params.get("type", "?"), message=failure.params.get("message", ""))
        expect(isinstance(got, list) and all(isinstance(p, str) for p in got), "problems_not_a_list", got=shown(got))
        expect(got, key, arguments=shown_arguments, got=shown(got))


@check("1.3", points=1, en="every problem at once", zh="一次报告全部问题")
def test_every_problem(learner, world):
    fn = next(f for f in world.functions if sum(not p["optional"] for p in f["params"]) >= 2)
    required = [p for p in fn["params"] if not p["optional"]]
    gone, wrong = required[0], required[1]
    unknown = near_miss(gone["name"])
    arguments = {k: v for k, v in full_arguments(fn).items() if k != gone["name"]}
    arguments[wrong["name"]] = wrong_values(wrong["type"], wrong["example"])[0]
    arguments[unknown] = gone["example"]
    got = problems(learner, fn["parameters"], arguments)
    marks = {key: "✓" if ok else "✗" for key, ok in (
        ("missing_mark", named(got, gone["name"])), ("unknown_mark", named(got, unknown)),
        ("wrong_mark", named(got, wrong["name"], wrong["type"])))}
    expect("✗" not in marks.values(), "not_every_problem", arguments=as_json(arguments), missing=gone["name"],
           unknown=unknown, wrong=wrong["name"], type=wrong["type"], got=shown(got), **marks)


# ---------------------------------------------------------------- TODO 1.4 run_tool

GIVEN_TOOLS = ["calculator", "convert_temperature", "split_bill", "send_message", "create_event"]  # the file's TOOLS


def result_of(learner, name: str, arguments) -> Record:
    got, failure = call_or_raised(learner, "run_tool", name, arguments)
    if failure is not None:
        raise Fail("run_tool_raised", detail=failure.detail, name=name, arguments=as_json(arguments),
                   type=failure.params.get("type", "?"), message=failure.params.get("message", ""))
    expect(isinstance(got, Record) and got.type == "ToolResult" and "success" in got.fields,
           "not_a_tool_result", got=shown(got))
    return got


def expect_error_field(result: Record, name: str, arguments):
    """A failure's text is in its error, the field the model reads: ToolResult(False, text) puts it
    in output, the second field, and leaves error empty."""
    error, output = result.fields.get("error"), result.fields.get("output")
    empty = not (isinstance(error, str) and error.strip())
    if result.success is False and empty and isinstance(output, str) and output.strip():
        raise Fail("failure_in_output", name=name, arguments=as_json(arguments), got=shown(result))


def expect_failure(result: Record, name: str, arguments, *words: str):
    expect_error_field(result, name, arguments)
    error = result.fields.get("error")
    ok = result.success is False and isinstance(error, str) and all(names(error, w) for w in words)
    expect(ok, "failure_expected", name=name, arguments=as_json(arguments), got=shown(result),
           what=" and ".join(repr(w) for w in words))


def their_problems(learner, name: str, arguments) -> list:
    """What the file's validate_arguments finds in `arguments` against the schema its describe_tool
    writes for the tool `name` ([] if either fails): all a right run_tool can report. A problem
    missing here is TODO 1.2's or 1.3's mistake, and their checks say which, not run_tool's."""
    try:
        return problems(learner, described(learner, name)["parameters"], arguments)
    except Fail:
        return []


def values(world) -> dict:
    """The values drawn for this seed (scenarios.yaml `data: values`)."""
    return world.values


def message_arguments(world) -> dict:
    v = values(world)
    return {"to": v["colleague"], "text": v["note"], "urgent": False}


def ran_split_bill(learner, world) -> tuple[bool, Record, dict, float]:
    """run_tool("split_bill", arguments that are all right): (whether it ran it and gave back its
    output in a successful result, the result, the arguments, the output expected)."""
    v = values(world)
    arguments = {"total": v["total"] + 0.5, "people": v["people"], "tip_percent": v["tip"]}
    result = result_of(learner, "split_bill", arguments)
    expected = given_split_bill(**arguments)
    output = result.fields.get("output")
    same = isinstance(output, (int, float)) and not isinstance(output, bool) and math.isclose(output, expected)
    same = same or (isinstance(output, str) and output.strip() == str(expected))
    return result.success is True and same, result, arguments, expected


def expect_runs_a_tool(learner, world):
    """run_tool runs a tool of TOOLS on arguments that are all right. A check of a failure it must
    report (an unknown tool, bad arguments, …) counts only once it does, or a run_tool that fails
    every call would earn them: the same failure in each of them, said once."""
    try:
        ok, result, arguments, _ = ran_split_bill(learner, world)
    except Fail as failure:  # it raised, or returned no ToolResult: said here as what must work first
        if failure.key not in ("run_tool_raised", "not_a_tool_result"):
            raise
        ok, result, arguments = False, failure.params.get("got") or f"raised {raised_text(failure)}", {}
    expect(ok, "run_tool_runs_nothing", got=result if isinstance(result, str) else shown(result),
           arguments=as_json(arguments) if arguments else "(arguments that are all right)")


def must_report(learner, world, name: str, arguments, *words: str) -> bool:
    """Whether run_tool must refuse `arguments`, whose problems name `words`, without calling the
    tool. When the file's validate_arguments does its job (it names a missing argument), as it sees
    them: what it misses here is 1.2's or 1.3's mistake, their checks say which, and a right run_tool
    reports only what it finds. When it finds nothing at all (not written, `return []`, raises), on
    what the grader knows is wrong: a validate_arguments that does nothing lets run_tool off nothing."""
    if not finds_a_problem(learner, world)[0]:
        return True
    found = their_problems(learner, name, arguments)
    return all(named(found, word) for word in words)


def expect_reported(learner, world, result: Record, name: str, arguments, *words: str):
    """run_tool's failure for `arguments`, naming `words`, when it must report them (must_report)."""
    if must_report(learner, world, name, arguments, *words):
        expect_failure(result, name, arguments, *words)


@check("1.4", points=1, en="valid arguments: the tool runs, its output in a successful result",
       zh="参数正确：工具执行，输出放进成功的结果")
def test_runs_the_tool(learner, world):
    ok, result, arguments, expected = ran_split_bill(learner, world)
    expect(ok, "tool_result_wrong", name="split_bill", arguments=as_json(arguments), got=shown(result),
           expected=expected)


@check("1.4", points=1, en="an unknown tool: a failure that names it", zh="未知工具：失败结果里点出它的名字")
def test_unknown_tool(learner, world):
    name = values(world)["missing_tool"]
    arguments = {"query": "weather in 上海"}
    expect_failure(result_of(learner, name, arguments), name, arguments, name)
    expect_runs_a_tool(learner, world)


@check("1.4", points=1, en="a missing argument: a failure that names it", zh="缺少参数：失败结果里点出它的名字")
def test_missing_argument_fails(learner, world):
    arguments = {"to": values(world)["colleague"]}
    result = result_of(learner, "send_message", arguments)
    expect_reported(learner, world, result, "send_message", arguments, "text")
    expect_runs_a_tool(learner, world)


@check("1.4", points=1, en="a wrong type: a failure naming it, and the tool is not called",
       zh="类型不对：失败结果里点出它，而且不调用工具")
def test_wrong_type_not_called(learner, world):
    word = values(world)["yes_word"]
    arguments = dict(message_arguments(world), urgent=word)
    result = result_of(learner, "send_message", arguments)
    if must_report(learner, world, "send_message", arguments, "urgent"):  # else a right run_tool calls it too
        output = result.fields.get("output")
        said_no = isinstance(output, str) and ERROR_WORDS.search(output)  # a failure passed off as a success
        expect(result.success is not True or said_no, "sent_anyway", arguments=as_json(arguments),
               got=shown(output), value=as_json(word))
        expect_failure(result, "send_message", arguments, "urgent")
    # a call is seen by what it does: split_bill with people as text raises its own TypeError, whose
    # message (Python's, worked out here by running the given split_bill on the same arguments) no
    # check of the arguments writes. In the failure, it means the function ran before they were
    # checked; the word "TypeError" alone does not: a problem may be worded like Python's exceptions
    v = values(world)
    arguments = {"total": v["total"] + 0.5, "people": str(v["people"]), "tip_percent": v["tip"]}
    result = result_of(learner, "split_bill", arguments)
    if must_report(learner, world, "split_bill", arguments, "people"):
        raised = raised_by(given_split_bill, arguments)
        error = squashed(result.fields.get("error"))
        expect(not (raised and squashed(raised) in error), "tool_ran_unchecked", name="split_bill",
               arguments=as_json(arguments), got=shown(result), raised=raised)
        expect_failure(result, "split_bill", arguments, "people")
    expect_runs_a_tool(learner, world)


def given_split_bill(total: float, people: int, tip_percent: int = 10) -> float:
    """The given split_bill, as the lesson's file has it: what it raises is what the learner's raises."""
    return round(total * (1 + tip_percent / 100) / people, 2)


def raised_by(func, arguments: dict) -> str:
    """The message of the exception func(**arguments) raises ("" if it raises none)."""
    try:
        func(**arguments)
    except Exception as error:
        return str(error)
    return ""


@check("1.4", points=1, en="an unknown argument: a failure that names it", zh="多出不认识的参数：失败结果里点出它的名字")
def test_unknown_argument_fails(learner, world):
    extra = values(world)["extra"]
    arguments = dict(message_arguments(world), **{extra: "boss"})
    expect_failure(result_of(learner, "send_message", arguments), "send_message", arguments, extra)
    expect_runs_a_tool(learner, world)


@check("1.4", points=1, en="several problems at once: a failure naming all of them, not only the first",
       zh="同时有好几个问题：失败结果里把它们全部点出来，而不只是第一个")
def test_all_problems_in_the_failure(learner, world):
    v = values(world)
    arguments = {"to": v["colleague"], "urgent": v["yes_word"], v["extra"]: "boss"}  # no text, a str, one too many
    result = result_of(learner, "send_message", arguments)
    expect_reported(learner, world, result, "send_message", arguments, "text", "urgent", v["extra"])
    expect_runs_a_tool(learner, world)


@check("1.4", points=1, en="a tool that raises: a failure with its message (division by zero, a KeyError)",
       zh="工具抛出异常：失败结果里带上它的信息（除以零、KeyError）")
def test_tool_that_raises(learner, world):
    arguments = {"total": values(world)["total"] + 0.5, "people": 0, "tip_percent": values(world)["tip"]}
    result = result_of(learner, "split_bill", arguments)
    if not their_problems(learner, "split_bill", arguments):  # people=0 taken for missing: 1.3's check says so
        expect_failure(result, "split_bill", arguments, "division by zero")
    # A tool that exists raises KeyError of its own: create_event reads start["date"], and this start,
    # a dict as the schema asks, has none. Its failure carries that KeyError's message ('date'), not
    # the file's words for a tool that does not exist: a KeyError caught as "no such tool" (the
    # lookup TOOLS[name] in the same try as the call) tells the model to drop a tool it may use.
    v = values(world)
    arguments = {"title": v["note"], "start": {"day": "2025-05-20", "time": "14:30"}, "attendees": [v["colleague"]]}
    result = result_of(learner, "create_event", arguments)
    if their_problems(learner, "create_event", arguments):
        expect_runs_a_tool(learner, world)
        return  # start refused for its type: 1.2's or 1.3's checks say why
    expect_error_field(result, "create_event", arguments)
    error = result.fields.get("error")
    unknown = result_of(learner, v["missing_tool"], {"query": "weather"}).fields.get("error")
    if isinstance(error, str) and result.success is False and (
            unknown_said(error, unknown, ("create_event", "date", v["missing_tool"]))
            or not names(error, "date") and UNKNOWN_TOOL.search(error)):
        raise Fail("keyerror_taken_for_unknown_tool", arguments=as_json(arguments), got=shown(result),
                   unknown=v["missing_tool"])
    expect_failure(result, "create_event", arguments, "date")
    expect_runs_a_tool(learner, world)


def unknown_said(error: str, unknown, words) -> bool:
    """Whether `error` is the text the file gives for a tool that does not exist (`unknown`),
    but for the names in it: the same words, another name."""
    if not isinstance(unknown, str) or not unknown.strip():
        return False
    pattern = re.compile("|".join(rf"(?<![\w-]){re.escape(word)}(?![\w-])" for word in words))
    return squashed(pattern.sub("…", error)) == squashed(pattern.sub("…", unknown))


@check("1.4", points=1, en="arguments that are not a dict: a failure, not a crash", zh="参数不是 dict：失败结果，而不是崩溃")
def test_arguments_not_a_dict(learner, world):
    v = values(world)
    text = json.dumps({"total": v["total"] + 0.5, "people": v["people"]})
    result = result_of(learner, "split_bill", text)
    expect(result.success is False, "not_dict_run", name="split_bill", arguments=repr(text), got=shown(result))
    expect_runs_a_tool(learner, world)


# ---------------------------------------------------------------- TODO 1.5 calculator

def expect_number(learner, expression: str, refused: str = "calc_raised"):
    """calculator(expression) returns the number; `refused` says why it must not raise."""
    expected = calculate(expression)
    got, failure = call_or_raised(learner, "calculator", expression)
    if failure is not None:
        raise Fail(refused, detail=failure.detail, expression=expression, expected=expected,
                   type=failure.params.get("type", "?"), message=failure.params.get("message", ""))
    ok = isinstance(got, (int, float)) and not isinstance(got, bool) and math.isclose(got, float(expected))
    # a result rounded off: said so (a 0 or a whole number says more about a wrong operation)
    places = next((n for n in range(1, 9) if not ok and isinstance(got, (int, float)) and not isinstance(got, bool)
                   and got != 0 and math.isclose(got, round(float(expected), n))), None)
    expect(places is None, "calc_rounded", expression=expression, got=shown(got), expected=expected, places=places)
    expect(ok, "calc_wrong", expression=expression, got=shown(got) if not isinstance(got, str) else repr(got),
           expected=expected)


def expect_calculates(learner, world):
    """calculator works out a plain expression. A check of what it must refuse counts only once it
    does, or a calculator that raises ValueError for everything would earn them: the same failure in
    each of them, said once."""
    a, b = values(world)["a"], values(world)["b"]
    expression = f"{a} * {b}"
    expected = calculate(expression)
    got, failure = call_or_raised(learner, "calculator", expression)
    ok = (failure is None and isinstance(got, (int, float)) and not isinstance(got, bool)
          and math.isclose(got, float(expected)))
    expect(ok, "calculator_computes_nothing", expression=expression, expected=expected,
           got=f"raised {raised_text(failure)}" if failure is not None else f"returned {shown(got)}")


def expect_refused(learner, expression: str):
    """calculator(expression) refuses it: raises ValueError with a reason."""
    judge_refusal(learner, expression, *call_or_raised(learner, "calculator", expression))


def judge_refusal(learner, expression: str, got, failure):
    if failure is None and isinstance(got, str) and ERROR_WORDS.search(got):
        raise Fail("refusal_returned", expression=expression, got=repr(got))
    if failure is None:  # "eval() runs anything" is said to a file that has, or ran, an eval() or exec()
        key = "code_ran" if learner.ran_code or eval_calls(learner.syntax_tree()) else "code_accepted"
        raise Fail(key, expression=expression, got=shown(got) if not isinstance(got, str) else repr(got))
    kind, message = failure.params.get("type", "?"), failure.params.get("message", "")
    expect(failure.raised_a("ValueError") and message.strip(), "refusal_not_valueerror", detail=failure.detail,
           expression=expression, type=kind, message=message)


@check("1.5", points=1, en="+ - * / ** with the usual precedence, and parentheses",
       zh="+ - * / **，运算优先级正确，支持括号")
def test_arithmetic(learner, world):
    a, b, c, d = (values(world)[k] for k in "abcd")
    for expression in (f"{a} + {b} * {c}", f"({a} + {b}) * {c}", f"{a} - {b} - {c}", f"{a} / {d}",
                       f"{c} ** {d}", f"2 ** -{c}", f"(-{c}) ** 2", f"{b} * ({a} - {c}) / {d}",
                       f"{3 * a + 1} / 3"):  # thirds: more decimals than a rounded result keeps, at any seed
        expect_number(learner, expression)


@check("1.5", points=1, en="unary minus and plus, and decimals", zh="正负号和小数")
def test_unary_minus_and_decimals(learner, world):
    a, b, c = (values(world)[k] for k in "abc")
    for expression in (f"-{a} + {b}", f"-({a} - {b}) * 2.5", f"- -{c}", f"{a}.5 * -{c}"):
        expect_number(learner, expression)
    for expression in (f"+{a} - {b}", f"{b} * +{c}.5"):  # UAdd is on the allow-list, as USub is
        expect_number(learner, expression, refused="unary_plus_refused")


@check("1.5", points=1, en="refuses to run code: __import__('os'), names, calls",
       zh="拒绝执行代码：__import__('os')、变量名、函数调用")
def test_refuses_code(learner, world):
    a = values(world)["a"]
    for expression in ("__import__('os').getcwd()", f"abs(-{a})", f"{a} + x", f"print({a})"):
        expect_refused(learner, expression)
    expect_calculates(learner, world)


@check("1.5", points=1, en="refuses attribute access and strings", zh="拒绝属性访问和字符串")
def test_refuses_attributes(learner, world):
    a = values(world)["a"]
    for expression in ("(1).__class__", "().__class__.__base__.__subclasses__()", f"'{a}' * 3"):
        expect_refused(learner, expression)
    expect_calculates(learner, world)


@check("1.5", points=1, en="refuses what the allow-list leaves out: // % ^, comparisons, True",
       zh="拒绝允许清单以外的：// % ^、比较、True")
def test_refuses_other_operators(learner, world):
    a = values(world)["a"]
    for expression in (f"{a} // 2", f"{a} % 3", f"{a} ^ 2", f"{a} < 5", "True + 1"):
        got, failure = call_or_raised(learner, "calculator", expression)
        if failure is None and not (isinstance(got, str) and ERROR_WORDS.search(got)):
            raise Fail("operator_accepted", expression=expression,
                       got=shown(got) if not isinstance(got, str) else repr(got))
        judge_refusal(learner, expression, got, failure)
    expect_calculates(learner, world)


# A calculator that works out a power's size first refuses at once; one that computes it never
# ends. A second tells them apart with room to spare (((9 ** 99) ** 99) ** 99, 930,000 digits,
# takes a quarter of one), so a file that computes on costs its hang one second, not the lesson's three.
POWER_SECONDS = 1.0


@check("1.5", points=1, en="refuses powers too large to compute, at once, or with no real value ((-8) ** 0.5), and only those: 0 ** n, n ** 0",
       zh="结果大到算不动的乘方立刻拒绝，没有实数值的（(-8) ** 0.5）也拒绝，而且只拒绝这些：0 ** n、n ** 0 照算")
def test_refuses_huge_powers(learner, world):
    learner.limit = POWER_SECONDS
    a, b, c = (values(world)[k] for k in "abc")
    for expression in ("9 ** 9 ** 9", "(((9 ** 99) ** 99) ** 99) ** 99", f"{a}.5 ** 1000"):
        try:
            got, failure = call_or_raised(learner, "calculator", expression)
        except Fail as stopped:
            if stopped.key in ("hang", "died"):
                raise Fail("power_hang", expression=expression, seconds=learner.time_limit) from None
            raise
        if failure is None and isinstance(got, (int, float)) and not isinstance(got, bool):
            raise Fail("power_returned", expression=expression,
                       got=f"a number of {len(str(got))} digits" if isinstance(got, int) else shown(got))
        judge_refusal(learner, expression, got, failure)
    # a negative number to a fractional power has no real value: Python's ** makes it a complex
    # number, no int or float, and raises nothing, so the calculator must see it (checked at once,
    # or only at the end, on the result: both catch it, in a sum too)
    for expression in (f"(-{c}) ** 0.5", f"1 + (-{a}.5) ** -{b}.5"):
        got, failure = call_or_raised(learner, "calculator", expression)
        if failure is None and not (isinstance(got, str) and ERROR_WORDS.search(got)):
            raise Fail("complex_returned", expression=expression, got=quoted(got))
        judge_refusal(learner, expression, got, failure)
    # small powers the size estimate must not trip on: math.log10(0) raises, so does 100 / 0.
    # (0 ** 0 is 1 in Python; a refusal of it with a ValueError is no mistake either.)
    for expression in (f"0 ** {c}", f"({b} - {b}) ** {a}", f"0.0 ** {b}", f"{a} ** 0", f"{c}.5 ** 0"):
        expect_number(learner, expression, refused="small_power_refused")
    got, failure = call_or_raised(learner, "calculator", "0 ** 0")
    if failure is None or not failure.raised_a("ValueError") or "domain" in failure.params.get("message", ""):
        expect_number(learner, "0 ** 0", refused="small_power_refused")  # else refused on purpose


# A message that says what went wrong with a division by zero, in any words: zero or 0 (by 0, the
# denominator is 0), a division or a divisor, a denominator; in Chinese 零, 除 (除以, 除数), 分母.
ZERO_SAID = re.compile(r"zero|(?<![\d.])0(?![\d.]*[1-9])|divi[sd]|denominator|零|除|分母", re.IGNORECASE)


@check("1.5", points=1, en="division by zero, and 0 to a negative power: ValueError saying so, not a crash",
       zh="除以零，以及 0 的负数次方：抛出说明原因的 ValueError，而不是崩溃")
def test_division_by_zero(learner, world):
    a, b, c = values(world)["a"], values(world)["b"], values(world)["c"]
    expression = f"{a} / ({b} - {b})"
    got, failure = call_or_raised(learner, "calculator", expression)
    if failure is None:
        raise Fail("zero_returned", expression=expression, got=shown(got) if not isinstance(got, str) else repr(got))
    kind, message = failure.params.get("type", "?"), failure.params.get("message", "")
    expect(kind != "ZeroDivisionError", "zero_escaped", detail=failure.detail, expression=expression)
    expect(failure.raised_a("ValueError"), "refusal_not_valueerror", detail=failure.detail, expression=expression,
           type=kind, message=message)
    expect(ZERO_SAID.search(message), "zero_unclear", expression=expression, message=message)
    # 0 ** -n is 1 / 0 ** n: Python raises ZeroDivisionError with no / in the expression. Any
    # ValueError with a reason will do (refused before, or caught around the whole computation).
    for expression in (f"0 ** -{c}", f"({b} - {b}.0) ** -{a}.5"):
        got, failure = call_or_raised(learner, "calculator", expression)
        if failure is None:
            raise Fail("zero_returned", expression=expression, got=quoted(got))
        expect(failure.params.get("type") != "ZeroDivisionError", "zero_power_escaped", detail=failure.detail,
               expression=expression, message=failure.params.get("message", ""))
        judge_refusal(learner, expression, got, failure)
    expect_calculates(learner, world)


@check("1.5", points=1, en="text that is no expression: ValueError, not SyntaxError",
       zh="不是表达式的文本：抛出 ValueError，而不是 SyntaxError")
def test_not_an_expression(learner, world):
    a = values(world)["a"]
    for expression in (f"{a} +", "", "import os"):
        expect_refused(learner, expression)
    expect_calculates(learner, world)


def eval_calls(tree: ast.Module | None) -> list:
    """(name, line) of every use of eval() or exec() in the file: a call, but also the function
    taken by another name (f = eval, from builtins import eval as f), looked up by its name as text
    (getattr(builtins, "ev" + "al")), or code compiled to run as it (compile(text, "", "eval")).
    A name the file binds itself (def eval(node), a parameter, an assignment, import … as eval) is
    its own, not the builtin, where that binding is in scope."""
    tree = tree or ast.Module(body=[], type_ignores=[])
    found = [(node.id, node.lineno) for node in builtin_names(tree, BUILTIN_RUNNERS)]
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Attribute) and getattr(node.value, "id", None) in ("builtins", "__builtins__"):
            name = node.attr  # builtins.eval; a method of the file's own (self.eval) is no builtin
        if isinstance(node, ast.Subscript):  # vars(builtins)["eval"]
            name = literal_text(node.slice)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr" and len(node.args) > 1:
            name = literal_text(node.args[1])
        if isinstance(node, ast.ImportFrom):
            name = next((alias.name for alias in node.names if alias.name in BUILTIN_RUNNERS), None)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "compile":  # builtins' (not re's)
            mode = node.args[2] if len(node.args) > 2 else next((k.value for k in node.keywords if k.arg == "mode"), None)
            flags = node.args[3] if len(node.args) > 3 else next((k.value for k in node.keywords if k.arg == "flags"), None)
            name = "compile" if literal_text(mode) in ("eval", "exec") and not only_ast(flags) else None
        if name in BUILTIN_RUNNERS or name == "compile" and isinstance(node, ast.Call):
            found.append((name, node.lineno))
    return sorted(found, key=lambda use: use[1])


def only_ast(flags) -> bool:
    """Whether compile's flags hold PyCF_ONLY_AST (ast.PyCF_ONLY_AST, alone or |-ed, or 1024): it then
    returns the syntax tree, as ast.parse does, and runs nothing."""
    return any(isinstance(part, ast.Attribute) and part.attr == "PyCF_ONLY_AST"
               or isinstance(part, ast.Name) and part.id == "PyCF_ONLY_AST"
               or isinstance(part, ast.Constant) and isinstance(part.value, int) and part.value & 1024
               for part in ast.walk(flags)) if flags is not None else False


BUILTIN_RUNNERS = ("eval", "exec")
FUNCTION_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
SCOPES = FUNCTION_SCOPES + (ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def builtin_names(tree: ast.Module, wanted) -> list[ast.Name]:
    """The names among `wanted` that the file reads where no binding of its own is in scope, so
    that Python finds the builtin: Python's own scope rules (a def, a parameter, an assignment, an
    import, … in the function or in one around it, or at module level; a class body's names do not
    reach its methods). An assignment of the builtin itself (eval = eval) binds no name of the
    file's: it is the builtin under its own name."""
    found, bound = [], {}

    def binds(scope) -> set:
        if id(scope) not in bound:
            bound[id(scope)] = names_bound(scope)
        return bound[id(scope)]

    def resolved(name: str, chain: list) -> bool:
        return name in binds(chain[-1]) or any(
            name in binds(scope) for scope in chain[:-1] if not isinstance(scope, ast.ClassDef))

    todo = [(tree, [tree])]  # (node, the scopes it is in, outermost first): no recursion, however deep
    while todo:
        node, chain = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            outside = [*getattr(node, "decorator_list", []), *getattr(node, "bases", []),
                       *(k.value for k in getattr(node, "keywords", []))]
            if not isinstance(node, ast.ClassDef):  # defaults and annotations run where the def is
                arguments = node.args
                outside += [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
                outside += [a.annotation for a in all_arguments(arguments) if a.annotation is not None]
                outside += [node.returns] if getattr(node, "returns", None) is not None else []
            body = node.body if isinstance(node.body, list) else [node.body]
            todo += [(item, chain) for item in outside] + [(item, [*chain, node]) for item in body]
            continue
        if isinstance(node, SCOPES):  # a comprehension: a scope of its own
            chain = [*chain, node]
        if isinstance(node, ast.Name) and node.id in wanted and isinstance(node.ctx, ast.Load):
            if not resolved(node.id, chain):
                found.append(node)
        todo += [(child, chain) for child in ast.iter_child_nodes(node)]
    return found


def all_arguments(arguments: ast.arguments) -> list[ast.arg]:
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
            *(a for a in (arguments.vararg, arguments.kwarg) if a is not None)]


def names_bound(scope) -> set[str]:
    """The names a scope binds itself: its parameters, the names its own statements assign, the
    functions and classes it defines, its imports; not those of the scopes nested in it."""
    names = {a.arg for a in all_arguments(scope.args)} if isinstance(scope, FUNCTION_SCOPES) else set()
    if isinstance(scope, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        todo = [scope.body] if isinstance(scope, ast.Lambda) else list(ast.iter_child_nodes(scope))
    else:
        todo = list(scope.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue  # its body is a scope of its own
        if isinstance(node, SCOPES) and node is not scope:
            continue
        aliased = getattr(node, "value", None) if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) else None
        if isinstance(aliased, ast.Name) and aliased.id in BUILTIN_RUNNERS:
            todo.append(aliased)  # eval = eval: the builtin under its own name, no binding
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
        todo.extend(ast.iter_child_nodes(node))
    return names


def literal_text(node) -> str | None:
    """The text a constant expression of the source spells: "eval", or "ev" + "al"."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = literal_text(node.left), literal_text(node.right)
        return left + right if left is not None and right is not None else None
    return None


@check("1.5", points=1, en="walks the syntax tree: no eval() or exec() in the file",
       zh="遍历语法树：文件里没有 eval() 或 exec()")
def test_no_eval(learner, world):
    a, b = values(world)["a"], values(world)["b"]
    expect_number(learner, f"{a} * {b}")
    for name, line in eval_calls(learner.syntax_tree()):
        raise Fail("uses_eval", name=name, line=line)
    if learner.ran_code:  # reached in a way the source doesn't spell: the child saw it run
        raise Fail("ran_text_as_code", line=learner.ran_code)


@check("1.4", points=1, en="an unknown tool's error says there is no such tool, not that it failed",
       zh="未知工具的错误说明没有这个工具，而不是说它执行失败")
def test_unknown_tool_said(learner, world):
    for name, arguments in ((values(world)["missing_tool"], {"query": "weather in 上海"}),
                            ("api_tools", {})):  # a function of the file, not in TOOLS: no tool either
        result = result_of(learner, name, arguments)
        expect_error_field(result, name, arguments)
        expect_unknown_tool_said(result.fields.get("error"), name, result, GIVEN_TOOLS)
    expect_runs_a_tool(learner, world)
