"""The mock against a real server's answers, kept as data: tests/conformance/*.json hold what a
server nobody here wrote answered to the requests the lessons rely on (recorded by
tests/conformance/record.py, with their provenance). The mock must answer each request with the
same shape wherever a lesson's code reads it; where it follows OpenAI rather than that server,
the test says so and checks that the lessons teach the form both take."""
import json
from pathlib import Path

import pytest

from conformance.record import requests
from mock_llm.http import Router

RECORDED = sorted((Path(__file__).parent / "conformance").glob("*.json"))


def mock_answer(server: dict, name: str) -> tuple[int, dict]:
    """The mock's answer to the request the server was recorded answering."""
    request = requests(server["provenance"]["model"])[name]
    status, body, _ = Router("day07").handle("POST", "/v1/chat/completions", json.dumps(request).encode())
    return status, body


def message_of(body: dict) -> dict:
    return body["choices"][0]["message"]


def shape(value):
    """A JSON value's shape: its type, and for an object the shapes of its keys that are set."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [shape(v) for v in value[:1]]
    return type(value).__name__


@pytest.fixture(params=RECORDED, ids=lambda path: path.stem)
def server(request):
    return json.loads(request.param.read_text(encoding="utf-8"))


def test_there_is_a_recording():
    assert RECORDED, "tests/conformance holds no recording of a real server"


def test_the_recording_says_where_it_came_from(server):
    assert {"server", "model", "recorded"} <= set(server["provenance"])


def test_a_plain_answer_has_the_shape_the_lessons_read(server):
    real, (status, mock) = server["answer"], mock_answer(server, "answer")
    assert real["status"] == status == 200
    for body in (real["body"], mock):
        assert {"id", "object", "created", "model", "choices", "usage"} <= set(body)
        assert message_of(body)["role"] == "assistant" and isinstance(message_of(body)["content"], str)
        assert body["choices"][0]["finish_reason"] in ("stop", "length")
    assert shape(real["body"]["usage"]) == shape(mock["usage"]) == {
        "prompt_tokens": "int", "completion_tokens": "int", "total_tokens": "int"} | {
        k: "dict" for k in real["body"]["usage"] if isinstance(real["body"]["usage"][k], dict)}


def test_a_tool_call_has_the_shape_the_lessons_read(server):
    real, (status, mock) = server["tool_call"], mock_answer(server, "tool_call")
    assert real["status"] == status == 200
    for body in (real["body"], mock):
        [call, *_] = message_of(body)["tool_calls"]
        assert shape(call) == {"id": "str", "type": "str", "function": {"name": "str", "arguments": "str"}}
        assert call["type"] == "function" and call["function"]["name"] == "get_quote"
    assert real["body"]["choices"][0]["finish_reason"] in ("tool_calls", "stop", "length")
    assert mock["choices"][0]["finish_reason"] == "tool_calls"


def test_the_assistant_turn_the_lessons_send_back_is_taken_by_both(server):
    """content "" beside the tool calls: taken by the real server and the mock (day07 teaches it)."""
    real, (status, _) = server["result_back_content_empty"], mock_answer(server, "result_back_content_empty")
    assert real["status"] == status == 200


@pytest.mark.parametrize("entry", ["result_back_content_null", "result_back_content_missing"])
def test_a_turn_without_string_content_is_where_servers_differ(server, entry):
    """The recorded server refuses an assistant turn with null or no content (llama.cpp's: HTTP
    500); OpenAI takes it, and so does the mock. So the lessons send a string (the test above)."""
    real, (status, _) = server[entry], mock_answer(server, entry)
    assert real["status"] != 200 and status == 200


def test_max_tokens_cuts_the_reply_with_finish_reason_length(server):
    real, (status, mock) = server["cut_by_max_tokens"], mock_answer(server, "cut_by_max_tokens")
    assert real["status"] == status == 200
    assert real["body"]["choices"][0]["finish_reason"] == mock["choices"][0]["finish_reason"] == "length"


def test_a_stop_sequence_is_never_in_the_content(server):
    real, (status, mock) = server["stop_sequence"], mock_answer(server, "stop_sequence")
    assert real["status"] == status == 200
    assert "e" not in message_of(real["body"])["content"] and "e" not in message_of(mock)["content"]


def test_a_prompt_past_the_context_gets_a_400(server):
    real, (status, mock) = server["past_the_context"], mock_answer(server, "past_the_context")
    assert real["status"] == status == 400
    for body in (real["body"], mock):
        assert isinstance(body["error"]["message"], str) and body["error"]["message"]


def test_the_model_list_has_the_shape_clients_read(server):
    real = server["models"]
    status, mock, _ = Router("day07").handle("GET", "/v1/models", b"")
    assert real["status"] == status == 200
    for body in (real["body"], mock):
        assert body["object"] == "list" and all(isinstance(m["id"], str) for m in body["data"])
