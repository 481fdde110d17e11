"""`validate.py dayNN --otel PATH`: the graded run as OpenTelemetry traces, in the GenAI semantic
conventions, for the tools a learner meets next (Jaeger, Arize Phoenix, Langfuse, an OpenTelemetry
Collector).

One trace per check: a span for the check, one `invoke_agent` span per run of the learner's agent,
and under it a `chat` span per model call (gen_ai.request.model, gen_ai.usage.*, the messages as
gen_ai.input.messages / gen_ai.output.messages, in the conventions' shape: gen_ai_messages.py) and
an `execute_tool` span per tool the learner's
code ran (gen_ai.tool.name, gen_ai.tool.call.id where the model gave one, its arguments and
result). Written with the official SDK and encoded by the official OTLP encoder: PATH holds one
ExportTraceServiceRequest in protobuf, what an OTLP/HTTP receiver takes at /v1/traces.

The same grade gives the same bytes: times are counted from a fixed start, one microsecond a step,
not read from the clock, and ids are drawn from the check's name, not at random. The seed is not in
it; learner text is cut at trace_page.MAX_BLOCK characters a text. `curl --data-binary @PATH
-H 'Content-Type: application/x-protobuf' http://localhost:4318/v1/traces` sends it to a collector;
`--otel` with no PATH sends the same spans, dated at the grading, itself (otel_send.py).
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import Status, StatusCode, set_span_in_context

from mock_llm import MODEL, HttpExchange
from validator.grading.grade import Grade
from validator.grading.report import failure_text
from validator.traces.gen_ai_messages import as_attribute, call_messages, cut, text
from validator.traces.rounds import rounds

START = 1_767_225_600 * 10 ** 9  # 2026-01-01T00:00:00Z, in nanoseconds: every run starts here
STEP = 1_000  # nanoseconds between one event of a run and the next


class Ids(IdGenerator):
    """Trace and span ids drawn from a name and a counter: the same grade, the same ids."""

    def __init__(self):
        self.name, self.count = "", 0

    def _draw(self, bits: int) -> int:
        self.count += 1
        digest = hashlib.sha256(f"{self.name}:{self.count}".encode()).digest()
        return int.from_bytes(digest[:bits // 8], "big") or 1

    def generate_span_id(self) -> int:
        return self._draw(64)

    def generate_trace_id(self) -> int:
        return self._draw(128)


def otlp_request(grade: Grade, lang: str, start: int = START) -> bytes:
    """The grade's runs as one OTLP ExportTraceServiceRequest, serialized."""
    return encode_spans(finished_spans(grade, lang, start)).SerializeToString()


def finished_spans(grade: Grade, lang: str, start: int = START) -> tuple[ReadableSpan, ...]:
    """The grade's runs as spans, each check's starting at `start` (nanoseconds since 1970): what
    otlp_request encodes, and what --otel sends to an endpoint."""
    ids, spans = Ids(), InMemorySpanExporter()
    provider = TracerProvider(resource=Resource({"service.name": "reactlings", "reactlings.lesson": grade.lesson.name}),
                              id_generator=ids)
    provider.add_span_processor(SimpleSpanProcessor(spans))
    tracer = provider.get_tracer("reactlings")
    try:  # ids differ with the file graded (and the start), so two versions' traces never merge in a viewer
        version = hashlib.sha256(grade.path.read_bytes()).hexdigest()
    except OSError:
        version = grade.path.name
    for check in grade.checks:
        ids.name, ids.count, clock = f"{version}:{start}:{check.name}", 0, iter(range(start, start + 10 ** 12, STEP))
        root = tracer.start_span(f"check {check.name}", start_time=next(clock), attributes={
            "reactlings.todo": check.todo, "reactlings.check.title": check.title[lang],
            "reactlings.check.passed": check.passed, "reactlings.check.points": check.points})
        for run in check.runs:
            _run(tracer, run, set_span_in_context(root), clock, lang)
        if not check.passed:
            root.set_status(Status(StatusCode.ERROR, cut(failure_text(check, grade, lang))))
        root.end(end_time=next(clock))
    provider.shutdown()
    return spans.get_finished_spans()


def _run(tracer, run, parent, clock, lang: str) -> None:
    agent = tracer.start_span("invoke_agent", parent, start_time=next(clock), attributes={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": run.scenario.name,
        "gen_ai.input.messages": as_attribute([text("user", run.scenario.question)])[0]})
    inside = set_span_in_context(agent)
    for round_, exchange in zip(rounds(run, lang), run.exchanges):
        model = exchange.request.get("model") if isinstance(exchange, HttpExchange) else None
        model = model if isinstance(model, str) else MODEL
        sent, answered = call_messages(exchange)
        (sent, left_out), (answered, _) = as_attribute(sent), as_attribute(answered)
        chat = tracer.start_span(f"chat {model}", inside, start_time=next(clock), attributes={
            "gen_ai.operation.name": "chat", "gen_ai.provider.name": "reactlings.mock",
            "gen_ai.request.model": model, "gen_ai.input.messages": sent, "gen_ai.output.messages": answered})
        if left_out:
            chat.set_attribute("reactlings.input_messages.left_out", left_out)
        if isinstance(exchange, HttpExchange) and exchange.status != 200:  # no answer, or an HTTP error
            chat.set_attribute("error.type", str(exchange.status or exchange.network))
            chat.set_status(Status(StatusCode.ERROR, cut(exchange.texts(0)[1])))
        if round_.tokens:
            chat.set_attribute("gen_ai.usage.input_tokens", round_.tokens[0])
            chat.set_attribute("gen_ai.usage.output_tokens", round_.tokens[1])
        for note in round_.notes:
            chat.add_event("reactlings.note", {"message": note}, timestamp=next(clock))
        chat.end(end_time=next(clock))
        for call, call_id in zip(round_.calls, round_.call_ids or [None] * len(round_.calls)):
            tool = tracer.start_span(f"execute_tool {call.name}", inside, start_time=next(clock), attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.name,
                "gen_ai.tool.call.arguments": cut(call.input), "gen_ai.tool.call.result": cut(call.output)})
            if call_id:
                tool.set_attribute("gen_ai.tool.call.id", call_id)
            if call.failed:
                tool.set_status(Status(StatusCode.ERROR, cut(call.output)))
            tool.end(end_time=next(clock))
    if isinstance(run.answer, str):
        agent.set_attribute("gen_ai.output.messages", as_attribute([text("assistant", run.answer)])[0])
    agent.end(end_time=next(clock))


def write_otel(grade: Grade, lang: str, path: Path) -> Path:
    from validator.files import write_atomically
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, otlp_request(grade, lang))
    return path
