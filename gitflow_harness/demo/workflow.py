"""Demo chapter: an agent's branch from `start` to `accept`, then `gfh report`.

The branch falls behind and is updated, a red gate is fixed by iterating with `prepare` and
`test` (a second `done` on the unchanged red tree is refused without running anything), a green
`done` writes the receipt, and `accept` brings the work into the trunk.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

from gitflow_harness.demo import Demo

SESSION = "claude:demo-agent-7c41"
OTHER = "codex:demo-agent-b2e9"

CHECK = """\
import sys
sys.path.insert(0, "src")
from parser import parse

assert parse("title---body") == ["title", "body"], parse("title---body")
"""

CHECK_STRIP = (
    CHECK
    + """\
got = parse("title --- body")
assert got == ["title", "body"], f"sections keep their spaces: {got!r}"
print("parser checks pass")
"""
)


def run(demo: Demo) -> None:
    agent = {"GFH_SESSION": SESSION}
    python = "python3" if shutil.which("python3") else shlex.quote(sys.executable)

    demo.section("Workflow verbs: a gate for the project")
    demo.write(
        ".gitflow-harness.toml",
        "[gate]\n"
        f'prepare = ["{python} -m py_compile src/parser.py"]\n'
        f'test = ["{python} tests/check_parser.py"]\n',
    )
    demo.write("tests/check_parser.py", CHECK)
    # What the gate writes is not work under judgement: ignored, it leaves the tree unchanged.
    demo.write(".gitignore", "__pycache__/\n")
    demo.git("add", "-A")
    demo.git("commit", "-q", "-m", "Gate: compile and check the parser")
    demo.say("main now has a gate: `prepare` compiles the parser, `test` checks it.")

    demo.section("A session starts in the main checkout, and starts a branch")
    demo.gfh("ensure", env=agent)
    started = demo.gfh("start", "feature/frontmatter", env=agent)
    work = Path(started.stdout.splitlines()[0])

    demo.section("The trunk moves on; the branch falls behind and is updated")
    demo.write("README.md", "# project\n\nParses documents split by `---`.\n")
    demo.git("commit", "-q", "-am", "Describe the project")
    demo.gfh("status", cwd=work, env=agent)
    demo.gfh("update", cwd=work, env=agent)

    demo.section("A red gate, fixed by iterating with prepare and test")
    demo.write("tests/check_parser.py", CHECK_STRIP, cwd=work)
    demo.write(
        "src/parser.py",
        "def parse(text):\n    return [part.lstrip() for part in text.split('---')]\n",
        cwd=work,
    )
    demo.gfh("done", cwd=work, env=agent)
    demo.say("Nothing changed, so judging the same tree again is refused without running:")
    demo.gfh("done", cwd=work, env=agent)
    demo.write(
        "src/parser.py",
        "def parse(text):\n    return [part.strip() for part in text.split('---')]\n",
        cwd=work,
    )
    demo.gfh("prepare", cwd=work, env=agent)
    demo.gfh("test", cwd=work, env=agent)

    demo.section("A green done writes the receipt; accept brings the work into main")
    demo.git("add", "-A", cwd=work)
    demo.git("commit", "-q", "-m", "Strip the spaces around sections", cwd=work)
    demo.gfh("done", cwd=work, env=agent)
    demo.gfh("accept", cwd=work, env=agent)
    demo.say(f"main is at: {demo.git('log', '--oneline', '-1', 'main').strip()}")

    demo.section("Another agent ignores the advice, then merges by hand")
    other = {"GFH_SESSION": OTHER}
    tidy = Path(demo.gfh("start", "feature/tidy", env=other, show=False).stdout.splitlines()[0])
    demo.write("NOTES.md", "Sections are stripped.\n")
    demo.git("add", "-A")
    demo.git("commit", "-q", "-m", "Notes")
    demo.gfh("status", "--json", cwd=tidy, env=other, show=False)
    demo.gfh("status", "--json", cwd=tidy, env=other, show=False)
    demo.say("$ gfh status   (twice: behind both times, no update in between)")
    demo.say("$ git merge main   (by hand: no hook installed, so no event records it)")
    demo.git("merge", "-q", "--no-edit", "main", cwd=tidy)
    demo.write("CHANGES.md", "- strip sections\n")
    demo.git("add", "-A")
    demo.git("commit", "-q", "-m", "Changes")
    demo.gfh("status", "--json", cwd=tidy, env=other, show=False)
    demo.say("$ gfh status   (behind again)")
    demo.gfh("update", cwd=tidy, env=other)

    demo.section("gfh report: are the hints followed?")
    demo.gfh("report")
