"""The JSON-decision mocks: DecisionSession (day01, decision dicts) and JsonSession (day02, the same
decisions as JSON text, in three layouts, and broken until the agent sends a correction).

Every test plays the part of a learner's loop: it sends messages, reads the reply, and appends what
a loop would append.
"""
import json

import pytest

import mock_llm
from mock_llm import load_world, protocol
from mock_llm.decisions import BROKEN_LEAD, LAYOUTS, DecisionSession, JsonSession
from mock_llm.http import Router


def decision_in(reply: str) -> dict:
    """The first JSON object of a reply, the way a learner's parser should find it."""
    decoder = json.JSONDecoder()
    for start in (i for i, char in enumerate(reply) if char == "{"):
        try:
            return decoder.raw_decode(reply, start)[0]
        except json.JSONDecodeError:
            continue
    raise ValueError(f"no JSON object in {reply!r}")


def ask(world, name):
    """A fresh session of the lesson's protocol on a scenario, and its first messages."""
    session = world.session(name)
    return session, [{"role": "user", "content": world.scenarios[name].question}]


def run(session, messages, results):
    """Answer each tool decision with the next of `results`, as a correct loop would; the replies."""
    replies = []
    for result in [*results, None]:
        reply = session.answer(messages)
        replies.append(reply)
        if result is None:
            break
        messages += [{"role": "assistant", "content": reply}, {"role": "tool", "content": result}]
    return replies


def test_the_registry_knows_both_protocols():
    assert protocol("decisions") is DecisionSession
    assert protocol("json") is JsonSession


# ---------------------------------------------------------------- decisions (day01)

def test_decisions_read_the_results_of_earlier_calls():
    session, messages = ask(load_world("day01"), "arithmetic")
    replies = run(session, messages, ["30", "40"])
    assert replies == [{"type": "tool", "name": "multiply", "args": {"a": 5, "b": 6}},
                       {"type": "tool", "name": "add", "args": {"a": 30, "b": 10}},
                       {"type": "final", "content": "The final result is 40."}]


def test_without_a_tool_message_the_same_call_comes_again():
    session, messages = ask(load_world("day01"), "arithmetic")
    first = session.answer(messages)
    messages += [{"role": "assistant", "content": first}, {"role": "user", "content": "30"}]
    assert session.answer(messages) == first


def test_a_dollar_entry_is_a_decision_of_another_type():
    session, messages = ask(load_world("day01"), "unknown_type")
    decision = session.answer(messages)
    assert decision["type"] == "thought" and "name" not in decision and decision["content"]


def test_no_question_no_task():
    session = load_world("day01").session("arithmetic")
    assert session.answer([{"role": "user", "content": "hello"}])["type"] == "final"


# ---------------------------------------------------------------- json (day02): layouts

@pytest.mark.parametrize("seed", range(6))
def test_three_replies_show_the_three_layouts_once_each(seed):
    world = load_world("day02", seed)
    session, messages = ask(world, "arithmetic")
    v = world.scenarios["arithmetic"].values
    replies = run(session, messages, [str(v["a"] * v["b"]), str(v["a"] * v["b"] + v["c"])])
    assert sorted(e.layout for e in session.transcript) == sorted(LAYOUTS)
    for exchange in session.transcript:
        assert decision_in(exchange.reply) == exchange.decision
        assert BROKEN_LEAD not in exchange.reply
    assert decision_in(replies[-1]) == {"type": "final", "content": f"The final result is {v['a'] * v['b'] + v['c']}."}


def test_each_layout_looks_as_documented():
    world = load_world("day02")
    session, messages = ask(world, "arithmetic")
    run(session, messages, ["30", "40"])
    by_layout = {e.layout: e.reply for e in session.transcript}
    assert by_layout["bare"].startswith("{") and by_layout["bare"].endswith("}")
    assert by_layout["fence"].startswith("```json\n") and by_layout["fence"].endswith("\n```")
    assert by_layout["fence"].count("\n") > 4  # indented, over several lines
    prose = by_layout["prose"].splitlines()
    assert len(prose) >= 2 and not prose[0].startswith("{") and prose[1].startswith("{")


def test_the_layout_order_changes_with_the_seed():
    orders = set()
    for seed in range(8):
        world = load_world("day02", seed)
        session, messages = ask(world, "arithmetic")
        v = world.scenarios["arithmetic"].values
        run(session, messages, [str(v["a"] * v["b"]), "0"])
        orders.add(tuple(e.layout for e in session.transcript))
    assert len(orders) > 1


def test_the_same_messages_get_the_same_reply():
    world = load_world("day02", 3)
    first, messages = ask(world, "arithmetic")
    again, _ = ask(world, "arithmetic")
    assert first.answer(messages) == first.answer(messages) == again.answer(messages)


# ---------------------------------------------------------------- json (day02): the malformed rule

def broken_first(seed=0):
    world = load_world("day02", seed)
    session, messages = ask(world, "malformed")
    return world, session, messages, session.answer(messages)


def test_the_spoiled_reply_is_broken_and_unreadable():
    _, session, _, broken = broken_first()
    assert broken.startswith(BROKEN_LEAD) and session.transcript[-1].layout == "broken"
    with pytest.raises(ValueError):
        decision_in(broken)
    assert "}" not in broken


def test_it_stays_broken_until_the_reply_and_an_error_come_back():
    _, session, messages, broken = broken_first()
    nothing = list(messages)
    error_only = [*messages, {"role": "user", "content": "Your reply was not valid JSON."}]
    reply_only = [*messages, {"role": "assistant", "content": broken}]
    error_first = [*messages, {"role": "user", "content": "Not valid JSON."}, {"role": "assistant", "content": broken}]
    for attempt in (nothing, error_only, reply_only, error_first):
        assert session.answer(attempt) == broken
    both = [*messages, {"role": "assistant", "content": broken}, {"role": "user", "content": "Not valid JSON."}]
    proper = session.answer(both)
    assert session.transcript[-1].layout != "broken"
    assert decision_in(proper) == {"type": "tool", "name": "multiply", "args": {"a": 5, "b": 7}}


def test_an_error_sent_as_a_tool_message_is_not_a_result():
    _, session, messages, broken = broken_first()
    messages += [{"role": "assistant", "content": broken}, {"role": "tool", "content": "invalid JSON"}]
    proper = session.answer(messages)
    assert decision_in(proper)["name"] == "multiply"  # still the first call: no tool ran


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_a_loop_with_a_correction_round_gets_the_answer(seed):
    world, session, messages, broken = broken_first(seed)
    v = world.scenarios["malformed"].values
    messages += [{"role": "assistant", "content": broken}, {"role": "user", "content": "invalid JSON, try again"}]
    replies = run(session, messages, [str(v["a"] * v["d"]), str(v["a"] * v["d"] + v["b"])])
    assert decision_in(replies[-1])["content"] == f"{v['a']} × {v['d']} + {v['b']} = {v['a'] * v['d'] + v['b']}."
    assert [e.layout for e in session.transcript].count("broken") == 1


def test_the_broken_reply_echoed_as_json_text_of_the_decision_is_not_mistaken_for_it():
    """A proper reply never contains the broken one, whatever layout it has."""
    world = load_world("day02")
    session, messages = ask(world, "malformed")
    broken = session.answer(messages)
    proper_text = json.dumps(session.transcript[-1].decision)
    messages += [{"role": "assistant", "content": proper_text}, {"role": "user", "content": "try again"}]
    assert session.answer(messages) == broken


# ---------------------------------------------------------------- the other faces

def test_the_trace_shows_new_messages_and_the_reply_as_written():
    world = load_world("day02")
    session, messages = ask(world, "arithmetic")
    reply = session.answer(messages)
    sent, received, total = session.transcript[0].texts(0)
    assert world.scenarios["arithmetic"].question in sent and received == reply and total == 1


def test_standalone_reply_picks_the_task_by_its_question():
    question = load_world("day02").scenarios["arithmetic"].question
    reply = mock_llm.reply("day02", [{"role": "system", "content": "tools…"}, {"role": "user", "content": question}])
    assert decision_in(reply)["name"] == "multiply"
    decision = mock_llm.reply("day01", [{"role": "user", "content": question}])
    assert decision == {"type": "tool", "name": "multiply", "args": {"a": 5, "b": 6}}


def test_over_http_the_reply_is_the_message_content():
    question = load_world("day02").scenarios["malformed"].question
    body = json.dumps({"model": "mock", "messages": [{"role": "user", "content": question}]}).encode()
    status, response, _ = Router("day02").handle("POST", "/v1/chat/completions", body)
    assert status == 200
    assert response["choices"][0]["message"]["content"].startswith(BROKEN_LEAD)


def test_a_question_of_your_own_gets_a_plan_of_add_and_multiply():
    messages = [{"role": "user", "content": "What is 7 × 8, then add 3?"}]
    assert mock_llm.reply("day01", messages) == {"type": "tool", "name": "multiply", "args": {"a": 7, "b": 8}}
    messages += [{"role": "assistant", "content": "…"}, {"role": "tool", "content": "56"}]
    assert decision_in(mock_llm.reply("day02", messages)) == {"type": "tool", "name": "add",
                                                               "args": {"a": 56, "b": 3}}
    other = mock_llm.reply("day01", [{"role": "user", "content": "What is 2 + 3 * 4?"}])
    assert other["type"] == "final"  # no plan: the model says no tool fits
