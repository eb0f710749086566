"""The server's heavy lane: a line, first come first served, for work that takes seconds of CPU or tens of MB
(integrated gradients, occlusion with every letter, the causal cone, the lab's whole-sample tables, live
training), with SLOTS of it running at once on a replica, whoever asks and from however many tabs.

Run in the places where pages run (server.gate), four tabs pressing integrated gradients at every step took a
server from 543 to 1,840 MB and made another learner wait up to 29 s for a word (issue 63). In one line, the
memory of one job is the most the lane adds, and the work of the lane is one core's at most: the other core is
left to everyone's pages. A browser (server.identity: all its tabs) holds at most one ticket, so ten tabs do
not queue ten jobs ahead of another learner's one.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from typing import Callable

SLOTS = 1   # jobs running at once: this machine has two cores, and pages need the other


class AlreadyInLine(Exception):
    """This browser has a job in the lane already (in another tab, or still ending in this one)."""


@dataclass(eq=False)
class Ticket:
    who: str
    what: str
    number: int = field(default=0)


class HeavyLane:
    def __init__(self, slots: int = SLOTS) -> None:
        self.slots = slots
        self._cond = threading.Condition()
        self._line: list[Ticket] = []        # running first (the first `slots`), then waiting, in order
        self._numbers = itertools.count()

    def enter(self, who: str, what: str) -> Ticket:
        with self._cond:
            mine = next((t for t in self._line if t.who == who), None)
            if mine is not None:
                raise AlreadyInLine(mine.what)
            ticket = Ticket(who, what, next(self._numbers))
            self._line.append(ticket)
            return ticket

    def ahead(self, ticket: Ticket) -> int:
        """Jobs that must end before this one may start (0: it may run)."""
        with self._cond:
            return max(0, self._line.index(ticket) - self.slots + 1)

    def wait(self, ticket: Ticket, waiting: Callable[[int], None], every: float = 0.5) -> None:
        """Until the ticket may run, calling waiting(jobs ahead) every `every` seconds (it may raise to give up,
        and the ticket must then be left)."""
        while True:
            with self._cond:
                ahead = max(0, self._line.index(ticket) - self.slots + 1)
                if not ahead:
                    return
                self._cond.wait(every)
                ahead = max(0, self._line.index(ticket) - self.slots + 1)
                if not ahead:
                    return
            waiting(ahead)

    def leave(self, ticket: Ticket) -> None:
        with self._cond:
            if ticket in self._line:
                self._line.remove(ticket)
            self._cond.notify_all()

    def running(self) -> list[str]:
        """What each running job is (for the health page and tests)."""
        with self._cond:
            return [t.what for t in self._line[:self.slots]]

    def __len__(self) -> int:
        with self._cond:
            return len(self._line)
