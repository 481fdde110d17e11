"""`python -m mock_llm serve` over real HTTP, and `validate.py --live` against it."""
import json
import os
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import processes
import pytest

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module", params=["day07", "day06", "day01", "day02"])
def server(request):
    """A mock server for one lesson, on a free port, for the whole module."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "mock_llm", "serve", "--port", str(port),
                                "--lesson", request.param], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    assert "mock LLM for" in processes.Lines(process.stdout).next()  # it prints once it listens
    yield request.param, f"http://127.0.0.1:{port}/v1"
    process.kill()
    process.wait(timeout=30)


def http(url, body=None):
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


class StandIn(BaseHTTPRequestHandler):
    """A stand-in for a real endpoint, in this process: a subclass says what each request gets."""

    def raw(self) -> bytes:
        return self.rfile.read(int(self.headers["Content-Length"]))

    def body(self):
        return json.loads(self.raw())

    def answer(self, status, body, headers=None):
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except OSError:  # the client gave up first
            pass

    def log_message(self, *args):
        pass


@contextmanager
def serving(handler):
    """A stand-in's base URL, on a free loopback port, while the block runs. No network beyond loopback."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()
        server.server_close()


def live(lesson, base_url, *extra, key="any"):
    env = dict(os.environ, OPENAI_BASE_URL=base_url, OPENAI_API_KEY=key)
    if key is None:
        env.pop("OPENAI_API_KEY")
    return subprocess.run([sys.executable, "validate.py", lesson, "--live", *extra], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_models_and_errors_over_http(server):
    _, base_url = server
    assert http(f"{base_url}/models")[1]["data"][0]["id"] == "mock-react-1"
    status, body = http(f"{base_url}/chat/completions", b"{not json")
    assert status == 400 and body["error"]["type"] == "invalid_request_error"
    status, body = http(f"{base_url}/nowhere", {})
    assert status == 404 and "error" in body
    status, body = http(f"{base_url}/chat/completions", b"[" * 100_000)  # nested past any parser
    assert status == 400 and body["error"]["message"].startswith("We could not parse the JSON body")


def test_the_served_mock_sends_a_429s_retry_after(server):
    """`python -m mock_llm serve`, and the in-process client, send the fault plan's Retry-After
    header with its 429, as the grader's mock does (a retry loop reads it there)."""
    lesson, base_url = server
    body = json.dumps({"model": "mock-react-1#429@3", "messages": [{"role": "user", "content": "hi"}]}).encode()
    request = urllib.request.Request(f"{base_url}/chat/completions", data=body,
                                     headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert (refused.value.code, refused.value.headers["Retry-After"]) == (429, "3")
    import openai

    from mock_llm.http import openai_client
    client = openai_client(lesson)
    with pytest.raises(openai.RateLimitError) as limited:
        client.chat.completions.create(model="mock-react-1#429@3", messages=[{"role": "user", "content": "hi"}])
    assert limited.value.response.headers["retry-after"] == "3"


def test_a_body_the_server_will_not_read_is_refused_at_once(server):
    """A Content-Length of -1 had the server read until the client hung up; a huge one, that many bytes."""
    _, base_url = server
    for length in ("-1", str(10**12)):
        with socket.create_connection(("127.0.0.1", int(base_url.split(":")[2].split("/")[0])), timeout=10) as sock:
            sock.sendall(f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n{{}}".encode())
            assert sock.recv(4096).startswith(b"HTTP/1.0 400"), length


def test_live_runs_the_solution_against_the_server(server):
    lesson, base_url = server
    result = live(lesson, base_url, "--solution")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "round 1" in result.stdout and "your code called" in result.stdout
    expected = {"day07": "AAPL trades at 195.3", "day06": "3 + 5 * 2 = 13", "day01": "→ The final result is 40",
                "day02": "add({'a': 30, 'b': 10}) → 40"}[lesson]
    assert expected in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_live_without_a_key_says_what_to_set(server):
    lesson, base_url = server
    result = live(lesson, base_url, key=None)
    assert result.returncode == 2
    assert "OPENAI_API_KEY" in result.stderr and "Traceback" not in result.stderr


def test_live_against_an_unreachable_endpoint_fails_clearly():
    """The learner's client raises a connection error as against a real server; the run says
    what to check, once."""
    url = f"http://127.0.0.1:{free_port()}/v1"
    result = live("day07", url, "--solution")
    assert result.returncode == 1
    said = " ".join(result.stdout.split())
    assert f"nothing answered at {url}" in said and "Traceback" not in result.stdout
    assert said.count("round 1") == 1  # the other questions are not asked


def test_live_in_a_text_lesson_says_an_unreachable_endpoint_once():
    url = f"http://127.0.0.1:{free_port()}/v1"
    result = live("day06", url, "--solution")
    said = " ".join(result.stdout.split())
    assert result.returncode == 1 and f"could not reach the model while react_agent ran ({url}" in said
    assert said.count("round 1") == 1 and "Traceback" not in result.stdout


def test_live_keeps_the_call_budget_of_a_graded_run(server, tmp_path):
    """A loop with no step limit can't spend the instructor's key: the lesson's budget holds."""
    lesson, base_url = server
    if lesson != "day06":
        pytest.skip("one lesson is enough")
    endless = tmp_path / "day06.py"
    endless.write_text((ROOT / "solutions" / "day06.py").read_text(encoding="utf-8").replace(
        "for _ in range(max_steps):", "while True:").replace(
        "        if not action:\n            return action_input\n", "        if not action:\n            continue\n"),
        encoding="utf-8")
    result = live(lesson, base_url, "--file", str(endless))
    assert result.returncode == 1
    assert "the model was called 25 times" in result.stdout
    assert result.stdout.count("round 25 ") >= 1 and "round 26 " not in result.stdout


# ---------------------------------------------------------------- day12: the agent over real HTTP

@pytest.fixture(scope="module")
def day12_server():
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "mock_llm", "serve", "--port", str(port), "--lesson", "day12"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert "mock LLM for" in processes.Lines(process.stdout).next()
    yield f"http://127.0.0.1:{port}/v1"
    process.kill()
    process.wait(timeout=30)


def day12_solution():
    """The reference solution of day12, imported here: its client talks to the server for real."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("reactlings_day12_solution", ROOT / "solutions" / "day12.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_day12_agent_against_the_mock_server_over_http(day12_server):
    day12 = day12_solution()
    config = day12.load_config({"OPENAI_BASE_URL": day12_server, "OPENAI_API_KEY": "any",
                                "OPENAI_MODEL": "mock-react-1", "OPENAI_TIMEOUT": "10"})
    waits = []
    answer = day12.run_agent("What is the temperature in 北京 today, in degrees Fahrenheit?", config,
                             day12.TOOL_IMPL, sleep=waits.append)
    assert answer.startswith("It is 77") and waits == []
    # the model fails after its first reply: the fallback model carries on from the same messages
    config.model, config.fallback_model, config.max_attempts = "mock-react-1#ok,500*", "mock-react-2", 2
    answer = day12.run_agent("How is the weather in 上海 today?", config, day12.TOOL_IMPL, sleep=waits.append)
    assert answer == "Today in 上海: cloudy, 28°C, humidity 65%." and waits == [1.0]
    config.fallback_model = None
    with pytest.raises(day12.ModelUnavailable, match=r"mock-react-1#ok,500\* gave no reply after 2 attempts"):
        day12.run_agent("What is ReAct, according to the knowledge base?", config, day12.TOOL_IMPL,
                        sleep=waits.append)


def test_the_server_knows_which_server_it_is_asked_as(day12_server):
    """A fault plan that names a server (host:port) fails there only, as over the grader's wire."""
    here = day12_server.split("//")[1].split("/")[0]
    ask = {"messages": [{"role": "user", "content": "How is the weather in 上海 today?"}]}
    status, body = http(f"{day12_server}/chat/completions", dict(ask, model=f"mock-react-1#{here}=500*"))
    assert status == 500, body
    status, body = http(f"{day12_server}/chat/completions", dict(ask, model="mock-react-1#127.0.0.1:1=500*"))
    assert status == 200, body

def test_day12_live_runs_the_solution_against_the_server(day12_server):
    result = live("day12", day12_server, "--solution")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "It is 77°F in 北京 today" in result.stdout and "Traceback" not in result.stdout + result.stderr


@pytest.mark.slow  # the solution's real waits before it gives up on the primary: 1 + 2 + 4 s a question
def test_day12_live_switches_to_the_fallback_server_the_environment_names(day12_server):
    """Nothing listens at OPENAI_BASE_URL: the learner's client gets its connection errors, gives
    up, and the fallback server (OPENAI_FALLBACK_BASE_URL) answers, asked for the same model."""
    dead = f"http://127.0.0.1:{free_port()}/v1"
    env = dict(os.environ, OPENAI_BASE_URL=dead, OPENAI_API_KEY="any", OPENAI_MODEL="mock-react-1",
               OPENAI_FALLBACK_BASE_URL=day12_server)
    env.pop("OPENAI_FALLBACK_MODEL", None)
    result = subprocess.run([sys.executable, "validate.py", "day12", "--live", "--solution"], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=120)
    said = " ".join(result.stdout.split())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no answer (connect)" in said and "It is 77°F in 北京 today" in said
    assert "Traceback" not in result.stdout + result.stderr


# ---------------------------------------------------------------- what --live forwards, and how much

@pytest.fixture
def endpoint():
    """A stand-in for a real endpoint, in this process: it records each request's body and answers
    with a final answer whose `usage` says 400 tokens (the shape of the API's reference response:
    https://platform.openai.com/docs/api-reference/chat/object). No network beyond loopback."""
    seen = []

    class Handler(StandIn):
        def do_POST(self):
            seen.append(self.body())
            self.answer(200, {"id": "chatcmpl-1", "object": "chat.completion", "model": "real-model",
                              "choices": [{"index": 0, "finish_reason": "stop", "message": {
                                  "role": "assistant", "content": "Final Answer: done"}}],
                              "usage": {"prompt_tokens": 300, "completion_tokens": 100, "total_tokens": 400}})

    with serving(Handler) as url:
        yield url, seen


def live_model(base_url, **kwargs):
    from validator.learner.live import LiveModel
    return LiveModel(base_url, "sk-test", "real-model", **kwargs)


def test_live_forwards_only_the_fields_the_lessons_use(endpoint):
    from validator.learner.live import MAX_TOKENS
    base_url, seen = endpoint
    model = live_model(base_url)
    asked = {"model": "gpt-4-32k", "messages": [{"role": "user", "content": "hi"}], "temperature": 0,
             "stop": ["Observation:"], "tools": [], "n": 8, "max_tokens": 100_000, "store": True,
             "service_tier": "priority", "logprobs": True, "top_logprobs": 20, "metadata": {"a": "b"},
             "stream": True}
    assert model.http("POST", "/v1/chat/completions", json.dumps(asked))[0] == 200
    assert seen[-1] == {"model": "real-model", "messages": asked["messages"], "temperature": 0,
                        "stop": ["Observation:"], "tools": [], "n": 1, "max_tokens": MAX_TOKENS}
    model.http("POST", "/v1/chat/completions", json.dumps({"model": "x", "messages": asked["messages"]}))
    assert seen[-1]["max_tokens"] == MAX_TOKENS  # set when the learner's request has none
    model.http("POST", "/v1/chat/completions", json.dumps(dict(asked, max_tokens=None, max_completion_tokens=50)))
    assert (seen[-1]["max_completion_tokens"], "max_tokens" in seen[-1]) == (50, False)  # a smaller one is kept
    assert model.http("POST", "/v1/chat/completions", "[1, 2]")[0] == 400  # not an object: the API's 400
    model.answer("What is 2 + 2?")  # the lesson's own model function: bounded the same way
    assert (seen[-1]["n"], seen[-1]["max_tokens"]) == (1, MAX_TOKENS)


def test_live_has_a_budget_in_tokens(endpoint):
    from mock_llm import Refusal
    base_url, seen = endpoint
    model = live_model(base_url, token_budget=1000)
    request = json.dumps({"model": "x", "messages": [{"role": "user", "content": "hi"}]})
    for _ in range(3):  # each response says it cost 400 tokens
        model.http("POST", "/v1/chat/completions", request)
    with pytest.raises(Refusal) as refused:
        model.http("POST", "/v1/chat/completions", request)
    assert (refused.value.problem, str(refused.value), len(seen), model.tokens) == ("token_budget", "1000", 3, 1200)
    huge = json.dumps({"model": "x", "messages": [{"role": "user", "content": "x" * 8000}]})
    with pytest.raises(Refusal):  # about 2000 tokens: past the budget before it is sent
        live_model(base_url, token_budget=1000).http("POST", "/v1/chat/completions", huge)
    assert len(seen) == 3


def test_live_says_when_a_run_spends_its_tokens(endpoint, tmp_path, monkeypatch):
    """`validate.py day07 --live`, a learner's loop that adds 500 kB to each prompt: over the budget
    at once, so nothing is sent."""
    base_url, seen = endpoint
    growing = tmp_path / "day07.py"
    growing.write_text((ROOT / "solutions" / "day07.py").read_text(encoding="utf-8").replace(
        "messages=messages,", "messages=messages + [{'role': 'user', 'content': 'x' * 500_000}],"),
        encoding="utf-8")
    assert "'x' * 500_000" in growing.read_text(encoding="utf-8")
    result = live("day07", base_url, "--file", str(growing))
    said = " ".join(result.stdout.split())  # as read, wherever a line was wrapped
    assert "tokens of the live model in one run" in said, result.stdout + result.stderr
    assert seen == []
    assert "Traceback" not in result.stdout + result.stderr


# ---------------------------------------------------------------- failures told as a real server gives them

@pytest.fixture
def scripted():
    """A stand-in endpoint that answers its requests by a script, one step each (status, body,
    headers, seconds to wait first), then with a final answer. A step may be a rule instead: a
    function of the request that gives a step, or None for the final answer; it stays. Each
    request's body is kept. No network beyond loopback."""
    script, seen = [], []
    done = threading.Event()  # set at teardown: a step still waiting gives up at once

    class Handler(StandIn):
        def do_POST(self):
            seen.append(self.body())
            step = script[0](seen[-1]) if script and callable(script[0]) else None  # a rule, kept
            status, body, headers, wait = step or (script.pop(0) if script and not callable(script[0]) else (200, {
                "id": "chatcmpl-1", "object": "chat.completion", "model": "real-model",
                "choices": [{"index": 0, "finish_reason": "stop", "message": {
                    "role": "assistant", "content": "Final Answer: done"}}]}, {}, 0))
            if not done.wait(wait):
                self.answer(status, body, headers)

    with serving(Handler) as url:
        yield url, script, seen
        done.set()


def overflow(model):
    """llama.cpp's server's answer to a prompt past its context (real-model-recipe.md, observed)."""
    return (400, {"error": {"code": 400, "message": f"the request exceeds the available context size of "
                            f"{model}, try increasing it", "type": "exceed_context_size_error"}}, {}, 0)


def test_live_text_lesson_says_an_http_error_with_its_status_body_and_model(scripted):
    """An HTTP error is not "could not reach the model": it is told with its status, the model
    asked (not the learner's placeholder) and the start of the body, and the next question is
    still asked (a 400 for one prompt says nothing about the next)."""
    base_url, script, seen = scripted
    script += [overflow("local-7b"), (500, "<html>Internal Server Error</html>", {}, 0)]
    result = live("day06", base_url, "--solution", "--model", "local-7b")
    said = " ".join(result.stdout.split())
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"HTTP 400 from local-7b at {base_url}: the request exceeds the available context size" in said
    assert f"HTTP 500 from local-7b at {base_url}: (not JSON) <html>Internal Server Error</html>" in said
    assert "could not reach" not in said and "Traceback" not in result.stdout + result.stderr
    assert [body["model"] for body in seen] == ["local-7b"] * len(seen) and len(seen) >= 3  # the third question ran


def test_live_stops_asking_when_the_key_is_refused(scripted):
    base_url, script, seen = scripted
    refused = (401, {"error": {"message": "Incorrect API key provided: sk-test.", "type": "invalid_request_error",
                               "code": "invalid_api_key"}}, {}, 0)
    script += [refused] * 4
    result = live("day07", base_url, "--solution")
    assert result.returncode == 1 and len(seen) == 1, result.stdout
    said = " ".join(result.stdout.split())
    assert "Incorrect API key provided" in said and "Traceback" not in result.stdout + result.stderr
    assert f"{base_url} refused the request (HTTP 401): check OPENAI_API_KEY" in said  # what to do, after their error


def test_live_says_what_to_check_when_the_learners_client_gets_a_404(scripted):
    base_url, script, seen = scripted
    script += [(404, "<html>Not Found</html>", {}, 0)] * 4
    result = live("day07", base_url, "--solution", "--model", "no-such-model")
    said = " ".join(result.stdout.split())
    assert result.returncode == 1 and len(seen) == 1, result.stdout
    assert f"{base_url} has no such endpoint or model (HTTP 404): check OPENAI_BASE_URL" in said
    assert "no-such-model (--model)" in said and "Traceback" not in result.stdout + result.stderr


def test_live_gives_the_learners_client_the_429_and_its_retry_after(scripted):
    """day12 live: a rate limit reaches the learner's own client with its Retry-After header, so
    their retry code runs (it sleeps for real here: 1 s), and the run goes on to an answer."""
    base_url, script, seen = scripted
    script.append((429, {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}},
                   {"Retry-After": "1"}, 0))
    env_model = dict(os.environ, OPENAI_BASE_URL=base_url, OPENAI_API_KEY="any", OPENAI_MODEL="from-env")
    result = subprocess.run([sys.executable, "validate.py", "day12", "--live", "--solution"], cwd=ROOT,
                            env=env_model, capture_output=True, text=True, timeout=120)
    said = " ".join(result.stdout.split())
    assert "HTTP 429 · from-env" in said and "retry-after: 1" in said, result.stdout + result.stderr
    assert len(seen) >= 2 and seen[0]["messages"] == seen[1]["messages"]  # the same request, again
    assert "done" in said and "Traceback" not in result.stdout + result.stderr


def test_live_waits_as_long_as_the_learners_client_would(scripted):
    """The timeout is the one the learner's openai client was built with (its SDK sends it as
    x-stainless-read-timeout); past it the client gets a timeout of its own, and the transcript
    says no answer came."""
    from mock_llm.session import NetworkFault
    from validator.learner.live import REQUEST_TIMEOUT, RUN_LIMIT, client_timeout
    base_url, script, seen = scripted
    script.append((200, {}, {}, 30))  # a model that would take 30 s
    model = live_model(base_url)
    request = json.dumps({"model": "x", "messages": [{"role": "user", "content": "hi"}]})
    with pytest.raises(NetworkFault) as stalled:
        model.http("POST", "/v1/chat/completions", request, {"X-Stainless-Read-Timeout": "0.5"})
    assert stalled.value.network == "timeout" and "no answer within 0.5 s" in str(stalled.value)
    assert model.transcript[-1].network == "timeout" and len(seen) == 1
    assert client_timeout({}) == client_timeout({"x-stainless-read-timeout": "soon"}) == REQUEST_TIMEOUT
    assert client_timeout({"x-stainless-read-timeout": "-1"}) == REQUEST_TIMEOUT
    assert client_timeout({"x-stainless-read-timeout": "1e9"}) == RUN_LIMIT  # at most a run's limit


@pytest.fixture
def llama_like():
    """A stand-in for llama-cpp-python's server as observed (../shared/real-model-recipe.md): tool
    calls come with `"content": null` and ids of its own shape, answers name the server's own model
    (its alias, whatever was asked), `usage` is counted, and an assistant message sent back
    without a string content gets HTTP 500 "'dict object' has no attribute 'content'". It calls
    the first tool offered once per user turn, then answers. Loopback only."""
    refused = []
    usage = {"prompt_tokens": 120, "completion_tokens": 12, "total_tokens": 132}

    def reply(body):
        messages = body["messages"]
        if any(m.get("role") == "assistant" and not isinstance(m.get("content"), str) for m in messages):
            refused.append(messages)
            return 500, {"error": {"code": 500, "message": "'dict object' has no attribute 'content'",
                                   "type": "server_error"}}
        since_user = messages[max(i for i, m in enumerate(messages) if m.get("role") == "user"):]
        if body.get("tools") and not any(m.get("role") == "tool" for m in since_user):
            name = body["tools"][0]["function"]["name"]
            message = {"role": "assistant", "content": None, "tool_calls": [{
                "id": f"call__0_{name}_cmpl-1", "type": "function", "function": {"name": name, "arguments": "{}"}}]}
            return 200, {"id": "cmpl-1", "object": "chat.completion", "model": "llama", "usage": usage,
                         "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}]}
        return 200, {"id": "cmpl-2", "object": "chat.completion", "model": "llama", "usage": usage, "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "done"}}]}

    class Handler(StandIn):
        def do_GET(self):  # /v1/models: the one model, by its alias
            self.answer(200, {"object": "list", "data": [{"id": "llama", "object": "model", "owned_by": "me"}]})

        def do_POST(self):
            self.answer(*reply(self.body()))

    with serving(Handler) as url:
        yield url, refused


@pytest.mark.parametrize("lesson", ["day07", "day09", "day10", "day11"])
def test_the_taught_tool_loop_goes_round_twice_on_llama_cpps_server(llama_like, lesson):
    """The assistant turn the solutions send back (content a string) is one every server takes:
    the tool call → result → answer round completes where `exclude_none` alone got a 500."""
    base_url, refused = llama_like
    result = live(lesson, base_url, "--solution")
    assert refused == [], refused[0][-3:]
    assert result.returncode == 0, result.stdout + result.stderr
    assert "HTTP 500" not in result.stdout and "Traceback" not in result.stdout + result.stderr


def test_live_tells_a_real_model_the_decision_format_and_the_tools(scripted):
    """day01's agent sends only the conversation (the mock knows the rest); a real model is told
    the decision format and the task's tools in a system message."""
    base_url, script, seen = scripted
    live("day01", base_url, "--solution")
    system = seen[0]["messages"][0]
    assert system["role"] == "system" and '{"type": "final", "content": ANSWER}' in system["content"]
    assert "- multiply: Multiplies two numbers: a * b." in system["content"]
    assert [m["role"] for m in seen[0]["messages"][1:]] == ["user"]


def test_a_question_that_runs_out_of_time_says_nothing_of_the_next(scripted):
    """A real model too slow for one question is no hang in the learner's code: the next
    questions get their whole time (in graded runs a function stuck once is stopped at once)."""
    base_url, script, seen = scripted
    musing = {"id": "chatcmpl-2", "object": "chat.completion", "model": "real-model", "choices": [{
        "index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Thought: again\nAction: Calculator\nAction Input: 1 + 1"}}]}
    done = dict(musing, choices=[dict(musing["choices"][0], message={"role": "assistant", "content": "Final Answer: done"})])
    # Each of its replies takes 5 s: a busy machine moves the 3 s limit on by the child's wait for a CPU,
    # up to BACKSTOP (12) times 3 s, and ten replies (max_steps) take longer than that, so the first
    # question always ends by its time limit, never by running out of steps.
    script.append(lambda body: (200, musing, {}, 5) if "3 + 5" in json.dumps(body["messages"]) else (200, done, {}, 1))
    env = dict(os.environ, OPENAI_BASE_URL=base_url, OPENAI_API_KEY="any", REACTLINGS_LIVE_SECONDS="3")
    result = subprocess.run([sys.executable, "validate.py", "day06", "--live", "--solution"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    said = " ".join(result.stdout.split())
    assert "react_agent had no result after 3 s" in said and "infinite loop" not in said, result.stdout
    assert said.count("→ done") == 2  # the other two questions were answered
