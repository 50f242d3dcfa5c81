"""Live terminal progress for `kernelpro optimize` (rich)."""
from __future__ import annotations

from rich.console import Console
from rich.live import Live
from rich.text import Text


class Progress:
    """An on_event callback that keeps one status line up to date."""

    def __init__(self, budget: int | None):
        self.console = Console(highlight=False, stderr=False)
        self.budget = budget
        self.evaluations = self.failures = 0
        self.best = 1.0
        self.last = ""
        self.live: Live | None = None  # started by the first event, so an early error prints alone

    def _line(self) -> Text:
        b = f"/{self.budget}" if self.budget else ""
        return Text(f"evaluations {self.evaluations}{b} · failures {self.failures} · best {self.best:.2f}x · {self.last}"[:160])

    def __call__(self, ev: dict) -> None:
        if self.live is None:
            self.live = Live(self._line(), console=self.console, refresh_per_second=4, transient=False)
            self.live.start()
        t = ev.get("type")
        if t == "evaluated" and ev.get("parent") is not None:
            self.evaluations += 1
            if not ev.get("ok"):
                self.failures += 1
                self.last = f"failed: {ev.get('description', '')}: {(ev.get('failure') or '')[:60]}"
            else:
                self.last = f"{ev.get('time_speedup') or 0:.2f}x {ev.get('description', '')}"
        elif t == "new_best":
            self.best = max(self.best, ev.get("time_speedup") or ev.get("speedup") or 1.0)
        elif t == "branch":
            self.console.print(f"[green]branch {ev['branch']}[/green]: {ev.get('title', '')}")
        self.live.update(self._line())

    def finish(self, out) -> None:
        if self.live is not None:
            self.live.stop()
        if out.best_branch:
            self.console.print(f"best: [bold]{out.best_branch}[/bold] ({out.speedup:.2f}x); "
                               f"{out.evaluations} evaluations, {out.failures} failures; "
                               f"review with `git diff HEAD {out.best_branch}` or `kernelpro candidates list`")
        else:
            self.console.print(f"no candidate beat the kernel by more than 2% in {out.evaluations} evaluations "
                               f"({out.failures} failures)")
