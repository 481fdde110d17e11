"""reactlings' rule-based mock LLM: offline, deterministic, no API key.

Graded runs build a session per task (see validator/). A lesson template calls `reply` instead, so a
learner can run their file directly: the mock picks the lesson task whose question is in the prompt.
"""
from __future__ import annotations

from functools import lru_cache

from .scenarios import DEFAULT_SEED, LessonWorld, Scenario, ScenarioError, load_world
from .text_react import BudgetExceeded, TextReactSession

__all__ = ["BudgetExceeded", "DEFAULT_SEED", "LessonWorld", "Scenario", "ScenarioError",
           "TextReactSession", "load_world", "reply"]

_world = lru_cache(maxsize=None)(load_world)
_sessions: dict[tuple[str, str], TextReactSession] = {}


def reply(lesson: str, prompt: str) -> str:
    """The mock's answer to a text-protocol prompt, outside the grader (no call budget)."""
    world = _world(lesson)
    for name, scenario in world.scenarios.items():
        if scenario.question in prompt:
            session = _sessions.setdefault((lesson, name), TextReactSession(scenario, budget=10**9))
            return session.reply(prompt)
    questions = "; ".join(s.question for s in world.scenarios.values())
    return ("Thought: This is not one of the questions I was scripted for.\n"
            f"Final Answer: (mock LLM) I can only answer this lesson's questions: {questions}")
