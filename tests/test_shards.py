"""A class graded past one machine: grade --shard K/N, merge, and the engines' recipes.

The merged gradebooks must be the bytes of one run of the same class and seed but for the measured
`seconds`, flags that compare students (copies in different shards) included. The recipes are run
as their engines run them: the GitHub workflow's steps per matrix shard with artifacts uploaded and
downloaded as actions/upload-artifact@v4 and download-artifact@v4 document; the Kubernetes Jobs'
commands with the index the Job controller sets (JOB_COMPLETION_INDEX, 0-based); the Slurm script
submitted by hand (a stand-in sbatch that records what it is asked) and run as each array task
with the variables Slurm sets.
"""
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "submissions" / "day06"
SEED = "318807942761358024411729366001"
KIT = ("validate.py", "pyproject.toml", "validator", "mock_llm", "lessons", "solutions")


def validate(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "validate.py"), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "LC_ALL": "C.UTF-8", **(env or {})})


def unjailed() -> list[str]:
    """Where the jail can't be built (macOS), the instructor's opt-out: these tests try the shards."""
    from validator.isolation import jail
    return ["--allow-unisolated"] if jail.unavailable_reason() else []


def make_class(subs: Path) -> Path:
    """A class whose flags compare students across shards: zoe hands in alice's file (shards 3 and
    1 of 3), Erin.py and erin.py are one name twice and the same code, dave the reference, tess
    the template, hank an empty folder (missing)."""
    subs.mkdir(parents=True)
    for name, source in (("alice.py", CORPUS / "good_regex.py"), ("zoe.py", CORPUS / "good_regex.py"),
                         ("bob.py", CORPUS / "bad_syntax_error.py"), ("dave.py", ROOT / "solutions" / "day06.py"),
                         ("Erin.py", CORPUS / "good_separators.py"), ("erin.py", CORPUS / "good_separators.py"),
                         ("tess.py", ROOT / "lessons" / "day06" / "day06.py"), ("yan.py", CORPUS / "good_sync_loop.py"),
                         ("ivy.py", CORPUS / "bad_history_reversed.py")):
        shutil.copy(source, subs / name)
    (subs / "hank").mkdir()
    (subs / "notes.txt").write_text("not a submission\n", encoding="utf-8")
    return subs


def files_of(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def unmeasured(name: str, data: bytes) -> str:
    """A gradebook file without the measured seconds (a column of grades.csv, a field elsewhere)."""
    text = data.decode("utf-8")
    if name == "grades.csv":
        lines = [line.split(",") for line in text.splitlines()]
        column = lines[0].index("seconds")
        return "\n".join(",".join(cells[:column] + cells[column + 1:]) for cells in lines)
    return re.sub(r'"seconds": [\d.]+', "", text)


def assert_same_as_one_run(merged: Path, one: Path) -> None:
    ours, theirs = files_of(merged), files_of(one)
    assert sorted(ours) == sorted(theirs)
    for name, data in theirs.items():
        assert unmeasured(name, ours[name]) == unmeasured(name, data), name


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class, graded by one run and by 3 shards (given in another order to merge)."""
    folder = tmp_path_factory.mktemp("shards")
    subs = make_class(folder / "submissions")
    seed = folder / "seed"
    seed.write_text(SEED + "\n", encoding="utf-8")
    common = ["--seed-file", str(seed), "--jobs", "2", *unjailed()]
    one = validate("grade", "day06", str(subs), "--out", str(folder / "one"), *common)
    assert one.returncode == 0, one.stderr
    shards = []
    for k in (1, 2, 3):
        done = validate("grade", "day06", str(subs), "--out", str(folder / f"shard-{k}"), "--shard", f"{k}/3", *common)
        assert done.returncode == 0, done.stderr
        assert f"shard {k}/3:" in done.stdout
        shards.append(folder / f"shard-{k}")
    return folder, subs, folder / "one", shards, common


# ---------------------------------------------------------------- which student a shard grades

def test_a_students_shard_is_drawn_from_their_name_alone_and_the_same_everywhere():
    from validator.instructor.shards import shard_of
    from validator.instructor.submissions import same_name
    # SHA-256 of the name: these numbers hold on every machine and Python, for good
    assert [shard_of(same_name(n), 3) for n in ("alice", "zoe", "dave", "Erin", "erin")] == [3, 1, 2, 1, 1]
    assert shard_of(same_name("Bob"), 7) == shard_of(same_name("bob"), 7)  # one name to a reader: one shard


def test_shards_stay_put_when_students_are_added_and_share_the_class_roughly_evenly():
    from validator.instructor.shards import shard_of
    names = [f"student{n}" for n in range(1000)]
    first = {name: shard_of(name, 10) for name in names[:500]}
    assert {name: shard_of(name, 10) for name in names[:500]} == first  # the other 500 change nothing
    sizes = [sum(shard_of(name, 10) == k for name in names) for k in range(1, 11)]
    assert sum(sizes) == 1000 and min(sizes) >= 70 and max(sizes) <= 130, sizes  # about 100 ± 10 each


def test_discovery_gives_each_student_the_same_shard_whoever_else_hands_in(tmp_path):
    from validator.instructor.shards import Shard
    from validator.instructor.submissions import find_submissions
    from validator.lessons import load_lesson

    def shards_of(subs: Path, staging: Path) -> dict[str, int]:
        staging.mkdir()
        entries, _ = find_submissions(subs, load_lesson("day06"), staging, tmp_path / "out", "en")
        return {e.student: next(k for k in (1, 2, 3) if Shard(k, 3).holds(e)) for e in entries}

    subs = make_class(tmp_path / "subs")
    before = shards_of(subs, tmp_path / "a")
    for name in ("aaron.py", "Alice.zip", "mia.py"):  # one of them is alice again, but for case
        shutil.copy(CORPUS / "good_regex.py", subs / name)
    after = shards_of(subs, tmp_path / "b")
    # Alice.zip makes alice one of two under a name, so both are now named by their files: alice.py
    assert {n: k for n, k in after.items() if n in before} == {n: k for n, k in before.items() if n != "alice"}
    assert after["alice.py"] == after["Alice.zip"] == before["alice"]


# ---------------------------------------------------------------- --shard's value

@pytest.mark.parametrize("given, environ, expected", [
    ("2/3", {}, (2, 3)),
    (" 3/3 ", {"JOB_COMPLETION_INDEX": "0"}, (3, 3)),  # given whole, the environment is not read
    ("auto/4", {"JOB_COMPLETION_INDEX": "0"}, (1, 4)),  # Kubernetes counts from 0, shards from 1
    ("auto/4", {"JOB_COMPLETION_INDEX": "3"}, (4, 4)),
    ("auto", {"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_MAX": "7",
              "SLURM_ARRAY_TASK_COUNT": "3"}, (1, 3)),
    ("auto/3", {"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "2",
                "SLURM_ARRAY_TASK_COUNT": "3"}, (3, 3)),
])
def test_shard_from_the_command_line_or_the_engines_variables(given, environ, expected):
    from validator.instructor.shards import parse_shard
    shard = parse_shard(given, environ)
    assert (shard.index, shard.count) == expected


SLURM_1_TO_3 = {"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "3",
                "SLURM_ARRAY_TASK_COUNT": "3"}


@pytest.mark.parametrize("given, environ, key", [
    ("3", {}, "shard_bad"), ("a/b", {}, "shard_bad"), ("1/3/5", {}, "shard_bad"), ("-1/3", {}, "shard_bad"),
    ("0/3", {}, "shard_range"), ("4/3", {}, "shard_range"), ("1/0", {}, "shard_range"),
    ("auto", {}, "shard_auto_none"), ("auto/3", {"GITHUB_ACTIONS": "true"}, "shard_auto_none"),
    ("auto", {"JOB_COMPLETION_INDEX": "1"}, "shard_auto_count"),
    ("auto/3", {"JOB_COMPLETION_INDEX": "3"}, "shard_range"),
    ("auto/3", {"JOB_COMPLETION_INDEX": "x"}, "shard_auto_variable"),
    ("auto/3", {"JOB_COMPLETION_INDEX": "1", **SLURM_1_TO_3}, "shard_auto_both"),
    ("auto", {**SLURM_1_TO_3, "SLURM_ARRAY_TASK_COUNT": ""}, "shard_auto_variable"),
    ("auto", {**SLURM_1_TO_3, "SLURM_ARRAY_TASK_MAX": "5"}, "shard_slurm_gaps"),  # --array=1-5:2
    ("auto/4", SLURM_1_TO_3, "shard_count_differs"),
])
def test_a_bad_shard_is_refused_with_what_to_give(given, environ, key):
    from validator.instructor.shards import parse_shard
    from validator.lessons import LessonError
    with pytest.raises(LessonError) as refused:
        parse_shard(given, environ)
    assert refused.value.key == key
    assert given.strip() in refused.value.said("en") or key == "shard_slurm_gaps"
    assert refused.value.said("zh") != refused.value.said("en")


def test_a_bad_shard_on_the_command_line_is_one_line_and_status_2_in_either_language(tmp_path):
    subs = make_class(tmp_path / "subs")
    for lang, says in (("en", "shards are numbered from 1 to N"), ("zh", "分片从 1 编号到 N")):
        done = validate("grade", "day06", str(subs), "--out", str(tmp_path / "out"), "--shard", "0/3", "--lang", lang)
        assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- merge

@pytest.mark.slow
def test_three_shards_merged_are_the_bytes_of_one_run_but_seconds(graded, tmp_path):
    folder, subs, one, shards, _ = graded
    shared = {k: json.loads((shard / ".shard.json").read_text(encoding="utf-8")) for k, shard in enumerate(shards, 1)}
    assert [len(s["records"]) for s in shared.values()] == [4, 2, 4]  # hank, missing, counts in shard 1
    merged = tmp_path / "merged"
    done = validate("merge", str(merged), *map(str, reversed(shards)))
    assert done.returncode == 0, done.stderr
    assert "3 shards merged: 10 students" in done.stdout
    assert_same_as_one_run(merged, one)
    flags = {s["student"]: s["flags"] for s in json.loads((merged / "grades.json").read_text("utf-8"))["students"]}
    assert flags["alice"] == ["same code as zoe"] and flags["zoe"] == ["same code as alice"]  # shards 3 and 1


@pytest.mark.slow
def test_a_merged_folder_is_a_gradebook_a_later_run_of_the_whole_class_keeps(graded, tmp_path):
    folder, subs, one, shards, common = graded
    merged = tmp_path / "merged"
    assert validate("merge", str(merged), *map(str, shards)).returncode == 0
    again = validate("grade", "day06", str(subs), "--out", str(merged), *common)
    assert again.returncode == 0 and "0 graded, 9 unchanged since the last run, 1 missing" in again.stdout
    assert_same_as_one_run(merged, one)



@pytest.mark.slow
def test_an_instructors_overrides_are_applied_by_merge_as_by_one_run(graded, tmp_path):
    folder, subs, one, shards, common = graded
    table = "student,target,points,comment\nalice,TODO 1.2,0,copied from zoe\nivy,TODO 2.1,1,partly right\n"
    merged, again = tmp_path / "merged", tmp_path / "one"
    for out in (merged, again):
        out.mkdir()
        (out / "overrides.csv").write_text(table, encoding="utf-8")
    done = validate("merge", str(merged), *map(str, shards))
    assert done.returncode == 0, done.stderr
    assert validate("grade", "day06", str(subs), "--out", str(again), *common).returncode == 0
    assert_same_as_one_run(merged, again)
    students = {s["student"]: s for s in json.loads((merged / "grades.json").read_text("utf-8"))["students"]}
    assert students["alice"]["todos"]["1.2"][0] == 0 and students["alice"]["overrides"]

@pytest.mark.slow
def test_merge_refuses_missing_repeated_and_foreign_shards_and_writes_nothing(graded, tmp_path):
    folder, subs, one, shards, common = graded
    out = tmp_path / "out"

    def refused(*folders: Path) -> str:
        done = validate("merge", str(out), *map(str, folders))
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert not out.exists()
        return done.stderr

    assert "shard 2 of 3 is missing (2 folders given)" in refused(shards[0], shards[2])
    assert "shard 1 of 3 is given twice" in refused(shards[0], shards[1], shards[2], shards[0])
    assert "holds no shard's grades" in refused(shards[0], one)
    other = validate("grade", "day06", str(subs), "--out", str(tmp_path / "other"), "--shard", "2/3", "--seed",
                     "12345678901234567890123", "--jobs", "2", *unjailed())
    assert other.returncode == 0, other.stderr
    assert "graded with different seeds" in refused(shards[0], tmp_path / "other", shards[2])
    halves = validate("grade", "day06", str(subs), "--out", str(tmp_path / "halves"), "--shard", "1/2", *common)
    assert halves.returncode == 0, halves.stderr
    assert "different number of shards" in refused(*shards, tmp_path / "halves")


@pytest.mark.slow
def test_shards_with_nobody_in_them_are_saved_and_merged(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(CORPUS / "good_regex.py", subs / "alice.py")
    shards = [tmp_path / f"shard-{k}" for k in (1, 2, 3, 4)]
    for k, shard in enumerate(shards, 1):
        done = validate("grade", "day06", str(subs), "--out", str(shard), "--shard", f"{k}/4", "--jobs", "1",
                        *unjailed())
        assert done.returncode == 0, done.stderr
    sizes = [len(json.loads((shard / ".shard.json").read_text(encoding="utf-8"))["records"]) for shard in shards]
    assert sorted(sizes) == [0, 0, 0, 1]
    done = validate("merge", str(tmp_path / "grades"), *map(str, shards))
    assert done.returncode == 0 and "4 shards merged: 1 students" in done.stdout
    assert (tmp_path / "grades" / "students" / "alice" / "results.json").is_file()


def forged(shard: Path, to: Path, **changes) -> Path:
    """A copy of a shard's folder whose .shard.json says otherwise."""
    shutil.copytree(shard, to)
    saved = json.loads((to / ".shard.json").read_text(encoding="utf-8"))
    for field, change in changes.items():
        saved[field] = change(saved[field])
    (to / ".shard.json").write_text(json.dumps(saved), encoding="utf-8")
    return to


@pytest.mark.slow
@pytest.mark.parametrize("field, change, says", [
    ("version", lambda v: "0" * 16, "different versions of the lesson or the grader"),
    ("lang", lambda lang: "zh", "different languages"),
    ("class", lambda digest: "0" * 16, "found different classes"),
])
def test_merge_refuses_shards_graded_differently(graded, tmp_path, field, change, says):
    folder, subs, one, shards, _ = graded
    other = forged(shards[1], tmp_path / "forged", **{field: change})
    done = validate("merge", str(tmp_path / "out"), str(shards[0]), str(other), str(shards[2]))
    assert done.returncode == 2 and says in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_merge_refuses_a_student_in_two_shards_and_shards_of_another_kit(graded, tmp_path):
    folder, subs, one, shards, _ = graded
    third = json.loads((shards[2] / ".shard.json").read_text(encoding="utf-8"))
    alice = next(e for e in third["entries"] if e["student"] == "alice")

    def plus_alice(entries):
        return entries + [alice]
    other = forged(shards[0], tmp_path / "overlap", entries=plus_alice,
                   records=lambda records: {**records, "alice": third["records"]["alice"]})
    done = validate("merge", str(tmp_path / "out"), str(other), *map(str, shards[1:]))
    assert done.returncode == 2 and "alice is in two shards" in done.stderr
    everywhere = [forged(shard, tmp_path / f"old-{k}", version=lambda v: "0" * 16) for k, shard in enumerate(shards)]
    done = validate("merge", str(tmp_path / "out"), *map(str, everywhere), "--lang", "zh")
    assert done.returncode == 2 and "版本不同" in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
@pytest.mark.parametrize("folder", ["../../elsewhere", "..", "a/b", ""])
def test_merge_copies_nothing_outside_its_folder_whatever_a_shard_file_says(graded, tmp_path, folder):
    _, _, _, shards, _ = graded

    def moved(entries):
        return [dict(entries[0], folder=folder)] + entries[1:]
    first = json.loads((shards[0] / ".shard.json").read_text(encoding="utf-8"))
    name = first["entries"][0]["folder"]
    other = forged(shards[0], tmp_path / "forged", entries=moved,
                   records=lambda records: {folder: records[name], **{k: v for k, v in records.items() if k != name}})
    done = validate("merge", str(tmp_path / "out" / "grades"), str(other), *map(str, shards[1:]))
    assert done.returncode == 2 and "holds no shard's grades" in done.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "elsewhere").exists()


@pytest.mark.slow
def test_a_shard_stopped_before_its_end_leaves_nothing_to_merge(graded, tmp_path):
    from rich.console import Console

    from validator.instructor import classroom
    from validator.instructor.shards import SHARD_FILE, Shard
    from validator.lessons import load_lesson
    folder, subs, one, shards, _ = graded
    shard = tmp_path / "shard-1"
    shutil.copytree(shards[0], shard)

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt
    console = Console(file=io.StringIO())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(classroom, "_records", stopped)
        code = classroom.grade_class(load_lesson("day06"), subs, shard, int(SEED), 2, "en", console, shard=Shard(1, 3))
    assert code == 130 and not (shard / SHARD_FILE).exists()  # no earlier share to be joined as if it were this one


# ---------------------------------------------------------------- the recipes, run as their engines run them

def recipe(engine: str, *extra: str) -> str:
    done = validate("shard-recipe", engine, "--lesson", "day06", "--shards", "3", *extra)
    assert done.returncode == 0, done.stderr
    return done.stdout


def checkout_of(subs: Path, folder: Path) -> Path:
    """The instructor's repository as a runner checks it out: the kit and submissions/."""
    folder.mkdir()
    for name in KIT:
        (folder / name).symlink_to(ROOT / name)
    shutil.copytree(subs, folder / "submissions")
    return folder


def upload(path: Path, store: Path, name: str, hidden: bool) -> None:
    """actions/upload-artifact@v4 of a folder: its contents; without include-hidden-files, no file
    whose name or folder's name starts with a dot (README, "Uploading Hidden Files")."""
    for file in path.rglob("*"):
        parts = file.relative_to(path).parts
        if file.is_file() and (hidden or not any(part.startswith(".") for part in parts)):
            (store / name / file.relative_to(path)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(file, store / name / file.relative_to(path))


def run_job(job: dict, checkout: Path, context: dict[str, str], store: Path) -> None:
    """One job of the workflow on a runner: its `run:` steps by bash -e with their env, the
    artifact steps as the actions do; checkout, setup-python, the install and the namespace
    sysctl (this machine's own setting) are this machine as it is."""
    temp = Path(tempfile.mkdtemp(prefix="runner-temp-", dir=checkout.parent))
    machine = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "RUNNER_TEMP": str(temp),
               "HOME": str(temp), "LANG": "C.UTF-8", "CI": "true", "GITHUB_ACTIONS": "true"}

    def expand(text) -> str:
        values = {"runner.temp": str(temp), **context}
        return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: values[m.group(1)], str(text))

    for step in job["steps"]:
        uses, inputs = step.get("uses", ""), {k: expand(v) for k, v in (step.get("with") or {}).items()}
        if uses.startswith(("actions/checkout@", "actions/setup-python@")) or "pip install" in step.get("run", "") \
                or "sysctl" in step.get("run", ""):
            continue
        if uses == "actions/upload-artifact@v4":
            hidden = inputs.get("include-hidden-files") in ("true", "True", "TRUE")  # @actions/core getBooleanInput
            upload(checkout / inputs["path"], store, inputs["name"], hidden)
        elif uses == "actions/download-artifact@v4":  # pattern, no merge-multiple: each into path/NAME
            for artifact in sorted(store.glob(inputs["pattern"])):
                shutil.copytree(artifact, checkout / inputs["path"] / artifact.name)
        else:
            env = {k: expand(v) for k, v in (step.get("env") or {}).items()}
            command = expand(step["run"]) + (" " + " ".join(unjailed()) if "validate.py grade" in step["run"] else "")
            done = subprocess.run(["bash", "-e", "-c", command], cwd=checkout, env={**machine, **env},
                                  capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, (step, done.stdout, done.stderr)


@pytest.mark.slow
def test_the_github_workflow_grades_a_matrix_of_shards_and_merges_their_artifacts(graded, tmp_path):
    folder, subs, one, _, _ = graded
    workflow = yaml.safe_load(recipe("github"))
    grade, merge = workflow["jobs"]["grade"], workflow["jobs"]["merge"]
    assert grade["strategy"]["matrix"]["shard"] == [1, 2, 3] and grade["strategy"]["fail-fast"] is False
    assert merge["needs"] == "grade" and workflow["permissions"] == {"contents": "read"}
    assert any("apparmor_restrict_unprivileged_userns=0" in step.get("run", "") for step in grade["steps"])
    store = tmp_path / "artifacts"
    for k in grade["strategy"]["matrix"]["shard"]:  # each matrix job on a runner of its own
        run_job(grade, checkout_of(subs, tmp_path / f"runner-{k}"), {"matrix.shard": str(k),
                                                                    "secrets.REACTLINGS_SEED": SEED}, store)
    assert sorted(p.name for p in store.iterdir()) == ["shard-1", "shard-2", "shard-3"]
    merger = tmp_path / "runner-merge"
    merger.mkdir()
    for name in KIT:
        (merger / name).symlink_to(ROOT / name)
    run_job(merge, merger, {}, store)
    assert_same_as_one_run(store / "grades-day06", one)


def test_without_hidden_files_the_artifacts_would_hold_nothing_to_merge(tmp_path):
    shard = tmp_path / "shard-1"
    (shard / "students" / "alice").mkdir(parents=True)
    for name in (".shard.json", ".seed-fingerprint", "students/alice/record.json"):
        (shard / name).write_text("{}", encoding="utf-8")
    upload(shard, tmp_path / "plain", "shard-1", hidden=False)
    assert not (tmp_path / "plain" / "shard-1" / ".shard.json").exists()  # hence include-hidden-files: true


@pytest.mark.slow
def test_the_kubernetes_indexed_job_grades_each_index_and_the_merge_job_joins_them(graded, tmp_path):
    folder, subs, one, _, _ = graded
    grade, merge = yaml.safe_load_all(recipe("kubernetes"))
    assert (grade["apiVersion"], grade["kind"], merge["kind"]) == ("batch/v1", "Job", "Job")
    spec = grade["spec"]
    assert (spec["completionMode"], spec["completions"], spec["parallelism"]) == ("Indexed", 3, 3)
    pod = spec["template"]["spec"]
    assert pod["restartPolicy"] == "Never"  # a Job's pods: Never or OnFailure
    container = pod["containers"][0]
    assert container["securityContext"] == {"privileged": True, "runAsUser": 0}
    assert {m["name"] for m in container["volumeMounts"]} == {v["name"] for v in pod["volumes"]} == {"class", "seed"}
    assert grade["metadata"]["labels"] == {"reactlings/step": "grade"}
    assert merge["metadata"]["labels"] == {"reactlings/step": "merge"}
    volume = tmp_path / "volume"
    shutil.copytree(subs, volume / "submissions")
    (tmp_path / "seed").write_text(SEED, encoding="utf-8")

    def run_pod(container: dict, env: dict[str, str]) -> None:
        assert container["workingDir"] == "/kit"
        command = [part.replace("/class", str(volume)).replace("/seed/seed", str(tmp_path / "seed"))
                   for part in container["command"]]
        if "validate.py grade" in command[-1]:
            command[-1] += " " + " ".join(unjailed())
        command[-1] = command[-1].replace("exec python ", f"exec {sys.executable} ")
        done = subprocess.run(command, cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, (done.stdout, done.stderr)

    for index in range(spec["completions"]):  # the Job controller's variable, 0 to completions-1
        run_pod(container, {"JOB_COMPLETION_INDEX": str(index)})
    assert sorted(p.name for p in (volume / "shards").iterdir()) == ["shard-1", "shard-2", "shard-3"]
    run_pod(merge["spec"]["template"]["spec"]["containers"][0], {})
    assert_same_as_one_run(volume / "grades", one)


@pytest.mark.slow
def test_the_slurm_script_submits_its_array_and_merge_and_grades_each_task(graded, tmp_path):
    folder, subs, one, _, _ = graded
    script = tmp_path / "grade.sbatch"
    script.write_text(recipe("slurm"), encoding="utf-8")
    text = script.read_text(encoding="utf-8")
    assert "#SBATCH --array=1-3" in text and "#SBATCH --cpus-per-task=4" in text
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "sbatch").write_text('#!/bin/sh\nprintf "%s\\n" "$*" >>"$SBATCH_LOG"\necho "4242;cluster"\n',
                                 encoding="utf-8")
    (bin_ / "sbatch").chmod(stat.S_IRWXU)
    env = {**os.environ, "PATH": f"{bin_}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "KIT": str(ROOT), "SUBMISSIONS": str(subs), "SHARDS": str(tmp_path / "shards"),
           "GRADES": str(tmp_path / "grades"), "SEED_FILE": str(tmp_path / "seed"), "PYTHON": sys.executable,
           "SBATCH_LOG": str(tmp_path / "sbatch.log")}
    env.pop("SLURM_ARRAY_TASK_ID", None)
    (tmp_path / "seed").write_text(SEED, encoding="utf-8")
    submitted = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert submitted.returncode == 0, submitted.stderr
    array, merge = (tmp_path / "sbatch.log").read_text(encoding="utf-8").splitlines()
    assert array == f"--parsable {script}"
    assert merge.startswith("--dependency=afterok:4242 ")  # the array's id, without the cluster
    wrapped = merge.split("--wrap=", 1)[1]
    if unjailed():  # the script's task: made to grade here, for this test only
        script.write_text(text.replace("--shard auto", "--shard auto --allow-unisolated"), encoding="utf-8")
    for task in (1, 2, 3):  # the variables Slurm sets in each task of --array=1-3
        slurm = {"SLURM_ARRAY_TASK_ID": str(task), "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "3",
                 "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_CPUS_PER_TASK": "1", "SLURM_ARRAY_JOB_ID": "4242"}
        done = subprocess.run(["bash", str(script)], env={**env, **slurm}, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
    merged = subprocess.run(["/bin/sh", "-c", wrapped], env=env, capture_output=True, text=True, timeout=600)
    assert merged.returncode == 0, merged.stderr
    assert_same_as_one_run(tmp_path / "grades", one)


def test_a_recipe_is_written_where_asked_and_refuses_a_wrong_file(tmp_path):
    done = validate("shard-recipe", "slurm", "--lesson", "day06", "--out", str(tmp_path / "grade.sh"))
    assert done.returncode == 0 and (tmp_path / "grade.sh").read_text(encoding="utf-8").startswith("#!/bin/bash")
    done = validate("shard-recipe", "github", "--lesson", "day06", "--out", str(tmp_path / "grade.sh"))
    assert done.returncode == 2 and not (tmp_path / "grade.yml").exists()
    assert validate("shard-recipe", "nomad", "--lesson", "day06").returncode == 2
