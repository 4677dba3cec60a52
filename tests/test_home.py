"""The state root: the override, the XDG rule, and platformdirs for the rest."""

from __future__ import annotations

import os
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
