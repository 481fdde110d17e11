"""validate.py dayNN --otel [PATH]: the graded run as OTLP traces in the GenAI semantic conventions,
read back with OpenTelemetry's own protobuf types; sent to a stand-in receiver, and to a real viewer
(Arize Phoenix) where one is installed."""
import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter

import pytest
from test_html_trace import CORPUS, SECRET, graded, validate
from test_live import StandIn, free_port, serving

pytest.importorskip("opentelemetry.sdk", reason="needs opentelemetry-sdk (pyproject.toml)")
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest  # noqa: E402

from validator.lessons import say  # noqa: E402
from validator.traces.gen_ai_messages import MAX_TEXT, as_attribute, message  # noqa: E402
from validator.traces.otel import otlp_request  # noqa: E402
from validator.traces.page import MAX_BLOCK  # noqa: E402

BAD = CORPUS / "day07" / "bad_pairs_by_position.py"
sends = pytest.mark.skipif(importlib.util.find_spec("opentelemetry.exporter.otlp.proto.http") is None,
                           reason="needs opentelemetry-exporter-otlp-proto-http (pyproject.toml): pip install -e .")


def spans_of(data: bytes) -> list:
    request = ExportTraceServiceRequest.FromString(data)
    return [span for resource in request.resource_spans for scope in resource.scope_spans for span in scope.spans]


def attributes(span) -> dict:
    return {a.key: getattr(a.value, a.value.WhichOneof("value")) for a in span.attributes}


def test_a_chat_run_reads_back_as_gen_ai_spans():
    result = graded("day07", "bad_pairs_by_position.py")
    spans = spans_of(otlp_request(result, "en"))
    by_id = {span.span_id: span for span in spans}
    runs = [run for check in result.checks for run in check.runs]
    chats = [s for s in spans if attributes(s).get("gen_ai.operation.name") == "chat"]
    tools = [s for s in spans if attributes(s).get("gen_ai.operation.name") == "execute_tool"]
    assert len(chats) == sum(len(run.exchanges) for run in runs)
    assert len(tools) == sum(len(run.tool_calls) for run in runs)
    first = attributes(chats[0])
    assert first["gen_ai.request.model"] == "mock-react-1"
    assert first["gen_ai.usage.input_tokens"] > 0 and first["gen_ai.usage.output_tokens"] > 0
    issued = {c["id"] for run in runs for e in run.exchanges if e.status == 200
              for c in e.response["choices"][0]["message"].get("tool_calls") or []}
    for tool in tools:  # each tool span names its tool and the model's call it carried out, under its agent run
        found = attributes(tool)
        assert found["gen_ai.tool.call.id"] in issued and tool.name == f"execute_tool {found['gen_ai.tool.name']}"
        assert attributes(by_id[tool.parent_span_id])["gen_ai.operation.name"] == "invoke_agent"
    failed = [s for s in spans if s.name.startswith("check ") and s.status.code == s.status.STATUS_CODE_ERROR]
    assert [s.name for s in failed] == [f"check {c.name}" for c in result.checks if not c.passed]
    assert "tool_call_id" in failed[0].status.message  # the failure message, as the report says it


def test_a_chat_spans_messages_are_the_conventions_conversation():
    """gen_ai.input.messages / output.messages: JSON lists of {role, parts}, the model's calls and
    the results sent back as tool_call and tool_call_response parts, paired by id."""
    spans = spans_of(otlp_request(graded("day07", "bad_pairs_by_position.py"), "en"))
    chats = [attributes(s) for s in spans if s.name.startswith("chat ")]
    conversations = [json.loads(chat["gen_ai.input.messages"]) for chat in chats]
    answers = [json.loads(chat["gen_ai.output.messages"]) for chat in chats]
    assert all(m["role"] in ("system", "user", "assistant", "tool") for c in conversations for m in c)
    parts = [part for c in conversations for m in c for part in m["parts"]]
    asked = {p["id"]: p["name"] for p in parts if p["type"] == "tool_call"}
    answered = [p for p in parts if p["type"] == "tool_call_response"]
    assert asked and answered and all(p["id"] in asked for p in answered)
    assert all(a[0]["role"] == "assistant" and a[0]["finish_reason"] for a in answers)
    assert any(p["type"] == "tool_call" for a in answers for p in a[0]["parts"])


def test_a_long_history_keeps_its_latest_messages_within_bounds():
    many = [message({"role": "user", "content": "x" * 10 * MAX_BLOCK}) for _ in range(50)]
    last = message({"role": "user", "content": "the last"})
    kept, left_out = as_attribute(many + [last])
    assert 0 < left_out < 50 and len(kept) <= MAX_TEXT
    assert json.loads(kept) == many[left_out:] + [last]  # the latest ones, each text cut at MAX_BLOCK
    weird = message({"role": 7, "content": [{"text": "a"}, "b"], "tool_calls": [None, {"function": "f"}]})
    assert [p.get("content") for p in weird["parts"]] == ["a", "b", None, None]  # whatever the code sent


def test_a_text_run_has_no_call_ids_and_the_file_is_the_same_every_time():
    result = graded("day06", "bad_parse_keeps_made_up_observation.py")
    data = otlp_request(result, "en")
    assert data == otlp_request(result, "en")
    tools = [s for s in spans_of(data) if attributes(s).get("gen_ai.operation.name") == "execute_tool"]
    assert tools and not any("gen_ai.tool.call.id" in attributes(s) for s in tools)
    assert any("Observation: 16" in attributes(s)["gen_ai.tool.call.arguments"] for s in tools)  # what the parser read
    prompts = [json.loads(attributes(s)["gen_ai.input.messages"]) for s in spans_of(data) if s.name.startswith("chat ")]
    assert prompts and all([m["role"] for m in p] == ["user"] for p in prompts)  # llm_call(prompt): one text


def test_the_seed_is_never_in_the_traces():
    data = otlp_request(graded("day07", "bad_pairs_by_position.py", SECRET), "en")
    assert str(SECRET).encode() not in data


@pytest.fixture(autouse=True)
def no_otel_variables(monkeypatch):
    """Only the OTEL_EXPORTER_OTLP_* variables a test sets: none of the shell's steers the exporter."""
    for name in [name for name in os.environ if name.startswith("OTEL_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")  # a proxy of the machine's never stands between
    monkeypatch.delenv("REACTLINGS_SEED", raising=False)  # graded here as there: with the lesson's seed


@contextlib.contextmanager
def receiving(status: int):
    """A stand-in OTLP/HTTP receiver answering `status`: its base URL (as OTEL_EXPORTER_OTLP_ENDPOINT
    takes it) and the requests it got, each (path, headers, body)."""
    received = []

    class Receiver(StandIn):
        def do_POST(self):
            received.append((self.path, self.headers, self.raw()))
            self.answer(status, {})

    with serving(Receiver) as url:
        yield url.removesuffix("/v1"), received


def otel(workspace, *option: str, **variables: str) -> subprocess.CompletedProcess:
    return validate("day07", "--file", str(BAD), "--lang", "en", "--otel", *option, workspace=workspace,
                    **variables)


def test_the_file_holds_the_graded_run(tmp_path):
    done = otel(tmp_path, str(tmp_path / "run.pb"))
    assert done.returncode == 1 and say("otel_written", "en", path="") in done.stderr
    assert (tmp_path / "run.pb").read_bytes() == otlp_request(graded("day07", BAD.name), "en")


@sends
def test_without_path_the_run_is_sent_where_the_environment_says(tmp_path):
    with receiving(200) as (endpoint, received):
        before = time.time_ns()
        done = otel(tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
                    OTEL_EXPORTER_OTLP_HEADERS="authorization=Bearer%20s3cret-key")
        after = time.time_ns()
    assert done.returncode == 1, done.stderr  # the grade's exit status
    [(path, headers, body)] = received
    assert path == "/v1/traces" and headers["Content-Type"] == "application/x-protobuf"
    assert headers["Authorization"] == "Bearer s3cret-key"
    start = min(span.start_time_unix_nano for span in spans_of(body))
    assert before <= start <= after  # dated at the grading: a viewer shows it among the latest
    assert body == otlp_request(graded("day07", BAD.name), "en", start)  # the file's spans, from that start
    assert done.stderr.endswith(say("otel_sent", "en", endpoint=f"{endpoint}/v1/traces") + "\n")
    assert "s3cret" not in done.stdout + done.stderr


def said_with_any(key: str, **fields: str) -> list[str]:
    """Message `key`'s text around its {problem}, which is the system's own words (they vary)."""
    return say(key, "en", problem="\0", **fields).split("\0")


@sends
def test_an_endpoint_that_does_not_take_the_traces_is_said_and_the_grade_stands(tmp_path):
    with receiving(200) as (endpoint, _):
        sent = otel(tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT=endpoint)
    with receiving(401) as (endpoint, received):
        refused = otel(tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT=endpoint)
    assert len(received) == 1  # a 4xx is not tried again
    nowhere = f"http://127.0.0.1:{free_port()}/v1/traces"  # a port nothing listens on
    unreachable = otel(tmp_path, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=nowhere, OTEL_EXPORTER_OTLP_TIMEOUT="1")
    for done in refused, unreachable:
        assert (done.returncode, done.stdout) == (sent.returncode, sent.stdout)  # the same grade, the same report
    assert say("otel_refused", "en", endpoint=f"{endpoint}/v1/traces", status="401 Unauthorized") in refused.stderr
    assert all(part in unreachable.stderr for part in said_with_any("otel_unreachable", endpoint=nowhere))
    assert "Traceback" not in refused.stderr + unreachable.stderr and "Failed to export" not in unreachable.stderr


# A Python with Arize Phoenix (pip install arize-phoenix, best in a venv of its own: README), else this one
# if it has it: the viewer a learner would open their run in, started here with a throwaway database.
PHOENIX = os.environ.get("REACTLINGS_PHOENIX") or (sys.executable if importlib.util.find_spec("phoenix") else None)


def get(url: str, deadline: float, running=lambda: True):
    """GET url's JSON, asked again (a server starting, spans still being stored) until the deadline,
    while the server is `running()`."""
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                return json.loads(response.read())
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline or not running():
                raise
        time.sleep(0.2)


def phoenix_spans(base: str, project: str, count: int, deadline: float) -> list[dict]:
    """The project's spans, read through Phoenix's REST API once it holds `count` of them: it stores
    them a moment after it takes them (and the project, a 404 till then, comes with the first)."""
    while True:
        spans = get(f"{base}/v1/projects/{project}/spans/otlpv1?limit=1000", deadline)["data"]
        if len(spans) >= count or time.monotonic() > deadline:
            return spans
        time.sleep(0.2)


def phoenix_attributes(span: dict) -> dict:
    return {a["key"]: next(v for v in a["value"].values() if v is not None) for a in span["attributes"]}


@pytest.mark.slow
@sends
@pytest.mark.skipif(not PHOENIX, reason="needs Arize Phoenix: REACTLINGS_PHOENIX=/path/to/a/python/with/arize-phoenix")
def test_a_real_viewer_shows_the_run(tmp_path):
    """Arize Phoenix's server, on free ports with a throwaway database, is sent a failing day07 run
    by `--otel`; its own API gives back the check, chat and execute_tool spans the file holds."""
    port = free_port()
    env = dict(os.environ, PHOENIX_WORKING_DIR=str(tmp_path / "phoenix"), PHOENIX_HOST="127.0.0.1",
               PHOENIX_PORT=str(port), PHOENIX_GRPC_PORT=str(free_port()), PHOENIX_TELEMETRY_ENABLED="false",
               PHOENIX_ALLOW_EXTERNAL_RESOURCES="false")
    log = tmp_path / "phoenix.log"
    with log.open("w") as output:
        server = subprocess.Popen([PHOENIX, "-m", "phoenix.server.main", "serve"], env=env, stdout=output,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        try:
            get(f"{base}/v1/projects", time.monotonic() + 180, lambda: server.poll() is None)  # its database made
        except (urllib.error.URLError, ConnectionError):
            pytest.fail(f"Phoenix did not start (in 180 s, or it stopped): {log.read_text()[-3000:]}")
        done = otel(tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT=base, OTEL_EXPORTER_OTLP_HEADERS="x-project-name=reactlings")
        assert done.returncode == 1 and say("otel_sent", "en", endpoint=f"{base}/v1/traces") in done.stderr
        expected = spans_of(otlp_request(graded("day07", BAD.name), "en"))  # but for its dates and ids
        found = phoenix_spans(base, "reactlings", len(expected), time.monotonic() + 60)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=30)
    # every span of the file, under a parent of the same name, with its status: failed checks are errors
    names, expected_names = {s["span_id"]: s["name"] for s in found}, {s.span_id: s.name for s in expected}
    assert Counter((s["name"], names.get(s["parent_span_id"]), s["status"]["code"]) for s in found) == Counter(
        (s.name, expected_names.get(s.parent_span_id), s.status.code) for s in expected)
    chats = [phoenix_attributes(s) for s in found if s["name"].startswith("chat ")]
    tools = [s for s in found if s["name"].startswith("execute_tool ")]
    assert chats and tools
    for chat in chats:
        assert (chat["gen_ai.operation.name"], chat["gen_ai.request.model"]) == ("chat", "mock-react-1")
        assert chat["gen_ai.usage.input_tokens"] > 0
        assert "llm.input_messages.0.message.role" in chat  # Phoenix read the messages as a conversation
    for span in tools:
        tool = phoenix_attributes(span)
        assert span["name"] == f"execute_tool {tool['gen_ai.tool.name']}" and tool["gen_ai.tool.call.id"]
        assert tool["gen_ai.operation.name"] == "execute_tool"
