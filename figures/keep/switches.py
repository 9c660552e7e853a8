"""The MHA_* environment variables, each read through these: a value one does not take is refused in
one line (EnvError) that names the variable and the values it takes, never taken for something else
nor met as a traceback. And the processors this process may run on (cores).
"""

from __future__ import annotations

import os
from pathlib import Path

OFF = ("0", "off", "no", "false")  # what turns an MHA_* switch off
ON = ("1", "on", "yes", "true")  # what turns one on


class EnvError(ValueError):
    """An MHA_* variable set to a value it does not take; the message names it and what it takes."""


def env_text(name: str) -> str:
    """The variable's value without surrounding spaces; "" when unset."""
    return os.environ.get(name, "").strip()


def switched_off(name: str) -> bool:
    """Whether the environment variable `name` turns its feature off."""
    return env_text(name).lower() in OFF


def env_switch(name: str, default: bool) -> bool:
    """A switch: 1 (or on, yes, true) is on, 0 (or off, no, false) off; unset or empty, `default`."""
    value = env_text(name)
    if not value:
        return default
    if value.lower() in ON + OFF:
        return value.lower() in ON
    raise EnvError(f"{name}={value!r} is not a switch: set it to 1 (or on, yes, true), to 0 (or off, no, false), "
                   f"or leave it unset ({'on' if default else 'off'})")


def env_seconds(name: str, default: float, what: str) -> float | None:
    """A number of seconds above 0 (`what` they are, for the message); 0 (or off, no, false) is None,
    no limit; unset or empty, `default`."""
    value = env_text(name)
    if not value:
        return default
    if switched_off(name):
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds < float("inf"):
        raise EnvError(f"{name}={value!r} is not a number of seconds: give the seconds {what} (default {default:g}), "
                       f"or 0 for no limit")
    return seconds


def env_folder(name: str, default: Path) -> Path | None:
    """A folder (made when first written to); 0 (or off, no, false) is None, none; unset or empty,
    `default`. A path to something that is not a folder (a file, /dev/null) is refused."""
    value = env_text(name)
    if not value:
        return default
    if switched_off(name):
        return None
    folder = Path(value)
    if folder.exists() and not folder.is_dir():
        raise EnvError(f"{name}={value!r} is not a folder: name a folder (made if missing), or set it to 0 "
                       f"(or off, no, false) for none")
    return folder


def cores() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
