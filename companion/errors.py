"""The core's errors: one root, each concrete error also a builtin a caller would catch."""

from __future__ import annotations


class CompanionError(Exception):
    """Root of every error the core raises on purpose; the CLI turns it into one line."""


class InvalidInput(CompanionError, ValueError):
    """Bad input from a user or a file; the message names the field and quotes the value."""

    def __init__(self, field: str, value: object, why: str) -> None:
        super().__init__(f"{field}: {why} (got {value!r})")
        self.field = field
        self.value = value
        self.why = why


class ConfigError(CompanionError, ValueError):
    """A config file that cannot be used: names the file, the line where known, and the key."""

    def __init__(self, path: str, key: str | None, why: str, line: int | None = None) -> None:
        where = path if line is None else f"{path}, line {line}"
        super().__init__(f"config {where}: {key}: {why}" if key else f"config {where}: {why}")
        self.path, self.key, self.line, self.why = path, key, line, why


class TimerStateError(CompanionError, RuntimeError):
    """A command that makes no sense in the timer's current state."""


class UnknownTimer(CompanionError, KeyError):
    """A command names a timer that does not exist."""

    def __str__(self) -> str:  # KeyError would quote the whole message again
        return str(self.args[0])
