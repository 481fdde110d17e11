"""validate.py dayNN --html: the graded run as a page, round by round (validator/traces/page.py)."""
import functools
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from validator.grading.grade import grade
from validator.lessons import load_lesson, say
from validator.traces.page import MAX_PAGE_TEXT, trace_page

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "submissions"
SECRET = 18446744073709551629


@functools.cache
def graded(lesson: str, name: str, seed: int = 0):
    return grade(load_lesson(lesson), CORPUS / lesson / name, seed)


class Rounds(HTMLParser):
    """Per failed check (its title): per run, its rounds' ids; and which rounds went wrong."""

    def __init__(self, page: str):
        super().__init__()
        self.checks: dict[str, list[list[str]]] = {}
        self.wrong: list[str] = []
        self._title = self._in_summary = None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag == "details" and "check" in classes:
            self._title = []
        elif tag == "summary" and self._title == []:
            self._in_summary = True
        elif tag == "div" and "run" in classes:
            self.checks[self._current].append([])
        elif tag == "li" and "round" in classes:
            self.checks[self._current][-1].append(attrs["id"])
            if "went-wrong" in classes:
                self.wrong.append(self._current)

    def handle_endtag(self, tag):
        if tag == "summary" and self._in_summary:
            self._in_summary = False
            self._current = "".join(self._title).lstrip("✗ ").strip()
            self.checks[self._current] = []

    def handle_data(self, data):
        if self._in_summary:
            self._title.append(data)


@pytest.mark.parametrize("lesson, name", [("day06", "bad_parse_keeps_made_up_observation.py"),
                                          ("day07", "bad_pairs_by_position.py")])
def test_the_page_shows_every_round_of_each_failing_run(lesson, name):
    result = graded(lesson, name)
    page = Rounds(trace_page(result, "en"))
    failing = [c for c in result.checks if not c.passed and c.runs]
    assert failing
    first = failing[0]  # the first to show its runs: none of them named as shown before
    assert [len(run) for run in page.checks[first.title["en"]]] == [len(run.exchanges) for run in first.runs]
    assert first.title["en"] in page.wrong  # the failure stands beside one of its rounds


def test_the_made_up_part_of_a_reply_is_struck_through_and_what_went_back_is_judged():
    page = trace_page(graded("day06", "bad_parse_keeps_made_up_observation.py"), "en")
    assert "<del>Observation: 16</del>" in page  # written after the request: the parser must not keep it
    assert say("page_fed_back_made_up", "en") in page  # "16" went back, not the Calculator's error


def test_results_paired_by_position_are_not_the_tools_results():
    page = trace_page(graded("day07", "bad_pairs_by_position.py"), "en")
    assert say("page_fed_back_made_up", "en") in page
    assert re.search(r"tokens: \d+ in, \d+ out", page)  # the chat lessons count tokens


def test_learner_text_is_escaped(tmp_path):
    source = (CORPUS / "day06" / "bad_parse_keeps_made_up_observation.py").read_text(encoding="utf-8")
    path = tmp_path / "day06.py"
    path.write_text(source + '''
_build = build_react_prompt


def build_react_prompt(user_input, tools, steps):
    print("<img src=x onerror=alert(2)>")
    return "<script>alert(1)</script>\\n" + _build(user_input, tools, steps)
''', encoding="utf-8")
    page = trace_page(grade(load_lesson("day06"), path), "en")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script" not in page.lower() and "<img" not in page.lower()


@pytest.mark.parametrize("name", ["bad_print_flood.py", "bad_import_print_flood.py"])
def test_a_flooding_submission_gives_a_bounded_page(name):
    result = graded("day06", name)
    assert any(c.printed for c in result.checks if not c.passed)  # the flood's head reaches the page
    assert len(trace_page(result, "en").encode("utf-8")) < 100_000


@pytest.mark.slow
def test_an_8_mb_submission_that_sends_megabytes_gives_a_bounded_page(tmp_path):
    """Every prompt carries a megabyte of the file's own text: the page keeps a part of each and
    stops at its limit, saying so."""
    source = (CORPUS / "day06" / "bad_parse_keeps_made_up_observation.py").read_text(encoding="utf-8")
    path = tmp_path / "day06.py"
    path.write_text(source + f'''
PADDING = "{"<b>&" * 250_000}"
_build = build_react_prompt


def build_react_prompt(user_input, tools, steps):
    return PADDING + "\\n" + _build(user_input, tools, steps)
# {"x" * 7_000_000}
''', encoding="utf-8")
    assert path.stat().st_size > 8_000_000
    page = trace_page(grade(load_lesson("day06"), path), "en")
    assert len(page.encode("utf-8")) < MAX_PAGE_TEXT * 2
    assert re.search(r"\(\d+ more characters not shown\)", page)


def test_the_page_speaks_chinese():
    page = trace_page(graded("day07", "bad_pairs_by_position.py"), "zh")
    assert '<html lang="zh">' in page
    for key in ("page_legend", "report_trace_reply", "page_fed_back_made_up", "page_went_wrong"):
        assert say(key, "zh") in page and say(key, "en") not in page


def test_the_seed_never_shows_and_the_page_is_the_same_every_time():
    first = trace_page(graded("day07", "bad_pairs_by_position.py", SECRET), "en")
    assert str(SECRET) not in first
    assert trace_page(grade(load_lesson("day07"), CORPUS / "day07" / "bad_pairs_by_position.py", SECRET), "en") == first


def validate(*args: str, workspace: Path, **variables: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, REACTLINGS_WORKSPACE=str(workspace), PYTHONIOENCODING="utf-8", **variables)
    return subprocess.run([sys.executable, str(ROOT / "validate.py"), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_command_writes_the_page_and_keeps_its_grade(tmp_path):
    bad = str(CORPUS / "day06" / "bad_parse_keeps_made_up_observation.py")
    done = validate("day06", "--file", bad, "--html", "--quiet", workspace=tmp_path)
    assert done.returncode == 1, done.stderr  # the grade's exit status, as without --html
    assert (tmp_path / "traces" / "day06.html").is_file()
    assert "traces" in done.stderr


def test_the_page_never_replaces_a_python_file(tmp_path):
    mine = tmp_path / "day06.py"
    shutil.copyfile(CORPUS / "day06" / "bad_parse_keeps_made_up_observation.py", mine)
    before = mine.read_bytes()
    done = validate("day06", "--file", str(mine), "--html", str(mine), workspace=tmp_path)
    assert done.returncode == 2 and say("page_not_python", "en", option="--html", path=mine).split(":")[0] in done.stderr
    assert mine.read_bytes() == before


BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.slow
@pytest.mark.skipif(not BROWSER, reason="needs Debian's chromium")
@pytest.mark.parametrize("lesson, name", [("day06", "bad_parse_keeps_made_up_observation.py"),
                                          ("day07", "bad_pairs_by_position.py")])
def test_the_page_renders_in_a_real_browser(lesson, name, tmp_path):
    result = graded(lesson, name)
    page = tmp_path / "trace.html"
    page.write_text(trace_page(result, "zh"), encoding="utf-8")
    browser = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={tmp_path / 'profile'}"]
    shot = tmp_path / "trace.png"
    done = subprocess.run([*browser, "--enable-logging=stderr", "--v=0", f"--screenshot={shot}",
                           "--window-size=1200,2400", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 5000, done.stderr[-2000:]
    assert "Uncaught" not in done.stderr and "CONSOLE(" not in done.stderr
    dom = subprocess.run([*browser, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120).stdout
    failing = next(c for c in result.checks if not c.passed and c.runs)
    shown = Rounds(dom)  # the page as the browser built it: every round of the failing runs
    assert [len(run) for run in shown.checks[failing.title["zh"]]] == [len(run.exchanges) for run in failing.runs]
