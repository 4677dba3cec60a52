from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness.errors import ConfigError
from gitflow_harness.store.config import (
    CONFIG_FILE,
    SECTIONS,
    Reading,
    _bad_verdict,
    check_section,
    default_config,
    graph_loops,
    load_config,
    loop_back_verdicts,
    prepare_default,
    raise_first,
    table_problems,
)
from gitflow_harness.store.schema import Problem
from tests.helpers import CliRunner, write


def test_every_key_has_a_default(tmp_path: Path) -> None:
    cfg = load_config(tmp_path)
    assert cfg.path is None
    assert cfg.repository.trunk == ""
    assert cfg.repository.worktrees == "../{repo}.worktrees"
    assert cfg.gate.prepare == ()
    assert cfg.gate.push == "block-red"
    assert cfg.ways.floor == 0.5
    assert cfg.ritual.enforce == ("claude", "cursor")
    assert cfg.learning.loop_back == ("REJECTED", "BLOCKED", "FAIL", "FAILED")
    assert cfg.graph.loops == {}
    assert set(cfg.sources.values()) == {"default"}
    assert cfg == default_config()


def test_prepare_defaults_to_pre_commit_when_configured(tmp_path: Path) -> None:
    write(tmp_path, ".pre-commit-config.yaml", "repos: []\n")
    cfg = load_config(tmp_path)
    assert cfg.gate.prepare == ("pre-commit run --all-files",)
    assert cfg.sources["gate.prepare"] == "default (.pre-commit-config.yaml exists)"


def test_values_and_their_sources(tmp_path: Path) -> None:
    write(
        tmp_path,
        CONFIG_FILE,
        '# project config\n[gate]\ntest = ["pytest -q"]\npush = "require-green"\n\n'
        '[ways]\nfloor = 0.25\n\n[graph]\nstages = ["implementer", "reviewer"]\n'
        '[graph.loops.reviewer]\nREJECTED = ["implementer"]\n',
    )
    cfg = load_config(tmp_path)
    assert cfg.gate.test == ("pytest -q",)
    assert cfg.gate.push == "require-green"
    assert cfg.ways.floor == 0.25
    assert cfg.graph.loops == {"reviewer": {"REJECTED": ("implementer",)}}
    path = tmp_path / CONFIG_FILE
    assert cfg.sources["gate.push"] == f"{path}:4"
    assert cfg.sources["ways.floor"] == f"{path}:7"
    assert cfg.sources["gate.prepare"] == "default"


def test_verdicts_are_upper_cased_where_the_configuration_is_loaded(tmp_path: Path) -> None:
    """If a verdict is written in lower or mixed case, then every reader sees the token the
    hook records (always upper case), so none of them compares cases on its own."""
    write(
        tmp_path,
        CONFIG_FILE,
        '[learning]\nloop_back = ["rejected", "Blocked", "REJECTED"]\n'
        '[graph.loops.reviewer]\nRejected = ["implementer"]\nneeds-work = ["planner"]\n',
    )
    cfg = load_config(tmp_path)
    assert cfg.learning.loop_back == ("REJECTED", "BLOCKED")
    assert cfg.graph.loops == {
        "reviewer": {"REJECTED": ("implementer",), "NEEDS-WORK": ("planner",)}
    }
    assert cfg.as_dict()["graph"]["loops"] == {
        "reviewer": {"REJECTED": ["implementer"], "NEEDS-WORK": ["planner"]}
    }


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ('[gate]\npush = "block-red"\npsuh = "off"\n', 3, "unknown key 'gate.psuh'"),
        ("[gates]\npush = 1\n", 1, "unknown key 'gates'"),
        ('[ways]\nfloor = "high"\n', 2, "ways.floor: expected a number"),
        ("[ways]\nbudget_chars = true\n", 2, "ways.budget_chars: expected an integer"),
        ('[gate]\npush = "sometimes"\n', 2, "gate.push: expected one of 'block-red'"),
        ('[ritual]\nenforce = ["claude", "vim"]\n', 2, "ritual.enforce: item 2: expected one of"),
        ("[repository]\ntrunk = \n", 2, "invalid TOML"),
        ("gate = 3\n", 1, "gate must be a table"),
        ('[gate]\nprepare = "make lint"\n', 2, "gate.prepare: expected a list"),
        ("[gate]\nprepare = [1]\n", 2, "gate.prepare: item 1"),
        ("[ways]\nfloor = nan\n", 2, "ways.floor: expected a number >= 0.0 and <= 1.0, got nan"),
        ("[ways]\npostcheck_timeout_s = inf\n", 2, "ways.postcheck_timeout_s: expected"),
        ("[learning]\ncapture_days = 99999999\n", 2, "learning.capture_days: expected"),
        # The first problem as the file reads, though unknown tables are checked first.
        ("[gate]\nbogus = 1\n\n[zzz]\nx = 1\n", 2, "unknown key 'gate.bogus' in the [gate] table"),
        ('[graph.loops.reviewer]\nREJECTED = "implementer"\n', 2, "expected a list of stage names"),
        (
            '[graph.loops.reviewer]\nREJECTED = ["implementer"]\nRejected = ["planner"]\n',
            3,
            "graph.loops.reviewer.Rejected: the same verdict as REJECTED",
        ),
    ],
)
def test_errors_name_file_line_and_key(tmp_path: Path, text: str, line: int, fragment: str) -> None:
    write(tmp_path, CONFIG_FILE, text)
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path)
    message = str(err.value)
    assert message.startswith(f"{tmp_path / CONFIG_FILE}:{line}: "), message
    assert fragment in message
    assert err.value.exit_code == 2


def test_config_show_json_and_text(repo: Path, gfh: CliRunner) -> None:
    write(repo, CONFIG_FILE, "[learning]\ngraduation_at = 4\n")
    result = gfh("config", "show", "--json")
    assert result.code == 0
    data = result.json()
    assert data["values"]["learning"]["graduation_at"] == 4
    assert data["sources"]["learning.graduation_at"] == f"{repo / CONFIG_FILE}:2"
    assert set(data["values"]) == set(SECTIONS)
    lines = gfh("config", "show").out.splitlines()
    assert lines[0] == f"# file: {repo / CONFIG_FILE}"
    [row] = [line for line in lines if line.startswith("graduation_at")]
    assert row.split("#")[0].strip() == "graduation_at = 4"
    assert row.endswith(f"# {repo / CONFIG_FILE}:2")


def test_config_show_reports_a_bad_file_in_one_line(repo: Path, gfh: CliRunner) -> None:
    write(repo, CONFIG_FILE, "[gate]\nbogus = 1\n")
    result = gfh("config", "show")
    assert result.code == 2
    assert result.out == ""
    assert result.err.count("\n") == 1
    assert f"{CONFIG_FILE}:2: unknown key 'gate.bogus'" in result.err


def test_a_verdict_the_hook_cannot_read_is_a_config_error(tmp_path: Path) -> None:
    write(tmp_path, CONFIG_FILE, '[learning]\nloop_back = ["Needs Work"]\n')
    with pytest.raises(ConfigError, match=r":2: verdict 'Needs Work' can never be read"):
        load_config(tmp_path)
    write(tmp_path, CONFIG_FILE, '[graph.loops.reviewer]\n"sent back" = ["implementer"]\n')
    with pytest.raises(ConfigError, match=r":2: verdict 'sent back' can never be read"):
        load_config(tmp_path)


def test_the_hook_reads_verdicts_by_the_configurations_grammar() -> None:
    from gitflow_harness.agent.evidence import _VERDICT
    from gitflow_harness.store.config import VERDICT_TOKEN

    assert VERDICT_TOKEN.pattern in _VERDICT


def test_a_config_path_that_is_a_directory_is_an_error(tmp_path: Path) -> None:
    (tmp_path / CONFIG_FILE).mkdir()
    with pytest.raises(ConfigError, match="not a file; make it a TOML file or remove it"):
        load_config(tmp_path)


def test_a_wrong_typed_prepare_is_reported_not_a_crash(repo: Path, gfh: CliRunner) -> None:
    write(repo, CONFIG_FILE, '[gate]\nprepare = "make lint"\n')
    for args in (("config", "show"), ("status",)):
        result = gfh(*args)
        assert result.code == 2, result.err
        assert "internal error" not in result.err
        assert f"{CONFIG_FILE}:2: gate.prepare: expected a list" in result.err


def test_a_configuration_over_the_size_limit_is_refused_naming_it(tmp_path: Path) -> None:
    from gitflow_harness.errors import ConfigError
    from gitflow_harness.store.config import MAX_CONFIG_BYTES

    (tmp_path / CONFIG_FILE).write_text("# padding\n" * (MAX_CONFIG_BYTES // 10 + 1))
    with pytest.raises(ConfigError, match="larger than 256 KiB") as info:
        load_config(tmp_path)
    assert info.value.message.startswith(str(tmp_path / CONFIG_FILE))


def test_a_configuration_nested_too_deep_is_refused_not_a_crash(tmp_path: Path) -> None:
    from gitflow_harness.errors import ConfigError

    (tmp_path / CONFIG_FILE).write_text("[gate]\nprepare = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(ConfigError, match="values nested too deep; flatten them"):
        load_config(tmp_path)


# One step at a time: each check of `_build`, asked of a `Reading`.


def reading(tmp_path: Path | None = None, **lines: int) -> Reading:
    return Reading(CONFIG_FILE, {k.replace("__", "."): v for k, v in lines.items()}, tmp_path)


def test_table_problems() -> None:
    """If a top-level key is not a known table, or not a table, then each is one problem on
    its line."""
    found = table_problems({"gate": {}, "nope": {}, "ways": 3}, reading(nope=2, ways=5))
    assert [(p.line, p.message) for p in found] == [
        (2, f"unknown key 'nope' (known tables: {', '.join(SECTIONS)})"),
        (5, "ways must be a table [ways]"),
    ]


def test_check_section_records_values_and_sources() -> None:
    r = reading(gate__push=3)
    assert check_section("gate", SECTIONS["gate"], {"push": "off"}, r) == []
    assert r.sections["gate"]["push"] == "off"
    assert (r.sources["gate.push"], r.sources["gate.test"]) == (f"{CONFIG_FILE}:3", "default")
    found = check_section("ways", SECTIONS["ways"], {"floor": "high"}, reading(ways__floor=7))
    assert [p.line for p in found] == [7]
    not_a_table = reading()
    assert check_section("ways", SECTIONS["ways"], 3, not_a_table) == []
    assert not_a_table.sections["ways"]["floor"] == 0.5


def test_loop_back_verdicts() -> None:
    r = reading(learning__loop_back=4)
    r.sections["learning"] = {"loop_back": ("rejected", "REJECTED", "no good")}
    found = loop_back_verdicts(r)
    assert r.sections["learning"]["loop_back"] == ("REJECTED", "NO GOOD")
    assert [(p.line, p.message) for p in found] == [(4, _bad_verdict("no good"))]
    wrong_type = reading()
    wrong_type.sections["learning"] = {}
    assert loop_back_verdicts(wrong_type) == []


def test_graph_loops() -> None:
    r = reading()
    r.sections["graph"] = {"loops": {"reviewer": {"rejected": ["implementer"]}}}
    assert graph_loops(r) == []
    assert r.sections["graph"]["loops"] == {"reviewer": {"REJECTED": ("implementer",)}}
    bad = reading(graph__loops=9)
    bad.sections["graph"] = {"loops": "x"}
    assert [p.line for p in graph_loops(bad)] == [9]
    absent = reading()
    absent.sections["graph"] = {}
    assert graph_loops(absent) == []
    assert absent.sections["graph"] == {}


def test_prepare_default(tmp_path: Path) -> None:
    r = reading(tmp_path)
    r.sections["gate"] = {"prepare": None}
    assert prepare_default(r) == []
    assert r.sections["gate"]["prepare"] == ()
    write(tmp_path, ".pre-commit-config.yaml", "repos: []\n")
    r.sections["gate"] = {"prepare": None}
    prepare_default(r)
    assert r.sections["gate"]["prepare"] == ("pre-commit run --all-files",)
    assert r.sources["gate.prepare"] == "default (.pre-commit-config.yaml exists)"
    wrong_type = reading(tmp_path)
    wrong_type.sections["gate"] = {}
    prepare_default(wrong_type)
    assert wrong_type.sections["gate"] == {}


def test_raise_first_names_the_first_error_as_the_file_reads() -> None:
    raise_first([Problem(CONFIG_FILE, 2, "warning", "w")])
    with pytest.raises(ConfigError) as raised:
        raise_first(
            [
                Problem(CONFIG_FILE, 9, "error", "late"),
                Problem(CONFIG_FILE, None, "error", "unplaced"),
                Problem(CONFIG_FILE, 4, "error", "early"),
            ]
        )
    assert raised.value.message == f"{CONFIG_FILE}: unplaced (and 2 more)"
    with pytest.raises(ConfigError) as raised:
        raise_first([Problem(CONFIG_FILE, 4, "error", "early")])
    assert raised.value.message == f"{CONFIG_FILE}:4: early"
