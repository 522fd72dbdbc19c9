"""systemd's service notifications (``sd_notify``) with the standard library: ready, alive, stopping.

Under the kiosk's unit (``Type=notify``, ``WatchdogSec=``) systemd hands the app a unix
datagram socket in ``NOTIFY_SOCKET`` and the watchdog's period in ``WATCHDOG_USEC``. The app
says ``READY=1`` once its first frame is up, then ``WATCHDOG=1`` from its main loop several
times a period; if the loop freezes, the messages stop and systemd restarts the app. That is
the whole protocol: one datagram of ``KEY=VALUE`` lines, sent to a path, or to an abstract
socket when the name starts with ``@`` (no libsystemd needed).

Sending never blocks (``MSG_DONTWAIT``) and never raises: a notification lost because
systemd is busy is harmless, and a notifier must not be the thing that stops the loop it
reports on. Outside systemd (no ``NOTIFY_SOCKET``) every call does nothing.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger(__name__)

FEEDS_PER_PERIOD = 4
"""How many times a watchdog period the loop says it is alive: a slow frame or two never trips it."""


class Notifier:
    """Talks to the service manager that started this process, if one did. Any thread.

    :param address: ``NOTIFY_SOCKET``'s value (a path, or ``@name`` for an abstract socket),
        or None outside systemd.
    :param watchdog_usec: ``WATCHDOG_USEC``: the watchdog's period in microseconds, or None
        when the unit has no watchdog.
    """

    def __init__(self, address: str | None, watchdog_usec: int | None = None) -> None:
        self.address = address or None
        self.watchdog_s = watchdog_usec / 1e6 if watchdog_usec else None
        self._socket: socket.socket | None = None
        self._warned = False

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Notifier:
        """The notifier systemd's variables describe (``NOTIFY_SOCKET``, ``WATCHDOG_USEC``,
        ``WATCHDOG_PID``). The watchdog is ours when ``WATCHDOG_PID`` is unset, names this
        process, or names its parent: under the ``cage`` compositor the app is cage's child,
        and the unit then allows notifications from the whole service (``NotifyAccess=all``).
        """
        env = os.environ if environ is None else environ
        usec: int | None
        try:
            usec = int(env.get("WATCHDOG_USEC", "")) or None
        except ValueError:
            usec = None
        pid = env.get("WATCHDOG_PID", "")
        if pid and pid not in (str(os.getpid()), str(os.getppid())):
            usec = None
        return cls(env.get("NOTIFY_SOCKET"), usec)

    @property
    def is_enabled(self) -> bool:
        """Is there a service manager to tell anything to."""
        return self.address is not None

    @property
    def feed_interval_s(self) -> float | None:
        """How often (s) the loop should call :meth:`feed`, or None without a watchdog."""
        if self.address is None or self.watchdog_s is None:
            return None
        return self.watchdog_s / FEEDS_PER_PERIOD

    def notify(self, *fields: str) -> bool:
        """Send one notification of *fields* (``"READY=1"``, ``"STATUS=..."``). True if it went."""
        if self.address is None:
            return False
        target = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            if self._socket is None:
                self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._socket.sendto("\n".join(fields).encode("utf-8"), socket.MSG_DONTWAIT, target)
        except OSError as exc:
            if not self._warned:  # once: a flood of these would drown the log it is meant for
                self._warned = True
                log.warning("cannot notify the service manager at %r: %s", self.address, exc)
            return False
        return True

    def ready(self, status: str = "running") -> bool:
        """The app is up: systemd's start job ends, and its watchdog starts counting."""
        return self.notify("READY=1", f"STATUS={status}")

    def feed(self) -> bool:
        """The main loop is alive. Call it from the loop itself, never from another thread."""
        return self.notify("WATCHDOG=1")

    def stopping(self) -> bool:
        return self.notify("STOPPING=1")

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None
