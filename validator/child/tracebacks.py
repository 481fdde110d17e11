"""The learner's exception as the child tells the grader: its type, message, the learner's own
frames of its traceback, and the exceptions it came from. Part of the sandbox, beside it in the jail.
"""
import traceback


def learner_frames(error, path):
    """The learner's frames of `error` and of the exceptions it came from (a StopIteration that
    became a RuntimeError, say): only lines of the learner's file, oldest first."""
    frames, seen, current = [], set(), error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        mine = [f for f in traceback.extract_tb(current.__traceback__) if f.filename == path]
        frames = mine + [f for f in frames if (f.lineno, f.name) not in {(m.lineno, m.name) for m in mine}]
        current = _origin(current)
    return "".join(traceback.format_list(frames))


def describe(error, path):
    try:
        message = str(error)
    except Exception:
        message = f"<str() of {type(error).__name__} raised>"
    return {"type": type(error).__name__, "message": message, "traceback": learner_frames(error, path),
            "chain": _chain(error), "kinds": [f"{c.__module__}.{c.__qualname__}" for c in type(error).__mro__]}


def _chain(error):
    """The exceptions this one came from, as 'Type: message' (StopIteration -> RuntimeError)."""
    chain, seen, current = [], {id(error)}, _origin(error)
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        chain.append(f"{type(current).__name__}: {current}")
        current = _origin(current)
    return chain


def _origin(error):
    """The exception this one came from, as Python's own traceback shows it: the cause, else the
    context unless `raise … from None` hid it (json hides a StopIteration that way)."""
    if error.__cause__ is not None:
        return error.__cause__
    return None if error.__suppress_context__ else error.__context__
