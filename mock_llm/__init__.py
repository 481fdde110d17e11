"""reactlings' rule-based mock LLM: offline, deterministic, no API key.

Graded runs build a session per task (see validator/). A lesson file calls `reply` instead, so a
learner can run their file directly and play with it: the mock answers the lesson's own questions
as scripted, and any other question its tools can serve by the lesson's `plan` rules (tools.py).

What the validator uses is exported here; nothing outside mock_llm reaches into its modules.
"""
from __future__ import annotations

import importlib
from functools import lru_cache

from validator.needs import kit_packages

# What the validator uses, by the module of mock_llm's that defines it, imported on first use (a
# module __getattr__): `validate.py dayNN` starts the learner's child before it loads the protocols.
_EXPORTS = {
    "chat": ("MODEL", "conversation_text"),
    "decisions": ("DecisionExchange", "DecisionSession"),
    "http_exchange": ("HttpExchange",),
    "registry": ("check_protocol", "load_world", "over_http", "protocol"),
    "request_checks": ("error_body", "read_json"),
    "scenarios": ("DEFAULT_SEED", "LessonWorld", "Scenario", "ScenarioError", "first_number"),
    "session": ("BadPayload", "BudgetExceeded", "NetworkFault", "Refusal", "Session", "message_text", "question_of"),
    "text_react": ("ACTION", "ACTION_INPUT", "OBSERVATION", "Exchange", "TextReactSession", "answer_text",
                   "find_observations", "imagined", "names_tool", "read_final", "read_request", "read_steps", "request_text",
                   "same_call", "sees_question", "written_after_request"),
    "tokens": ("count_tokens",),
    "tools": ("calculate",),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted([*_MODULE_OF, "reply"])


def __getattr__(name: str):
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    with kit_packages():  # `python -m mock_llm` by a Python without them: one line, not a traceback
        value = getattr(importlib.import_module(f".{_MODULE_OF[name]}", __name__), name)
    globals()[name] = value
    return value


@lru_cache(maxsize=None)
def _world(lesson: str):
    from .registry import load_world
    return load_world(lesson)


_sessions: dict[tuple[str, str], object] = {}  # (lesson, question or scenario) -> its Session


def reply(lesson: str, payload):
    """The mock's answer to a model call of a lesson's protocol, outside the grader (no budget)."""
    from .session import question_of
    world = _world(lesson)
    question = question_of(payload)
    name = world.scripted([str(payload)])
    key = (lesson, name or "?" + question)
    if key not in _sessions:
        scenario = world.scenarios[name] if name else world.improvise(question, payload)
        _sessions[key] = world.protocol(scenario, world.seed, 10**9)
    return _sessions[key].answer(payload)
