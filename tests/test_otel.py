"""validate.py dayNN --otel PATH: the graded run as OTLP traces in the GenAI semantic conventions,
read back with OpenTelemetry's own protobuf types."""
import pytest
from test_html_trace import SECRET, graded

pytest.importorskip("opentelemetry.sdk", reason="needs opentelemetry-sdk (pyproject.toml)")
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest  # noqa: E402

from validator.otel import otlp_request  # noqa: E402


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


def test_a_text_run_has_no_call_ids_and_the_file_is_the_same_every_time():
    result = graded("day06", "bad_parse_keeps_made_up_observation.py")
    data = otlp_request(result, "en")
    assert data == otlp_request(result, "en")
    tools = [s for s in spans_of(data) if attributes(s).get("gen_ai.operation.name") == "execute_tool"]
    assert tools and not any("gen_ai.tool.call.id" in attributes(s) for s in tools)
    assert any("Observation: 16" in attributes(s)["gen_ai.tool.call.arguments"] for s in tools)  # what the parser read


def test_the_seed_is_never_in_the_traces():
    data = otlp_request(graded("day07", "bad_pairs_by_position.py", SECRET), "en")
    assert str(SECRET).encode() not in data
