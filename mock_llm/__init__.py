"""reactlings' rule-based mock LLM: offline, deterministic, no API key.

Graded runs build a session per task (see validator/). A lesson file calls `reply` instead, so a
learner can run their file directly and play with it: the mock answers the lesson's own questions
as scripted, and any other question its tools can serve by the lesson's `plan` rules (tools.py).

What the validator uses is exported here; nothing outside mock_llm reaches into its modules.
"""
from __future__ import annotations

from functools import lru_cache

from validator.needs import kit_packages

with kit_packages():  # `python -m mock_llm` by a Python without them: one line, not a traceback
    from .chat import MODEL, conversation_text
    from .decisions import DecisionExchange, DecisionSession
    from .http_exchange import HttpExchange
    from .registry import load_world, over_http, protocol
    from .request_checks import error_body, read_json
    from .scenarios import DEFAULT_SEED, LessonWorld, Scenario, ScenarioError, first_number
    from .session import BadPayload, BudgetExceeded, NetworkFault, Refusal, Session, message_text, question_of
    from .text_react import (ACTION, ACTION_INPUT, OBSERVATION, Exchange, TextReactSession, answer_text,
                             find_observations, imagined, read_final, read_request, read_steps, request_text,
                             sees_question, written_after_request)
    from .tokens import count_tokens
    from .tools import calculate

__all__ = ["ACTION", "ACTION_INPUT", "BadPayload", "BudgetExceeded", "DEFAULT_SEED", "DecisionExchange",
           "DecisionSession", "Exchange", "HttpExchange", "LessonWorld", "MODEL", "NetworkFault", "OBSERVATION",
           "Refusal", "Scenario", "ScenarioError", "Session", "TextReactSession", "answer_text", "calculate",
           "conversation_text", "count_tokens", "error_body", "find_observations", "first_number", "imagined",
           "load_world", "message_text", "over_http", "protocol", "question_of", "read_final", "read_json",
           "read_request", "read_steps", "reply", "request_text", "sees_question", "written_after_request"]

_world = lru_cache(maxsize=None)(load_world)
_sessions: dict[tuple[str, str], Session] = {}


def reply(lesson: str, payload):
    """The mock's answer to a model call of a lesson's protocol, outside the grader (no budget)."""
    world = _world(lesson)
    question = question_of(payload)
    name = world.scripted([str(payload)])
    key = (lesson, name or "?" + question)
    if key not in _sessions:
        scenario = world.scenarios[name] if name else world.improvise(question, payload)
        _sessions[key] = world.protocol(scenario, world.seed, 10**9)
    return _sessions[key].answer(payload)
