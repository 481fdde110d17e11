"""`python -m mock_llm serve` over real HTTP, and `validate.py --live` against it."""
import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
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
    result = live("day07", f"http://127.0.0.1:{free_port()}/v1", "--solution")
    assert result.returncode == 1
    assert "could not reach the model" in result.stdout and "Traceback" not in result.stdout


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


def test_day12_live_runs_the_solution_against_the_server(day12_server):
    result = live("day12", day12_server, "--solution")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "It is 77°F in 北京 today" in result.stdout and "Traceback" not in result.stdout + result.stderr


# ---------------------------------------------------------------- what --live forwards, and how much

@pytest.fixture
def endpoint():
    """A stand-in for a real endpoint, in this process: it records each request's body and answers
    with a final answer whose `usage` says 400 tokens (the shape of the API's reference response:
    https://platform.openai.com/docs/api-reference/chat/object). No network beyond loopback."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    seen = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            seen.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            data = json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "model": "real-model",
                               "choices": [{"index": 0, "finish_reason": "stop", "message": {
                                   "role": "assistant", "content": "Final Answer: done"}}],
                               "usage": {"prompt_tokens": 300, "completion_tokens": 100,
                                         "total_tokens": 400}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/v1", seen
    server.shutdown()
    server.server_close()


def live_model(base_url, **kwargs):
    from validator.live import LiveModel
    return LiveModel(base_url, "sk-test", "real-model", **kwargs)


def test_live_forwards_only_the_fields_the_lessons_use(endpoint):
    from validator.live import MAX_TOKENS
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
