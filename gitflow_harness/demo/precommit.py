"""Demo chapter: the git-stage hooks `gfh init --pre-commit` configures, run as pre-commit runs
them after a merge and before a push — the same command with the same environment variables,
but started by the demo itself, which does not build pre-commit's environment (and says so).
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

from gitflow_harness.demo import Demo

SESSION = "claude:demo-agent-5d0a"

# What the demo says where pre-commit would run a hook: the demo does not build pre-commit's
# environment, so it runs the hook's command itself, with the variables pre-commit exports.
STAGE_NOTE = (
    "({when}pre-commit's {stage} stage runs this; the demo runs the same command directly, "
    "with the variables pre-commit sets)"
)
PUSH = "at `git push origin feature/parser`, "

CHECK = """\
import sys
sys.path.insert(0, "src")
from parser import parse

assert parse("a---b") == ["a", "b"], parse("a---b")
"""


def run(demo: Demo) -> None:
    agent = {"GFH_SESSION": SESSION}
    feature = demo.root / "project.worktrees" / "feature-parser"
    python = "python3" if shutil.which("python3") else shlex.quote(sys.executable)

    demo.section("pre-commit hooks: the agent merges the trunk with git itself")
    demo.say("`gfh init --pre-commit-local` adds gfh's checks to .pre-commit-config.yaml as local")
    demo.say("hooks that run the `gfh` you installed (`--pre-commit` writes the published form,")
    demo.say("which pre-commit installs for everyone who commits):")
    demo.gfh("init", "--pre-commit-local")
    config = (demo.repo / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    demo.say("--- .pre-commit-config.yaml ---")
    for line in config.splitlines():
        demo.say("    " + line)
    demo.write("CHANGELOG.md", "- split documents on ---\n")
    demo.git("add", "-A")
    demo.git("commit", "-q", "-m", "Start a changelog; run gfh's checks through pre-commit")
    demo.gfh("status", "--json", cwd=feature, env=agent, show=False)
    demo.say("$ gfh status   (feature/parser is behind main: the hint says `gfh update`)")
    demo.say("$ git merge main   (the agent's own command)")
    demo.git("merge", "-q", "--no-edit", "main", cwd=feature)
    post_merge = {**agent, "PRE_COMMIT": "1", "PRE_COMMIT_IS_SQUASH_MERGE": "0"}
    demo.say(STAGE_NOTE.format(when="", stage="post-merge"))
    demo.gfh("git-hook", "record-update", cwd=feature, env=post_merge)
    demo.gfh("events", "tail", "-n", "1", cwd=feature)

    demo.say("A merge of a branch that brings no trunk commits is not an update:")
    demo.git("switch", "-q", "-c", "spike/tokens", cwd=feature)
    demo.write("spike.txt", "token ideas\n", cwd=feature)
    demo.git("add", "spike.txt", cwd=feature)
    demo.git("commit", "-q", "-m", "Spike", cwd=feature)
    demo.git("switch", "-q", "feature/parser", cwd=feature)
    demo.say("$ git merge spike/tokens")
    demo.git("merge", "-q", "--no-edit", "spike/tokens", cwd=feature)
    demo.say(STAGE_NOTE.format(when="", stage="post-merge"))
    demo.gfh("git-hook", "record-update", cwd=feature, env=post_merge)

    demo.section("pre-commit hooks: a tree the gate judged red is not pushed")
    demo.write(
        ".gitflow-harness.toml", f'[gate]\ntest = ["{python} tests/check_split.py"]\n', cwd=feature
    )
    demo.write("tests/check_split.py", CHECK, cwd=feature)
    demo.write(".gitignore", "__pycache__/\n", cwd=feature)
    demo.write("src/parser.py", "def parse(text):\n    return text.split('--')\n", cwd=feature)
    demo.git("add", "-A", cwd=feature)
    demo.git("commit", "-q", "-m", "Split on dashes", cwd=feature)
    demo.gfh("test", cwd=feature, env=agent)
    demo.say(STAGE_NOTE.format(when=PUSH, stage="pre-push"))
    demo.gfh("git-hook", "gate-push", cwd=feature, env=_pre_push(demo, feature))
    demo.write("src/parser.py", "def parse(text):\n    return text.split('---')\n", cwd=feature)
    demo.git("commit", "-q", "-am", "Split on three dashes again", cwd=feature)
    demo.gfh("test", cwd=feature, env=agent)
    demo.say(STAGE_NOTE.format(when=PUSH, stage="pre-push"))
    demo.gfh("git-hook", "gate-push", cwd=feature, env=_pre_push(demo, feature))


def _pre_push(demo: Demo, feature: Path) -> dict[str, str]:
    """What pre-commit exports to a pre-push hook for `git push origin feature/parser`."""
    head = demo.git("rev-parse", "HEAD", cwd=feature).strip()
    return {
        "PRE_COMMIT": "1",
        "PRE_COMMIT_TO_REF": head,
        "PRE_COMMIT_LOCAL_BRANCH": "refs/heads/feature/parser",
        "PRE_COMMIT_REMOTE_BRANCH": "refs/heads/feature/parser",
        "PRE_COMMIT_REMOTE_NAME": "origin",
    }
