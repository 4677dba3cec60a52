"""`gitflow_harness.workflow.facts`: the git facts a `verb` event records, however the
workspace was opened."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.errors import ConfigError
from gitflow_harness.store.events import EventLog
from gitflow_harness.workflow.facts import Facts
from gitflow_harness.workspace import Workspace, open_workspace
from tests.helpers import commit, diverge, reftable_repo, write
from tests.helpers import git as run_git


def _as_the_hook_opens_it(top: Path, trunk: str = "") -> Workspace:
    """A workspace as the SessionStart hook builds it: its repository from git's files, the
    trunk from its cached configuration, HEAD not read yet."""
    found = git.discover(top)
    repo = git.repo_at(top, found.git_dir, found.common_dir)
    return Workspace(repo, EventLog(found.common_dir), surface="hook", trunk=trunk)


def _both(top: Path) -> tuple[dict[str, object], dict[str, object]]:
    return Facts(open_workspace(top)).snapshot(), Facts(_as_the_hook_opens_it(top)).snapshot()


def test_on_the_clean_trunk_every_fact_is_known(repo: Path) -> None:
    cli, hook = _both(repo)
    head = run_git(repo, "rev-parse", "HEAD").strip()
    tree = run_git(repo, "rev-parse", "HEAD^{tree}").strip()
    assert (
        cli
        == hook
        == {
            "trunk": "main",
            "clean": True,
            "head": head,
            "tree": tree,
            "ahead": 0,
            "behind": 0,
        }
    )


def test_a_branch_ahead_and_behind_with_changes(repo: Path) -> None:
    diverge(repo, "topic", {"a.txt": "a\n"}, {"b.txt": "b\n"})
    commit(repo, "more", {"c.txt": "c\n"})
    write(repo, "c.txt", "edited\n")
    cli, hook = _both(repo)
    assert cli == hook
    assert (hook["ahead"], hook["behind"], hook["clean"]) == (2, 1, False)
    assert hook["tree"] != run_git(repo, "rev-parse", "HEAD^{tree}").strip()


def test_a_detached_head_and_an_unborn_branch(repo: Path, tmp_path: Path) -> None:
    run_git(repo, "switch", "-q", "--detach", "HEAD")
    cli, hook = _both(repo)
    assert cli == hook
    assert hook["head"] == run_git(repo, "rev-parse", "HEAD").strip()
    ws = _as_the_hook_opens_it(repo)
    Facts(ws).snapshot()
    assert ws.head() == git.Head(branch=None, sha=hook["head"])  # learned from `git status`
    unborn = tmp_path / "unborn"
    run_git(tmp_path, "init", "-q", "-b", "main", str(unborn))
    cli, hook = _both(unborn)
    assert cli == hook
    empty = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # the tree of no files
    assert hook == dict.fromkeys(("trunk", "head", "ahead", "behind")) | {
        "clean": True,
        "tree": empty,
    }


def test_the_configured_trunk_is_the_one_given(repo: Path) -> None:
    run_git(repo, "branch", "develop")
    facts = Facts(_as_the_hook_opens_it(repo, trunk="develop"))
    assert facts.snapshot()["trunk"] == "develop"
    assert Facts(_as_the_hook_opens_it(repo, trunk="nowhere")).snapshot()["trunk"] is None


def test_a_corrupt_index_leaves_the_tree_unknown_and_the_rest_known(repo: Path) -> None:
    """If `git status` fails, then the facts it gives are recorded as unknown, and HEAD is
    read on its own."""
    (repo / ".git" / "index").write_bytes(b"not an index")
    cli, hook = _both(repo)
    assert cli == hook
    assert (hook["trunk"], hook["clean"], hook["tree"]) == ("main", None, None)
    assert hook["head"] == run_git(repo, "rev-parse", "HEAD").strip()


def test_a_bare_repository_knows_only_its_trunk(tmp_path: Path, repo: Path) -> None:
    run_git(tmp_path, "clone", "-q", "--bare", str(repo), "bare.git")
    ws = open_workspace(tmp_path / "bare.git")
    assert Facts(ws).snapshot() == dict.fromkeys(("clean", "tree")) | {
        "trunk": "main",
        "head": run_git(repo, "rev-parse", "HEAD").strip(),
        "ahead": 0,
        "behind": 0,
    }


def test_a_removed_worktree_knows_nothing(repo: Path, tmp_path: Path) -> None:
    ws = _as_the_hook_opens_it(repo)
    gone = tmp_path / "gone"
    ws.repo = ws.repo._replace(top=gone)
    assert Facts(ws).snapshot() == dict.fromkeys(
        ("trunk", "clean", "head", "tree", "ahead", "behind")
    )


def test_a_workspace_opens_its_configuration_and_log_when_asked(repo: Path) -> None:
    commit(repo, "configure", {".gitflow-harness.toml": '[repository]\ntrunk = "main"\n'})
    ws = Workspace(git.discover(repo))
    assert ws.log.directory == EventLog(repo / ".git").directory
    assert ws.configured_trunk == "main"
    assert ws.config.repository.trunk == "main"
    ws.config = ws.config._replace(repository=ws.config.repository._replace(trunk="develop"))
    assert ws.configured_trunk == "develop"  # a configuration set in place is the one read
    assert repr(ws) == f"Workspace(top={repo}, surface=cli)"
    broken = Workspace(ws.repo, ws.log, trunk="main")
    write(repo, ".gitflow-harness.toml", "[ways]\nfloor = 'high'\n")
    assert broken.configured_trunk == "main"  # given: the file is not read
    with pytest.raises(ConfigError, match=r"ways\.floor"):
        broken.config  # noqa: B018  # reading it is the test


def test_packed_refs_and_a_loose_ref_shadowing_one_give_the_same_facts(repo: Path) -> None:
    diverge(repo, "topic", {"a.txt": "a\n"}, {"b.txt": "b\n"})
    run_git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    packed = _both(repo)
    assert packed[0] == packed[1]
    assert (packed[1]["trunk"], packed[1]["ahead"], packed[1]["behind"]) == ("main", 1, 1)
    run_git(repo, "switch", "-q", "main")
    commit(repo, "main moves on", {"m.txt": "m\n"})  # loose main, its packed line now stale
    run_git(repo, "switch", "-q", "topic")
    cli, hook = _both(repo)
    assert cli == hook
    assert (hook["ahead"], hook["behind"]) == (1, 2)


def test_a_reftable_repository_has_its_facts_from_git(tmp_path: Path) -> None:
    top = reftable_repo(tmp_path)
    cli, hook = _both(top)
    assert cli == hook
    assert (hook["trunk"], hook["head"]) == ("main", run_git(top, "rev-parse", "HEAD").strip())
