"""The protocols by name, and a lesson's world built in the one its scenarios.yaml names.

A lesson's scenarios.yaml names its protocol (`protocol: text`); the name is looked up here when
the lesson loads, so a misspelt name is an error, never a silent default. A new protocol is a
Session subclass (session.py) in a module of its own, and one line in PROTOCOLS.
"""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from validator.files import LESSONS_DIR

from .scenarios import DEFAULT_SEED, LessonWorld, Scenario, ScenarioError, build_world, read_scenarios

if TYPE_CHECKING:
    from .chat import ChatSession
    from .session import Session

# Each protocol's Session class and its module, imported when a lesson speaks it: a lesson's name is
# checked when it loads, its class is needed only once it is graded.
PROTOCOLS: dict[str, tuple[str, str]] = {
    "text": ("text_react", "TextReactSession"), "decisions": ("decisions", "DecisionSession"),
    "json": ("decisions", "JsonSession"), "chat": ("chat", "ChatSession"), "text_chat": ("chat", "TextChatSession")}


def check_protocol(name: str) -> None:
    """ScenarioError, naming the known protocols, unless `name` is one."""
    if name not in PROTOCOLS:
        known = ", ".join(sorted(PROTOCOLS))
        raise ScenarioError(f"unknown protocol {name!r} (known: {known})" if name else
                            f"no `protocol:` named (one of {known})")


def protocol(name: str) -> type[Session]:
    """The Session class of a protocol; ScenarioError naming the known ones for any other name."""
    check_protocol(name)
    module, session_class = PROTOCOLS[name]
    return getattr(importlib.import_module(f".{module}", __package__), session_class)


def load_world(lesson: str | Path, seed: int = DEFAULT_SEED, path: Path | None = None) -> LessonWorld:
    """The world of a lesson (its name, or its folder) for one seed."""
    folder = Path(lesson) if isinstance(lesson, Path) else LESSONS_DIR / lesson
    data, path = read_scenarios(folder, path)
    try:
        session_class = protocol(str(data.get("protocol", "")))
    except ScenarioError as err:
        raise ScenarioError(f"{path}: {err}") from None
    return build_world(folder, data, path, seed, session_class)


def over_http(session_class: type[Session], scenario: Scenario, seed: int, budget: int) -> ChatSession:
    """A session of this protocol as Chat Completions (the mock server, day12-style clients): the
    chat protocols are that already; any other writes its replies as the message content."""
    from .chat import ChatSession
    if issubclass(session_class, ChatSession):
        return session_class(scenario, seed, budget)
    return ChatSession(scenario, seed, budget, writer=session_class(scenario, seed, budget).write_content)
