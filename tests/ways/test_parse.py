from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gitflow_harness.firing import Exponential, ProgressiveStaircase
from gitflow_harness.ways.model import Lanes
from gitflow_harness.ways.parse import parse_way_file
from tests.helpers import unmeasured_env
from tests.ways.conftest import EXP, write_way


def _problems(path: Path) -> list[str]:
    way, problems = parse_way_file(str(path), "x")
    assert way is None
    return [f"{p.line}: {p.message}" for p in problems]


def test_a_full_way_parses_into_its_record(ways_root: Path) -> None:
    path = write_way(
        ways_root,
        "git/commits",
        "description: Commit messages say why\n"
        "when:\n"
        "  prompt: 'commit|push'\n"
        "  keywords: [commit message]\n"
        "  files: ['src/**/*.py']\n"
        "  commands: '\\bgit\\s+commit\\b'\n"
        "  session_start: true\n"
        "curve:\n"
        "  type: ProgressiveStaircase\n"
        "  steps: [[0, 1.0], [100, 0.5]]\n"
        "axis: turns\n"
        "scope: [agent, subagent]\n"
        "roles: [reviewer]\n"
        "macro: append\n"
        "x-owner: team\n",
    )
    way, problems = parse_way_file(str(path), "git/commits", has_postcheck=True)
    assert problems == []
    assert way is not None
    assert way.id == "git/commits"
    assert way.lanes == Lanes(
        prompt="commit|push",
        keywords=("commit message",),
        files=("src/**/*.py",),
        commands=r"\bgit\s+commit\b",
        session_start=True,
        prompt_hints=("commit", "push"),
        commands_hints=("commit",),
    )
    assert way.curve == ProgressiveStaircase([[0, 1.0], [100, 0.5]])
    assert (way.axis, way.scope, way.roles, way.macro) == (
        "turns",
        ("agent", "subagent"),
        ("reviewer",),
        "append",
    )
    assert way.trigger_names() == (
        "prompt",
        "keywords",
        "files",
        "commands",
        "session_start",
        "postcheck",
        "roles",
    )


def test_defaults_apply_to_optional_fields(ways_root: Path) -> None:
    path = write_way(ways_root, "a", "description: A\nwhen: {keywords: [x]}\n" + EXP)
    way, _ = parse_way_file(str(path), "a")
    assert way is not None
    assert (way.axis, way.scope, way.roles, way.macro) == ("tokens", ("agent",), (), "prepend")
    assert way.curve == Exponential(30000)


def test_bom_and_crlf_are_tolerated(ways_root: Path) -> None:
    path = ways_root / "a" / "a.md"
    path.parent.mkdir()
    path.write_bytes(
        "\ufeff---\r\ndescription: A  # note\r\nwhen: {keywords: [x]}\r\n"
        "curve: {type: Flat, suppression: 5}\r\n---\r\nBody\r\n".encode()
    )
    way, problems = parse_way_file(str(path), "a")
    assert problems == []
    assert way is not None
    assert way.description == "A"


def test_redisclose_is_one_error_pointing_at_migrate(ways_root: Path) -> None:
    path = write_way(ways_root, "a", "description: A\nwhen: {keywords: [x]}\nredisclose: 15\n")
    assert _problems(path) == [
        "4: redisclose is retired: run `gfh ways migrate` to turn it into a curve"
    ]


@pytest.mark.parametrize(
    ("frontmatter", "expected"),
    [
        (
            "when: {keywords: [x]}\ncurve: {type: Exponential, half_life: 3, redisclose: 3}\n",
            "4: curve.redisclose is retired",
        ),
        (
            "when:\n  keywords: [x]\n  redisclose: 2\ncurve: {type: Flat, suppression: 1}\n",
            "5: when.redisclose is retired",
        ),
        ("when: {keywords: [x], redisclose: 2}\n", "3: when.redisclose is retired"),
    ],
)
def test_redisclose_inside_a_block_is_the_same_one_error(
    ways_root: Path, frontmatter: str, expected: str
) -> None:
    """If `redisclose` sits inside `curve:` or `when:`, then it is the retired field pointing at
    `gfh ways migrate` — not an unknown lane or curve parameter, nor a missing curve."""
    path = write_way(ways_root, "a", "description: A\n" + frontmatter)
    assert _problems(path) == [f"{expected}: run `gfh ways migrate` to turn it into a curve"]


def test_redisclose_inside_a_users_own_field_is_theirs(ways_root: Path) -> None:
    frontmatter = "description: A\nwhen: {keywords: [x]}\nx-old: {redisclose: 1}\n" + EXP
    way, problems = parse_way_file(str(write_way(ways_root, "a", frontmatter)), "a")
    assert (way is not None, problems) == (True, [])


def test_missing_description_and_curve_are_reported_at_the_frontmatter(ways_root: Path) -> None:
    path = write_way(ways_root, "a", "when: {keywords: [x]}\n")
    assert _problems(path) == [
        "1: missing required field 'description'",
        "1: missing required field 'curve'",
    ]


def test_curve_errors_point_at_the_offending_nested_line(ways_root: Path) -> None:
    path = write_way(
        ways_root,
        "a",
        "description: A\nwhen: {keywords: [x]}\ncurve:\n  type: Exponential\n  half_life: 0\n",
    )
    assert _problems(path) == [
        "6: curve: half_life: expected an integer from 1 to 1000000000000, got 0"
    ]


def test_staircase_violations_point_at_steps(ways_root: Path) -> None:
    path = write_way(
        ways_root,
        "a",
        "description: A\nwhen: {keywords: [x]}\ncurve:\n  type: ProgressiveStaircase\n"
        "  steps:\n    - [0, 0.5]\n    - [10, 0.9]\n",
    )
    (problem,) = _problems(path)
    assert problem.startswith("6: curve: steps: saliences must not increase")


def test_flow_style_curve_errors_point_at_the_curve_line(ways_root: Path) -> None:
    path = write_way(
        ways_root, "a", "description: A\nwhen: {keywords: [x]}\ncurve: {type: Wobbly}\n"
    )
    assert _problems(path) == [
        "4: curve: unknown curve type 'Wobbly' "
        "(one of Exponential, Flat, ProgressiveStaircase, ActionPotential)"
    ]


def test_regexes_that_do_not_compile_are_errors_at_their_lane(ways_root: Path) -> None:
    path = write_way(
        ways_root,
        "a",
        "description: A\nwhen:\n  keywords: [x]\n  prompt: '(unclosed'\n  commands: 'a[b'\n" + EXP,
    )
    problems = _problems(path)
    assert problems[0].startswith("5: when.prompt: regex '(unclosed' does not compile:")
    assert problems[1].startswith("6: when.commands: regex 'a[b' does not compile:")


def test_a_look_behind_of_varying_width_is_an_error_at_its_lane(ways_root: Path) -> None:
    """If only the compiler refuses a regex (the parser accepts it), then it is still an error,
    worded as every other regex error."""
    path = write_way(
        ways_root, "a", "description: A\nwhen:\n  commands: '(?<=a+)b'\n  prompt: x\n" + EXP
    )
    assert _problems(path) == [
        "4: when.commands: regex '(?<=a+)b' does not compile: "
        "look-behind requires fixed-width pattern"
    ]


def test_unknown_fields_and_lanes_are_errors_but_x_fields_are_free(ways_root: Path) -> None:
    path = write_way(
        ways_root,
        "a",
        "description: A\nx-note: fine\nwhen:\n  keyword: [x]\nbogus: 1\n" + EXP,
    )
    problems = _problems(path)
    assert len(problems) == 2
    assert problems[0].startswith("6: unknown field 'bogus' in a way")
    assert problems[1].startswith("5: unknown lane 'when.keyword' in when:")


def test_malformed_yaml_is_one_error_with_its_line(ways_root: Path) -> None:
    path = write_way(ways_root, "a", "description: A\nwhen: [unclosed\n" + EXP)
    (problem,) = _problems(path)
    assert "invalid YAML" in problem


def test_every_declared_field_and_lane_is_documented() -> None:
    from gitflow_harness.ways.parse import WAY_SCHEMA, WHEN_SCHEMA
    from tests.helpers import ROOT

    docs = (ROOT / "docs" / "ways.md").read_text(encoding="utf-8")
    for name in (*WAY_SCHEMA.names, *WHEN_SCHEMA.names, *WAY_SCHEMA.forbidden):
        assert f"| `{name}` |" in docs, name


@pytest.mark.parametrize(
    ("when", "line"),
    [
        ("when:\n  keywords: [x]\n  redisclose: 2\n", 5),
        ('when:\n  keywords: [x]\n  "redis\\x63lose": 2\n', 3),  # an escape: at `when:`
    ],
)
def test_a_nested_redisclose_is_an_error_however_it_is_spelled(
    ways_root: Path, when: str, line: int
) -> None:
    path = write_way(ways_root, "a", "description: A\n" + when + EXP)
    assert _problems(path) == [
        f"{line}: when.redisclose is retired: run `gfh ways migrate` to turn it into a curve"
    ]


COUNT_COMPILES = """
import re._compiler, sys
seen = []
real = re._compiler.compile
re._compiler.compile = lambda p, flags=0: seen.append(p) or real(p, flags)
from gitflow_harness.store.plainyaml import UNSAFE
from gitflow_harness.ways.parse import parse_way_file
way, problems = parse_way_file(sys.argv[1], "w")
assert way is not None and not problems, problems
print(UNSAFE in seen)
"""


def test_parsing_a_way_of_printable_text_does_not_compile_the_unsafe_characters_pattern(
    ways_root: Path,
) -> None:
    """It costs more to compile than parsing a way: a text all printable holds none of them."""
    path = write_way(
        ways_root,
        "w",
        "description: D\nwhen:\n  prompt: '\\bship\\b'\n  files: ['src/*.py']\n" + EXP,
    )
    out = subprocess.run(
        [sys.executable, "-c", COUNT_COMPILES, str(path)],
        capture_output=True,
        text=True,
        check=True,
        env=unmeasured_env(),
    ).stdout
    assert out.split() == ["False"]
