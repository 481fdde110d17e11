"""The Chat Completions mock: it answers like the real API, through the real openai client too."""
import json

import openai
import pytest

from mock_llm import load_world
from mock_llm.chat import ChatSession
from mock_llm.http import openai_client

QUOTE_TOOL = {"type": "function", "function": {
    "name": "get_quote", "description": "Latest quote of a stock.",
    "parameters": {"type": "object", "properties": {"ticker": {"type": "string"}}, "required": ["ticker"]}}}


def session(scenario, seed=0):
    return ChatSession(load_world("day07", seed).scenarios[scenario], seed)


def ask(chat, messages, tools=(QUOTE_TOOL,)):
    status, body = chat.handle("POST", "/v1/chat/completions",
                               {"model": "m", "messages": messages, "tools": list(tools)})
    return status, body


def start(chat):
    return [{"role": "user", "content": chat.scenario.question}]


def answer_calls(messages, reply, results):
    """The messages a correct loop sends next: the assistant turn, then one result per call id."""
    message = reply["choices"][0]["message"]
    return messages + [message] + [{"role": "tool", "tool_call_id": c["id"], "content": results[c["id"]]}
                                   for c in message["tool_calls"]]


def test_first_request_gets_a_tool_call_with_usage_and_finish_reason():
    status, reply = ask(session("one_quote"), start(session("one_quote")))
    assert status == 200
    choice = reply["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    [call] = choice["message"]["tool_calls"]
    assert call["type"] == "function" and call["id"].startswith("call_")
    assert call["function"]["name"] == "get_quote"
    assert json.loads(call["function"]["arguments"]) == {"ticker": "AAPL"}
    usage = reply["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] > 0


def test_the_final_answer_quotes_the_tool_result_it_was_given():
    chat = session("one_quote")
    messages = start(chat)
    _, reply = ask(chat, messages)
    call_id = reply["choices"][0]["message"]["tool_calls"][0]["id"]
    fake = json.dumps({"price": 1.5, "pe": 2.5, "change_1y_pct": 3.5, "currency": "EUR"})
    status, final = ask(chat, answer_calls(messages, reply, {call_id: fake}))
    assert status == 200 and final["choices"][0]["finish_reason"] == "stop"
    assert "1.5 EUR" in final["choices"][0]["message"]["content"]  # what it read, not what it knows


def test_parallel_calls_are_shuffled_by_seed_and_paired_by_id():
    orders = set()
    for seed in range(6):
        chat = session("compare", seed)
        _, reply = ask(chat, start(chat))
        calls = reply["choices"][0]["message"]["tool_calls"]
        tickers = [json.loads(c["function"]["arguments"])["ticker"] for c in calls]
        assert sorted(tickers) == ["AAPL", "NVDA"]
        orders.add(tuple(tickers))
    assert len(orders) == 2  # both orders occur: a loop may not assume one


def test_ids_and_timestamps_are_deterministic():
    first = ask(session("compare", 3), start(session("compare", 3)))
    again = ask(session("compare", 3), start(session("compare", 3)))
    other = ask(session("compare", 4), start(session("compare", 4)))
    assert first == again
    assert first[1]["id"] != other[1]["id"]


@pytest.mark.parametrize("mistake, expected", [
    ("no assistant message", "must be a response to a preceding message with 'tool_calls'"),
    ("wrong id", "not found in 'tool_calls' of previous message"),
    ("a call unanswered", "did not have response messages"),
])
def test_broken_message_arrays_get_the_apis_400(mistake, expected):
    chat = session("compare")
    messages = start(chat)
    _, reply = ask(chat, messages)
    message = reply["choices"][0]["message"]
    ids = [c["id"] for c in message["tool_calls"]]
    if mistake == "no assistant message":
        broken = messages + [{"role": "tool", "tool_call_id": i, "content": "{}"} for i in ids]
    elif mistake == "wrong id":
        broken = messages + [message] + [{"role": "tool", "tool_call_id": "call_made_up", "content": "{}"}]
    else:
        broken = messages + [message, {"role": "tool", "tool_call_id": ids[0], "content": "{}"},
                             {"role": "user", "content": "and?"}]
    status, body = ask(chat, broken)
    assert status == 400
    assert body["error"]["type"] == "invalid_request_error"
    assert expected in body["error"]["message"]


@pytest.mark.parametrize("body, param", [
    ({"messages": [{"role": "user", "content": "hi"}]}, "model"),
    ({"model": "m", "messages": []}, "messages"),
    ({"model": "m", "messages": [{"role": "robot", "content": "hi"}]}, "messages.[0].role"),
    ({"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function"}]},
     "tools[0]"),
    ({"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [
        {"type": "function", "function": {"name": "f", "parameters": {"type": "string"}}}]},
     "tools[0].function.parameters"),
])
def test_malformed_requests_name_the_parameter(body, param):
    status, answer = session("no_tool").handle("POST", "/v1/chat/completions", body)
    assert status == 400 and answer["error"]["param"] == param


def test_without_the_tool_the_model_says_so_instead_of_calling_it():
    chat = session("one_quote")
    status, reply = ask(chat, start(chat), tools=())
    assert status == 200 and "tool_calls" not in reply["choices"][0]["message"]
    assert "get_quote" in reply["choices"][0]["message"]["content"]


def test_the_call_budget_ends_an_endless_loop():
    from mock_llm import BudgetExceeded
    chat = ChatSession(load_world("day07").scenarios["endless"], 0, budget=3)
    messages = start(chat)
    with pytest.raises(BudgetExceeded):
        for _ in range(4):
            _, reply = ask(chat, messages)
            messages = answer_calls(messages, reply, {c["id"]: "{}" for c in
                                                      reply["choices"][0]["message"]["tool_calls"]})


def test_a_genuine_openai_client_talks_to_the_mock_without_a_socket(monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("the in-process client opened a socket")
    monkeypatch.setattr("socket.socket.connect", no_network)
    client = openai_client("day07")
    assert isinstance(client, openai.OpenAI)
    response = client.chat.completions.create(model="any", tools=[QUOTE_TOOL], messages=[
        {"role": "user", "content": "What is a P/E ratio?"}])
    assert response.choices[0].finish_reason == "stop"
    assert "price-to-earnings" in response.choices[0].message.content
    assert [m.id for m in client.models.list()] == ["mock-react-1"]
    with pytest.raises(openai.BadRequestError) as error:
        client.chat.completions.create(model="any", messages=[{"role": "tool", "tool_call_id": "x",
                                                                "content": "1"}])
    assert error.value.status_code == 400
