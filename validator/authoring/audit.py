"""Mutation audit of a lesson's checks: `python validate.py audit day06` (or `audit all`).

A mutant is the reference solution with one mechanical change in one TODO's code (the lines
between `# BEGIN SOLUTION` and `# END SOLUTION`): a bound off by one, a dropped statement, a swapped
argument, a parameter replaced by its default (the lesson text's value), a try/except removed (its
body kept), a condition inverted, another variable returned, a wrong dict key, `and` for `or`, …
Each is graded as a student's file, the mutants of a lesson together as a class (workers.Workers:
warm workers, the sandbox, the fork server). A mutant is killed when it loses points on the TODO it
touched; one that loses points only elsewhere is reported apart, as blame on the wrong TODO.

A lesson's lesson.yaml lists the mutants that cannot change behaviour, `equivalent_mutants:`, each
id (operator:TODO:hash of the changed lines, stable however the rest of the file changes) with a
one-line reason. They are graded too (one that is killed is no equivalent) and counted apart; an id
that no longer names a mutant is reported as stale. The score is the mutants killed on their own
TODO over the mutants not listed as equivalent.

Mutants are made in the order of the file and are the same on every run. Past `limit` a lesson's
are sampled, the same ones every time: by TODO in turn, each TODO's in the order of a hash of their id.
"""
from __future__ import annotations

import ast
import copy
import difflib
import hashlib
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from validator.authoring.templates import todo_regions
from validator.files import ROOT, read_yaml
from validator.instructor.submissions import Entry
from validator.instructor.workers import Workers
from validator.lessons import Lesson, LessonError, load_lesson
from validator.outcomes import Status

LIMIT = 80  # mutants graded per lesson, at most (listed equivalents come on top)
THRESHOLD = 95.0  # % of the non-equivalent mutants killed on their own TODO, for a lesson to pass


@dataclass
class Mutant:
    id: str  # operator:TODO:hash, stable across runs
    operator: str
    todo: str
    line: int  # of the change, in the solution
    source: str  # the whole mutated solution
    diff: list[str]  # a unified diff's hunks, a line of context around the change


@dataclass
class Outcome:
    mutant: Mutant
    status: str  # killed · elsewhere (lost points only on other TODOs) · survived · error
    lost: tuple[int, int] = (0, 0)  # points lost on its own TODO, of its points
    others: list[str] = field(default_factory=list)  # other TODOs that lost points
    equivalent: str = ""  # the reason lesson.yaml gives, if listed


@dataclass
class Audit:
    lesson: str
    made: int  # mutants the lesson's TODO code gives
    outcomes: list[Outcome]
    stale: list[str]  # listed as equivalent, but no mutant has the id

    @property
    def counted(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.equivalent]

    @property
    def killed(self) -> int:
        return sum(o.status == "killed" for o in self.counted)

    @property
    def score(self) -> float:
        return 100.0 * self.killed / len(self.counted) if self.counted else 100.0


# ---------------------------------------------------------------- making mutants

BOUNDARY = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
COMPARE = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot,
           ast.IsNot: ast.Is}
ARITH = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Div,
         ast.Mod: ast.FloorDiv}
ATOMS = (ast.Name, ast.Constant, ast.Call, ast.Attribute, ast.Subscript, ast.List, ast.Dict, ast.Tuple,
         ast.Set, ast.JoinedStr, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp)
TIGHT = (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Attribute, ast.Subscript, ast.Call, ast.Await,
         ast.IfExp, ast.Starred)  # parents in which a replaced expression may need parentheses


def make_mutants(solution: str, lesson: Lesson) -> list[Mutant]:
    """Every mutant of the TODO code of `solution`, in the order of the file; each distinct."""
    tree = ast.parse(solution)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    regions = todo_regions(solution, lesson)
    lines = solution.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    made, seen, ids = [], {ast.dump(tree)}, set()
    for node in sorted(_nodes(tree, regions), key=lambda n: (n.lineno, n.col_offset, type(n).__name__)):
        todo = next(t for begin, end, t in regions if begin < node.lineno and node.end_lineno < end)
        for operator, start, end, text in _edits(node, parents, lines, starts):
            source = solution[:start] + text + solution[end:]
            try:
                dump = ast.dump(compile(source, lesson.solution.name, "exec", ast.PyCF_ONLY_AST))
            except SyntaxError:
                continue
            if dump in seen:
                continue
            seen.add(dump)
            changed = list(difflib.unified_diff(lines, source.splitlines(keepends=True), n=1))[2:]
            moved = "".join(line[1:].strip() + line[0] for line in changed if line[0] in "+-")
            mutant_id = f"{operator}:{todo}:{hashlib.sha256(moved.encode()).hexdigest()[:8]}"
            while mutant_id in ids:  # the same change to an identical line of the same TODO
                mutant_id += "+"
            ids.add(mutant_id)
            made.append(Mutant(mutant_id, operator, todo, node.lineno, source, [line.rstrip("\n") for line in changed]))
    return made


def _nodes(tree: ast.AST, regions) -> list[ast.AST]:
    """The nodes wholly inside some TODO's code, but those in f-strings (whose positions older
    Pythons don't give) and docstrings."""
    inside = []
    skip = {id(n) for j in ast.walk(tree) if isinstance(j, ast.JoinedStr) for n in ast.walk(j)}
    for node in ast.walk(tree):
        if id(node) in skip or not hasattr(node, "lineno"):
            continue
        if any(begin < node.lineno and node.end_lineno < end for begin, end, _ in regions):
            inside.append(node)
    return inside


def _edits(node, parents, lines, starts):
    """(operator, start, end, replacement) for each change of `node`: character offsets in the
    solution's text."""
    def where(line, col):  # ast's columns count UTF-8 bytes
        return starts[line - 1] + len(lines[line - 1].encode()[:col].decode())

    start, end = where(node.lineno, node.col_offset), where(node.end_lineno, node.end_col_offset)
    for operator, new in _new_expressions(node, parents):
        yield operator, start, end, _source(new, parents.get(node))
    yield from _statement_edits(node, parents, lines, where, start, end)


def _source(new, outer) -> str:
    """The text of an expression put where the child of `outer` was: in parentheses where `outer`
    binds tighter."""
    text = ast.unparse(new)
    loose = isinstance(outer, ast.BoolOp) and isinstance(new, (ast.Compare, ast.BinOp, ast.UnaryOp))
    if not isinstance(new, ATOMS) and isinstance(outer, TIGHT) and not loose:
        text = f"({text})"
    return text


def _changed(node, **fields):
    """A copy of `node` with `fields` set."""
    new = copy.deepcopy(node)
    for name, value in fields.items():
        setattr(new, name, value)
    return new


def _new_expressions(node, parents):
    """(operator, expression) for each change of `node` that puts another expression in its place."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        yield "number", ast.Constant(node.value + 1)
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and _is_key(node, parents.get(node)):
        yield "key", ast.Constant(_other_key(node, parents))
    if isinstance(node, ast.Compare):
        for index, op in enumerate(node.ops):
            for table, operator in ((BOUNDARY, "boundary"), (COMPARE, "compare")):
                if type(op) in table:
                    ops = list(node.ops)
                    ops[index] = table[type(op)]()
                    yield operator, _changed(node, ops=ops)
    if isinstance(node, ast.BoolOp):
        yield "and_or", _changed(node, op=ast.Or() if isinstance(node.op, ast.And) else ast.And())
    if isinstance(node, ast.BinOp) and type(node.op) in ARITH:
        yield "arith", _changed(node, op=ARITH[type(node.op)]())
    if isinstance(node, ast.Call):
        yield from _new_calls(node)
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        default = _default_of(node, parents)
        if default is not None:
            yield "default", default


def _new_calls(node: ast.Call):
    """(operator, call) for each change of a call's arguments: the first two swapped, a range's
    end one more and one less."""
    positional = [a for a in node.args if not isinstance(a, ast.Starred)]
    if len(positional) >= 2 and len(positional) == len(node.args):
        args = list(node.args)
        args[0], args[1] = args[1], args[0]
        yield "swap", _changed(node, args=args)
    if isinstance(node.func, ast.Name) and node.func.id == "range" and node.args:
        for sign, step in ((ast.Add(), "range+1"), (ast.Sub(), "range-1")):
            args = list(node.args)
            index = 0 if len(args) == 1 else 1
            args[index] = ast.BinOp(args[index], sign, ast.Constant(1))
            yield step, _changed(node, args=args)


def _statement_edits(node, parents, lines, where, start, end):
    """(operator, start, end, replacement) for each change of `node` written as text: a test
    negated, another name returned, a loop's jump turned, a statement dropped, a try unwrapped."""
    parent = parents.get(node)
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        test = node.test
        test_start, test_end = where(test.lineno, test.col_offset), where(test.end_lineno, test.end_col_offset)
        yield "negate", test_start, test_end, ast.unparse(ast.UnaryOp(ast.Not(), test))
    if isinstance(node, ast.Return) and node.value is not None:
        for name in _other_names(node, parents)[:2]:
            yield "return", where(node.value.lineno, node.value.col_offset), \
                where(node.value.end_lineno, node.value.end_col_offset), name
    if isinstance(node, ast.Break):
        yield "break", start, end, "continue"
    if isinstance(node, ast.Continue):
        yield "break", start, end, "break"
    if isinstance(node, ast.stmt) and not isinstance(node, ast.Pass) and not _is_docstring(node) \
            and not _falls_off(node, parent):
        yield "drop", start, end, "pass"
    if isinstance(node, ast.Try) and node.handlers:
        yield "no_try", start, end, _dedented(node, lines)


def _is_docstring(node) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _falls_off(node, parent) -> bool:
    """A function's last statement `return` or `return None`: dropped, it changes nothing."""
    if not isinstance(node, ast.Return) or not (node.value is None or _is_none(node.value)):
        return False
    return isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and parent.body[-1] is node


def _is_none(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_key(node, parent) -> bool:
    """A string used as a key: d["k"], {"k": "v"} (either, a value when it is a word: a message's
    role, not a description), d.get("k"), x == "k", "k" in d."""
    if isinstance(parent, ast.Subscript) and parent.slice is node:
        return True
    if isinstance(parent, ast.Dict):
        return node in parent.keys or re.fullmatch(r"[A-Za-z_][\w-]*", node.value) is not None
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.args[:1] == [node]:
        return parent.func.attr in ("get", "pop", "setdefault")
    return isinstance(parent, ast.Compare)


def _other_key(node, parents) -> str:
    """Another key of the same function (the next one in order), else the key with an s."""
    function = _function_of(node, parents)
    keys = []
    for other in ast.walk(function) if function else []:
        if isinstance(other, ast.Constant) and isinstance(other.value, str) and _is_key(other, parents.get(other)):
            if other.value not in keys:
                keys.append(other.value)
    if len(keys) > 1:
        return keys[(keys.index(node.value) + 1) % len(keys)]
    return node.value + "s"


def _function_of(node, parents):
    while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        node = parents.get(node)
    return node


def _default_of(node: ast.Name, parents) -> ast.AST | None:
    """A parameter's default when it is a constant (the lesson text's value: max_steps=5), for a
    use of that parameter in its own function."""
    function = _function_of(node, parents)
    if function is None:
        return None
    args = function.args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    for arg, default in pairs:
        if arg.arg == node.id and isinstance(default, ast.Constant) and default.value is not None:
            return copy.deepcopy(default)
    return None


def _other_names(node: ast.Return, parents) -> list[str]:
    """The function's parameters and local variables, in order of appearance, but those the
    returned expression already uses."""
    function = _function_of(node, parents)
    if function is None:
        return []
    used = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
    names = [a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs]
    names += [n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    return [name for name in dict.fromkeys(names) if name not in used and name != "self"]


def _dedented(outer: ast.Try, lines: list[str]) -> str:
    """A try's body, else and finally blocks, moved to the try's own indentation."""
    moved = []
    for block in (outer.body, outer.orelse, outer.finalbody):
        if block:
            shift = block[0].col_offset - outer.col_offset
            moved += [line[shift:] if line[:shift].isspace() else line
                      for line in lines[block[0].lineno - 1:block[-1].end_lineno]]
    return "".join(moved)[outer.col_offset:].rstrip("\n")


# ---------------------------------------------------------------- choosing and grading

def equivalents(lesson: Lesson) -> dict[str, str]:
    """lesson.yaml's `equivalent_mutants`: id → the reason it cannot change behaviour."""
    listed = read_yaml(lesson.folder / "lesson.yaml").get("equivalent_mutants") or {}
    if not isinstance(listed, dict) or not all(isinstance(r, str) and r.strip() for r in listed.values()):
        raise LessonError(f"{lesson.folder / 'lesson.yaml'}: equivalent_mutants maps each mutant id to a "
                          "one-line reason")
    return {str(k): v for k, v in listed.items()}


def sample(mutants: list[Mutant], listed: dict[str, str], limit: int) -> list[Mutant]:
    """At most `limit` mutants, the same ones on every run, plus every one listed as equivalent:
    the TODOs in turn, each TODO's in the order of a hash of their id; back in file order."""
    rest = [m for m in mutants if m.id not in listed]
    if len(rest) > limit:
        by_todo: dict[str, list[Mutant]] = {}
        for mutant in sorted(rest, key=lambda m: hashlib.sha256(m.id.encode()).hexdigest()):
            by_todo.setdefault(mutant.todo, []).append(mutant)
        chosen = []
        while len(chosen) < limit:
            for todo in sorted(by_todo):
                if by_todo[todo] and len(chosen) < limit:
                    chosen.append(by_todo[todo].pop(0))
        rest = chosen
    keep = {id(m) for m in rest}
    return [m for m in mutants if id(m) in keep or m.id in listed]


def audit(lesson: Lesson, seed: int = 0, jobs: int = 2, limit: int = LIMIT) -> Audit:
    """Make, choose and grade a lesson's mutants; the reference solution first, which must pass."""
    solution = lesson.solution.read_text(encoding="utf-8")
    listed = equivalents(lesson)
    mutants = make_mutants(solution, lesson)
    chosen = sample(mutants, listed, limit)
    records = grade_sources(lesson, [solution] + [m.source for m in chosen], seed, jobs)
    reference = records[0]
    if reference.get("score") != reference.get("max"):
        raise LessonError(f"{lesson.solution} does not pass its own checks ({reference.get('score')}/"
                          f"{reference.get('max')}, {reference.get('status')}): no audit without a reference")
    outcomes = [judge(mutant, record, listed.get(mutant.id, "")) for mutant, record in zip(chosen, records[1:])]
    made = {m.id for m in mutants}
    return Audit(lesson.name, len(mutants), outcomes, sorted(i for i in listed if i not in made))


def grade_sources(lesson: Lesson, sources: list[str], seed: int, jobs: int) -> list[dict]:
    """Grade each text as a student's file, all as one class (warm workers): their records, in order."""
    with tempfile.TemporaryDirectory(prefix="reactlings-audit-") as staging:
        todo = []
        for index, source in enumerate(sources):
            folder = f"m{index:04d}"
            path = Path(staging, "files", folder, lesson.exercise.name)
            path.parent.mkdir(parents=True)
            path.write_text(source, encoding="utf-8")
            digest = hashlib.sha256(source.encode()).hexdigest()
            todo.append((Entry(folder, folder, lesson.exercise.name, path.resolve(), digest), digest))
        graded = dict(Workers(lesson, todo, Path(staging, "out"), seed, "en", jobs).graded())
    return [graded[f"m{index:04d}"] for index in range(len(sources))]


def judge(mutant: Mutant, record: dict, equivalent: str) -> Outcome:
    """Killed when the mutant's own TODO lost points; a file that never loaded lost them all."""
    if record["status"] == Status.GRADER_FAILED:
        return Outcome(mutant, "error", equivalent=equivalent)
    todos = record.get("todos") or {}
    if not todos:  # stopped past the grader's limit: every check lost
        return Outcome(mutant, "killed", equivalent=equivalent)
    got, points = todos.get(mutant.todo, [0, 0])
    others = [t for t, (g, p) in todos.items() if t != mutant.todo and g < p]
    status = "killed" if got < points else "elsewhere" if others else "survived"
    return Outcome(mutant, status, (points - got, points), others, equivalent)


# ---------------------------------------------------------------- the report

def print_audit(result: Audit, lesson: Lesson, console: Console) -> None:
    counted, listed = result.counted, [o for o in result.outcomes if o.equivalent]
    shown = lesson.solution.relative_to(ROOT) if lesson.solution.is_relative_to(ROOT) else lesson.solution
    sampled = f", {len(result.outcomes) - len(listed)} sampled" if len(counted) < result.made - len(listed) else ""
    console.print(f"{result.lesson}: {result.made} mutants of the TODO code of {shown}{sampled}",
                  style="bold", markup=False)
    for outcome in counted:
        if outcome.status == "killed":
            lost, points = outcome.lost
            console.print(f"  killed    {outcome.mutant.id:<28} line {outcome.mutant.line:<4} "
                          f"TODO {outcome.mutant.todo} lost {lost}/{points}", markup=False)
    for status, heading in (("elsewhere", "killed, but not on the TODO it touched"), ("survived", "survived"),
                            ("error", "the grader failed on it")):
        for outcome in (o for o in counted if o.status == status):
            others = f" (lost points on TODO {', '.join(outcome.others)})" if outcome.others else ""
            console.print(f"  {heading}: {outcome.mutant.id}, TODO {outcome.mutant.todo}, line "
                          f"{outcome.mutant.line}{others}", style="red", markup=False)
            for line in outcome.mutant.diff:
                console.print(f"      {line}", markup=False)
    for outcome in listed:
        verdict = "equivalent" if outcome.status == "survived" else f"listed as equivalent, but {outcome.status}"
        console.print(f"  {verdict}: {outcome.mutant.id}: {outcome.equivalent}",
                      style="dim" if outcome.status == "survived" else "red", markup=False)
    for stale in result.stale:
        console.print(f"  stale: equivalent_mutants lists {stale}, which no mutant is", style="red", markup=False)
    console.print(f"{result.lesson} audit: {result.killed}/{len(counted)} killed on their own TODO "
                  f"({result.score:.1f} %), {len(listed)} equivalent", style="bold", markup=False)


def passed(result: Audit, threshold: float = THRESHOLD) -> bool:
    wrong = [o for o in result.outcomes if o.equivalent and o.status != "survived"]
    return result.score >= threshold and not result.stale and not wrong


def audit_command(names: list[str], seed: int, jobs: int, limit: int, console: Console) -> int:
    """`validate.py audit`: each lesson's report, then (several lessons) the scores. 0 when every
    lesson reaches THRESHOLD with its equivalent list right, else 1."""
    results = []
    for name in names:
        lesson = load_lesson(name)
        if not lesson.solution.is_file():  # the learners' copy of the course has no solutions/
            raise LessonError("no_solution_here", path=lesson.solution, name=lesson.name)
        results.append(audit(lesson, seed, jobs, limit))
        print_audit(results[-1], lesson, console)
    if len(results) > 1:
        console.print("scores:", style="bold", markup=False)
        for result in results:
            console.print(f"  {result.lesson}  {result.killed}/{len(result.counted)}  {result.score:5.1f} %",
                          markup=False)
    return 0 if all(passed(r) for r in results) else 1
