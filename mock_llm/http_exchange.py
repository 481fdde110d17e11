"""One request to the mock Chat Completions API and its answer, as the transcript keeps them."""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from .session import message_text
from .text_react import read_request

@dataclass
class HttpExchange:
    """One request to the mock API and its answer, as the transcript keeps them."""
    request: dict
    status: int  # 0: no answer at all (a simulated timeout or unreachable server, see `network`)
    response: dict
    url: str = ""  # the full URL, when the grader passes it on
    headers: dict = field(default_factory=dict)  # the request's headers, when the grader passes them on
    response_headers: dict = field(default_factory=dict)
    network: str | None = None  # "timeout" or "connect": the failure that stood in for an answer
    cut: str = ""  # what the request's stop sequence cut from the reply's content (the trace page shows it)

    def continues(self, earlier: "HttpExchange") -> bool:
        """Whether this request holds the earlier one's messages first (the history was not trimmed)."""
        mine, theirs = self.request.get("messages"), earlier.request.get("messages")
        return isinstance(mine, list) and isinstance(theirs, list) and mine[:len(theirs)] == theirs

    def asked(self) -> list[tuple[str, object]]:
        """The tool calls this reply asks for, as (name, arguments): its tool_calls, or the request
        its content writes in the text protocol."""
        choices = self.response.get("choices") if self.status == 200 and isinstance(self.response, dict) else None
        message = choices[0].get("message") if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
        if not isinstance(message, dict):  # no answer, or one a real server shaped otherwise (--live)
            return []
        asked = []
        for call in message.get("tool_calls") or []:
            function = call.get("function") if isinstance(call, dict) else None
            function = function if isinstance(function, dict) else {}
            try:
                arguments = json.loads(function.get("arguments") or "{}")
            except (ValueError, TypeError):
                arguments = function.get("arguments")
            asked.append((str(function.get("name")), arguments))
        request = read_request(message_text(message.get("content")))
        return asked + ([request] if request else [])

    def parameters(self) -> str:
        """For the trace: the request's fields other than its messages, on one line (each tool by
        its name), such as "model=gpt-4o-mini · tools=[get_quote] · max_tokens=1024"."""
        def shown(name, value):
            if name == "tools" and isinstance(value, list):
                value = [t.get("function", {}).get("name", "?") if isinstance(t, dict) else "?" for t in value]
            return f"{name}={json.dumps(value, ensure_ascii=False)[:200]}"
        return " · ".join(shown(k, v) for k, v in self.request.items() if k != "messages")

    def texts(self, shown: int) -> tuple[str, str, int]:
        """For the trace: the request's messages from `shown` on, one JSON line each, the response,
        and how many messages the request had (the next round shows only what the loop added)."""
        messages = self.request.get("messages")
        messages = messages if isinstance(messages, list) else []
        sent = "\n".join(json.dumps(m, ensure_ascii=False) for m in messages[shown:])
        if self.network:
            return sent, f"no answer ({self.network}) · {self.request.get('model')}: " \
                         f"{self.response['error']['message']}", len(messages)
        response = self.response
        if self.status == 200:
            choice = response["choices"][0]
            response = dict(choice["message"], finish_reason=choice.get("finish_reason"))
        headers = "".join(f"\n{k}: {v}" for k, v in self.response_headers.items())
        model = self.response.get("model") if isinstance(self.response, dict) else None
        model = model or self.request.get("model")  # which model answered: it may change mid-run
        model = f" · {model}" if isinstance(model, str) else ""
        return sent, f"HTTP {self.status}{model} {json.dumps(response, ensure_ascii=False)}{headers}", len(messages)
