"""`repository.protect_trunk`: a commit on the trunk, or a push that updates the remote trunk.

Work reaches the trunk through `gfh accept`, which fast-forwards it (no commit is made, so no
commit hook runs, and it pushes nothing). Anything else landing on the trunk is refused in an
agent session and warned about for a person (`agents`, the default), refused for everyone
(`all`), only warned about (`warn`), or not looked at (`off`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from gitflow_harness import git
from gitflow_harness.workflow.hook_input import PushedRef
from gitflow_harness.workspace import Workspace

# What marks a command as run by an agent, besides the session the CLI learns (which reads the
# hosts' session variables too): each host's own markers in its agents' shells. Cursor's is its
# agent's alone: a person's terminal in the editor carries other CURSOR_* variables and must not
# count as an agent.
AGENT_MARKERS: Final = ("CLAUDECODE", "CODEX_CI", "CURSOR_AGENT")


def agent_session(env: Mapping[str, str]) -> str | None:
    """Return what marks this as an agent session (the session, or a host's variable), else
    None: a person."""
    from gitflow_harness.store.session_env import session_from_env

    session = session_from_env(env)
    if session:
        return f"session {session}"
    marker = next((name for name in AGENT_MARKERS if env.get(name)), None)
    return f"${marker}" if marker else None


@dataclass(frozen=True, slots=True)
class TrunkCheck:
    """Whether the commit or push may go; `message` is empty when there is nothing to say."""

    allowed: bool
    policy: str
    trunk: str | None
    action: str  # "commit" | "push" | ""
    agent: str | None
    message: str

    @property
    def warning(self) -> bool:
        return self.allowed and bool(self.message)

    def to_dict(self) -> dict[str, Any]:
        return {
            "allowed": self.allowed,
            "policy": self.policy,
            "trunk": self.trunk,
            "action": self.action or None,
            "agent": self.agent,
            "message": self.message,
        }


def check_commit(ws: Workspace, env: Mapping[str, str]) -> TrunkCheck:
    """Judge a commit (or a merge commit) about to be made on HEAD's branch."""
    policy = ws.config.repository.protect_trunk
    agent = agent_session(env)
    if policy == "off":
        return TrunkCheck(True, policy, None, "", agent, "")
    head = git.head(ws.repo)
    trunk = git.detect_trunk(ws.repo, ws.config.repository.trunk)
    # The first commit of a repository is made on the trunk: there is nothing to branch from.
    if trunk is None or head.branch != trunk or head.sha is None:
        return TrunkCheck(True, policy, trunk, "", agent, "")
    return _verdict(policy, trunk, "commit", agent, f"commit on the trunk {trunk}")


def check_push(
    ws: Workspace, refs: Sequence[PushedRef] | None, remote: str | None, env: Mapping[str, str]
) -> TrunkCheck:
    """Judge a push: does any ref it updates (or deletes) name the remote's trunk?"""
    policy = ws.config.repository.protect_trunk
    agent = agent_session(env)
    trunk = git.detect_trunk(ws.repo, ws.config.repository.trunk)
    if policy == "off" or trunk is None or not refs:
        return TrunkCheck(True, policy, trunk, "", agent, "")
    if not any(r.remote_ref in (f"refs/heads/{trunk}", trunk) for r in refs):
        return TrunkCheck(True, policy, trunk, "", agent, "")
    where = f" on {remote}" if remote else ""
    return _verdict(policy, trunk, "push", agent, f"push to the trunk {trunk}{where}")


def _verdict(policy: str, trunk: str, action: str, agent: str | None, doing: str) -> TrunkCheck:
    refused = policy == "all" or (policy == "agents" and agent is not None)
    if action == "commit":
        way_out = (
            f"make a branch with `gfh start NAME`, commit there, and bring it into {trunk} "
            "with `gfh done` and `gfh accept`"
        )
    else:
        way_out = (
            "push your branch and open a pull request, or bring it in with `gfh accept` and "
            f"leave pushing {trunk} to a person"
        )
    setting = f'repository.protect_trunk = "{policy}"'
    if refused:
        why = f"an agent session ({agent}) and {setting}" if policy == "agents" else setting
        message = f"refusing to {doing}: {why}; {way_out}"
    else:
        message = f"warning: a {doing} ({setting}); {way_out}"
    return TrunkCheck(not refused, policy, trunk, action, agent, message)
