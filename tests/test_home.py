"""The state root (the override, the XDG rule, and platformdirs for the rest) and the names of
its files."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitflow_harness import home


def test_state_home_honours_the_override(hermetic: Path) -> None:
    assert Path(home.state_home()) == hermetic / "gfh-state"


def test_state_home_defaults_to_the_platform_dir(
    hermetic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GFH_STATE_HOME")
    assert Path(home.state_home()) == hermetic / ".local" / "state" / "gitflow-harness"


@pytest.mark.parametrize(
    ("xdg", "user_home"),
    [
        (None, "/home/dev"),
        ("", "/home/dev/"),
        ("/srv/state", "/home/dev"),
        ("/srv/state/", None),
        ("relative/state", "/home/dev"),
        ("  ", "/home/dev"),
        (None, "relative-home"),
        (None, "/"),
    ],
)
def test_state_home_is_what_platformdirs_answers(
    hermetic: Path, monkeypatch: pytest.MonkeyPatch, xdg: str | None, user_home: str | None
) -> None:
    """The XDG rule is applied without importing platformdirs where it is unambiguous; every
    answer is platformdirs' own (DESIGN pins `platformdirs.user_state_dir`)."""
    import platformdirs

    monkeypatch.delenv("GFH_STATE_HOME")
    for name, value in (("XDG_STATE_HOME", xdg), ("HOME", user_home)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    expected = os.path.normpath(platformdirs.user_state_dir(home.APP))
    assert home.state_home() == expected


def test_state_home_of_a_linux_user_imports_no_platformdirs(
    hermetic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GFH_STATE_HOME")
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.setattr(home.sys, "platform", "linux")
    monkeypatch.setitem(sys.modules, "platformdirs", None)  # an import of it raises
    assert home.state_home() == str(hermetic / ".local" / "state" / "gitflow-harness")
    monkeypatch.setenv("XDG_STATE_HOME", "relative")
    with pytest.raises(ImportError):
        home.state_home()


@pytest.mark.parametrize("seed", ["0", "1", "random"])
def test_a_name_hash_is_the_same_in_every_process(seed: str) -> None:
    """If processes hash strings with different seeds, then a name is still the same in each:
    16 hex digits, told apart by every byte."""
    code = (
        "from gitflow_harness.home import name_hash; "
        "print(name_hash(b'claude:abc'), name_hash(b'claude:abd'), name_hash(b''))"
    )
    env = {**os.environ, "PYTHONHASHSEED": seed}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    here = [home.name_hash(b"claude:abc"), home.name_hash(b"claude:abd"), home.name_hash(b"")]
    assert run.stdout.split() == here
    assert len(set(here)) == 3
    assert all(len(name) == 16 and int(name, 16) >= 0 for name in here)


def test_a_name_hash_without_64_bit_hashes_is_sha256s(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(home, "_WIDE", False)
    assert home.name_hash(b"claude:abc") == hashlib.sha256(b"claude:abc").hexdigest()[:16]
