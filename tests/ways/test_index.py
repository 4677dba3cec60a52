from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gitflow_harness.ways import blobs, parse
from gitflow_harness.ways import index as index_module
from gitflow_harness.ways import shared as shared_module
from gitflow_harness.ways.index import load_index, scan
from tests.helpers import git, make_repo, unmeasured_env
from tests.ways.conftest import EXP, settle, settle_tree, write_way

WAY = (
    "description: D\nwhen: {keywords: [x], prompt: 'deploy|ship', commands: 'make\\s+\\w+'}\n" + EXP
)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every way file the index parses (rather than takes from the cache)."""
    seen: list[str] = []
    real = parse.parse_way_file

    def counting(file: str, way_id: str, **kwargs: Any) -> object:
        seen.append(way_id)
        return real(file, way_id, **kwargs)

    monkeypatch.setattr(parse, "parse_way_file", counting)
    return seen


def test_scan_finds_ways_at_any_depth_and_skips_the_rest(ways_root: Path) -> None:
    write_way(ways_root, "a", WAY)
    write_way(ways_root, "group/b", WAY)
    write_way(ways_root, "group/b/nested", WAY)
    (ways_root / "group" / "notes.md").write_text("not a way\n")
    write_way(ways_root, ".hidden", WAY)
    (ways_root / "c").mkdir()
    (ways_root / "c" / "other.md").write_text("---\n---\n")
    (ways_root / "group" / "b" / "postcheck.sh").write_text("#!/bin/sh\n")
    found = scan(ways_root)
    assert [f.id for f in found] == ["a", "group/b", "group/b/nested"]
    assert [f.has_postcheck for f in found] == [False, True, False]


def test_a_missing_root_is_an_empty_index(tmp_path: Path) -> None:
    index = load_index(tmp_path / "nowhere", cache_file=tmp_path / "cache.json")
    assert index.ways == ()
    assert index.problems == ()


def test_warm_load_takes_every_way_from_the_cache(
    ways_root: Path, tmp_path: Path, parses: list[str]
) -> None:
    files = [write_way(ways_root, f"w{i}", WAY) for i in range(3)]
    settle(*files)
    cache = tmp_path / "cache.json"
    cold = load_index(ways_root, cache_file=cache)
    assert parses == ["w0", "w1", "w2"]
    warm = load_index(ways_root, cache_file=cache)
    assert parses == ["w0", "w1", "w2"]
    assert warm == cold
    assert [w.id for w in warm.ways] == ["w0", "w1", "w2"]


def test_a_changed_file_is_parsed_again_and_only_it(
    ways_root: Path, tmp_path: Path, parses: list[str]
) -> None:
    a = write_way(ways_root, "a", WAY)
    b = write_way(ways_root, "b", WAY)
    settle(a, b)
    cache = tmp_path / "cache.json"
    load_index(ways_root, cache_file=cache)
    write_way(ways_root, "b", WAY.replace("30000", "45000"))
    settle(b)
    parses.clear()
    index = load_index(ways_root, cache_file=cache)
    assert parses == ["b"]
    assert index.get("b").curve.half_life == 45000  # type: ignore[union-attr]


def test_a_rewrite_of_another_size_with_the_same_mtime_is_parsed_again(
    ways_root: Path, tmp_path: Path, parses: list[str]
) -> None:
    """The cache key is the file's size as well as its mtime: a settled file rewritten with
    other contents and its old mtime restored is not taken from the cache."""
    a = write_way(ways_root, "a", WAY)
    settle(a)
    cache = tmp_path / "cache.json"
    load_index(ways_root, cache_file=cache)
    stat = a.stat()
    write_way(ways_root, "a", WAY.replace("30000", "450000"))
    os.utime(a, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    parses.clear()
    index = load_index(ways_root, cache_file=cache)
    assert parses == ["a"]
    assert index.get("a").curve.half_life == 450000  # type: ignore[union-attr]


def test_a_racy_entry_is_hashed_again_until_it_settles_and_parsed_only_when_changed(
    ways_root: Path, tmp_path: Path, parses: list[str]
) -> None:
    """If a file was written moments ago, then a same-size rewrite within the filesystem's
    timestamp granularity could look unchanged: until it settled its content is hashed on every
    load, and it is parsed again only when that content changed."""
    a = write_way(ways_root, "a", WAY)
    cache = tmp_path / "cache.json"
    load_index(ways_root, cache_file=cache)
    load_index(ways_root, cache_file=cache)
    assert parses == ["a"]
    stat = a.stat()
    write_way(ways_root, "a", WAY.replace("30000", "40000"))
    os.utime(a, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert a.stat().st_size == stat.st_size
    index = load_index(ways_root, cache_file=cache)
    assert parses == ["a", "a"]
    assert index.get("a").curve.half_life == 40000  # type: ignore[union-attr]
    settle(a)
    load_index(ways_root, cache_file=cache)
    load_index(ways_root, cache_file=cache)
    assert parses == ["a", "a"]


def _worktree_of(ways_root: Path, name: str) -> Path:
    """Copy the ways tree as another worktree of the same repository checks it out."""
    import shutil

    other = ways_root.parent / name / "ways"
    shutil.copytree(ways_root, other)
    return other


def test_a_second_worktree_takes_the_ways_another_parsed_from_the_shared_cache(
    ways_root: Path, tmp_path: Path, parses: list[str]
) -> None:
    """If a worktree of the repository parsed its ways, then another worktree holding the same
    files (`gfh start` makes one per task) parses none of them: the shared cache is by content."""
    for way_id in ("a", "g/b"):
        write_way(ways_root, way_id, WAY)
    shared = shared_module.shared_cache_file(tmp_path / "common")
    first = load_index(ways_root, cache_file=tmp_path / "one.json", shared_file=shared)
    assert sorted(parses) == ["a", "g/b"]
    other = _worktree_of(ways_root, "task")
    write_way(other, "g/b", WAY.replace("30000", "45000"))
    parses.clear()
    second = load_index(other, cache_file=tmp_path / "two.json", shared_file=shared)
    assert parses == ["g/b"]  # only the file whose content differs
    assert [w.file for w in second.ways] == [str(other / "a" / "a.md"), str(other / "g/b/b.md")]
    a_one, a_two = first.get("a"), second.get("a")
    assert a_one is not None
    assert a_two is not None
    assert (a_two.lanes, a_two.curve, a_two.description) == (
        a_one.lanes,
        a_one.curve,
        a_one.description,
    )
    assert second.get("g/b").curve.half_life == 45000  # type: ignore[union-attr]
    stored = marshal.loads(Path(shared).read_bytes())
    assert stored["format"] == shared_module.SHARED_FORMAT
    assert len(stored["ways"]) == 3
    assert Path(shared).stat().st_mode & 0o777 == 0o600
    state = Path(os.environ["GFH_STATE_HOME"])
    assert Path(shared).parent == state / "ways-shared"  # private, not in the repository


def test_the_shared_cache_is_rewritten_only_when_a_way_was_parsed(
    ways_root: Path, tmp_path: Path
) -> None:
    settle(write_way(ways_root, "a", WAY))
    shared = Path(shared_module.shared_cache_file(tmp_path / "common"))
    load_index(ways_root, cache_file=tmp_path / "one.json", shared_file=shared)
    before = shared.stat().st_mtime_ns
    other = _worktree_of(ways_root, "task")
    load_index(other, cache_file=tmp_path / "two.json", shared_file=shared)
    assert shared.stat().st_mtime_ns == before


def test_the_shared_cache_keeps_the_newest_versions(
    ways_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shared_module, "MAX_SHARED", 2)
    a = write_way(ways_root, "a", WAY)
    shared = Path(shared_module.shared_cache_file(tmp_path / "common"))
    for half_life in ("30000", "40000", "50000"):
        write_way(ways_root, "a", WAY.replace("30000", half_life))
        settle(a)
        load_index(ways_root, cache_file=tmp_path / "one.json", shared_file=shared)
    kept = marshal.loads(shared.read_bytes())["ways"]
    assert len(kept) == 2
    assert [json.loads(v[0][1])[1][1] for v in kept.values()] == [40000, 50000]


@pytest.mark.parametrize(
    "content",
    [
        b"not marshal",
        b"",
        marshal.dumps([]),
        marshal.dumps({"format": 99, "ways": {}}),
        marshal.dumps({"format": shared_module.SHARED_FORMAT, "ways": []}),
    ],
)
def test_a_corrupt_shared_cache_is_rebuilt(
    ways_root: Path, tmp_path: Path, content: bytes, parses: list[str]
) -> None:
    settle(write_way(ways_root, "a", WAY))
    shared = Path(shared_module.shared_cache_file(tmp_path / "common"))
    shared.write_bytes(content)
    index = load_index(ways_root, cache_file=tmp_path / "one.json", shared_file=shared)
    assert [w.id for w in index.ways] == ["a"]
    assert parses == ["a"]
    assert len(marshal.loads(shared.read_bytes())["ways"]) == 1


def test_an_unwritable_shared_cache_only_costs_speed(ways_root: Path, tmp_path: Path) -> None:
    settle(write_way(ways_root, "a", WAY))
    blocker = tmp_path / "blocker"
    blocker.write_text("")  # a file where the cache's folder would go
    shared = blocker / "shared.marshal"
    index = load_index(ways_root, cache_file=tmp_path / "one.json", shared_file=shared)
    assert [w.id for w in index.ways] == ["a"]


def test_the_shared_cache_is_one_per_repository_in_the_state_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = shared_module.shared_cache_file(tmp_path / "one" / ".git")
    again = shared_module.shared_cache_file(tmp_path / "one" / "sub" / ".." / ".git")
    other = shared_module.shared_cache_file(tmp_path / "two" / ".git")
    assert one is not None
    assert Path(one).parent == Path(os.environ["GFH_STATE_HOME"]) / "ways-shared"
    assert again == one  # the same directory however it is spelt
    assert one != other
    monkeypatch.setenv("GFH_STATE_HOME", str(tmp_path / "blocker" / "state"))
    (tmp_path / "blocker").write_text("")  # no state dir can be made: no shared cache
    assert shared_module.shared_cache_file(tmp_path / "one" / ".git") is None


def test_a_way_past_the_size_bound_is_a_problem_not_hashed(ways_root: Path, tmp_path: Path) -> None:
    from gitflow_harness.store.documents import MAX_DOCUMENT_BYTES

    big = write_way(ways_root, "big", WAY, body="x" * MAX_DOCUMENT_BYTES)
    settle(big)
    shared = Path(shared_module.shared_cache_file(tmp_path / "common"))
    index = load_index(ways_root, cache_file=tmp_path / "one.json", shared_file=shared)
    assert [str(p) for p in index.problems] == [
        f"{big}: error: larger than 512 KiB; a document is a page of prose: shorten it"
    ]
    assert not shared.exists()
    again = load_index(ways_root, cache_file=tmp_path / "one.json", shared_file=shared)
    assert again.problems == index.problems


def test_new_and_removed_ways_are_seen_and_the_cache_pruned(
    ways_root: Path, tmp_path: Path
) -> None:
    settle(write_way(ways_root, "a", WAY), write_way(ways_root, "b", WAY))
    cache = tmp_path / "cache.json"
    load_index(ways_root, cache_file=cache)
    (ways_root / "a" / "a.md").unlink()
    (ways_root / "a").rmdir()
    settle(write_way(ways_root, "c", WAY))
    index = load_index(ways_root, cache_file=cache)
    assert [w.id for w in index.ways] == ["b", "c"]
    assert sorted(marshal.loads(cache.read_bytes())["entries"]) == ["", "b", "c"]


def test_siblings_are_noticed_without_parsing_again(
    ways_root: Path, tmp_path: Path, parses: list[str]
) -> None:
    settle(write_way(ways_root, "a", WAY))
    cache = tmp_path / "cache.json"
    assert not load_index(ways_root, cache_file=cache).ways[0].has_postcheck
    (ways_root / "a" / "postcheck.sh").write_text("#!/bin/sh\nexit 0\n")
    (ways_root / "a" / "macro.sh").write_text("#!/bin/sh\n")
    way = load_index(ways_root, cache_file=cache).ways[0]
    assert (way.has_postcheck, way.has_macro) == (True, True)
    assert parses == ["a"]


def test_broken_ways_are_problems_cached_like_ways(
    ways_root: Path, tmp_path: Path, parses: list[str]
) -> None:
    bad = write_way(ways_root, "bad", "description: D\nredisclose: 3\n")
    settle(bad, write_way(ways_root, "good", WAY))
    cache = tmp_path / "cache.json"
    first = load_index(ways_root, cache_file=cache)
    second = load_index(ways_root, cache_file=cache)
    assert parses == ["bad", "good"]
    assert first == second
    assert [w.id for w in second.ways] == ["good"]
    assert [str(p) for p in second.problems] == [
        f"{bad}:3: error: redisclose is retired: run `gfh ways migrate` to turn it into a curve"
    ]


@pytest.mark.parametrize(
    "content",
    [
        b"not marshal",
        marshal.dumps([]),
        marshal.dumps({"format": 99}),
        marshal.dumps({"format": index_module.CACHE_FORMAT, "root": "/x", "entries": {}}),
        marshal.dumps({"format": index_module.CACHE_FORMAT, "root": "/x"})[:-3],  # cut short
        b'{"format":6,"root":"/x","entries":{}}',  # an older version's cache, in JSON
    ],
    ids=["garbage", "a list", "another format", "another root", "cut short", "older JSON"],
)
def test_a_corrupt_or_foreign_cache_is_rebuilt(
    ways_root: Path, tmp_path: Path, content: bytes
) -> None:
    settle(write_way(ways_root, "a", WAY))
    cache = tmp_path / "cache.json"
    cache.write_bytes(content)
    index = load_index(ways_root, cache_file=cache)
    assert [w.id for w in index.ways] == ["a"]
    assert marshal.loads(marshal.loads(cache.read_bytes())["entries"]["a"][5][3][0])[1] == ["x"]


def test_a_damaged_entry_is_parsed_again(ways_root: Path, tmp_path: Path) -> None:
    settle(write_way(ways_root, "a", WAY))
    cache = tmp_path / "cache.json"
    load_index(ways_root, cache_file=cache)
    data = marshal.loads(cache.read_bytes())
    data["entries"]["a"][5][3][1] = '["D", ["Exponential", -1], "tokens", ["agent"], [], "prepend"]'
    cache.write_bytes(marshal.dumps(data))
    assert load_index(ways_root, cache_file=cache).ways[0].curve.half_life == 30000  # type: ignore[union-attr]


def test_a_warm_load_decodes_every_way_without_parsing_again(
    ways_root: Path, tmp_path: Path, parses: list[str]
) -> None:
    """The cache keeps each way's payload as its parse gave it: decoded again from the file,
    every field is usable (a tuple where a list is expected would send it to the parser)."""
    settle(write_way(ways_root, "a", WAY))
    cache = tmp_path / "cache.json"
    cold = load_index(ways_root, cache_file=cache).ways[0]
    parses.clear()
    warm = load_index(ways_root, cache_file=cache).ways[0]
    assert (warm.lanes, warm.curve, warm.description, warm.scope) == (
        cold.lanes,
        cold.curve,
        cold.description,
        cold.scope,
    )
    assert parses == []


def test_the_default_cache_lives_in_the_private_state_dir(ways_root: Path, hermetic: Path) -> None:
    settle(write_way(ways_root, "a", WAY))
    load_index(ways_root)
    cache = Path(index_module.default_cache_file(ways_root))
    assert cache.is_file()
    assert cache.is_relative_to(hermetic / "gfh-state")
    assert cache.stat().st_mode & 0o777 == 0o600


def test_the_json_cache_an_earlier_version_kept_goes_when_the_cache_is_written(
    ways_root: Path, hermetic: Path
) -> None:
    """If the state dir holds the JSON cache an earlier gfh kept for this root, then writing
    the cache removes it, and leaves the JSON cache of any other root alone."""
    settle(write_way(ways_root, "a", WAY))
    cache = Path(index_module.default_cache_file(ways_root))
    cache.parent.mkdir(parents=True, exist_ok=True)
    old = cache.with_suffix(".json")
    other = cache.with_name("another-root.json")
    old.write_text("{}")
    other.write_text("{}")
    load_index(ways_root)
    assert cache.is_file()
    assert not old.exists()
    assert other.exists()


def test_use_cache_false_writes_nothing(ways_root: Path, hermetic: Path) -> None:
    write_way(ways_root, "a", WAY)
    assert len(load_index(ways_root, use_cache=False).ways) == 1
    assert not (hermetic / "gfh-state").exists()


def test_a_warm_load_imports_no_yaml_click_git_or_filelock(ways_root: Path, tmp_path: Path) -> None:
    settle(write_way(ways_root, "a", WAY))
    cache = tmp_path / "cache.json"
    code = (
        "import sys; from gitflow_harness.ways.index import load_index; "
        "from gitflow_harness.ways.match import prompt_magnitude; "
        "from gitflow_harness.firing import EngagementState; "
        f"ix = load_index({str(ways_root)!r}, cache_file={str(cache)!r}); "
        "w = ix.ways[0]; m = prompt_magnitude(w, 'x y'); "
        "print(EngagementState(w.curve).decide(1, m, 0.5).kind)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        check=True,
        capture_output=True,
        text=True,
        env=unmeasured_env(),
    )
    assert proc.stdout.strip() == "first"
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()}
    heavy = {"yaml", "frontmatter", "click", "git", "filelock", "gitflow_harness.ways.parse"}
    assert imported & heavy == set()
    assert "gitflow_harness.ways.index" in imported


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every directory the index lists (rather than takes from the cache)."""
    seen: list[str] = []
    real = index_module._list

    def counting(path: str, rel: str, mtime: int, now: int) -> object:
        seen.append(rel)
        return real(path, rel, mtime, now)

    monkeypatch.setattr(index_module, "_list", counting)
    return seen


def test_settled_directories_are_not_listed_again(
    ways_root: Path, tmp_path: Path, listings: list[str], parses: list[str]
) -> None:
    for way_id in ("g/a", "g/b", "c"):
        write_way(ways_root, way_id, WAY)
    settle_tree(ways_root)
    cache = tmp_path / "cache.json"
    load_index(ways_root, cache_file=cache)
    assert sorted(listings) == ["", "c", "g", "g/a", "g/b"]
    listings.clear()
    parses.clear()
    before = cache.stat().st_mtime_ns
    index = load_index(ways_root, cache_file=cache)
    assert (listings, parses) == ([], [])
    assert [w.id for w in index.ways] == ["c", "g/a", "g/b"]
    assert cache.stat().st_mtime_ns == before  # nothing changed: not rewritten


def test_an_added_way_or_sibling_changes_its_directory_and_is_seen(
    ways_root: Path, tmp_path: Path, listings: list[str], parses: list[str]
) -> None:
    write_way(ways_root, "g/a", WAY)
    settle_tree(ways_root)
    cache = tmp_path / "cache.json"
    load_index(ways_root, cache_file=cache)
    listings.clear()
    parses.clear()
    write_way(ways_root, "g/new", WAY)
    (ways_root / "g" / "a" / "postcheck.sh").write_text("#!/bin/sh\n")
    index = load_index(ways_root, cache_file=cache)
    assert sorted(listings) == ["g", "g/a", "g/new"]
    assert parses == ["g/new"]
    assert [(w.id, w.has_postcheck) for w in index.ways] == [("g/a", True), ("g/new", False)]


def test_a_removed_way_file_drops_out(ways_root: Path, tmp_path: Path) -> None:
    path = write_way(ways_root, "a", WAY)
    write_way(ways_root, "b", WAY)
    settle_tree(ways_root)
    cache = tmp_path / "cache.json"
    load_index(ways_root, cache_file=cache)
    path.unlink()
    assert [w.id for w in load_index(ways_root, cache_file=cache).ways] == ["b"]


def test_without_a_usable_state_dir_the_index_loads_uncached(
    ways_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("GFH_STATE_HOME", str(blocker))
    write_way(ways_root, "a", WAY)
    assert [w.id for w in load_index(ways_root).ways] == ["a"]


def test_a_new_worktrees_first_load_from_the_shared_cache_imports_no_yaml(
    ways_root: Path, tmp_path: Path
) -> None:
    """If another worktree of the repository parsed the ways, then the first load in a new one
    reads and hashes its files but imports neither YAML nor the parser."""
    settle(write_way(ways_root, "a", WAY))
    shared = shared_module.shared_cache_file(tmp_path / "common")
    load_index(ways_root, cache_file=tmp_path / "one.json", shared_file=shared)
    other = _worktree_of(ways_root, "task")
    code = (
        "import sys; from gitflow_harness.ways.index import load_index; "
        f"ix = load_index({str(other)!r}, cache_file={str(tmp_path / 'two.json')!r}, "
        f"shared_file={shared!r}); "
        "print([w.id for w in ix.ways], sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('yaml', 'dataclasses', 'typing', 'tempfile', 'hashlib') "
        "or m == 'gitflow_harness.ways.parse'))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=unmeasured_env()
    )
    assert proc.stdout.strip() == "['a'] []", proc.stderr


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every way file the index reads to find its content key."""
    seen: list[str] = []
    real = index_module._read_bytes

    def counting(file: str) -> bytes | None:
        seen.append(os.path.basename(file))
        return real(file)

    monkeypatch.setattr(index_module, "_read_bytes", counting)
    return seen


def _repo_of_ways(tmp_path: Path, count: int) -> Path:
    repo = make_repo(
        tmp_path / "repo",
        {f"hooks/ways/w{n}/w{n}.md": f"---\n{WAY}---\nBody {n}.\n" for n in range(count)},
    )
    settle_tree(repo / "hooks")
    return repo


def _load(top: Path, tmp_path: Path) -> index_module.WayIndex:
    git_dir = git(top, "rev-parse", "--absolute-git-dir").strip()
    common = git(top, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    return load_index(
        top / "hooks" / "ways",
        cache_file=tmp_path / f"{top.name}.json",
        shared_file=shared_module.shared_cache_file(common),
        checkout=(top, git_dir),
    )


def _add_worktree(repo: Path, name: str, *, settled: bool) -> Path:
    """`git worktree add`; settled: its files dated back and the index refreshed after, so no
    entry is racily clean against the index file."""
    tree = repo.parent / name
    git(repo, "worktree", "add", "-q", "--detach", str(tree))
    if settled:
        for file in (tree / "hooks").rglob("*.md"):
            settle(file)
        git(tree, "update-index", "--refresh")
    return tree


def test_a_new_git_worktree_takes_every_key_from_its_git_index_reading_no_way_file(
    tmp_path: Path, reads: list[str], parses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_module, "INDEX_AFTER", 2)
    repo = _repo_of_ways(tmp_path, 3)
    first = _load(repo, tmp_path)
    assert len(parses) == 3
    tree = _add_worktree(repo, "task", settled=True)
    reads.clear()
    parses.clear()
    second = _load(tree, tmp_path)
    assert (reads, parses) == ([], [])
    assert [(w.id, w.lanes, w.curve) for w in second.ways] == [
        (w.id, w.lanes, w.curve) for w in first.ways
    ]
    assert [w.file for w in second.ways] == [
        str(tree / "hooks" / "ways" / f"w{n}" / f"w{n}.md") for n in range(3)
    ]


def test_a_way_edited_right_after_git_worktree_add_is_parsed_from_its_new_content(
    tmp_path: Path, parses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edited within the same second as the checkout, its size unchanged and not added: its
    entry in the git index is racily clean or no longer its stat, and its new content counts."""
    monkeypatch.setattr(index_module, "INDEX_AFTER", 2)
    repo = _repo_of_ways(tmp_path, 3)
    _load(repo, tmp_path)
    tree = _add_worktree(repo, "task", settled=False)
    file = tree / "hooks" / "ways" / "w1" / "w1.md"
    file.write_text(file.read_text().replace("30000", "45000"))
    parses.clear()
    index = _load(tree, tmp_path)
    assert parses == ["w1"]
    assert index.get("w1").curve.half_life == 45000  # type: ignore[union-attr]
    assert index.get("w0").curve.half_life == 30000  # type: ignore[union-attr]


def test_a_few_stale_ways_are_read_rather_than_the_git_index(
    tmp_path: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    looked_up: list[int] = []
    monkeypatch.setattr(blobs, "blob_ids", lambda *args: looked_up.append(1) or {})
    repo = _repo_of_ways(tmp_path, 3)
    _load(repo, tmp_path)
    tree = _add_worktree(repo, "task", settled=True)
    reads.clear()
    _load(tree, tmp_path)
    assert (sorted(reads), looked_up) == (["w0.md", "w1.md", "w2.md"], [])


def _new_worktree_unshared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A new worktree of three ways another worktree loaded, the git index read for their blob
    ids, and the repository's shared cache holding none of them (only another way): return the
    worktree and that cache's file."""
    monkeypatch.setattr(index_module, "INDEX_AFTER", 2)
    repo = _repo_of_ways(tmp_path, 3)
    _load(repo, tmp_path)
    common = git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    shared = Path(shared_module.shared_cache_file(common))
    other = {
        "format": shared_module.SHARED_FORMAT,
        "ways": {"another\x0000\x00" + "0" * 40: [None, []]},
    }
    shared.write_bytes(marshal.dumps(other))
    return _add_worktree(repo, "task", settled=True), shared


def test_a_first_load_hashes_the_files_it_reads_and_reads_no_git_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If nothing was parsed before (no shared cache, no entry), then no content can be looked
    up: the git index is not read, and each way is remembered under the blob id of its bytes,
    the key the git index would have given."""
    monkeypatch.setattr(index_module, "INDEX_AFTER", 2)
    repo = _repo_of_ways(tmp_path, 3)
    monkeypatch.setattr(blobs, "blob_ids", pytest.fail)
    _load(repo, tmp_path)
    root = repo / "hooks" / "ways"
    keys = [index_module.content_key(found, Path(found.file).read_bytes()) for found in scan(root)]
    stored = marshal.loads((tmp_path / "repo.json").read_bytes())["entries"]
    assert [stored[f"w{n}"][5][5] for n in range(3)] == keys
    tracked = git(repo, "ls-files", "-s", "hooks/ways").split()
    assert [key.rsplit("\0", 1)[1] for key in keys] == tracked[1::4]  # git's own blob ids


def test_a_blob_id_no_worktree_parsed_is_parsed_from_its_file(
    tmp_path: Path, reads: list[str], parses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The git index gives the key, the shared cache has nothing for it: the file is read and
    parsed, and what it gave is shared under that key."""
    tree, shared = _new_worktree_unshared(tmp_path, monkeypatch)
    reads.clear()
    parses.clear()
    index = _load(tree, tmp_path)
    assert (sorted(reads), sorted(parses)) == (["w0.md", "w1.md", "w2.md"], ["w0", "w1", "w2"])
    assert [w.id for w in index.ways] == ["w0", "w1", "w2"]
    blob = git(tree, "rev-parse", "HEAD:hooks/ways/w0/w0.md").strip()
    assert f"w0\0{0}{0}\0{blob}" in marshal.loads(shared.read_bytes())["ways"]


def test_a_file_the_git_index_proved_is_parsed_under_its_blob_id_unhashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parsed with its key from the git index, a way is remembered (by the worktree and the
    shared cache) under the key hashing its bytes gives, and its bytes are not hashed."""
    tree, shared = _new_worktree_unshared(tmp_path, monkeypatch)
    hashed: list[bytes] = []
    real = index_module.blob_id
    monkeypatch.setattr(index_module, "blob_id", lambda data: hashed.append(data) or real(data))
    _load(tree, tmp_path)
    assert hashed == []
    root = tree / "hooks" / "ways"
    keys = [index_module.content_key(found, Path(found.file).read_bytes()) for found in scan(root)]
    stored = marshal.loads((tmp_path / "task.json").read_bytes())["entries"]
    assert [stored[f"w{n}"][5][5] for n in range(3)] == keys
    shared_keys = set(marshal.loads(shared.read_bytes())["ways"])
    assert shared_keys >= set(keys)
    assert len(shared_keys) == len(keys) + 1  # and the other way's


def test_a_file_changed_since_the_git_index_proved_it_is_hashed_from_its_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its size no longer the walk's (written between the walk and the read): its key is the
    hash of the bytes parsed, not the blob id the index gave."""
    tree, _ = _new_worktree_unshared(tmp_path, monkeypatch)
    file = tree / "hooks" / "ways" / "w1" / "w1.md"
    real = index_module._read_bytes

    def racing(path: str) -> bytes | None:
        if path == str(file):
            file.write_text(file.read_text().replace("30000", "4500000"))
        return real(path)

    monkeypatch.setattr(index_module, "_read_bytes", racing)
    blob = git(tree, "rev-parse", "HEAD:hooks/ways/w1/w1.md").strip()
    index = _load(tree, tmp_path)
    assert index.get("w1").curve.half_life == 4500000  # type: ignore[union-attr]
    stored = marshal.loads((tmp_path / "task.json").read_bytes())["entries"]
    assert stored["w1"][5][5] == index_module.content_key(
        scan(tree / "hooks" / "ways")[1], file.read_bytes()
    )
    assert blob not in stored["w1"][5][5]


def test_prune_removes_only_old_caches_and_forget_only_its_own(tmp_path: Path) -> None:
    """`prune_caches` counts what it removed; a cache already gone is forgotten quietly."""
    old = Path(index_module.default_cache_file(tmp_path / "a"))
    new = Path(index_module.default_cache_file(tmp_path / "b"))
    old.parent.mkdir(parents=True, exist_ok=True)
    old.write_bytes(b"x")
    new.write_bytes(b"x")
    now = old.stat().st_mtime
    assert index_module.prune_caches(now + index_module.KEEP_CACHE_S - 60) == 0
    os.utime(old, (now - 60, now - 60))
    assert index_module.prune_caches(now + index_module.KEEP_CACHE_S - 30) == 1
    assert not old.exists()
    assert new.exists()
    index_module.forget_cache(tmp_path / "a")  # gone already: nothing to say
    index_module.forget_cache(tmp_path / "b")
    assert not new.exists()


def test_prune_keeps_the_shared_caches_but_those_an_earlier_gfh_named(hermetic: Path) -> None:
    """If a repository's shared cache is a month unwritten, then it stays (its rebuild is a
    parse of every way), unless its name is not one this gfh gives: an earlier gfh named them
    by SHA-256, and none reads those any more."""
    current = Path(str(shared_module.shared_cache_file(hermetic / "repo" / ".git")))
    directory = current.parent
    earlier = directory / ("ab" * 12 + ".marshal")
    for path in (current, earlier):
        path.write_bytes(b"x")
    month_ago = current.stat().st_mtime - index_module.KEEP_CACHE_S - 60
    for path in (current, earlier):
        os.utime(path, (month_ago, month_ago))
    assert index_module.prune_caches() == 1
    assert current.exists()
    assert not earlier.exists()
    assert shared_module.named_here(current.name)
    assert not shared_module.named_here(earlier.name)
    assert not shared_module.named_here("0123456789abcdef.json")


def test_prune_without_a_state_dir_removes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("GFH_STATE_HOME", str(tmp_path / "file" / "state"))  # under a file
    assert index_module.prune_caches() == 0


FILES_WAY = "description: D\nwhen: {files: ['src/%s/**']}\n" + EXP
PROMPT_WAY = "description: D\nwhen: {keywords: [%s]}\n" + EXP
START_WAY = "description: D\nwhen: {session_start: true}\n" + EXP


def _selecting(ways_root: Path) -> None:
    write_way(ways_root, "files-a", FILES_WAY % "a")
    write_way(ways_root, "files-b", FILES_WAY % "b")
    write_way(ways_root, "prompt", PROMPT_WAY % "deploy")
    write_way(ways_root, "start", START_WAY)
    write_way(ways_root, "broken", "when: [\n")
    settle_tree(ways_root)


def test_a_warm_load_with_select_builds_only_the_ways_it_picks(
    ways_root: Path, tmp_path: Path, parses: list[str]
) -> None:
    """If every way is as cached, then `select` is given the way files' ids and their table of
    sieves, and the index holds the ways it picks and every problem; nothing is parsed."""
    _selecting(ways_root)
    cache = tmp_path / "cache.marshal"
    full = load_index(ways_root, cache_file=cache)
    parses.clear()
    asked: list[list[str]] = []

    def select(ids: list[str], table: list[Any]) -> set[int]:
        asked.append(ids)
        return {ids.index("files-b"), ids.index("start")}

    picked = load_index(ways_root, cache_file=cache, select=select)
    assert asked == [["broken", "files-a", "files-b", "prompt", "start"]]
    assert [w.id for w in picked.ways] == ["files-b", "start"]
    assert picked.problems == full.problems
    assert len(full.problems) == 1
    assert parses == []
    assert [
        w.id for w in load_index(ways_root, cache_file=cache, select=lambda i, t: None).ways
    ] == [w.id for w in full.ways]


def test_a_load_that_finds_a_change_selects_by_the_table_it_makes(
    ways_root: Path, tmp_path: Path, parses: list[str]
) -> None:
    """If a way came (or changed, or went) since the cache, then every way is loaded as
    before, the cache's table is made again of the tree as it is now, and `select` is asked
    of that table: the index holds what it picks, as a warm load's would."""
    from gitflow_harness.ways.match import Text
    from gitflow_harness.ways.sieve import candidates

    _selecting(ways_root)
    cache = tmp_path / "cache.marshal"
    load_index(ways_root, cache_file=cache)
    write_way(ways_root, "files-c", FILES_WAY % "c")
    settle_tree(ways_root)
    parses.clear()
    asked: list[list[str]] = []

    def select(ids: list[str], table: list[Any]) -> set[int] | None:
        asked.append(list(ids))
        return candidates(
            table, Text("nothing"), ["src/c/x.py"], session_start=False, postcheck=False
        )

    index = load_index(ways_root, cache_file=cache, select=select)
    assert parses == ["files-c"]
    assert [w.id for w in index.ways] == ["files-c"]
    assert len(index.problems) == 1
    ids = ["broken", "files-a", "files-b", "files-c", "prompt", "start"]
    assert asked == [ids]
    assert marshal.loads(cache.read_bytes())["table"][0] == ids
    warm = load_index(ways_root, cache_file=cache, select=select)
    assert [w.id for w in warm.ways] == ["files-c"]
    assert parses == ["files-c"]
    assert len(asked) == 2


@pytest.mark.parametrize(
    "damage",
    [
        lambda sieves: [sieves[0], "not a list", *sieves[2:]],
        lambda sieves: [sieves[0], sieves[1], {"src": [("a",)]}, *sieves[3:]],
        lambda sieves: [*sieves[:3], [1, 2], *sieves[4:]],
    ],
    ids=["prompt sieves", "a segment's pairs", "loose pairs"],
)
def test_a_table_damaged_inside_costs_only_a_full_load(
    ways_root: Path, tmp_path: Path, damage: Any
) -> None:
    from gitflow_harness.ways.match import Text
    from gitflow_harness.ways.sieve import candidates

    _selecting(ways_root)
    cache = tmp_path / "cache.marshal"
    load_index(ways_root, cache_file=cache)
    data = marshal.loads(cache.read_bytes())
    data["table"][1] = damage(data["table"][1])
    cache.write_bytes(marshal.dumps(data))

    def select(ids: list[str], table: list[Any]) -> set[int] | None:
        return candidates(
            table, Text("deploy"), ["src/a/x.py"], session_start=True, postcheck=False
        )

    index = load_index(ways_root, cache_file=cache, select=select)
    assert [w.id for w in index.ways] == ["files-a", "prompt", "start"]
    load_index(ways_root, cache_file=tmp_path / "sound.marshal")
    sound = marshal.loads((tmp_path / "sound.marshal").read_bytes())["table"]
    assert marshal.loads(cache.read_bytes())["table"] == sound  # written again


def test_a_table_of_other_files_is_not_used(ways_root: Path, tmp_path: Path) -> None:
    _selecting(ways_root)
    cache = tmp_path / "cache.marshal"
    load_index(ways_root, cache_file=cache)
    data = marshal.loads(cache.read_bytes())
    data["table"][0] = data["table"][0][::-1]  # not these files, in this order
    cache.write_bytes(marshal.dumps(data))
    index = load_index(ways_root, cache_file=cache, select=lambda ids, table: set())
    assert index.ways == ()
    assert len(index.problems) == 1
    fixed = marshal.loads(cache.read_bytes())["table"][0]
    assert fixed == ["broken", "files-a", "files-b", "prompt", "start"]  # written again
