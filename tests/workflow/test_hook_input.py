"""What git hands a hook, parsed the same way whoever runs it."""

from __future__ import annotations

from gitflow_harness.workflow.hook_input import (
    ZERO,
    is_pre_push,
    parse_push_lines,
    post_stage,
    pushed_refs,
)

A, B = "a" * 40, "b" * 40


def test_every_pushed_ref_line_is_read_and_a_new_remote_ref_has_no_remote_sha() -> None:
    text = f"refs/heads/x {A} refs/heads/x {ZERO}\nrefs/heads/y {B} refs/heads/main {A}\n\n"
    refs = parse_push_lines(text)
    assert [(r.local_ref, r.remote_ref, r.remote_sha) for r in refs] == [
        ("refs/heads/x", "refs/heads/x", None),
        ("refs/heads/y", "refs/heads/main", A),
    ]
    assert not any(r.deletion for r in refs)


def test_a_deletion_is_a_ref_whose_local_sha_is_zero() -> None:
    [ref] = parse_push_lines(f"(delete) {ZERO} refs/heads/old {A}\n")
    assert ref.deletion


def test_stdin_wins_over_pre_commits_variables_which_are_the_fallback() -> None:
    env = {"PRE_COMMIT_LOCAL_BRANCH": "refs/heads/z", "PRE_COMMIT_TO_REF": B}
    assert [
        r.local_ref for r in pushed_refs(f"refs/heads/x {A} refs/heads/x {ZERO}\n", env) or []
    ] == ["refs/heads/x"]
    [ref] = pushed_refs("", {**env, "PRE_COMMIT_REMOTE_BRANCH": "refs/heads/main"}) or []
    assert (ref.local_ref, ref.local_sha, ref.remote_ref) == ("refs/heads/z", B, "refs/heads/main")
    assert pushed_refs("", {}) is None


def test_the_stage_comes_from_gits_argument_or_pre_commits_variables() -> None:
    assert post_stage(("rebase",), {}) == ("post-rewrite", {"PRE_COMMIT_REWRITE_COMMAND": "rebase"})
    assert post_stage(("0",), {}) == ("post-merge", {"PRE_COMMIT_IS_SQUASH_MERGE": "0"})
    assert post_stage((), {"PRE_COMMIT_REWRITE_COMMAND": "amend"}) == ("post-rewrite", {})
    assert post_stage((), {}) == (None, {})
    assert is_pre_push(("origin", "/srv/r.git"), {})
    assert is_pre_push((), {"PRE_COMMIT_REMOTE_NAME": "origin"})
    assert not is_pre_push((), {})


def test_a_pipe_nobody_writes_to_reads_as_empty_instead_of_blocking() -> None:
    """If gate-push is run by hand from a shell whose stdin is a pipe that stays open (an
    agent's tool), then reading git's input returns nothing after a short wait."""
    import os

    from gitflow_harness.workflow.hook_input import read_stdin

    read_end, write_end = os.pipe()
    try:
        with os.fdopen(read_end, "r") as stream:
            assert read_stdin(stream, wait_s=0.05) == ""
    finally:
        os.close(write_end)


def test_what_git_wrote_and_closed_is_read_whole() -> None:
    import os

    from gitflow_harness.workflow.hook_input import read_stdin

    read_end, write_end = os.pipe()
    os.write(write_end, f"refs/heads/x {A} refs/heads/x {ZERO}\n".encode())
    os.close(write_end)
    with os.fdopen(read_end, "r") as stream:
        assert read_stdin(stream, wait_s=0.05).startswith("refs/heads/x ")
