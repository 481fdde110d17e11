"""reactlings' rule-based mock LLM: offline, deterministic, no API key.

Graded runs build a session per task (see validator/). A lesson file calls `reply` instead, so a
learner can run their file directly and play with it: the mock answers the lesson's own questions
as scripted, and any other question its tools can serve by the lesson's `plan` rules (tools.py).
"""
from __future__ import annotations

from functools import lru_cache

from validator.needs import kit_packages

with kit_packages():  # `python -m mock_llm` by a Python without them: one line, not a traceback
    from .protocols import BudgetExceeded, Refusal, Session, protocol, question_of
    from .scenarios import DEFAULT_SEED, LessonWorld, Scenario, ScenarioError, load_world
    from .text_react import TextReactSession

__all__ = ["BudgetExceeded", "DEFAULT_SEED", "LessonWorld", "Refusal", "Scenario", "ScenarioError",
           "Session", "TextReactSession", "load_world", "protocol", "question_of", "reply"]

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
