"""Failures of the network and the server, deterministically, by model name.

Default off: only a name with `#` does this. `mock-react-1#429@7,500,ok` answers that model's first
request with a 429 carrying `Retry-After: 7`, its second with a 500, the rest normally. Steps: `ok`,
any 4xx or 5xx status (`429@S`: with `Retry-After: S`), `timeout` (the server stalls: no answer
before the client's timeout), `unreachable` (nothing listens); a step ending in `*` repeats for
every request after it (`500*`: the server is down). A plan may name the one server it plays, by
the host and port of the request's URL: `mock-react-1#127.0.0.1:8080=ok,500*` fails there only,
and the same model on another server answers normally (a fallback server). Each server counts its
own requests of each model. See `fault_plan`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from .request_checks import RequestError, error_body

FAULT_STEP = re.compile(r"^(ok|timeout|unreachable|[45]\d\d(?:@(\d+(?:\.\d+)?))?)(\*?)$")


@dataclass(frozen=True)
class Fault:
    """One step of a fault plan: what one request gets instead of a normal answer."""
    kind: str  # "ok", "timeout", "unreachable", or an HTTP status such as "429"
    retry_after: str | None = None  # a 4xx/5xx answer's Retry-After header, in seconds
    forever: bool = False  # this step answers every later request too


def fault_plan(model, server: str = "") -> list[Fault]:
    """The failures a model name asks for on `server` (the host:port of the request's URL):
    "m#429@2,500*" -> a 429 with Retry-After: 2, then 500 for ever, on any server; "m#h:p=500*" the
    same on the server h:p only. [] for a name without `#`, or a plan for another server.
    RequestError for a step the mock does not know."""
    if not isinstance(model, str) or "#" not in model:
        return []
    where, _, steps = model.split("#", 1)[1].rpartition("=")
    if where and where != server:
        return []
    plan = []
    for step in steps.split(","):
        found = FAULT_STEP.match(step.strip())
        if not found:
            raise RequestError(f"The mock does not know the failure {step.strip()!r} in the model name "
                               f"{model!r}. Steps: ok, timeout, unreachable, an HTTP status such as 500, "
                               "429@S for a 429 with Retry-After: S; a trailing * repeats a step; "
                               "HOST:PORT= before the steps plays that server only.",
                               param="model", code="model_not_found")
        plan.append(Fault(found.group(1).split("@")[0], found.group(2), bool(found.group(3))))
    return plan


def fault_for(plan: list[Fault], count: int) -> Fault | None:
    """The step for a model's request number `count` (0-based): its plan's step, the last `*` step
    once the plan is used up, else None (a normal answer)."""
    for number, step in enumerate(plan):
        if number == count or (step.forever and number < count):
            return None if step.kind == "ok" else step
    return None


def fault_now(model, url: str, earlier: list) -> Fault | None:
    """What the model's fault plan says its request to `url` gets after the `earlier` exchanges
    (HttpExchange), None for a normal answer: each server counts its own requests, as separate
    servers would."""
    server = _server(url)
    plan = fault_plan(model, server)
    if not plan:
        return None
    count = sum(1 for e in earlier if e.request.get("model") == model and _server(e.url) == server)
    return fault_for(plan, count)


ERRORS = {  # status -> (message, type, code), worded like the real API's
    400: ("The mock answers HTTP 400 here, as its model name asks.", "invalid_request_error", None),
    401: ("Incorrect API key provided: {key}. You can find your API key at "
          "https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key"),
    429: ("Rate limit reached for {model} in organization org-reactlings on requests per min (RPM): "
          "Limit 3, Used 3, Requested 1. Please try again {when}. Visit "
          "https://platform.openai.com/account/rate-limits to learn more.", "requests", "rate_limit_exceeded"),
    500: ("The server had an error while processing your request. Sorry about that!", "server_error", None),
    502: ("Bad gateway.", "server_error", None),
    503: ("The server is overloaded or not ready yet.", "server_error", None),
}


def fault_answer(fault: Fault, model: str, headers: dict) -> tuple[int, dict, dict]:
    """(status, error body, response headers) of an HTTP failure."""
    status = int(fault.kind)
    default = ("The mock answers HTTP {status} here, as its model name asks.",
               "server_error" if status >= 500 else "invalid_request_error", None)
    message, kind, code = ERRORS.get(status, default)
    key = str(headers.get("authorization", "")).removeprefix("Bearer ").strip()
    masked = f"{key[:3]}*****{key[-4:]}" if len(key) > 8 else "*****"
    when = f"in {fault.retry_after}s" if fault.retry_after else "later"
    message = message.format(key=masked, model=model, when=when, status=status)
    extra = {"retry-after": fault.retry_after} if fault.retry_after else {}
    return status, error_body(message, code=code, kind=kind), extra


def _server(url: str) -> str:
    """The host:port a request's URL names ("" for a bare path: the one server that answers it)."""
    try:
        return urlsplit(url).netloc.rpartition("@")[2] if "://" in url else ""
    except ValueError:
        return ""
