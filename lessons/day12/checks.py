"""Day 12 checks: plain pytest tests, one behaviour each, listed in the report in this order.

Your functions run in a separate process, with no network. Every openai client your code builds
there sends its requests to the grader, which answers with the mock model and keeps each request:
its URL, its headers (the key, the SDK's timeout and retry count) and its body. The mock plays the
failing network by model name: "qwen2.5-1.5b-instruct#429@7" answers that model's first request
with a 429 and `Retry-After: 7` (mock_llm/faults.py, fault_plan). `sleep` is the grader's: it records
each wait without waiting, and refuses what time.sleep refuses (a str); time.sleep itself is
refused at once in your code (lesson.yaml sleep_given) and passes at once in the SDK's. Numbers and names come from `world`, so another seed changes them.
"""
import ast
import math
import re
from urllib.parse import urlsplit

from validator.checking import (Fail, action_naming, check, expect, expect_observation_labelled, expect_own_fallback,
                                expect_system_prompt_sent, learner_object, model_words,
                                read_final, read_request, quoted, registry_arg, shown, tool_arg, written_after_request)

# A Retry-After value that no HTTP client reads as a number of seconds: the other form the header
# may take (RFC 9110), an HTTP date.
HTTP_DATE = "Wed, 21 Oct 2015 07:28:00 GMT"


def endpoint(world) -> dict:
    return world.endpoint  # base_url, api_key, model, fallback_*, timeout, retry_after


def chat_url(base_url: str) -> str:
    """Where the openai client sends a chat request for a base URL."""
    return base_url.rstrip("/") + "/chat/completions"


def server(base_url: str) -> str:
    """The host:port of a base URL: how a fault plan names the one server it plays."""
    return urlsplit(base_url).netloc


def config(world, model: str | None = None, **changes):
    """The learner's own Config, built in their process, for the seed's endpoint."""
    e = endpoint(world)
    fields = {"base_url": e["base_url"], "api_key": e["api_key"], "model": model or e["model"],
              "fallback_model": None, "timeout": e["timeout"], "max_attempts": 4}
    fields.update(changes)
    return learner_object("Config", **fields)


def failing(world, plan: str) -> str:
    """The configured model, with a fault plan: "<model>#500,ok"."""
    return f"{endpoint(world)['model']}#{plan}"


def sent_key(exchange) -> str:
    """The API key a request carried."""
    return exchange.headers.get("authorization", "").removeprefix("Bearer ")


def masked(key: str) -> str:
    return key[:8] + "…" if len(key) > 8 else key


# ---------------------------------------------------------------- running the learner's code

def attempt(learner, func: str, scenario: str, *args, watch: bool = False, stand_ins=None):
    """func(question, *args) on a scenario: (run, failure), failure being the Fail of an exception
    the learner's code raised (None when it returned). Other failures end the check: a TODO not
    done yet, a file that does not load; a hang after a failure is a real sleep; the call budget
    spent on retries is a retry loop without end."""
    try:
        return learner.run_agent(func, scenario, *args, watch=watch, stand_ins=stand_ins), None
    except Fail as failure:
        if failure.key == "crashed" and stand_ins is None and raised_in_build_request(failure):
            # TODO 2.1's mistake, which its own check says: this run is graded around it
            return attempt(learner, func, scenario, *args, watch=watch, stand_ins=MODEL_KEPT)
        run = learner.runs[-1] if learner.runs else None
        refused = next((c for c in run.tool_calls if c.name == "sleep" and c.failed), None) if run else None
        if failure.key == "crashed" and refused:  # as time.sleep would: the wait it was given is no number
            if isinstance(refused.input, str):
                delay(learner, 1, refused.input)  # retry_delay handed back the header's text: TODO 2.2's
            raise Fail("sleep_refused", func=func, value=repr(refused.input), message=refused.output) from None
        if failure.key == "crashed":
            return run, failure
        failures = [e for e in (run.exchanges if run else []) if e.status != 200]
        if failure.key == "budget" and failures:
            raise Fail("retried_forever", requests=len(run.exchanges), status=answer_of(failures[-1])) from None
        if failure.key == "hang" and failures:
            expect_no_sdk_retries(run)
            stuck = [line.strip() for line in failure.detail.splitlines() if line.strip()]
            if stuck and ".create(" in stuck[-1]:  # waiting inside create(): the SDK's own retry
                sdk = Fail("sdk_waiting", func=func)
                sdk.cause = "sdk_retries"
                raise sdk from None
            raise Fail("slept_for_real", func=func, seconds=failure.params.get("seconds")) from None
        raise


def ask(learner, world, model=None, scenario="no_tool", **changes):
    """The given ask(question, config, sleep): one reply, through make_client and complete. A
    request for another model than the configured one is charged to the TODO whose code changed it
    (see model_changed); build_request's mistake is graded around (MODEL_KEPT)."""
    wanted = model or endpoint(world)["model"]
    arguments = ("ask", scenario, config(world, model, **changes), tool_arg("sleep"))
    run, failure = attempt(learner, *arguments)
    if any(model_changed(learner, exchange, wanted) for exchange in run.exchanges):
        run, failure = attempt(learner, *arguments, stand_ins=MODEL_KEPT)
        expect_models_reach_the_mock(run, (wanted,))
    return run, failure


# build_request (TODO 2.1) as the learner wrote it, but for the model, which it keeps (and, where it
# raises, the lesson's own request): the checks of complete() and run_agent() (TODOs 2.3, 3.1) play
# their failures by the model's name (the mock fails "model#500" as asked), and grade those TODOs'
# own code, not 2.1's mistake again
MODEL_KEPT = {"build_request": """
def build_request(model, messages, *args, **kwargs):
    try:
        request = learners(model, messages, *args, **kwargs)
    except Exception:
        request = {"model": model, "messages": messages, "stop": ["Observation:"]}
    return dict(request, model=model) if isinstance(request, dict) else request
"""}
TRACEBACK_FRAME = re.compile(r'File "[^"\n]*", line \d+, in (\w+)')


def raised_in_build_request(failure) -> bool:
    """Whether the learner's code raised inside their build_request (its own check, TODO 2.1's,
    says what): os.environ["OPENAI_MODEL"], which this process lacks, say."""
    frames = TRACEBACK_FRAME.findall(failure.detail or "") if failure is not None else []
    return bool(frames) and frames[-1] == "build_request"


def model_changed(learner, exchange, wanted: str) -> bool:
    """Whether a request of complete(), which was given the model `wanted`, asked for another one
    because the learner's build_request (TODO 2.1) puts a model of its own in the request. Given
    `wanted` too, a build_request that keeps it leaves complete() (TODO 2.3) to blame: said."""
    if exchange.request.get("model") == wanted:
        return False
    if not builds_another_model(learner, exchange, wanted):
        failure = Fail("complete_model_not_passed", got=shown(exchange.request.get("model")), expected=wanted)
        failure.cause = "complete_model_not_passed"  # one mistake of complete(), said once
        raise failure
    return True


def builds_another_model(learner, exchange, wanted: str) -> bool:
    """Whether the learner's build_request, given `wanted` and the request's messages, puts another
    model in the request."""
    built = learner.call("build_request", wanted, exchange.request.get("messages"))
    return not (isinstance(built, dict) and built.get("model") == wanted)


def expect_models_reach_the_mock(run, models):
    """After MODEL_KEPT, every request asks for one of `models`: else the code that sends them
    builds its request some other way than through build_request, and the checks that play failures
    by the model's name can't: said once, for TODO 2.1's code to be fixed first."""
    stray = next((x.request.get("model") for x in run.exchanges if x.request.get("model") not in models), None)
    if stray is not None:
        raise first_fix("needs_model", got=shown(stray), expected=models[0])


def ask_once(learner, world, model=None, **changes):
    """The given ask_once(question, config): one request, through make_client only."""
    return attempt(learner, "ask_once", "no_tool", config(world, model, **changes))


def run_agent(learner, world, scenario):
    """Your run_agent on a task of scenarios.yaml, as `validate.py day12 --live` runs it: the real
    model answers, and your code sleeps for real. The config names the real servers and models
    (not the keys: the grader adds them), so a fallback your environment names is one your code
    can switch to."""
    live = learner.live_model
    real = {} if live is None else {
        "base_url": live.base_url, "model": live.model, "fallback_model": live.fallback_model,
        "fallback_base_url": live.fallback_server[0] if live.fallback_server else None}
    return learner.run_agent("run_agent", scenario, config(world, **real), registry_arg(world.scenarios[scenario].tools))


def agent(learner, world, scenario, model=None, max_steps=None, **changes):
    """Your run_agent on a task, with the grader's sleep (and `max_steps`, if given): (run, failure)
    as attempt() gives them. The first run of the grading that switched is kept (on `world`, which
    lives for one grading of one file), so that a later run that does not switch can be played
    again with the very same arguments: see expect_switch_per_run."""
    arguments = ("run_agent", scenario, config(world, model, **changes), registry_arg(world.scenarios[scenario].tools),
                 tool_arg("sleep"), *([max_steps] if max_steps else []))
    run, failure = attempt(learner, *arguments, watch=True)
    models = (model or endpoint(world)["model"], *([changes["fallback_model"]] if changes.get("fallback_model") else []))
    stray = next((x for x in run.exchanges if x.request.get("model") not in models), None)
    if stray is not None and ("#" in models[0] or len(models) > 1) and builds_another_model(learner, stray, models[0]):
        # the run's failures, or its switch, are told by the model's name: graded around 2.1's mistake
        run, failure = attempt(learner, *arguments, watch=True, stand_ins=MODEL_KEPT)
        expect_models_reach_the_mock(run, models)
    if switched(run) and getattr(world, SWITCHED, None) is None:
        setattr(world, SWITCHED, (scenario, model, max_steps, changes))
    return run, failure


SWITCHED = "day12_first_switch"  # the world's attribute: (scenario, model, max_steps, changes) of a run that switched


def switched(run) -> bool:
    """Whether a run asked another model, or another server, than its first request did."""
    first = run.exchanges[0] if run.exchanges else None
    return first is not None and any(x.request.get("model") != first.request.get("model")
                                     or urlsplit(x.url).netloc != urlsplit(first.url).netloc
                                     for x in run.exchanges[1:])


def expect_switch_per_run(learner, world):
    """For a run that never asked its fallback: an earlier run of this grading did switch, so run it
    again, with the very same arguments. Switching then no more, where it did before, is a switch
    remembered between runs (a module-level flag, an attribute of the function or the class): each
    run starts on the primary model, and switches once, so the state is the run's own, a local."""
    earlier = getattr(world, SWITCHED, None)
    if earlier is None:
        return
    scenario, model, max_steps, changes = earlier
    try:
        again, _ = attempt(learner, "run_agent", scenario, config(world, model, **changes),
                           registry_arg(world.scenarios[scenario].tools), tool_arg("sleep"),
                           *([max_steps] if max_steps else []))
    except Fail:
        return  # it ends otherwise now: not the switch's state that this can show
    if not switched(again):
        first = again.exchanges[0].request.get("model") if again.exchanges else model
        failure = Fail("switch_kept_between_runs", model=shown(first), requests=len(again.exchanges))
        failure.cause = "switch_kept_between_runs"
        raise failure


MODEL_CHANGED = ("needs_model", "complete_model_not_passed")  # a request for another model: see model_changed
NEVER_ENDS = ("retried_forever", "real_sleep")  # how a run whose complete() never gives up is stopped


def first_fix(key: str, **params) -> Fail:
    """The failure of a check that can't grade its own TODO while an earlier TODO's code is wrong:
    never a pass. Its message says which TODO to fix first, once for all the checks it stops."""
    failure = Fail(key, **params)
    failure.cause = key
    return failure


def expect_complete_gives_up(learner, world):
    """complete() (TODO 2.3) gives up on a dead model: max_attempts requests, then ModelUnavailable,
    which run_agent's fallback switches on. Without it, the fallback can't be graded."""
    try:
        run, failure = ask(learner, world, failing(world, "500*"), max_attempts=2)
    except Fail as stop:
        if stop.key in MODEL_CHANGED:  # the TODO that changed the model is named, and charged
            raise
        if stop.key in ("retried_forever", "slept_for_real", "real_sleep"):
            raise first_fix("needs_complete") from None
        return
    if run.exchanges and not (failure is not None and failure.params["type"] == "ModelUnavailable"
                              and len(run.exchanges) == 2):  # no request at all: not the retrying at fault
        raise first_fix("needs_complete")


def answer_of(exchange) -> str:
    """How a request ended, in a few words: "HTTP 429", "a timeout", "no connection"."""
    if exchange.network:
        return {"timeout": "a timeout", "connect": "no connection"}.get(exchange.network, exchange.network)
    return f"HTTP {exchange.status}"


def sleeps(run) -> list:
    """The waits the learner's code asked for: (requests made before it, seconds)."""
    return [(call.round, call.input) for call in run.tool_calls if call.name == "sleep"]


def seconds(value) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


RETRIED = ("RateLimitError", "InternalServerError", "APIConnectionError", "APITimeoutError")  # what complete() waits out


def expect_not_raised_in_handler(failure: Fail, answer: str):
    """A failure complete() catches to retry, then an error of its own raised while handling it
    (a header read with [] that the response does not send): say so, not "catch it"."""
    raised = failure.params.get("type", "")
    caught = next((c for c in failure.params.get("chain", []) if c.split(":")[0] in RETRIED), None)
    handled = caught is None or raised in ("ModelUnavailable", *RETRIED)
    # a connection error's response read: no server answered, so there is none (only APIStatusError has one)
    no_response = raised == "AttributeError" and "'response'" in failure.params.get("message", "")
    expect(handled or not no_response, "no_response_in_handler", caught=caught, answer=answer,
           message=failure.params.get("message", ""))
    expect(handled, "gave_up_in_handler", caught=caught, type=raised, message=failure.params.get("message", ""),
           answer=answer)


def expect_requests(run, expected: int, failure=None):
    """Exactly `expected` requests; else say what the code did instead."""
    got = len(run.exchanges)
    if got == expected:
        return
    if got == 0 and failure:
        raise failure
    answers = ", ".join(answer_of(e) for e in run.exchanges)
    if failure and got < expected:
        expect_not_raised_in_handler(failure, answers)
        raise Fail("gave_up_early", got=got, expected=expected, type=failure.params["type"], answers=answers)
    raise Fail("wrong_request_count", expected=expected, got=got, answers=answers or "none")


def expect_no_sdk_retries(run):
    """Requests the openai SDK retried itself (max_retries not 0) say so in a header; the learner's
    own retry loop is graded only when it is the one retrying."""
    retried = [e for e in run.exchanges if e.headers.get("x-stainless-retry-count", "0") != "0"]
    if retried:
        first = urlsplit(run.exchanges[0].url).netloc
        # only on another server than the first: make_client is right, the fallback server's client was not its
        elsewhere = all(urlsplit(e.url).netloc != first for e in retried)
        failure = Fail("sdk_retries_fallback_client" if elsewhere else "sdk_retries",
                       retries=retried[-1].headers["x-stainless-retry-count"])
        failure.cause = "sdk_retries"
        raise failure


def expect_reply(run, failure, world, scenario="no_tool"):
    """ask() returned the model's reply, which quotes the scenario's answer."""
    if failure:
        first = next((e for e in run.exchanges if e.status != 200), None)
        if first is not None and len(run.exchanges) == 1:
            expect_not_raised_in_handler(failure, answer_of(first))
            raise Fail("not_retried", answer=answer_of(first), type=failure.params["type"])
        raise failure
    answer = world.scenarios[scenario].answer
    if not (isinstance(run.answer, str) and answer in run.answer):
        expect_replies_whole(run, world)
        raise Fail("reply_missing", expected=answer, got=shown(run.answer))


def expect_waits(learner, run, failed_rounds: list[int], retry_after: float | None = None):
    """A wait before each retry, and none after the last request: sleep was called after each failed
    request, before the next one, for retry_delay(attempts failed so far): with a Retry-After, at
    least that long; without one, the backoff. A wait that retry_delay (TODO 2.2) itself gets wrong
    is its check's failure, not this one's, when it still shows what complete() asked retry_delay;
    when it can't show it, this check fails too, saying to fix TODO 2.2 first."""
    waits = sleeps(run)
    unasked = [(r, s) for r, s in waits if r not in failed_rounds and r < len(run.exchanges)]
    expect(not unasked, "slept_without_failure", request=unasked[0][0] + 1 if unasked else None,
           waited=unasked[0][1] if unasked else None)
    for number in failed_rounds:
        mine = [s for r, s in waits if r == number]
        expect(mine, "no_wait", request=number, answer=answer_of(run.exchanges[number - 1]))
        waited = seconds(mine[-1]) or 0
        if retry_after is not None and not waited >= retry_after and random_wait(learner, number, waited, retry_after):
            pass  # the wait retry_delay gives with the header, jittered: TODO 2.2's failure, said there
        elif retry_after is not None and not waited >= retry_after:
            own = learner.call("retry_delay", number, f"{retry_after:g}")
            if not (seconds(own) or 0) >= retry_after:  # it ignores the header: whether complete() passes it is unseen
                raise first_fix("needs_retry_delay", waited=mine[-1], call=f'retry_delay({number}, "{retry_after:g}")',
                                own=own)
            raise Fail("retry_after_not_passed", waited=mine[-1], retry_after=f"{retry_after:g}", own=own)
        wanted = backoff(learner, number)
        if retry_after is None and not near(waited, wanted) and random_wait(learner, number, waited):
            pass  # the wait retry_delay gives for this attempt, jittered more than ±20%: TODO 2.2's failure
        elif retry_after is None and not near(waited, wanted):
            own = seconds(learner.call("retry_delay", number))
            if own is not None and near(own, wanted):
                raise Fail("wait_not_retry_delay", request=number, waited=mine[-1], own=own)
            # retry_delay is off: the wait is still its answer for this attempt if it matches it, and not the next one's
            if own is None or not near(waited, own) or near(own, seconds(learner.call("retry_delay", number + 1)) or 0):
                raise first_fix("needs_retry_delay", waited=mine[-1], call=f"retry_delay({number})", own=own)
    after = [s for r, s in waits if r >= len(run.exchanges)]
    expect(not after, "slept_after_last", request=len(run.exchanges), waited=after[0] if after else None)


def random_wait(learner, number: int, waited: float, retry_after: float | None = None) -> bool:
    """For a retry_delay that gives another wait at each call (random jitter), which no single call
    matches: whether complete() waited what it gives after `number` failed attempts (with the
    header), judged on many draws, never on one; else the Fail that says what complete() asked
    instead, or that it can't be seen. False for a retry_delay that gives one wait: the caller
    compares it."""
    header = None if retry_after is None else f"{retry_after:g}"
    call = f"retry_delay({number})" if header is None else f'retry_delay({number}, "{header}")'
    try:
        own = delays(learner, number, header)
    except Fail:
        return False  # no wait at all: the checks after say what
    if len(own) == 1:
        return False
    # what complete() would wait had it asked the wrong question: no header, or the next attempt's
    wrong = delays(learner, number) if header is not None else delays(learner, number + 1)
    if not apart(own, wrong):  # retry_delay gives the same either way: which one complete() asked is unseen
        raise first_fix("needs_retry_delay_random", call=call)
    if within(waited, own):
        return True
    if header is not None:
        expect(nearest(waited, {False: wrong, True: own}), "retry_after_not_passed_random", request=number,
               retry_after=header)
        return True
    others = {number + 1: wrong}
    try:
        others[number - 1] = delays(learner, number - 1)  # counted from 0
    except Fail:
        pass  # retry_delay(0) raises: not what complete() asked
    got = nearest(waited, {**others, number: own})
    expect(got == number, "wait_not_retry_delay_random", request=number, other=got)
    return True


def expect_unavailable(run, failure, model: str, last: str | None = None):
    """The call ended with ModelUnavailable, naming the model, and `last` (the last failure's HTTP
    status) said outside the model's name, which holds the fault plan."""
    expect(failure is not None, "no_clear_error", got=shown(run.answer), answers=len(run.exchanges))
    kind, message = failure.params["type"], failure.params["message"]
    expect(kind == "ModelUnavailable", "not_model_unavailable", type=kind, message=message)
    expect(model in message, "error_without_model", model=model, message=message)
    if last is not None:
        expect(last in message.replace(model, ""), "error_without_failure", message=message,
               answer=answer_of(run.exchanges[-1]))


# ---------------------------------------------------------------- TODO 1.1 load_config

def env_of(world, **changes) -> dict:
    e = endpoint(world)
    env = {"OPENAI_BASE_URL": e["base_url"], "OPENAI_API_KEY": e["api_key"], "OPENAI_MODEL": e["model"],
           "HOME": "/tmp", "LANG": "C.UTF-8"}
    env.update(changes)
    return {name: value for name, value in env.items() if value is not None}


def load_config(learner, env: dict):
    got = learner.call("load_config", env)
    expect(getattr(got, "type", None) == "Config", "not_a_config", got=shown(got))
    return got


@check("1.1", points=1, en="the base URL, key and model come from the environment it is given; no base URL "
       "(unset or empty): OpenAI's", zh="base URL、key 和模型名都取自传入的环境变量；没设（或为空）base URL 时用 OpenAI 的")
def test_config_from_env(learner, world):
    e = endpoint(world)
    got = load_config(learner, env_of(world))
    for field, variable in (("base_url", "OPENAI_BASE_URL"), ("api_key", "OPENAI_API_KEY"), ("model", "OPENAI_MODEL")):
        value = got.fields.get(field)
        expect(value == e[field], "config_field_wrong", field=field, variable=variable,
               expected=e[field], got=shown(value))
    unset = load_config(learner, env_of(world, OPENAI_BASE_URL=None)).fields.get("base_url")
    expect(isinstance(unset, str) and unset.rstrip("/") == DEFAULT_BASE_URL, "base_url_default_lost",
           got=shown(unset), expected=DEFAULT_BASE_URL)
    # `export OPENAI_BASE_URL=` sets it to "": no URL, so unset (base_url="" fails at the first
    # request with "Connection error", far from its cause)
    empty = load_config(learner, env_of(world, OPENAI_BASE_URL="")).fields.get("base_url")
    expect(isinstance(empty, str) and empty.rstrip("/") == DEFAULT_BASE_URL, "base_url_empty_kept",
           got=shown(empty), expected=DEFAULT_BASE_URL)
    # the grader's process has no OPENAI_* variable, so a setting read from os.environ, where `env`
    # lacks it, changes nothing here: the source shows it
    read = environ_read(learner.syntax_tree())
    if read:
        raise Fail("environ_read", code=read[0], line=read[1])


ENVIRON = ("os.environ", "os.getenv", "environ", "getenv")  # the process's environment, as code names it


def environ_read(tree: ast.Module | None) -> tuple[str, int] | None:
    """(the code, its line) where load_config, or a function of the file it calls, reads the
    process's environment: os.environ or os.getenv, or a module-level name made from them (a copy
    taken at import). Its default argument (env=os.environ) is not a read."""
    if tree is None:
        return None
    names = lambda node: [n for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute))]
    copies = {t.id for n in tree.body if isinstance(n, ast.Assign)
              for t in n.targets if isinstance(t, ast.Name) and any(ast.unparse(m) in ENVIRON for m in names(n.value))}
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    seen, todo = set(), ["load_config"]
    while todo:
        name = todo.pop()
        if name in seen or name not in defs:
            continue
        seen.add(name)
        own = {a.arg for a in ast.walk(defs[name].args) if isinstance(a, ast.arg)}  # a parameter named environ
        fallback = {id(n) for n in when_not_given(defs[name], own) for n in ast.walk(n)}
        for statement in defs[name].body:
            for node in names(statement):
                if isinstance(node, ast.Name) and node.id in own or id(node) in fallback:
                    continue
                if ast.unparse(node) in ENVIRON or isinstance(node, ast.Name) and node.id in copies:
                    return ast.unparse(node), node.lineno
                if isinstance(node, ast.Name):
                    todo.append(node.id)
    return None


def when_not_given(function: ast.FunctionDef, params: set[str]) -> list[ast.AST]:
    """The code that runs only when a parameter is not given (`if env is None: env = os.environ`,
    `os.environ if env is None else env`, `env or os.environ`): a fallback for calls without one,
    which the checks never make."""
    def missing(test, negated=False) -> bool:  # `param is None` (or `is not None`, negated)
        return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id in params
                and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot if negated else ast.Is)
                and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None)
    found = []
    for node in ast.walk(function):
        if isinstance(node, ast.If) and missing(node.test):
            found += node.body
        elif isinstance(node, ast.IfExp) and (missing(node.test) or missing(node.test, negated=True)):
            found.append(node.body if missing(node.test) else node.orelse)
        elif (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and isinstance(node.values[0], ast.Name)
              and node.values[0].id in params):
            found += node.values[1:]
    return found


def expect_timeout(timeout, expected: float):
    expect(isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout == expected,
           "timeout_not_number", got=repr(timeout) if isinstance(timeout, str) else shown(timeout), expected=expected)


def expect_empty_unset(learner, world, variable: str, field: str, same=()):
    """`export X=` sets X to "": an optional variable that is empty counts as unset (the README), so
    load_config gives the same `field` as with `variable` unset (or one of `same`, values that mean
    unset as well: "" for a name or URL, which a loop tests for truth as it tests None), and raises
    nothing."""
    unset = load_config(learner, env_of(world)).fields.get(field)
    try:
        got = learner.call("load_config", env_of(world, **{variable: ""}))
    except Fail as failure:
        if failure.key != "crashed":
            raise
        raise Fail("optional_empty_refused", variable=variable, type=failure.params["type"],
                   message=failure.params["message"]) from None
    expect(getattr(got, "type", None) == "Config", "not_a_config", got=shown(got))
    value = got.fields.get(field)
    expect(value == unset or value in same, "optional_empty_kept", variable=variable, field=field, got=shown(value),
           unset=shown(unset))


@check("1.1", points=1, en="optional: a fallback model and a timeout, in seconds",
       zh="可选项：备用模型和超时秒数")
def test_config_optional(learner, world):
    e = endpoint(world)
    got = load_config(learner, env_of(world, OPENAI_FALLBACK_MODEL=e["fallback_model"],
                                      OPENAI_TIMEOUT=f"{e['timeout']:g}"))
    expect(got.fields.get("fallback_model") == e["fallback_model"], "config_field_wrong", field="fallback_model",
           variable="OPENAI_FALLBACK_MODEL", expected=e["fallback_model"], got=shown(got.fields.get("fallback_model")))
    expect_timeout(got.fields.get("timeout"), e["timeout"])
    fraction = e["timeout"] + 0.5  # seconds need not be whole: int("20.5") raises
    expect_timeout(load_config(learner, env_of(world, OPENAI_TIMEOUT=f"{fraction:g}")).fields.get("timeout"), fraction)
    bare = load_config(learner, env_of(world))
    expect(bare.fields.get("fallback_model") is None, "optional_unset_not_none", field="fallback_model",
           variable="OPENAI_FALLBACK_MODEL", got=shown(bare.fields.get("fallback_model")))
    timeout = bare.fields.get("timeout")
    if not (isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout == DEFAULT_TIMEOUT):
        expect_readme_constant(learner, "DEFAULT_TIMEOUT", timeout=shown(timeout))
        raise Fail("timeout_default_lost", got=shown(timeout), expected=f"{DEFAULT_TIMEOUT:g}")
    expect_empty_unset(learner, world, "OPENAI_FALLBACK_MODEL", "fallback_model", same=("",))
    expect_empty_unset(learner, world, "OPENAI_TIMEOUT", "timeout")  # the default, not an error


REFUSED = {"OPENAI_API_KEY": "api_key", "OPENAI_MODEL": "model", "OPENAI_TIMEOUT": "timeout"}  # variable: field


def expect_refused(learner, world, variable: str, setting, not_named: str, accepted: str, **params):
    """load_config raises ConfigError naming `variable` when it is `setting` (None: unset), and only
    then: set right, the same environment gives a Config that has it. The message says it is that
    variable: it names no other one, or (an example setup line naming them all) it is not the message
    another variable's refusal gives, which one message for every problem is. A setting that can't be
    used is said at start-up, where it is set, not later as a 401, a 404 or a float() traceback."""
    e = endpoint(world)
    field = REFUSED[variable]
    if field == "timeout":
        expect_timeout(load_config(learner, env_of(world, **{variable: f"{e[field]:g}"})).fields.get(field), e[field])
    else:
        got = load_config(learner, env_of(world)).fields.get(field)
        expect(got == e[field], "config_field_wrong", field=field, variable=variable, expected=e[field], got=shown(got))
    try:
        got = learner.call("load_config", env_of(world, **{variable: setting}))
    except Fail as failure:
        if failure.key != "crashed":
            raise
        message = failure.params["message"]
        missing = setting in (None, "")
        named = (raised_kind(failure, "ConfigError") and variable in message
                 and (not any(other in message for other in REFUSED if other != variable)
                      or message != refusal(learner, world, COUNTERPART[variable, missing], setting if missing else None)))
        expect(named, not_named, variable=variable, type=failure.params["type"], message=message, **params)
        return
    raise Fail(accepted, variable=variable, got=shown(got), **params)


def raised_kind(failure: Fail, name: str) -> bool:
    """Whether the learner's code raised an instance of its class `name`: that class, or one of its own
    that subclasses it (class MissingSetting(ConfigError) is a ConfigError), as the README's
    "raises ConfigError" reads, and as `except ConfigError` catches it."""
    kinds = failure.params.get("kinds") or [failure.params.get("type") or ""]
    return any(str(kind).rpartition(".")[2] == name for kind in kinds)


# The other setting a refusal's message is told apart from, when it names other variables too (an
# example setup line: "export OPENAI_BASE_URL=… OPENAI_API_KEY=… OPENAI_MODEL=…"): a message that
# says which variable is the problem reads differently when another one is. Keyed by the variable
# and whether it is missing (unset or empty) rather than wrong.
COUNTERPART = {("OPENAI_API_KEY", True): "OPENAI_MODEL", ("OPENAI_MODEL", True): "OPENAI_API_KEY",
               ("OPENAI_TIMEOUT", False): "OPENAI_API_KEY"}


def refusal(learner, world, variable: str, setting) -> str | None:
    """The message load_config raises with when `variable` is `setting` (None: unset); None when it
    raises nothing (its own check says so)."""
    try:
        learner.call("load_config", env_of(world, **{variable: setting}))
    except Fail as failure:
        return failure.params.get("message") if failure.key == "crashed" else None
    return None


@check("1.1", points=1, en="a missing or empty key or model: ConfigError naming the variable",
       zh="缺少或为空的 key 或模型名：抛出 ConfigError，并指出是哪个变量")
def test_config_missing(learner, world):
    for variable in ("OPENAI_API_KEY", "OPENAI_MODEL"):
        expect_refused(learner, world, variable, None, "missing_not_named", "missing_accepted")
        expect_refused(learner, world, variable, "", "empty_not_named", "empty_accepted")  # `export X=` sets it empty


@check("1.1", points=1, en="optional: a fallback server, with its own key",
       zh="可选项：备用服务器及其 key")
def test_config_fallback_server(learner, world):
    e = endpoint(world)
    got = load_config(learner, env_of(world, OPENAI_FALLBACK_BASE_URL=e["fallback_base_url"],
                                      OPENAI_FALLBACK_API_KEY=e["fallback_api_key"]))
    for field, variable in (("fallback_base_url", "OPENAI_FALLBACK_BASE_URL"),
                            ("fallback_api_key", "OPENAI_FALLBACK_API_KEY")):
        value = got.fields.get(field)
        expect(value == e[field], "config_field_wrong", field=field, variable=variable, expected=e[field],
               got=shown(value))
    bare = load_config(learner, env_of(world)).fields
    expect(bare.get("fallback_base_url") is None, "optional_unset_not_none", field="fallback_base_url",
           variable="OPENAI_FALLBACK_BASE_URL", got=shown(bare.get("fallback_base_url")))
    # unset, the fallback's key is the same key: None says it, and so does the primary's key
    expect(bare.get("fallback_api_key") in (None, e["api_key"]), "fallback_key_default",
           got=shown(bare.get("fallback_api_key")))
    expect_empty_unset(learner, world, "OPENAI_FALLBACK_BASE_URL", "fallback_base_url", same=("",))
    expect_empty_unset(learner, world, "OPENAI_FALLBACK_API_KEY", "fallback_api_key", same=(None, "", e["api_key"]))


BAD_TIMEOUTS = ("soon", "twenty", "later", "none")  # text no one reads as seconds


@check("1.1", points=1, en="a timeout that is no number: ConfigError naming OPENAI_TIMEOUT",
       zh="超时不是数字：抛出 ConfigError，并指出 OPENAI_TIMEOUT")
def test_config_bad_timeout(learner, world):
    value = BAD_TIMEOUTS[world.seed % len(BAD_TIMEOUTS)]
    expect_refused(learner, world, "OPENAI_TIMEOUT", value, "bad_value_not_named", "bad_value_accepted",
                   value=repr(value))


# ---------------------------------------------------------------- TODO 1.2 make_client

def one_request(learner, world, **changes):
    run, failure = ask_once(learner, world, **changes)
    if not run.exchanges:
        raise failure or Fail("no_request", func="ask_once")
    return run.exchanges[0]


@check("1.2", points=1, en="requests go to the configured base URL, with the configured key",
       zh="请求发往配置的 base URL，并带上配置的 key")
def test_client_endpoint(learner, world):
    e = endpoint(world)
    exchange = one_request(learner, world)
    expected = e["base_url"].rstrip("/") + "/chat/completions"
    expect(exchange.url == expected, "wrong_url", url=exchange.url, expected=expected, base_url=e["base_url"])
    key = sent_key(exchange)
    expect(key == e["api_key"], "wrong_key", got=masked(key), expected=masked(e["api_key"]))
    # a second config, in the same process: the fallback server's, as run_agent gives it
    other = one_request(learner, world, base_url=e["fallback_base_url"], api_key=e["fallback_api_key"])
    expected = chat_url(e["fallback_base_url"])
    expect(other.url == expected and sent_key(other) == e["fallback_api_key"], "client_reused",
           url=other.url, expected=expected, base_url=e["fallback_base_url"], got=masked(sent_key(other)),
           wanted=masked(e["fallback_api_key"]))


@check("1.2", points=1, en="a timeout of its own: config.timeout, not the SDK's ten minutes",
       zh="自己设定超时：用 config.timeout，而不是 SDK 默认的十分钟")
def test_client_timeout(learner, world):
    e = endpoint(world)
    exchange = one_request(learner, world)
    got = seconds(exchange.headers.get("x-stainless-read-timeout"))
    expect(got == e["timeout"], "wrong_timeout", got=f"{got:g}" if got is not None else "none",
           expected=f"{e['timeout']:g}")


@check("1.2", points=1, en="no retries hidden in the SDK: max_retries=0",
       zh="SDK 里不藏重试：max_retries=0")
def test_client_no_sdk_retries(learner, world):
    run, failure = ask_once(learner, world, failing(world, "500*"))
    expect(run.exchanges, "no_request", func="ask_once")
    expect_no_sdk_retries(run)


# ---------------------------------------------------------------- TODO 2.1 build_request

CUT_SHORT = "the stop sequence cuts the model's replies short"  # the cause of every failure it brings


def model_replies(world) -> list[str]:
    """The mock's first reply, sent with no stop sequence, to a question that needs a tool (it runs
    on after its Action Input with an Observation it made up) and to one it answers at once."""
    replies = []
    for scenario in ("weather", "no_tool"):
        body = {"model": endpoint(world)["model"],
                "messages": [{"role": "user", "content": world.scenarios[scenario].question}]}
        replies.append(world.session(scenario).complete(body)["choices"][0]["message"]["content"])
    return replies


def cut_at(reply: str, stop) -> str:
    """The reply as the API returns it for a request with this `stop`: up to the first stop sequence."""
    sequences = [stop] if isinstance(stop, str) else stop if isinstance(stop, list) else []
    ends = [reply.find(s) for s in sequences if isinstance(s, str) and s and s in reply]
    return reply[:min(ends)] if ends else reply


def stop_problem(replies: list[str], stop) -> Fail | None:
    """What a request's `stop` does wrong, judged by what it does to the model's replies: any stop
    sequence will do ("Observation:", "\\nObservation", …) that cuts the made-up Observation and
    nothing the model must write."""
    said = repr(stop) if isinstance(stop, str) else shown(stop)  # "\n" as written, not as a line break
    for reply in replies:
        cut = cut_at(reply, stop)
        short = ("stop_cuts_request" if read_request(cut) != read_request(reply)
                 else "stop_cuts_answer" if read_final(cut) != read_final(reply) else None)
        if short:
            failure = Fail(short, got=said, cut=cut, reply=reply)
            failure.cause = CUT_SHORT
            return failure
        if written_after_request(cut):
            return Fail("no_stop", got=said, after=written_after_request(cut))
    return None


def expect_replies_whole(run, world):
    """For a reply or an answer that went wrong: a stop sequence that cut the model's replies short
    (TODO 2.1) explains it, and is said once."""
    replies = model_replies(world)
    for exchange in run.exchanges:
        problem = stop_problem(replies, exchange.request.get("stop"))
        if problem and problem.cause == CUT_SHORT:
            raise problem


@check("2.1", points=1, en="the model and the messages it is given, and stop at \"Observation:\"",
       zh="用传入的模型名和 messages，并在 \"Observation:\" 处停止")
def test_build_request(learner, world):
    model = endpoint(world)["fallback_model"]
    messages = [{"role": "system", "content": "You answer in the ReAct format."},
                {"role": "user", "content": world.scenarios["weather"].question}]
    got = learner.call("build_request", model, messages)
    expect(isinstance(got, dict), "request_not_dict", got=shown(got))
    expect(got.get("model") == model, "request_model", got=shown(got.get("model")), expected=model)
    expect(got.get("messages") == messages, "request_messages", got=shown(got.get("messages")))
    problem = stop_problem(model_replies(world), got.get("stop"))
    if problem:
        raise problem
    # create(timeout=…) overrides the client's timeout for that request (the SDK then sends it as
    # x-stainless-read-timeout): build_request knows no config, so OPENAI_TIMEOUT would never apply
    timeout = endpoint(world)["timeout"]
    expect("timeout" not in got or seconds(got["timeout"]) == timeout, "request_timeout",
           got=shown(got.get("timeout")), expected=f"{timeout:g}")


# ---------------------------------------------------------------- TODO 2.2 retry_delay

def delay(learner, attempt_number, retry_after=None) -> float:
    """retry_delay's wait: a number, as time.sleep takes it (a str such as "7" is a TypeError there)."""
    got = learner.call("retry_delay", attempt_number, retry_after)
    expect(isinstance(got, (int, float)) and not isinstance(got, bool), "delay_not_number",
           call=f"retry_delay({attempt_number}, {retry_after!r})", got=repr(got) if isinstance(got, str) else shown(got))
    return float(got)


# The README sets these numbers, and the exercise file gives them so: the backoff is "1 s, 2 s, 4 s,
# 8 s…, capped (30 s here)", and an unset OPENAI_TIMEOUT is 30 seconds. The checks judge the waits and
# the default against them, never against the file's own copy: a file that sets MAX_DELAY = BASE_DELAY
# (no backoff at all) or both to 0 (no wait at all) would pass with any retry_delay of the same shape.
BASE_DELAY = 1.0
MAX_DELAY = 30.0
DEFAULT_TIMEOUT = 30.0
DEFAULT_BASE_URL = "https://api.openai.com/v1"  # an unset OPENAI_BASE_URL: the SDK's own default
README_CONSTANTS = {"BASE_DELAY": BASE_DELAY, "MAX_DELAY": MAX_DELAY, "DEFAULT_TIMEOUT": DEFAULT_TIMEOUT}


def expect_readme_constant(learner, name: str, **params):
    """For a check that failed: a file that sets `name` to another number than the README's says so,
    the cause of the failure, rather than what the number it set did to the check."""
    found = learner.constant(name, (int, float))
    if found is not None and float(found) != README_CONSTANTS[name]:
        raise Fail(name.lower() + "_changed", got=f"{float(found):g}", expected=f"{README_CONSTANTS[name]:g}", **params)


JITTER = 0.2  # the README allows random jitter of ±20% around each backoff wait
DRAWS = 32  # calls of a retry_delay that gives another wait each time (random jitter) that a check looks at


def delays(learner, attempt_number, retry_after=None) -> list[float]:
    """retry_delay's waits for the same arguments: one when it gives the same wait twice; DRAWS when
    it does not (random jitter). A single random draw never decides a check, nor is it quoted: the
    same file and seed must give the same report at every run."""
    waits = [delay(learner, attempt_number, retry_after), delay(learner, attempt_number, retry_after)]
    if waits[0] == waits[1]:
        return waits[:1]
    return waits + [delay(learner, attempt_number, retry_after) for _ in range(DRAWS - 2)]


def nearest(wait: float, answers: dict):
    """The key of the draws (retry_delay's waits for some arguments) whose mean a wait is nearest
    to, by ratio: a wait complete() got from a random retry_delay equals none of them. The first key
    when the wait is no positive number."""
    def distance(key):
        typical = middle(answers[key])
        return abs(math.log(wait / typical)) if wait > 0 and typical > 0 else math.inf
    return min(answers, key=distance)


def middle(waits: list[float]) -> float:
    """The mean of the draws: of DRAWS draws, it strays far less from the jitter's middle than one."""
    return math.fsum(waits) / len(waits)


def apart(waits: list[float], others: list[float]) -> bool:
    """Whether two sets of draws are told apart by their means: a factor of √2 at least, half the
    backoff's doubling, far more than the means of DRAWS draws of one jitter ever differ by."""
    a, b = middle(waits), middle(others)
    return abs(math.log(a / b)) >= math.log(2) / 2 if a > 0 and b > 0 else a != b


def within(wait: float, waits: list[float]) -> bool:
    """Whether a wait is one these draws may give: in their range, widened by half of it, so that a
    draw outside the DRAWS seen is still inside."""
    low, high = min(waits), max(waits)
    return low - (high - low) / 2 <= wait <= high + (high - low) / 2


def near(wait: float, expected: float) -> bool:
    return expected * (1 - JITTER) - 1e-9 <= wait <= expected * (1 + JITTER) + 1e-9


def backoff(learner, attempt_number: int) -> float:
    """The README's wait after `attempt_number` failed attempts, with the README's constants."""
    return min(MAX_DELAY, BASE_DELAY * 2 ** (attempt_number - 1))


@check("2.2", points=1, en="exponential backoff: BASE_DELAY, then twice as long each time, at most MAX_DELAY",
       zh="指数退避：先等 BASE_DELAY，之后每次加倍，最多 MAX_DELAY")
def test_backoff(learner, world):
    try:
        expect_backoff(learner)
    except Fail:  # judged with the README's numbers: a file that set others is told so, the cause
        expect_readme_constant(learner, "BASE_DELAY")
        expect_readme_constant(learner, "MAX_DELAY")
        raise


def expect_backoff(learner):
    """retry_delay(1…4) and retry_delay(30) without a header: 1, 2, 4, 8 and 30 seconds (the README's
    BASE_DELAY and MAX_DELAY), each within ±20% if it jitters; the waits grow with the attempt."""
    base, cap = f"{BASE_DELAY:g}", f"{MAX_DELAY:g}"
    drawn = [delays(learner, n) for n in (1, 2, 3, 4)]
    expected = [backoff(learner, n) for n in (1, 2, 3, 4)]
    if any(len(draws) > 1 for draws in drawn):  # random jitter: every draw within ±20%, none quoted
        # the waits grow with the attempt: each attempt's draws, on average, well above the one before's
        # (a doubling; jitter too wide around it is said next)
        expect(middle(drawn[0]) > 0 and all(middle(b) > middle(a) and apart(a, b) for a, b in zip(drawn, drawn[1:])),
               "no_backoff_random")
        expect(all(near(w, e) for draws, e in zip(drawn, expected) for w in draws), "backoff_jitter_wide",
               call="retry_delay(1…4)", expected=", ".join(f"{e:g}" for e in expected), base=base, cap=cap)
    else:
        waits = [draws[0] for draws in drawn]
        shown_waits = ", ".join(f"{w:g}" for w in waits)
        expect(waits[0] > 0 and all(b > a for a, b in zip(waits, waits[1:])), "no_backoff", waits=shown_waits)
        expect(all(near(w, e) for w, e in zip(waits, expected)), "backoff_formula", waits=shown_waits,
               expected=", ".join(f"{e:g}" for e in expected), base=base)
    far = delays(learner, 30)
    if len(far) > 1:  # random jitter: every draw within ±20% of the cap, none quoted
        expect(all(near(w, MAX_DELAY) for w in far), "backoff_jitter_wide", call="retry_delay(30)", expected=cap,
               base=base, cap=cap)
        return
    far = far[0]
    expect(far <= MAX_DELAY * (1 + JITTER), "backoff_unbounded", wait=f"{far:g}", cap=cap)
    expect(near(far, MAX_DELAY), "backoff_cap_wrong", wait=f"{far:g}", cap=cap)


LONGER = int(MAX_DELAY * 4)  # a Retry-After longer than the backoff's cap: a server may ask for that


@check("2.2", points=1, en="a Retry-After header is honoured", zh="遵守 Retry-After 头")
def test_retry_after(learner, world):
    expect_retry_after_read(learner, world)


def expect_retry_after_read(learner, world):
    """retry_delay(n, header) waits at least what a readable header says, and the header is what
    sets it: a longer Retry-After, a longer wait (a wait long enough for any header, the same for all,
    reads none)."""
    waits = {}
    for wanted in (endpoint(world)["retry_after"], LONGER):
        for attempt_number in (1, 2):
            got = waits[wanted, attempt_number] = delays(learner, attempt_number, str(wanted))
            if len(got) > 1:  # random: the header ignored (the backoff's jitter), or jittered itself
                expect(apart(got, delays(learner, attempt_number)), "retry_after_ignored_random",
                       attempt=attempt_number, retry_after=wanted)
                # jitter above the server's wait only is "at least that long", as the README asks
                expect(min(got) >= wanted, "retry_after_jitter", attempt=attempt_number, retry_after=wanted)
                continue
            expect(got[0] >= wanted, "retry_after_ignored", attempt=attempt_number, retry_after=wanted,
                   got=f"{got[0]:g}")
    for attempt_number in (1, 2):
        short, long = waits[endpoint(world)["retry_after"], attempt_number], waits[LONGER, attempt_number]
        moved = apart(short, long) if len(short) > 1 or len(long) > 1 else long[0] > short[0]
        expect(moved, "retry_after_not_read", attempt=attempt_number, short=endpoint(world)["retry_after"],
               long=LONGER)


@check("2.2", points=1, en="a Retry-After it can't read as seconds: backoff, no crash",
       zh="读不懂的 Retry-After（不是秒数）：退回指数退避，不要崩溃")
def test_retry_after_date(learner, world):
    # the header's other form counts once the seconds are read: a retry_delay that reads no header at
    # all (return 1.0) never crashes on a date either. The same failure as the check above, said once.
    expect_retry_after_read(learner, world)
    got = delay(learner, 2, HTTP_DATE)
    expect(got > 0, "bad_retry_after_delay", retry_after=HTTP_DATE, got=f"{got:g}")
    # the backoff: what retry_delay gives with no header at all
    dated, bare = delays(learner, 2, HTTP_DATE), delays(learner, 2)
    same = not apart(dated, bare) if len(dated) > 1 or len(bare) > 1 else near(dated[0], bare[0])
    expect(same, "retry_after_date_not_backoff", retry_after=HTTP_DATE)


# ---------------------------------------------------------------- TODO 2.3 complete

@check("2.3", points=1, en="every request is build_request's as it is: its stop sequence, the client's timeout",
       zh="每个请求都原样用 build_request 的结果：带上它的 stop 序列，用客户端的超时")
def test_requests_stop(learner, world):
    run, failure = ask(learner, world)
    expect(run.exchanges, "no_request", func="ask")
    # create(timeout=…) in complete() overrides the client's timeout, as it would from build_request:
    # judged against make_client's own request (ask_once), so a wrong client costs 1.2 alone
    client = seconds(one_request(learner, world).headers.get("x-stainless-read-timeout"))
    for number, exchange in enumerate(run.exchanges, start=1):
        got = seconds(exchange.headers.get("x-stainless-read-timeout"))
        expect(got == client, "complete_timeout", request=number, got="none" if got is None else f"{got:g}",
               expected="none" if client is None else f"{client:g}")
    replies = model_replies(world)
    for number, exchange in enumerate(run.exchanges, start=1):
        stop = exchange.request.get("stop")
        if stop_problem(replies, stop):
            wanted = learner.call("build_request", exchange.request.get("model"), exchange.request.get("messages"))
            wanted_stop = wanted.get("stop") if isinstance(wanted, dict) else None
            if not wanted_stop:  # no stop sequence to carry: whether complete() sends it can't be seen
                raise first_fix("needs_stop", request=number, got=shown(stop))
            expect(wanted_stop == stop, "request_not_built", request=number, got=shown(stop))


@check("2.3", points=1, en="a 429 (or a 503) with Retry-After: waits that long, then tries again",
       zh="429（或 503）带 Retry-After：等足这么久，再试一次")
def test_rate_limited(learner, world):
    wanted = endpoint(world)["retry_after"]
    for status in (429, 503):  # an overloaded server sends one with its 503 too: the header, not the status, says
        run, failure = ask(learner, world, failing(world, f"{status}@{wanted}"))
        expect_no_sdk_retries(run)
        expect_reply(run, failure, world)
        expect_requests(run, 2)
        expect_waits(learner, run, [1], retry_after=wanted)


@check("2.3", points=1, en="500 then 503: a wait before each retry, then the reply",
       zh="先 500 再 503：每次重试前都等待，最后拿到回复")
def test_server_errors(learner, world):
    run, failure = ask(learner, world, failing(world, "500,503"))
    expect_no_sdk_retries(run)
    expect_reply(run, failure, world)
    expect_requests(run, 3)
    expect_waits(learner, run, [1, 2])


@check("2.3", points=1, en="a request that times out is retried", zh="超时的请求会重试")
def test_timeout(learner, world):
    run, failure = ask(learner, world, failing(world, "timeout"))
    expect_no_sdk_retries(run)
    expect_reply(run, failure, world)
    expect_requests(run, 2)
    expect_waits(learner, run, [1])


@check("2.3", points=1, en="a server that stays down: max_attempts requests, then ModelUnavailable naming the "
       "model and the last failure", zh="服务一直出错：发满 max_attempts 次请求，然后抛出 ModelUnavailable，说明模型和最后一次失败")
def test_server_down(learner, world):
    model = failing(world, "500,502,503*")  # the last failure differs from the first ones
    run, failure = ask(learner, world, model, max_attempts=3)
    expect_no_sdk_retries(run)
    expect_requests(run, 3, failure)
    expect_unavailable(run, failure, model, last="503")
    expect_waits(learner, run, [1, 2])


@check("2.3", points=1, en="an endpoint nobody answers: a clear error, never a hang",
       zh="没人应答的地址：给出清楚的错误，绝不卡住")
def test_unreachable(learner, world):
    model = failing(world, "unreachable*")
    run, failure = ask(learner, world, model, max_attempts=2)
    expect_no_sdk_retries(run)
    expect_requests(run, 2, failure)
    expect_unavailable(run, failure, model)
    expect_waits(learner, run, [1])


def expect_retries_server_errors(learner, world):
    """complete() retries a 5xx: its job, which a check of what it must not retry (a 401, the other
    4xx) counts only once done (a complete() with no retries at all retries nothing). The same
    failure in each check, said once."""
    try:
        run, failure = ask(learner, world, failing(world, "500"))
    except Fail as stop:
        if stop.key in MODEL_CHANGED:  # the TODO that changed the model is named, and charged
            raise
        return  # it retries, and ends otherwise: the checks of retrying say how
    if failure is not None or len(run.exchanges) < 2:
        raise first_fix("needs_retries", requests=len(run.exchanges))


@check("2.3", points=1, en="a wrong key (401) is not retried", zh="key 错误（401）不重试")
def test_wrong_key_not_retried(learner, world):
    run, failure = ask(learner, world, failing(world, "401*"))
    expect_no_sdk_retries(run)
    expect(run.exchanges, "no_request", func="ask")
    expect(len(run.exchanges) == 1, "retried_401", got=len(run.exchanges))
    expect(failure is not None, "no_clear_error", got=shown(run.answer), answers=len(run.exchanges))
    expect(failure.params.get("type") != "ModelUnavailable", "unavailable_for_401")
    expect_retries_server_errors(learner, world)


CLIENT_ERRORS = {"400": ("a request the server refuses", "BadRequestError"),
                 "403": ("no access to the model", "PermissionDeniedError"),
                 "404": ("no such model", "NotFoundError")}  # the README's other 4xx: no retry


@check("2.3", points=1, en="the other 4xx (400, 403, 404) are not retried either: the error is raised as it is",
       zh="其他 4xx（400、403、404）也不重试：错误原样抛出")
def test_client_errors_not_retried(learner, world):
    for status, (what, error) in CLIENT_ERRORS.items():
        run, failure = ask(learner, world, failing(world, f"{status}*"))
        expect_no_sdk_retries(run)
        expect(run.exchanges, "no_request", func="ask")
        expect(len(run.exchanges) == 1, "retried_4xx", status=status, what=what, error=error, got=len(run.exchanges))
        expect(failure is not None, "no_clear_error", got=shown(run.answer), answers=len(run.exchanges))
        expect(failure.params.get("type") != "ModelUnavailable", "unavailable_for_4xx", status=status, what=what,
               error=error)
    expect_retries_server_errors(learner, world)


@check("2.3", points=1, en="a 429 that never ends counts as a failed attempt too: max_attempts requests, then "
       "ModelUnavailable", zh="一直返回 429 也算失败的尝试：发满 max_attempts 次请求，然后抛出 ModelUnavailable")
def test_rate_limited_for_ever(learner, world):
    wanted = endpoint(world)["retry_after"]
    model = failing(world, f"429@{wanted}*")
    try:
        run, failure = ask(learner, world, model, max_attempts=3)
    except Fail as stop:
        if stop.key == "retried_forever":  # every answer a 429: its waits never counted
            raise Fail("rate_limit_not_counted", requests=stop.params["requests"], retry_after=wanted) from None
        raise
    expect_no_sdk_retries(run)
    expect_requests(run, 3, failure)
    expect_unavailable(run, failure, model, last="429")
    expect_waits(learner, run, [1, 2], retry_after=wanted)


# ---------------------------------------------------------------- TODO 3.1 run_agent

def expect_answer(run, failure, world, *expected):
    if failure or not all(isinstance(run.answer, str) and text in run.answer for text in expected):
        expect_replies_whole(run, world)
    if failure:
        raise failure
    for text in expected:
        if not (isinstance(run.answer, str) and text in run.answer):
            expect_replies_kept(run)
            expect_observation_labelled(run.tool_calls, run.exchanges)
        expect(isinstance(run.answer, str) and text in run.answer, "answer_missing", expected=text,
               got=shown(run.answer))
        run.expect_from_model(text)


def expect_replies_kept(run):
    """Each reply that asked for a tool is in the request after it, as an assistant message: the
    model reads its own earlier steps from the messages, and without them asks for the same tool
    again, and never finishes."""
    for number, (exchange, after) in enumerate(zip(run.exchanges, run.exchanges[1:]), start=2):
        asked = read_request(model_words(exchange) or "")
        if asked is None:
            continue
        action = action_naming(asked[0])
        messages = after.request.get("messages")
        kept = any(isinstance(m, dict) and m.get("role") == "assistant" and action.search(str(m.get("content") or ""))
                   for m in messages if isinstance(messages, list))
        expect(kept, "reply_not_kept", request=number, tool=asked[0], input=asked[1])


@check("3.1", points=1, en="one tool, the system prompt first: the answer quotes its real result",
       zh="一个工具，先发系统提示：答案引用它的真实结果")
def test_one_tool(learner, world):
    run, failure = agent(learner, world, "weather")
    city = run.scenario.values["city"]
    expect_answer(run, failure, world, world.weather[city])
    final = read_final(model_words(run.exchanges[-1]) or "")
    expect(not RAW_REPLY.search(run.answer), "raw_reply", got=run.answer, expected=final and final.strip())
    expect_system_prompt_sent(learner, run)


RAW_REPLY = re.compile(r"Final[ _]?Answer\s*[:：]|^[^\S\n]*Thought\s*[:：]", re.IGNORECASE | re.MULTILINE)  # labels: the whole reply


@check("3.1", points=1, en="two tools in turn: weather, then the calculator", zh="依次用两个工具：先查天气，再计算")
def test_two_tools(learner, world):
    run, failure = agent(learner, world, "fahrenheit")
    celsius = float(world.weather[run.scenario.values["hot_city"]].split("°C")[0].split(",")[-1])
    fahrenheit = world.tools["calculate"](f"{celsius:g} * 9 / 5 + 32")
    expect_answer(run, failure, world, f"{fahrenheit}°F")


@check("3.1", points=2, en="the model goes down mid-task: the fallback model carries on from the same messages",
       zh="模型中途宕机：备用模型接着同一份 messages 继续")
def test_fallback_keeps_the_transcript(learner, world):
    e = endpoint(world)
    primary = failing(world, "ok,500*")
    try:
        run, failure = agent(learner, world, "fahrenheit", primary, fallback_model=e["fallback_model"],
                             max_attempts=2)
    except Fail as stop:
        if stop.key in NEVER_ENDS:
            expect_complete_gives_up(learner, world)
        raise
    models = [x.request.get("model") for x in run.exchanges]
    if e["fallback_model"] not in models:
        expect_complete_gives_up(learner, world)  # else it raises no ModelUnavailable to switch on
        expect_switch_per_run(learner, world)
        raise Fail("no_fallback", fallback=e["fallback_model"],
                   ended=f"{failure.params['type']}: {failure.params['message']}" if failure else shown(run.answer))
    switch = models.index(e["fallback_model"])
    before = [m for m in run.exchanges[switch - 1].request.get("messages") or []]
    after = [m for m in run.exchanges[switch].request.get("messages") or []]
    ran = [call.name for call in run.tool_calls if call.name != "sleep"]
    expect(after[:len(before)] == before, "transcript_lost", fallback=e["fallback_model"], got=len(after),
           expected=len(before), tools=", ".join(ran))
    expect(all(m == e["fallback_model"] for m in models[switch:]), "switched_back", models=", ".join(models[switch:]))
    # the switch is the run's own: written into the caller's Config, the caller's next run starts
    # on the fallback (run_agent(question, config, ...): the config is its argument 1)
    expect(1 not in run.outcome.changed_args, "switch_changed_config", fallback=e["fallback_model"])
    urls = [x.url for x in run.exchanges[switch:]]  # no fallback server configured: the same server
    expect(all(url == chat_url(e["base_url"]) for url in urls), "fallback_left_server", fallback=e["fallback_model"],
           base_url=e["base_url"], urls=", ".join(dict.fromkeys(urls)))
    celsius = float(world.weather[run.scenario.values["hot_city"]].split("°C")[0].split(",")[-1])
    expect_answer(run, failure, world, f"{world.tools['calculate'](f'{celsius:g} * 9 / 5 + 32')}°F")
    expect(ran.count("search_weather") == 1, "tool_ran_again", tools=", ".join(ran))


def on_fallback_server(learner, world, scenario, model, unused="fallback_server_unused", **changes):
    """run_agent with a fallback server configured: (run, index of its first request to the fallback
    server, failure). A fallback server never asked is the Fail `unused`."""
    e = endpoint(world)
    try:
        run, failure = agent(learner, world, scenario, model, fallback_base_url=e["fallback_base_url"],
                             max_attempts=2, **changes)
    except Fail as stop:
        if stop.key in NEVER_ENDS:
            expect_complete_gives_up(learner, world)
        raise
    urls = [x.url for x in run.exchanges]
    if chat_url(e["fallback_base_url"]) not in urls:
        expect_complete_gives_up(learner, world)
        expect_client_per_config(learner, world)
        expect_switch_per_run(learner, world)
        if failure and "api_key" in failure.params["message"] and not changes.get("fallback_api_key"):
            raise Fail("fallback_key_none", type=failure.params["type"], message=failure.params["message"])
        raise Fail(unused, fallback=e["fallback_base_url"], base_url=e["base_url"],
                   urls=", ".join(dict.fromkeys(urls)) or "none",
                   ended=f"{failure.params['type']}: {failure.params['message']}" if failure else shown(run.answer))
    return run, urls.index(chat_url(e["fallback_base_url"])), failure


def expect_client_per_config(learner, world):
    """make_client (TODO 1.2) builds a client for the config it is given, a second one too: one that
    hands back the client of an earlier config never reaches the fallback server, whatever run_agent
    asks of it."""
    e = endpoint(world)
    other = one_request(learner, world, base_url=e["fallback_base_url"], api_key=e["fallback_api_key"])
    if other.url != chat_url(e["fallback_base_url"]):
        raise first_fix("needs_client_per_config", url=other.url, base_url=e["fallback_base_url"])


def expect_attempts_before_switch(learner, world, run, switch: int, expected: int):
    """The primary got `expected` requests before the switch (its replies, then config.max_attempts
    = 2 failed attempts): more or fewer is the retry count's mistake, not the switch's; complete's
    (TODO 2.3) when it makes another number of attempts by itself."""
    if switch != expected:
        expect_complete_gives_up(learner, world)
    expect(switch == expected, "attempts_before_switch", got=switch, expected=expected,
           answers=", ".join(answer_of(x) for x in run.exchanges[:switch]))


def expect_fallback_key(learner, world, run, switch: int, expected: str, source: str):
    """Every request to the fallback server carries its key: config.fallback_api_key, or, with none
    configured, the same key. A make_client that sends a key of its own to the primary too ignores
    the key it is given: which key run_agent gives it can't be seen."""
    primary = endpoint(world)["api_key"]
    wrong = next((sent_key(x) for x in run.exchanges[:switch] if sent_key(x) != primary), None)
    if wrong is not None:
        own = sent_key(one_request(learner, world))
        if own != primary:
            raise first_fix("needs_client_key", got=masked(own), expected=masked(primary))
        raise Fail("primary_key_wrong", got=masked(wrong), expected=masked(primary))
    for exchange in run.exchanges[switch:]:
        key = sent_key(exchange)
        expect(key == expected, "fallback_key_wrong", url=exchange.url, got=masked(key), expected=masked(expected),
               source=source)


@check("3.1", points=2, en="the server goes down mid-task: a client for the fallback server, with its own key, "
       "carries on from the same messages", zh="服务器中途宕机：为备用服务器建一个客户端（用它自己的 key），接着同一份 messages 继续")
def test_fallback_server(learner, world):
    e = endpoint(world)
    primary = failing(world, f"{server(e['base_url'])}=ok,500*")  # down on the primary server only
    run, switch, failure = on_fallback_server(learner, world, "fahrenheit", primary,
                                              fallback_api_key=e["fallback_api_key"])
    before = run.exchanges[switch - 1].request.get("messages") or [] if switch else []
    after = run.exchanges[switch].request.get("messages") or []
    ran = [call.name for call in run.tool_calls if call.name != "sleep"]
    expect(after[:len(before)] == before, "transcript_lost", fallback=e["fallback_base_url"], got=len(after),
           expected=len(before), tools=", ".join(ran))
    urls = [x.url for x in run.exchanges[switch:]]
    expect(all(url == chat_url(e["fallback_base_url"]) for url in urls), "switched_back_server",
           urls=", ".join(urls))
    expect_fallback_key(learner, world, run, switch, e["fallback_api_key"], "config.fallback_api_key")
    timeouts = [seconds(x.headers.get("x-stainless-read-timeout")) for x in run.exchanges]  # the first client's: 1.2's
    expect(all(t == timeouts[0] for t in timeouts[switch:]), "fallback_timeout", expected=f"{e['timeout']:g}",
           got=", ".join("none" if t is None else f"{t:g}" for t in timeouts[switch:]))
    models = [x.request.get("model") for x in run.exchanges[switch:]]
    expect(all(m == primary for m in models), "fallback_same_model", expected=primary,
           got=", ".join(map(shown, models)))
    celsius = float(world.weather[run.scenario.values["hot_city"]].split("°C")[0].split(",")[-1])
    expect_answer(run, failure, world, f"{world.tools['calculate'](f'{celsius:g} * 9 / 5 + 32')}°F")
    expect(ran.count("search_weather") == 1, "tool_ran_again", tools=", ".join(ran))


@check("3.1", points=1, en="the fallback server goes down too, after one reply: its model and the same key were "
       "used, then ModelUnavailable reaches the caller", zh="备用服务器回复一次之后也宕机：用过备用模型和同一个 key 之后，ModelUnavailable 交给调用方")
def test_fallback_server_down_too(learner, world):
    e = endpoint(world)
    spare = f"{e['fallback_model']}#ok,500*"
    run, switch, failure = on_fallback_server(learner, world, "weather", failing(world, "500*"), fallback_model=spare)
    expect_fallback_key(learner, world, run, switch, e["api_key"],
                        "config.api_key: no fallback key is configured, so the same key")
    models = [x.request.get("model") for x in run.exchanges[switch:]]
    expect(all(m == spare for m in models), "fallback_model_unused", expected=spare, got=", ".join(map(shown, models)))
    expect(failure is not None, "fallback_down_swallowed", got=shown(run.answer))
    expect(failure.params["type"] == "ModelUnavailable", "not_model_unavailable", type=failure.params["type"],
           message=failure.params["message"])
    expected = 2 + 1 + 2  # the primary's two attempts, the fallback's reply, its two failed attempts
    expect_no_sdk_retries(run)  # the SDK's own retries add requests the loop did not send
    expect_attempts_before_switch(learner, world, run, switch, 2)
    expect(len(run.exchanges) == expected, "fallback_asked_again", expected=expected, got=len(run.exchanges),
           answers=", ".join(answer_of(x) for x in run.exchanges))


@check("3.1", points=1, en="the same model on a fallback server (OPENAI_FALLBACK_MODEL names the model in use): "
       "the fallback server takes over", zh="备用服务器上是同一个模型（OPENAI_FALLBACK_MODEL 就是当前模型）：由备用服务器接手")
def test_fallback_server_same_model(learner, world):
    e = endpoint(world)
    primary = failing(world, f"{server(e['base_url'])}=500*")  # down on the primary server only
    run, _, failure = on_fallback_server(learner, world, "weather", primary, unused="fallback_server_skipped",
                                         fallback_model=primary)
    expect_answer(run, failure, world, world.weather[run.scenario.values["city"]])


@check("3.1", points=1, en="a fallback server and no fallback model: it answers once and goes down too; one "
       "switch, then ModelUnavailable reaches the caller",
       zh="只有备用服务器、没有备用模型：它回复一次后也宕机；只切换一次，然后 ModelUnavailable 交给调用方")
def test_fallback_server_alone_down_too(learner, world):
    run, switch, failure = on_fallback_server(learner, world, "fahrenheit", failing(world, "ok,500*"))  # on each server
    expected = 2 * (1 + 2)  # on each server: a reply, then its two failed attempts
    expect_no_sdk_retries(run)  # the SDK's own retries add requests the loop did not send
    expect_attempts_before_switch(learner, world, run, switch, 1 + 2)
    if failure is not None and failure.params["type"] != "ModelUnavailable" and len(run.exchanges) < expected:
        raise failure  # it stopped on an error of its own (a request the server refused) before the servers did
    expect(len(run.exchanges) == expected, "fallback_server_asked_again", expected=expected,
           got=len(run.exchanges), answers=", ".join(answer_of(x) for x in run.exchanges))
    expect(failure is not None, "fallback_down_swallowed", got=shown(run.answer))
    expect(failure.params["type"] == "ModelUnavailable", "not_model_unavailable", type=failure.params["type"],
           message=failure.params["message"])


def down_from_the_start(learner, world, spare: str, max_steps=None):
    """run_agent with its model down from the first request and `spare` as the fallback model:
    (run, index of the first request to the fallback, failure)."""
    try:
        run, failure = agent(learner, world, "weather", failing(world, "500*"), max_steps, fallback_model=spare,
                             max_attempts=2)
    except Fail as stop:
        if stop.key in NEVER_ENDS:
            expect_complete_gives_up(learner, world)
        raise
    models = [x.request.get("model") for x in run.exchanges]
    if spare not in models:
        expect_complete_gives_up(learner, world)
        expect_switch_per_run(learner, world)
        raise Fail("no_fallback", fallback=spare,
                   ended=f"{failure.params['type']}: {failure.params['message']}" if failure else shown(run.answer))
    expect_no_sdk_retries(run)
    expect_attempts_before_switch(learner, world, run, models.index(spare), 2)
    return run, models.index(spare), failure


@check("3.1", points=1, en="the fallback down from its first request too: config.max_attempts attempts at it as "
       "well, then ModelUnavailable", zh="备用模型从第一个请求起也宕机：同样尝试 config.max_attempts 次，然后抛出 ModelUnavailable")
def test_fallback_down_from_the_start(learner, world):
    run, switch, failure = down_from_the_start(learner, world, f"{endpoint(world)['fallback_model']}#500*")
    expect(len(run.exchanges) - switch == 2, "fallback_attempts", got=len(run.exchanges) - switch, expected=2)
    expect(failure is not None, "fallback_down_swallowed", got=shown(run.answer))
    expect(failure.params["type"] == "ModelUnavailable", "not_model_unavailable", type=failure.params["type"],
           message=failure.params["message"])


@check("3.1", points=1, en="a switch takes no step of its own: with max_steps=2, the fallback's two replies answer",
       zh="切换本身不占一步：max_steps=2 时，备用模型的两次回复就能给出答案")
def test_switch_takes_no_step(learner, world):
    run, switch, failure = down_from_the_start(learner, world, endpoint(world)["fallback_model"], 2)
    replies = len(run.exchanges) - switch
    if failure is None and replies < 2:
        raise Fail("switch_took_a_step", replies=replies, got=quoted(run.answer))
    expect_answer(run, failure, world, world.weather[run.scenario.values["city"]])


@check("3.1", points=1, en="no fallback and the model down: ModelUnavailable reaches the caller",
       zh="没有备用模型而模型宕机：ModelUnavailable 交给调用方")
def test_down_without_fallback(learner, world):
    try:
        run, failure = agent(learner, world, "weather", failing(world, "500*"), max_attempts=2)
    except Fail as stop:
        if stop.key in NEVER_ENDS:
            expect_complete_gives_up(learner, world)
        raise
    if failure is None or failure.params["type"] != "ModelUnavailable":
        expect_complete_gives_up(learner, world)
        expect(failure is not None, "down_swallowed", got=shown(run.answer))
        raise Fail("not_model_unavailable", type=failure.params["type"], message=failure.params["message"])
    expect_asked_first(run, failure)


def expect_asked_first(run, failure):
    """An error that reaches the caller is the server's, passed on: the model was asked first. One
    raised before any request (raise ModelUnavailable, and no loop at all) reports an outage, or a
    wrong key, that nobody saw."""
    expect(run.exchanges, "error_without_request", type=failure.params["type"], message=failure.params["message"])


@check("3.1", points=1, en="a wrong key (401) with a fallback configured: no switch, the error reaches the caller",
       zh="key 错误（401）而配置了备用模型：不切换，错误交给调用方")
def test_wrong_key_no_switch(learner, world):
    e = endpoint(world)
    run, failure = agent(learner, world, "weather", failing(world, "401*"), fallback_model=e["fallback_model"])
    models = [x.request.get("model") for x in run.exchanges]
    if e["fallback_model"] in models and models.index(e["fallback_model"]) > 1:  # complete() retried the 401
        raise first_fix("switch_after_401_retried", fallback=e["fallback_model"],
                        tries=models.index(e["fallback_model"]))
    expect(e["fallback_model"] not in models, "switched_on_401", fallback=e["fallback_model"])
    if failure is None and all(x.status == 200 for x in run.exchanges):  # the 401 never came: complete's doing?
        expect_complete_gives_up(learner, world)
    expect(failure is not None, "no_clear_error", got=shown(run.answer), answers=len(run.exchanges))
    expect_asked_first(run, failure)
    expect_switches_on_outage(learner, world)


def expect_switches_on_outage(learner, world):
    """run_agent switches to its fallback model when its model goes down mid-task (the task of the
    check of the fallback, as it runs it): its job, which a check of when it must not switch (a
    401) counts only once done (a loop with no fallback at all never switches). The same failure in
    each check, said once."""
    e = endpoint(world)
    try:
        run, _ = agent(learner, world, "fahrenheit", failing(world, "ok,500*"), fallback_model=e["fallback_model"],
                       max_attempts=2)
    except Fail as stop:
        if stop.key in MODEL_CHANGED:
            raise
        if stop.key in NEVER_ENDS:
            expect_complete_gives_up(learner, world)
        raise first_fix("needs_switch", fallback=e["fallback_model"]) from None
    if e["fallback_model"] not in [x.request.get("model") for x in run.exchanges]:
        expect_complete_gives_up(learner, world)
        raise first_fix("needs_switch", fallback=e["fallback_model"])


@check("3.1", points=1, en="a reply out of format: the reply, then FORMAT_REMINDER, and the model recovers",
       zh="回复不合格式：先追加这条回复，再追加 FORMAT_REMINDER，模型随后恢复正常")
def test_format_reminder(learner, world):
    run, failure = agent(learner, world, "off_format")
    story = world.scenarios["off_format"]
    slip = story.render(story.turns[0][0].off_format, [])
    if failure and len(run.exchanges) == 1:  # the slip was the only reply: reading it ended the run
        raise Fail("slip_crashed", slip=slip, type=failure.params["type"], message=failure.params["message"])
    if len(run.exchanges) > 1:  # the request after the slip answers it: the slip, then a user message
        messages = run.exchanges[1].request.get("messages") or []
        at = next((i for i, m in enumerate(messages) if m.get("role") == "assistant"
                   and isinstance(m.get("content"), str) and m["content"].strip() == slip.strip()), None)
        expect(at is not None and at + 1 < len(messages) and messages[at + 1].get("role") == "user",
               "slip_not_answered", slip=slip, roles=", ".join(str(m.get("role")) for m in messages))
    expect_answer(run, failure, world, world.weather[run.scenario.values["city"]])


STEP_LIMITS = (2, 5)  # both, not the default 6: a limit typed into the loop meets one of them


@check("3.1", points=1, en="a model that never finishes: exactly max_steps replies, then your own message",
       zh="模型永不结束：恰好 max_steps 次回复，然后返回你自己的提示")
def test_stops_at_max_steps(learner, world):
    for limit in STEP_LIMITS:
        run, failure = attempt(learner, "run_agent", "endless", config(world),
                               registry_arg(world.scenarios["endless"].tools), tool_arg("sleep"), limit)
        if failure:
            raise failure
        expect(len(run.exchanges) == limit, "wrong_step_count", max_steps=limit, calls=len(run.exchanges))
        expect_own_fallback(run, limit)
