"""Record how a real OpenAI-compatible server answers the requests the lessons rely on, as a
fixture for tests/test_conformance.py: `python tests/conformance/record.py URL MODEL OUT.json "how
the server was run"`. Each entry keeps the status, the response's body and the headers a client
acts on; its request is `requests(model)[name]`, made again by the test. Run it against a server nobody here wrote (llama-cpp-python's, see
shared/real-model-recipe.md); the test then holds the mock to the shapes it answered with."""
import json
import sys
import urllib.error
import urllib.request
from datetime import date

QUESTION = "How does AAPL look right now in terms of valuation and 1-year performance? Give a short take."
TOOL = {"type": "function", "function": {
    "name": "get_quote", "description": "Latest quote of a stock: price, P/E ratio and 1-year percentage change.",
    "parameters": {"type": "object", "properties": {"ticker": {"type": "string"}}, "required": ["ticker"]}}}
FORCED = {"type": "function", "function": {"name": "get_quote"}}
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_quote", "arguments": "{\"ticker\": \"AAPL\"}"}}
RESULT = {"role": "tool", "tool_call_id": "call_1", "content": "{\"price\": 195.3, \"pe\": 31.2, \"change_1y_pct\": 24.5}"}
USER = {"role": "user", "content": QUESTION}


def requests(model: str) -> dict[str, dict]:
    """The requests by name: what each asks of the server is in its name."""
    return {
        "answer": {"model": model, "messages": [USER], "max_tokens": 64},
        "tool_call": {"model": model, "messages": [USER], "tools": [TOOL], "tool_choice": FORCED, "max_tokens": 64},
        "result_back_content_empty": {"model": model, "max_tokens": 64, "tools": [TOOL], "messages": [
            USER, {"role": "assistant", "content": "", "tool_calls": [CALL]}, RESULT]},
        "result_back_content_null": {"model": model, "max_tokens": 64, "tools": [TOOL], "messages": [
            USER, {"role": "assistant", "content": None, "tool_calls": [CALL]}, RESULT]},
        "result_back_content_missing": {"model": model, "max_tokens": 64, "tools": [TOOL], "messages": [
            USER, {"role": "assistant", "tool_calls": [CALL]}, RESULT]},
        "cut_by_max_tokens": {"model": model, "messages": [USER], "max_tokens": 3},
        "stop_sequence": {"model": model, "messages": [USER], "stop": ["e"], "max_tokens": 64},
        "past_the_context": {"model": model, "messages": [{"role": "user", "content": "word " * 40_000}],
                             "max_tokens": 8},
    }


def send(url: str, body: dict | None) -> tuple[int, object, dict]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json",
                                                               "Authorization": "Bearer any"})
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            status, text, headers = response.status, response.read().decode(), response.headers
    except urllib.error.HTTPError as error:
        status, text, headers = error.code, error.read().decode(), error.headers
    try:
        answer = json.loads(text)
    except ValueError:
        answer = text
    return status, answer, {k.lower(): v for k, v in headers.items() if k.lower() in ("retry-after", "content-type")}


def main(base_url: str, model: str, out: str, how: str) -> None:
    base_url = base_url.rstrip("/")
    recorded = {"provenance": {"server": how, "model": model, "recorded": date.today().isoformat()},
                "models": dict(zip(("status", "body", "headers"), send(f"{base_url}/models", None)))}
    for name, body in requests(model).items():
        status, answer, headers = send(f"{base_url}/chat/completions", body)
        recorded[name] = {"status": status, "body": answer, "headers": headers}
        print(name, status, flush=True)
    with open(out, "w", encoding="utf-8") as file:
        json.dump(recorded, file, ensure_ascii=False, indent=1)
        file.write("\n")


if __name__ == "__main__":
    main(*sys.argv[1:5])
