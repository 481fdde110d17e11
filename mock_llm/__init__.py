"""reactlings' rule-based mock LLM: offline, deterministic, no API key.

Graded runs build a session per task (see validator/). A lesson template calls `reply` instead, so a
learner can run their file directly: the mock picks the lesson task whose question is in the prompt.
"""
from __future__ import annotations

from functools import lru_cache

from .protocols import BudgetExceeded, Refusal, Session, protocol
from .scenarios import DEFAULT_SEED, LessonWorld, Scenario, ScenarioError, load_world
from .text_react import TextReactSession

__all__ = ["BudgetExceeded", "DEFAULT_SEED", "LessonWorld", "Refusal", "Scenario", "ScenarioError",
           "Session", "TextReactSession", "load_world", "protocol", "reply"]

_world = lru_cache(maxsize=None)(load_world)
_sessions: dict[tuple[str, str], Session] = {}


def reply(lesson: str, payload):
    """The mock's answer to a model call of a lesson's protocol, outside the grader (no budget)."""
    world = _world(lesson)
    for name, scenario in world.scenarios.items():
        if scenario.question in str(payload):
            session = _sessions.setdefault((lesson, name), world.protocol(scenario, world.seed, 10**9))
            return session.answer(payload)
    questions = "; ".join(s.question for s in world.scenarios.values())
    unknown = Scenario("unknown", "", [], f"(mock LLM) I can only answer this lesson's questions: {questions}",
                       [], repeat=False)
    return world.protocol(unknown, world.seed, 1).answer(payload)
