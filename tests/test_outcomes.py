"""The outcome table (validator/outcomes.py): every way a call can end has its message in both
languages, every refusal a session raises is in it, and a gradebook status says itself."""
import csv
import io
import json

import pytest

from mock_llm import Refusal
from validator.learner import live  # noqa: F401  (its refusals are Refusal subclasses)
from validator.lessons import catalog
from validator.outcomes import Problem, Status


def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)


@pytest.mark.parametrize("problem", list(Problem), ids=lambda p: p.value)
def test_every_problem_is_a_message_in_both_languages(problem):
    assert set(catalog()[problem]) >= {"en", "zh"}


@pytest.mark.parametrize("status", list(Status), ids=lambda s: s.value)
def test_every_status_has_a_name_in_both_languages(status):
    assert set(catalog()[status.message]) >= {"en", "zh"}


def test_every_refusal_a_session_raises_is_a_problem():
    refusals = [Refusal, *subclasses(Refusal)]
    assert len(refusals) >= 8
    for refusal in refusals:
        assert Problem(refusal.problem).unloaded is None, refusal  # a refused call: the file loaded


def test_only_load_problems_name_a_status_and_it_is_one_a_scored_file_gets():
    unloaded = {p: p.unloaded for p in Problem if p.unloaded}
    assert all(p.value.startswith("import_") or p is Problem.LOADS_MODEL for p in unloaded)
    assert set(unloaded.values()) == {Status.SYNTAX_ERROR, Status.TIMED_OUT, Status.CRASHED}
    assert all(status.scored for status in unloaded.values())
    assert Problem.HANG.while_loading() is Problem.IMPORT_HANG and Problem.BUDGET.while_loading() is Problem.BUDGET


def test_they_are_written_as_their_values_in_json_csv_and_text():
    row = io.StringIO()
    csv.writer(row, lineterminator="\n").writerow([Status.TIMED_OUT, Problem.HANG])
    assert row.getvalue() == "timed out,hang\n"
    assert json.dumps({"status": Status.GRADER_FAILED}) == '{"status": "grader failed"}'
    assert f"{Status.MISSING} {Problem.BUDGET}" == "missing budget" and Problem("hang") is Problem.HANG
