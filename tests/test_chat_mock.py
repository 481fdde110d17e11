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


# ---------------------------------------------------------------- assistant tool_calls sent back

def rebuilt(change):
    """The compare task's second request, with its assistant message passed through `change`."""
    chat = session("compare")
    messages = start(chat)
    _, reply = ask(chat, messages)
    message = json.loads(json.dumps(reply["choices"][0]["message"]))
    ids = [c["id"] for c in message["tool_calls"]]
    change(message)
    return chat, messages + [message] + [{"role": "tool", "tool_call_id": i, "content": "{}"} for i in ids]


def drop(key):
    return lambda message: message["tool_calls"][0].pop(key)


def set_first(path, value):
    def change(message):
        target = message["tool_calls"][0]
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


@pytest.mark.parametrize("change, message, param, code", [
    (drop("type"), "Missing required parameter: 'messages[1].tool_calls[0].type'.",
     "messages[1].tool_calls[0].type", "missing_required_parameter"),
    (drop("id"), "Missing required parameter: 'messages[1].tool_calls[0].id'.",
     "messages[1].tool_calls[0].id", "missing_required_parameter"),
    (drop("function"), "Missing required parameter: 'messages[1].tool_calls[0].function'.",
     "messages[1].tool_calls[0].function", "missing_required_parameter"),
    (lambda m: m["tool_calls"][0]["function"].pop("name"),
     "Missing required parameter: 'messages[1].tool_calls[0].function.name'.",
     "messages[1].tool_calls[0].function.name", "missing_required_parameter"),
    (lambda m: m["tool_calls"][0]["function"].pop("arguments"),
     "Missing required parameter: 'messages[1].tool_calls[0].function.arguments'.",
     "messages[1].tool_calls[0].function.arguments", "missing_required_parameter"),
    (set_first(["function", "arguments"], {"ticker": "AAPL"}),
     "Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a string, but got an "
     "object instead.", "messages[1].tool_calls[0].function.arguments", "invalid_type"),
    (set_first(["function", "name"], None),
     "Invalid type for 'messages[1].tool_calls[0].function.name': expected a string, but got null instead.",
     "messages[1].tool_calls[0].function.name", "invalid_type"),
    (set_first(["function"], "get_quote"),
     "Invalid type for 'messages[1].tool_calls[0].function': expected an object, but got a string instead.",
     "messages[1].tool_calls[0].function", "invalid_type"),
    (set_first(["id"], 7),
     "Invalid type for 'messages[1].tool_calls[0].id': expected a string, but got an integer instead.",
     "messages[1].tool_calls[0].id", "invalid_type"),
    (set_first(["type"], "tool"), "Invalid value: 'tool'. Supported values are: 'function'.",
     "messages[1].tool_calls[0].type", "invalid_value"),
    (lambda m: m.update(tool_calls={"id": "call_1"}),
     "Invalid type for 'messages[1].tool_calls': expected an array, but got an object instead.",
     "messages[1].tool_calls", "invalid_type"),
])
def test_tool_calls_sent_back_are_checked_like_the_api(change, message, param, code):
    chat, messages = rebuilt(change)
    status, body = ask(chat, messages)
    assert status == 400
    assert body["error"] == {"message": message, "type": "invalid_request_error", "param": param, "code": code}


@pytest.mark.parametrize("message, error, param", [
    ("What does AAPL trade at?", "Invalid type for 'messages[0]': expected an object, but got a string instead.",
     "messages[0]"),
    ({"content": "What does AAPL trade at?"}, "Missing required parameter: 'messages[0].role'.", "messages[0].role"),
])
def test_a_message_that_is_no_message_object_is_refused_as_the_api_does(message, error, param):
    """The API's 400s for a bare string and for a message without a role, in the shape of its other
    invalid_type and missing_required_parameter errors (was: the string named as an invalid role)."""
    status, body = ask(session("compare"), [message])
    assert status == 400
    assert body["error"]["message"] == error and body["error"]["param"] == param


def test_an_empty_tool_calls_array_is_refused():
    chat = session("no_tool")
    messages = start(chat) + [{"role": "assistant", "content": "Hm.", "tool_calls": []},
                              {"role": "user", "content": "Go on."}]
    status, body = ask(chat, messages)
    assert status == 400 and body["error"]["code"] == "empty_array"
    assert body["error"]["param"] == "messages[1].tool_calls"


@pytest.mark.parametrize("message, error, param", [
    ({"role": "assistant", "content": None}, "Invalid value for 'content': expected a string, got null.",
     "messages.[1].content"),
    ({"role": "assistant", "text": "Hm."}, "Missing required parameter: 'messages[1].content'.", "messages[1].content"),
])
def test_an_assistant_message_with_no_content_and_no_tool_calls_is_refused(message, error, param):
    """Only an assistant turn that asks for tools may leave its content out, as in the real API."""
    chat = session("no_tool")
    status, body = ask(chat, start(chat) + [message, {"role": "user", "content": "Go on."}])
    assert status == 400
    assert body["error"]["message"] == error and body["error"]["param"] == param


def test_a_well_formed_assistant_message_rebuilt_by_hand_is_accepted():
    def by_hand(message):
        calls = message.pop("tool_calls")
        message.clear()
        message.update(role="assistant", content=None, tool_calls=[
            {"id": c["id"], "type": "function",
             "function": {"name": c["function"]["name"], "arguments": c["function"]["arguments"]}}
            for c in calls])
    chat, messages = rebuilt(by_hand)
    status, body = ask(chat, messages)
    assert status == 200 and body["choices"][0]["finish_reason"] == "stop"


# ---------------------------------------------------------------- tool_choice

def choose(chat, messages, tool_choice, tools=(QUOTE_TOOL,)):
    return chat.handle("POST", "/v1/chat/completions", {"model": "m", "messages": messages,
                                                        "tools": list(tools), "tool_choice": tool_choice})


@pytest.mark.parametrize("tool_choice, message, param, code", [
    ("any", "Invalid value: 'any'. Supported values are: 'none', 'auto', and 'required'.",
     "tool_choice", "invalid_value"),
    (1, "Invalid type for 'tool_choice': expected one of an object or 'none', 'auto', or 'required', but "
        "got an integer instead.", "tool_choice", "invalid_type"),
    ({"function": {"name": "get_quote"}}, "Missing required parameter: 'tool_choice.type'.",
     "tool_choice.type", "missing_required_parameter"),
    ({"type": "function"}, "Missing required parameter: 'tool_choice.function'.",
     "tool_choice.function", "missing_required_parameter"),
    ({"type": "function", "function": {}}, "Missing required parameter: 'tool_choice.function.name'.",
     "tool_choice.function.name", "missing_required_parameter"),
    ({"type": "function", "function": {"name": "get_news"}},
     "Invalid value for 'tool_choice': function 'get_news' not found in 'tools'.", "tool_choice",
     "invalid_value"),
])
def test_a_bad_tool_choice_gets_the_apis_400(tool_choice, message, param, code):
    chat = session("one_quote")
    status, body = choose(chat, start(chat), tool_choice)
    assert status == 400
    assert body["error"] == {"message": message, "type": "invalid_request_error", "param": param, "code": code}


def test_tool_choice_needs_tools():
    chat = session("no_tool")
    status, body = choose(chat, start(chat), "auto", tools=())
    assert status == 400 and body["error"]["param"] == "tool_choice"
    assert "only allowed when 'tools' are specified" in body["error"]["message"]


def test_tool_choice_auto_is_the_default_behaviour():
    chat = session("one_quote")
    assert choose(chat, start(chat), "auto")[1]["choices"] == ask(chat, start(chat))[1]["choices"]


def run_loop(chat, tool_choice, rounds):
    """A correct loop's replies, every request with this tool_choice: one per round."""
    messages, replies = start(chat), []
    for _ in range(rounds):
        status, reply = choose(chat, messages, tool_choice)
        assert status == 200, reply
        replies.append(reply["choices"][0])
        if not reply["choices"][0]["message"].get("tool_calls"):
            break
        messages = answer_calls(messages, reply, {c["id"]: json.dumps({"price": 1.0, "pe": 2.0})
                                                  for c in reply["choices"][0]["message"]["tool_calls"]})
    return replies


@pytest.mark.parametrize("scenario", ["one_quote", "no_tool", "compare"])
def test_tool_choice_required_calls_a_tool_in_every_reply(scenario):
    replies = run_loop(session(scenario), "required", 4)
    assert len(replies) == 4
    assert all(r["finish_reason"] == "tool_calls" and r["message"]["tool_calls"] for r in replies)
    ids = [c["id"] for r in replies for c in r["message"]["tool_calls"]]
    assert len(ids) == len(set(ids))  # each reply's calls are new calls, with new ids
    names = {c["function"]["name"] for r in replies for c in r["message"]["tool_calls"]}
    assert names == {"get_quote"}


def test_tool_choice_required_first_follows_the_script():
    """Forcing a call where the model would call anyway changes nothing: the scripted call comes."""
    chat = session("one_quote")
    [forced] = run_loop(chat, "required", 1)
    [auto] = run_loop(session("one_quote"), "auto", 1)
    assert forced["message"]["tool_calls"] == auto["message"]["tool_calls"]


def test_a_named_tool_choice_forces_that_tool():
    chat = session("no_tool")
    replies = run_loop(chat, {"type": "function", "function": {"name": "get_quote"}}, 2)
    assert [c["function"]["name"] for r in replies for c in r["message"]["tool_calls"]] == ["get_quote"] * 2
    assert json.loads(replies[0]["message"]["tool_calls"][0]["function"]["arguments"]) == {"ticker": ""}


def test_after_forced_calls_auto_lets_the_model_answer():
    chat = session("one_quote")
    messages = start(chat)
    for choice in ("required", "required"):
        _, reply = choose(chat, messages, choice)
        messages = answer_calls(messages, reply, {c["id"]: json.dumps({"price": 1.5, "pe": 2.5,
                                                                       "change_1y_pct": 3, "currency": "EUR"})
                                                  for c in reply["choices"][0]["message"]["tool_calls"]})
    status, final = choose(chat, messages, "auto")
    assert status == 200 and final["choices"][0]["finish_reason"] == "stop"
    assert "1.5 EUR" in final["choices"][0]["message"]["content"]


@pytest.mark.parametrize("scenario", ["one_quote", "compare", "endless"])
def test_tool_choice_none_never_calls_a_tool(scenario):
    [reply] = run_loop(session(scenario), "none", 3)
    assert reply["finish_reason"] == "stop" and "tool_calls" not in reply["message"]
    assert 'tool_choice is "none"' in reply["message"]["content"]


# ---------------------------------------------------------------- parallel calls: order

@pytest.mark.parametrize("seed", range(12))
def test_three_parallel_calls_never_come_in_the_scripted_order_nor_reversed(seed):
    chat = session("compare_three", seed)
    _, reply = ask(chat, start(chat))
    calls = reply["choices"][0]["message"]["tool_calls"]
    tickers = [json.loads(c["function"]["arguments"])["ticker"] for c in calls]
    assert sorted(tickers) == ["AAPL", "NVDA", "TSLA"]
    assert tickers not in (["AAPL", "NVDA", "TSLA"], ["TSLA", "NVDA", "AAPL"])


def test_over_http_any_ticker_of_the_table_is_looked_up():
    """Questions no scenario scripts: the tickers named get parallel get_quote calls."""
    client = openai_client("day07")
    tools = [{"type": "function", "function": {"name": "get_quote", "parameters": {
        "type": "object", "properties": {"ticker": {"type": "string"}}}}}]
    messages = [{"role": "user", "content": "How are TSLA and NVDA doing?"}]
    first = client.chat.completions.create(model="m", messages=messages, tools=tools).choices[0].message
    assert sorted(json.loads(c.function.arguments)["ticker"] for c in first.tool_calls) == ["NVDA", "TSLA"]
    messages.append(first.model_dump(exclude_unset=True))
    for call in first.tool_calls:
        ticker = json.loads(call.function.arguments)["ticker"]
        messages.append({"role": "tool", "tool_call_id": call.id,
                         "content": json.dumps({"price": {"TSLA": 178.6, "NVDA": 1180.0}[ticker], "pe": 1})})
    answer = client.chat.completions.create(model="m", messages=messages, tools=tools).choices[0].message
    assert "TSLA: price 178.6" in answer.content and "NVDA: price 1180.0" in answer.content
    unrelated = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "Hello"}],
                                               tools=tools).choices[0].message
    assert unrelated.tool_calls is None and "None of the tools I was given" in unrelated.content
    assert "(I was given: get_quote)" in unrelated.content
    own = [{"type": "function", "function": {"name": "get_news", "parameters": {"type": "object", "properties": {}}}}]
    news = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "Good morning"}],
                                          tools=own).choices[0].message
    assert "(I was given: get_news)" in news.content and "get_quote" not in news.content  # the learner's, not the lesson's


# ---------------------------------------------------------------- stop sequences, the text protocol over chat

def text_chat(scenario, seed=0):
    from mock_llm.chat import TextChatSession
    return TextChatSession(load_world("day12", seed).scenarios[scenario], seed)


def text_request(chat, messages, **extra):
    return chat.handle("POST", "/v1/chat/completions", {"model": "m", "messages": messages, **extra})


def test_without_stop_the_text_model_writes_an_observation_of_its_own_and_stop_cuts_it():
    chat = text_chat("weather")
    question = [{"role": "user", "content": chat.scenario.question}]
    _, free = text_request(chat, question)
    content = free["choices"][0]["message"]["content"]
    assert "Action Input: 上海\nObservation: sunny, 20°C" in content  # the made-up one
    for stop in (["Observation:"], "Observation:", ["Final Answer:", "Observation:"]):
        _, cut = text_request(text_chat("weather"), question, stop=stop)
        assert cut["choices"][0]["message"]["content"] == "Thought: I should look up the weather in 上海.\n" \
                                                          "Action: search_weather\nAction Input: 上海\n"
        assert cut["choices"][0]["finish_reason"] == "stop"


@pytest.mark.parametrize("stop, message", [
    (["a", "b", "c", "d", "e"], "Invalid 'stop': array too long. Expected an array with maximum length 4"),
    ({"text": "Observation:"}, "Invalid type for 'stop'"),
    (["Observation:", 3], "Invalid type for 'stop'"),
])
def test_a_stop_the_api_refuses_gets_its_400(stop, message):
    status, body = text_request(text_chat("weather"), [{"role": "user", "content": "hi"}], stop=stop)
    assert status == 400 and body["error"]["message"].startswith(message) and body["error"]["param"] == "stop"


def test_the_text_model_reads_the_assistant_turns_and_the_real_observation():
    chat = text_chat("fahrenheit")
    messages = [{"role": "system", "content": "Answer with Thought / Action / Action Input."},
                {"role": "user", "content": chat.scenario.question}]
    _, first = text_request(chat, messages, stop=["Observation:"])
    messages += [{"role": "assistant", "content": first["choices"][0]["message"]["content"]},
                 {"role": "user", "content": "Observation: rainy, 10°C, humidity 90%"}]
    _, second = text_request(chat, messages, stop=["Observation:"])
    assert "Action Input: 10 * 9 / 5 + 32" in second["choices"][0]["message"]["content"]
    messages += [{"role": "assistant", "content": second["choices"][0]["message"]["content"]},
                 {"role": "user", "content": "Observation: 50"}]
    _, final = text_request(chat, messages, stop=["Observation:"])
    assert "Final Answer: It is 50°F in 北京 today (10°C" in final["choices"][0]["message"]["content"]


def test_a_made_up_observation_kept_in_the_transcript_is_what_the_model_reads():
    chat = text_chat("weather")
    messages = [{"role": "user", "content": chat.scenario.question}]
    _, first = text_request(chat, messages)  # no stop: the reply carries "Observation: sunny, 20°C…"
    messages += [{"role": "assistant", "content": first["choices"][0]["message"]["content"]},
                 {"role": "user", "content": "Observation: cloudy, 28°C, humidity 65%"}]
    _, final = text_request(chat, messages)
    assert "Today in 上海: sunny, 20°C, humidity 50%." in final["choices"][0]["message"]["content"]


# ---------------------------------------------------------------- failures by model name

def test_a_fault_plan_answers_each_request_of_that_model_in_turn():
    from mock_llm.faults import fault_plan, fault_for
    plan = fault_plan("m#429@7,500,ok")
    assert [getattr(fault_for(plan, n), "kind", "ok") for n in range(5)] == ["429", "500", "ok", "ok", "ok"]
    plan = fault_plan("m#ok,500*")
    assert [getattr(fault_for(plan, n), "kind", "ok") for n in range(4)] == ["ok", "500", "500", "500"]
    assert fault_plan("mock-react-1") == [] and fault_plan(None) == []


def test_a_429_carries_retry_after_to_a_grader_that_takes_headers():
    chat = text_chat("no_tool")
    body = json.dumps({"model": "m#429@7", "messages": [{"role": "user", "content": chat.scenario.question}]})
    status, error, headers = chat.http("POST", "http://10.0.0.1:8080/v1/chat/completions", body,
                                       headers={"Authorization": "Bearer sk-local-0123456789ab"})
    assert (status, headers) == (429, {"retry-after": "7"})
    assert "Please try again in 7s." in error["error"]["message"] and error["error"]["code"] == "rate_limit_exceeded"
    assert chat.http("POST", "http://10.0.0.1:8080/v1/chat/completions", body)[0] == 200  # the plan's next step
    exchange = chat.transcript[0]
    assert exchange.url == "http://10.0.0.1:8080/v1/chat/completions"
    assert exchange.headers["authorization"] == "Bearer sk-local-0123456789ab"
    assert "HTTP 429 · m#429@7" in exchange.texts(0)[1] and "retry-after: 7" in exchange.texts(0)[1]


def test_without_request_headers_the_answer_stays_a_pair():
    chat = text_chat("no_tool")
    body = json.dumps({"model": "m#429@2", "messages": [{"role": "user", "content": chat.scenario.question}]})
    status, error = chat.http("POST", "/v1/chat/completions", body)
    assert status == 429 and "in 2s" in error["error"]["message"]


def test_each_model_counts_its_own_requests():
    chat = text_chat("no_tool")
    ask_model = lambda model: chat.handle("POST", "/v1/chat/completions", {  # noqa: E731
        "model": model, "messages": [{"role": "user", "content": chat.scenario.question}]})[0]
    assert [ask_model("big#ok,500*"), ask_model("big#ok,500*"), ask_model("small"), ask_model("big#ok,500*")] \
        == [200, 500, 200, 500]
    assert [e.request["model"] for e in chat.transcript] == ["big#ok,500*", "big#ok,500*", "small", "big#ok,500*"]


def test_a_plan_that_names_a_server_fails_there_only_and_each_server_counts_its_own():
    chat = text_chat("no_tool")
    ask_at = lambda server, model: chat.handle("POST", f"http://{server}/v1/chat/completions", {  # noqa: E731
        "model": model, "messages": [{"role": "user", "content": chat.scenario.question}]})[0]
    down = "m#10.0.0.1:8080=ok,500*"
    assert [ask_at("10.0.0.1:8080", down), ask_at("10.0.0.1:8080", down), ask_at("10.0.0.2:8080", down),
            ask_at("10.0.0.2:8080", down), ask_at("10.0.0.1:8080", down)] == [200, 500, 200, 200, 500]
    everywhere = "m#ok,500*"  # no server named: every server plays it, each counting from its first request
    assert [ask_at("10.0.0.1:8080", everywhere), ask_at("10.0.0.1:8080", everywhere),
            ask_at("10.0.0.2:8080", everywhere), ask_at("10.0.0.2:8080", everywhere)] == [200, 500, 200, 500]


def test_network_failures_raise_for_the_grader_and_become_gateway_errors_over_plain_http():
    from mock_llm.session import NetworkFault
    chat = text_chat("no_tool")
    body = {"model": "m#timeout,unreachable", "messages": [{"role": "user", "content": chat.scenario.question}]}
    with pytest.raises(NetworkFault) as raised:
        chat.http("POST", "/v1/chat/completions", json.dumps(body), headers={})
    assert raised.value.network == "timeout" and raised.value.problem == "unreachable"
    assert chat.handle("POST", "/v1/chat/completions", body)[0] == 502  # unreachable, as a gateway says it
    assert chat.handle("POST", "/v1/chat/completions", body)[0] == 200
    assert [(e.status, e.network) for e in chat.transcript] == [(0, "timeout"), (0, "connect"), (200, None)]
    assert "no answer (timeout)" in chat.transcript[0].texts(0)[1]


def test_a_401_masks_the_key_it_was_sent_and_an_unknown_step_is_a_400():
    chat = text_chat("no_tool")
    body = {"model": "m#401", "messages": [{"role": "user", "content": chat.scenario.question}]}
    status, error, _ = chat.respond("POST", "/v1/chat/completions", body,
                                    {"authorization": "Bearer sk-proj-abcdefghijkl"})
    assert status == 401 and "Incorrect API key provided: sk-*****ijkl." in error["error"]["message"]
    status, error = chat.handle("POST", "/v1/chat/completions", dict(body, model="m#sometimes"))
    assert status == 400 and "does not know the failure 'sometimes'" in error["error"]["message"]


# ---------------------------------------------------------------- conversations: follow_ups, refers_to

WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                          "required": ["city"]}}}
SYSTEM = {"role": "system", "content": "You are a weather assistant."}


def conversation(name="there", seed=0):
    return ChatSession(load_world("day09", seed).scenarios[name], seed)


def turn(chat, messages, results):
    """Ask until the model answers; results: the tool content for each requested city."""
    while True:
        status, reply = ask(chat, messages, tools=(WEATHER_TOOL,))
        assert status == 200
        message = reply["choices"][0]["message"]
        messages = messages + [{k: v for k, v in message.items() if v is not None}]
        if not message.get("tool_calls"):
            return messages, message
        messages += [{"role": "tool", "tool_call_id": c["id"],
                      "content": results[json.loads(c["function"]["arguments"])["city"]]}
                     for c in message["tool_calls"]]


def test_a_follow_up_is_answered_from_the_earlier_turn_in_the_messages():
    chat = conversation()
    first, follow = chat.scenario.question, chat.scenario.follow_ups[0].question
    report = {"北京": json.dumps({"city": "北京", "sky": "晴", "temp_c": 31, "humidity": 40, "feels": "很热"})}
    messages, answer = turn(chat, [SYSTEM, {"role": "user", "content": first}], report)
    assert answer["content"] == "北京今天晴，31°C，湿度 40%。"
    status, reply = ask(chat, messages + [{"role": "user", "content": follow}], tools=(WEATHER_TOOL,))
    [call] = reply["choices"][0]["message"]["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == {"city": "北京"}
    assert call["id"] not in {c["id"] for m in messages for c in m.get("tool_calls") or []}  # ids of its own
    _, answer = turn(chat, messages + [{"role": "user", "content": follow}], report)
    assert answer["content"] == "北京现在 31°C，很热。"


def test_a_follow_up_without_its_earlier_turn_is_not_understood():
    chat = conversation()
    follow = chat.scenario.follow_ups[0]
    status, reply = ask(chat, [SYSTEM, {"role": "user", "content": follow.question}], tools=(WEATHER_TOOL,))
    message = reply["choices"][0]["message"]
    assert status == 200 and "tool_calls" not in message and message["content"] == follow.unclear
    # an earlier turn that is some other question does not help either
    other = [SYSTEM, {"role": "user", "content": "上海天气怎么样？"}, {"role": "assistant", "content": "多云。"},
             {"role": "user", "content": follow.question}]
    assert ask(chat, other, tools=(WEATHER_TOOL,))[1]["choices"][0]["message"]["content"] == follow.unclear


def test_a_follow_up_once_acted_on_survives_a_trim_of_its_earlier_turn():
    chat = conversation()
    first, follow = chat.scenario.question, chat.scenario.follow_ups[0].question
    report = {"北京": json.dumps({"city": "北京", "temp_c": 25, "feels": "温暖，不算热"})}
    messages, _ = turn(chat, [SYSTEM, {"role": "user", "content": first}], report)
    asked = messages + [{"role": "user", "content": follow}]
    _, reply = ask(chat, asked, tools=(WEATHER_TOOL,))
    message = reply["choices"][0]["message"]
    trimmed = [SYSTEM, {"role": "user", "content": follow}, message] + [
        {"role": "tool", "tool_call_id": c["id"], "content": report["北京"]} for c in message["tool_calls"]]
    _, final = ask(chat, trimmed, tools=(WEATHER_TOOL,))
    assert final["choices"][0]["message"]["content"] == "北京现在 25°C，温暖，不算热。"


def test_the_latest_user_message_picks_the_turn_and_parallel_calls_work_in_a_follow_up():
    chat = conversation("trip")
    v = chat.scenario.values
    third = chat.scenario.follow_ups[1]
    messages = [SYSTEM, {"role": "user", "content": chat.scenario.question}, {"role": "assistant", "content": "…"},
                {"role": "user", "content": chat.scenario.follow_ups[0].question}, {"role": "assistant", "content": "…"},
                {"role": "user", "content": third.question}]
    _, reply = ask(chat, messages, tools=(WEATHER_TOOL,))
    cities = sorted(json.loads(c["function"]["arguments"])["city"] for c in reply["choices"][0]["message"]["tool_calls"])
    assert cities == sorted([v["other"], v["third"]])


def test_a_scenario_without_follow_ups_is_unchanged():
    assert conversation().scenario.follow_ups and not session("one_quote").scenario.follow_ups
    status, reply = ask(session("one_quote"), start(session("one_quote")))
    assert status == 200 and reply["choices"][0]["message"]["tool_calls"]


@pytest.mark.parametrize("follow_up, problem", [
    ("{question: 'Next?', refers_to: 2}", "refers_to must name an earlier user turn"),
    ("{question: 'Next?', follow_ups: [{question: 'Deeper?'}]}", "a follow-up has no follow-ups"),
])
def test_a_bad_follow_up_names_the_file(tmp_path, follow_up, problem):
    from mock_llm import ScenarioError
    path = tmp_path / "scenarios.yaml"
    path.write_text("protocol: chat\ndata: {weather: {北京: [晴, 25, 40]}}\n"
                    "scenarios:\n  talk:\n    question: 'First?'\n    answer: 'Yes.'\n"
                    f"    follow_ups:\n      - {follow_up}\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match=problem) as error:
        load_world("day09", path=path)
    assert str(path) in str(error.value)


@pytest.mark.parametrize("raw", [
    "[" * 100_000 + "]" * 100_000,  # past the parser's own stack
    '{"model": "m", "messages": ' + "[" * 500 + "]" * 500 + "}",  # within it, past what the mock reads
    '{"model": "m", "messages": [], "n": ' + "9" * 5000 + "}",  # past Python's int conversion limit
    '{"model": "m", "messages": [{"role": "user", "content": "\\ud800 alone"}]}',  # a lone surrogate
    b'{"model": "\xff"}',  # not UTF-8
    "http://[::1",  # not JSON at all
], ids=["100000 deep", "500 deep", "5000 digits", "lone surrogate", "not UTF-8", "not JSON"])
def test_bodies_no_parser_can_take_get_the_apis_400_not_a_crash(raw):
    """Refused as the real API refuses a body it cannot parse (it refuses a lone surrogate as
    invalid JSON too: https://github.com/anomalyco/opencode/issues/14630)."""
    status, body = session("one_quote").http("POST", "/v1/chat/completions", raw)
    assert status == 400 and body["error"]["message"].startswith("We could not parse the JSON body")


def test_a_surrogate_pair_is_a_character_not_a_lone_surrogate():
    chat = session("one_quote")
    raw = json.dumps({"model": "m", "messages": [{"role": "user", "content": chat.scenario.question + " 😀"}],
                      "tools": [QUOTE_TOOL]})  # ensure_ascii: the emoji written as \ud83d\ude00
    assert "\\ud83d\\ude00" in raw and chat.http("POST", "/v1/chat/completions", raw)[0] == 200


def test_a_url_that_is_no_url_is_not_found_not_a_crash():
    assert session("one_quote").http("POST", "http://[::1/v1/chat/completions", "{}")[0] == 404


def test_max_tokens_cuts_the_reply_as_a_real_model_does():
    """A reply longer than `max_tokens` ends there, with finish_reason "length" (llama.cpp's server
    and the API both honour it): a cut tool call's arguments are no longer JSON."""
    chat, messages = session("one_quote"), start(session("one_quote"))

    def limited(limit, name="max_tokens"):
        return chat.handle("POST", "/v1/chat/completions", {"model": "m", "messages": messages,
                                                              "tools": [QUOTE_TOOL], name: limit})

    whole = limited(1000)[1]["choices"][0]
    assert whole["finish_reason"] == "tool_calls"
    content = whole["message"]["content"]  # "I need the latest AAPL quote." and one call
    status, reply = limited(len(content.encode()) // 4 + 2, "max_completion_tokens")
    choice = reply["choices"][0]
    assert (status, choice["finish_reason"], choice["message"]["content"]) == (200, "length", content)
    arguments = choice["message"]["tool_calls"][0]["function"]["arguments"]
    assert arguments and json.loads(whole["message"]["tool_calls"][0]["function"]["arguments"]) == {"ticker": "AAPL"}
    with pytest.raises(json.JSONDecodeError):
        json.loads(arguments)
    assert reply["usage"]["completion_tokens"] == len(content.encode()) // 4 + 2
    tiny = limited(2)[1]["choices"][0]
    assert (tiny["finish_reason"], tiny["message"]["content"], "tool_calls" in tiny["message"]) == (
        "length", content[:8], False)


@pytest.mark.parametrize("limit, message", [
    ("100", "Invalid type for 'max_tokens': expected an integer, but got a string instead."),
    (True, "Invalid type for 'max_tokens': expected an integer, but got a boolean instead."),
    (0, "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got 0 instead.")])
def test_a_bad_max_tokens_gets_the_apis_400(limit, message):
    chat = session("one_quote")
    status, body = chat.handle("POST", "/v1/chat/completions",
                               {"model": "m", "messages": start(chat), "max_tokens": limit})
    assert (status, body["error"]["message"], body["error"]["param"]) == (400, message, "max_tokens")


def test_a_request_past_the_context_window_gets_the_apis_400():
    """A history that is never trimmed ends where a real model's context does (day09's reason to
    trim): the API's 400, context_length_exceeded, naming the window and the count."""
    from mock_llm.tokens import CONTEXT_WINDOW
    chat = session("one_quote")
    long = [{"role": "user", "content": "x" * 4 * CONTEXT_WINDOW}] + start(chat)
    status, body = ask(chat, long)
    assert (status, body["error"]["code"], body["error"]["param"]) == (400, "context_length_exceeded", "messages")
    assert body["error"]["message"].startswith(f"This model's maximum context length is {CONTEXT_WINDOW} tokens. "
                                               "However, your messages resulted in ")
    assert ask(chat, start(chat))[0] == 200  # a prompt that fits is answered as before
