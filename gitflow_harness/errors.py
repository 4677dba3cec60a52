"""The one expected-error type, and the exit codes every command shares."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1  # the work ran and failed, or was refused
EXIT_USAGE = 2  # usage or configuration error


class GfhError(Exception):
    """A known failure: one line for the user, a fixed exit code, no traceback."""

    exit_code = EXIT_FAILED

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code

    def __str__(self) -> str:
        return self.message

    def details(self) -> str | None:
        """What the user may need beyond the one line (a program's whole output), or None."""
        return None


class UsageError(GfhError):
    """The command was called wrongly or in a place it cannot work."""

    exit_code = EXIT_USAGE


class ConfigError(UsageError):
    """The configuration file is malformed or names an unknown key."""


class RepoStateError(GfhError):
    """The repository is in a state the command refuses to work in."""
