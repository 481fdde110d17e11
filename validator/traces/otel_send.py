"""`validate.py dayNN --otel` with no PATH: the graded run's traces sent to an OTLP/HTTP endpoint.

Where, and how, the standard OTEL_EXPORTER_OTLP_* variables say: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
else OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces added, else http://localhost:4318/v1/traces; the
headers (an API key) from OTEL_EXPORTER_OTLP_HEADERS, the time it may take from
OTEL_EXPORTER_OTLP_TIMEOUT (10 seconds). The official exporter reads them itself, and sends the spans
`--otel PATH` writes but dated now, not 2026-01-01: a viewer opens on the last hours or days, and a
run sent again is a new trace there, not spans it already has (Phoenix keeps the first of two spans
with one id). Their ids are drawn with that date, so the body is otlp_request(grade, lang, start).

It runs in the grader, once the report is printed: the learner's child never sees these variables,
and the grade never waits on a receiver or depends on one. How it went is one line, in the learner's
language, instead of the exporter's English log lines.
"""
from __future__ import annotations

import logging
import time
from urllib.parse import urlsplit

import requests
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import SpanExportResult

from validator.grading.grade import Grade
from validator.traces.otel import finished_spans


class Witness(requests.Session):
    """The exporter's HTTP session, which keeps where it sent and what came back: the exporter
    itself only says whether it worked."""

    url = ""
    answer: requests.Response | None = None
    error: requests.RequestException | None = None

    def request(self, method, url, *args, **kwargs):
        self.url, self.answer, self.error = url, None, None
        try:
            self.answer = super().request(method, url, *args, **kwargs)
        except requests.RequestException as error:
            self.error = error
            raise
        return self.answer


def send(grade: Grade, lang: str) -> tuple[str, dict]:
    """Send the grade's spans; the message that says how it went, and its fields."""
    logging.getLogger("opentelemetry.exporter").addHandler(logging.NullHandler())  # its log lines: ours say it
    session = Witness()
    exporter = OTLPSpanExporter(session=session)
    try:
        sent = exporter.export(finished_spans(grade, lang, time.time_ns())) is SpanExportResult.SUCCESS
    except requests.RequestException:  # exporters before 1.40 let a connection error through
        sent = False
    finally:
        exporter.shutdown()
    where = shown(session.url)
    if sent:
        return "otel_sent", {"endpoint": where}
    if session.answer is not None:
        return "otel_refused", {"endpoint": where, "status": f"{session.answer.status_code} {session.answer.reason}"}
    return "otel_unreachable", {"endpoint": where, "problem": innermost(session.error)}


def shown(url: str) -> str:
    """The endpoint as a message names it: no user:password@ nor ?query, where a secret could be."""
    parts = urlsplit(url)
    return parts._replace(netloc=parts.netloc.rpartition("@")[2], query="", fragment="").geturl()


def innermost(error: BaseException | None) -> str:
    """What went wrong underneath: "Connection refused", not the pool's summary that wraps it."""
    while error is not None:
        inner = error.__cause__ or error.__context__ or getattr(error, "reason", None)
        if not isinstance(inner, BaseException):
            return getattr(error, "strerror", None) or str(error)
        error = inner
    return ""
