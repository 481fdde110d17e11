"""Ready files that grade a class in shards where instructors already compute:

    python validate.py shard-recipe github --lesson day06 --shards 4       a GitHub Actions workflow
    python validate.py shard-recipe kubernetes --lesson day06 --shards 4   an Indexed Job, and the merge Job
    python validate.py shard-recipe slurm --lesson day06 --shards 4        an array batch script that submits its merge

Each grades shard K of N (`grade --shard`) with the secret seed handed over in a file, then joins
the shards (`merge`) once all are done. Each states what the sandbox needs there: root, or
unprivileged user namespaces (README, "What the sandbox enforces"); `grade` refuses to run a
student's code unjailed, so a machine that can't build the jail fails its shard with the reason.
The merge runs no student's code and needs neither.
"""
from __future__ import annotations

from validator.instructor.platforms import SEED_STEP
from validator.lessons import Lesson

ENGINES = ("github", "kubernetes", "slurm")
SUFFIXES = {"github": (".yml", ".yaml"), "kubernetes": (".yml", ".yaml"), "slurm": (".sh", ".sbatch")}


def recipe(engine: str, lesson: Lesson, shards: int, cpus: int) -> str:
    """The file for `engine`, grading `lesson` in `shards` shards, each with `cpus` CPUs (where the
    engine asks for them: a worker per CPU and two more, as `grade` does on a machine of its own)."""
    return {"github": github, "kubernetes": kubernetes, "slurm": slurm}[engine](lesson.name, shards, cpus)


# Each file is a str.format template: {name} a value, {{ and }} a brace of the file itself.
GITHUB_SETUP = """      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: python -m pip install --quiet -e ."""

GITHUB_WORKFLOW = """# Grading {lesson} in {shards} shards on GitHub Actions (`python validate.py shard-recipe github`).
# Commit it as .github/workflows/grade-{lesson}.yml in a private repository holding the kit and
# the students' files in submissions/ (one .py, folder or .zip per student), set the secret
# REACTLINGS_SEED to your seed, and run it from the Actions tab (workflow_dispatch). The
# gradebooks are the artifact "grades-{lesson}": the bytes one `validate.py grade` would write.
#
# The sandbox: students' code runs jailed, in user namespaces of its own. Ubuntu 24.04 runners
# forbid unprivileged ones (AppArmor), so the job lifts that with sudo before grading; without the
# jail `grade` refuses to run (it would let a student read the seed), and the shard fails saying
# why. The merge job runs no student's code.
name: Grade {lesson} in shards
on:
  workflow_dispatch:
permissions:
  contents: read
jobs:
  grade:
    runs-on: ubuntu-latest
    timeout-minutes: 180
    strategy:
      fail-fast: false
      matrix:
        shard: [{numbers}]
    steps:
{setup}
      - name: Allow the sandbox's user namespaces
        run: |
          if [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]; then
            sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0
          fi
{seed_step}      - name: Grade shard ${{{{ matrix.shard }}}} of {shards}
        run: python validate.py grade {lesson} submissions --out "shard-${{{{ matrix.shard }}}}" --shard "${{{{ matrix.shard }}}}/{shards}" --seed-file "$RUNNER_TEMP/reactlings-seed" --jobs {jobs}
      - uses: actions/upload-artifact@v4
        with:
          name: shard-${{{{ matrix.shard }}}}
          path: shard-${{{{ matrix.shard }}}}
          include-hidden-files: true
          if-no-files-found: error
  merge:
    needs: grade
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
{setup}
      - uses: actions/download-artifact@v4
        with:
          pattern: shard-*
          path: shards
      - run: python validate.py merge grades shards/shard-*
      - uses: actions/upload-artifact@v4
        with:
          name: grades-{lesson}
          path: grades
          include-hidden-files: true
          if-no-files-found: error
"""


def github(lesson: str, shards: int, cpus: int) -> str:
    """A workflow: a matrix job per shard, each uploading its --out as an artifact (hidden files
    too: .shard.json is what merge reads), then a merge job that downloads them all, each into
    shards/NAME, and uploads the gradebooks."""
    numbers = ", ".join(str(k) for k in range(1, shards + 1))
    return GITHUB_WORKFLOW.format(lesson=lesson, shards=shards, numbers=numbers, setup=GITHUB_SETUP,
                                  seed_step=SEED_STEP, jobs=cpus + 2)

KUBERNETES_VOLUMES = """      volumes:
        - name: class
          persistentVolumeClaim:
            claimName: reactlings-class
        - name: seed
          secret:
            secretName: reactlings-seed
            defaultMode: 0400"""

KUBERNETES_MOUNTS = """          volumeMounts:
            - name: class
              mountPath: /class
            - name: seed
              mountPath: /seed
              readOnly: true"""

KUBERNETES_JOBS = """# Grading {lesson} in {shards} shards on Kubernetes (`python validate.py shard-recipe kubernetes`).
# Needs: an image with the kit installed in /kit (COPY the kit, then `python -m pip install .`),
# named in both `image:` lines; a ReadWriteMany PersistentVolumeClaim "reactlings-class" holding
# the students' files in submissions/ (one .py, folder or .zip per student); your seed in a
# Secret: kubectl create secret generic reactlings-seed --from-file=seed=PATH-OF-YOUR-SEED-FILE
# Then grade, wait for every shard, and merge:
#   kubectl apply -f THIS-FILE -l reactlings/step=grade
#   kubectl wait --for=condition=complete --timeout=24h job/reactlings-{lesson}-grade
#   kubectl apply -f THIS-FILE -l reactlings/step=merge
# The gradebooks land in grades/ on the volume; shard K's files in shards/shard-K.
#
# The sandbox: each student's code runs in namespaces of its own (user, pid, mount, network, ...)
# with a /proc of its own. Inside a container that takes root with the capabilities to make
# namespaces and mount /proc, which the default seccomp and AppArmor profiles and the masked /proc
# of a container refuse: hence `privileged: true` below (the jail then runs each student as an
# unprivileged uid with no capabilities, no network and a read-only view of Python). Without the
# jail `grade` refuses to run and the pod fails saying why. The merge runs no student's code.
apiVersion: batch/v1
kind: Job
metadata:
  name: reactlings-{lesson}-grade
  labels:
    reactlings/step: grade
spec:
  completionMode: Indexed
  completions: {shards}
  parallelism: {shards}
  backoffLimit: {retries}
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: grade
          image: REPLACE-WITH-YOUR-IMAGE
          workingDir: /kit
          # JOB_COMPLETION_INDEX is 0 to {last_index}; the kit numbers shards from 1 (--shard auto/N adds one)
          command:
            - sh
            - -c
            - >-
              exec python validate.py grade {lesson} /class/submissions
              --out "/class/shards/shard-$((JOB_COMPLETION_INDEX + 1))" --shard auto/{shards}
              --seed-file /seed/seed --jobs {jobs}
          resources:
            requests:
              cpu: "{cpus}"
              memory: {memory}Gi
          securityContext:
            privileged: true
            runAsUser: 0
{mounts}
{volumes}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: reactlings-{lesson}-merge
  labels:
    reactlings/step: merge
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: merge
          image: REPLACE-WITH-YOUR-IMAGE
          workingDir: /kit
          command:
            - sh
            - -c
            - exec python validate.py merge /class/grades /class/shards/shard-*
{mounts}
{volumes}
"""


def kubernetes(lesson: str, shards: int, cpus: int) -> str:
    """An Indexed Job of `shards` completions and a merge Job, on one volume that holds the
    submissions and receives the shards and the gradebooks; applied in two steps by label."""
    return KUBERNETES_JOBS.format(lesson=lesson, shards=shards, retries=2 * shards, last_index=shards - 1,
                                  cpus=cpus, memory=2 * cpus, jobs=cpus + 2, mounts=KUBERNETES_MOUNTS,
                                  volumes=KUBERNETES_VOLUMES)

SLURM_SCRIPT = """#!/bin/bash
# Grading {lesson} in {shards} shards on Slurm (`python validate.py shard-recipe slurm`).
# Edit the paths below (a folder every node sees), then, on the login node:
#   bash THIS-FILE
# It submits itself as an array of {shards} tasks, one per shard, and the merge as a job that
# starts once every task ended well (--dependency=afterok). The gradebooks land in $GRADES.
#
# The sandbox: students' code runs jailed, in user namespaces of its own, as your own user. The
# compute nodes must allow unprivileged user namespaces (user.max_user_namespaces above 0; on
# Ubuntu 24.04 also kernel.apparmor_restrict_unprivileged_userns=0); check on one with
#   srun unshare --user --map-root-user --pid --fork --mount-proc true
# Without the jail `grade` refuses to run, and the task fails saying why. The merge runs no
# student's code.
#SBATCH --job-name=reactlings-{lesson}
#SBATCH --array=1-{shards}
#SBATCH --cpus-per-task={cpus}
#SBATCH --time=04:00:00
#SBATCH --output=reactlings-{lesson}-%A_%a.log
set -euo pipefail
KIT="${{KIT:-$HOME/reactlings}}"                     # the kit, installed (python -m pip install .)
SUBMISSIONS="${{SUBMISSIONS:-$HOME/class/submissions}}"  # one .py, folder or .zip per student
SHARDS="${{SHARDS:-$HOME/class/shards}}"              # shard K's files go to $SHARDS/shard-K
GRADES="${{GRADES:-$HOME/class/grades}}"              # the gradebooks
SEED_FILE="${{SEED_FILE:-$HOME/secret-seed}}"         # your seed, on no command line
PYTHON="${{PYTHON:-python3}}"
export KIT SUBMISSIONS SHARDS GRADES SEED_FILE PYTHON

if [ -z "${{SLURM_ARRAY_TASK_ID:-}}" ]; then  # run by hand: submit the array, then the merge
  array=$(sbatch --parsable "$0")
  array="${{array%%;*}}"  # "id;cluster" on a federation
  sbatch --dependency="afterok:$array" --job-name=reactlings-{lesson}-merge \\
    --output=reactlings-{lesson}-merge-%j.log \\
    --wrap="cd \\"$KIT\\" && \\"$PYTHON\\" validate.py merge \\"$GRADES\\" \\"$SHARDS\\"/shard-*"
  exit 0
fi
cd "$KIT"
# --shard auto: shard SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1 of SLURM_ARRAY_TASK_COUNT
exec "$PYTHON" validate.py grade {lesson} "$SUBMISSIONS" --out "$SHARDS/shard-$SLURM_ARRAY_TASK_ID" \\
  --shard auto --seed-file "$SEED_FILE" --jobs $(( ${{SLURM_CPUS_PER_TASK:-{cpus}}} + 2 ))
"""


def slurm(lesson: str, shards: int, cpus: int) -> str:
    """A batch script that is both the array's task and, run by hand, the submitter of the array
    and of the merge after it (afterok: only once every task ended well)."""
    return SLURM_SCRIPT.format(lesson=lesson, shards=shards, cpus=cpus)
