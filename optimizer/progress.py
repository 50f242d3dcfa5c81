"""Live terminal progress for `kernelpro optimize` (rich)."""
from __future__ import annotations

from rich.console import Console
from rich.live import Live
from rich.text import Text

from kernelpro.profilers.contracts import Branch, Evaluated, NewBest, parse


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
        e = parse(ev)
        if isinstance(e, Evaluated) and e.parent is not None:
            self.evaluations += 1
            if not e.ok:
                self.failures += 1
                self.last = f"failed ({e.failure_kind}): {e.description}: {(e.failure or '')[:60]}"
            else:
                self.last = f"{e.time_speedup or 0:.2f}x {e.description}"
        elif e.type == "tuned":
            self.evaluations += 1
            self.last = f"tuned {', '.join(f'{k}={v}' for k, v in e.knobs.items())}: {e.speedup or 0:.2f}x"
        elif isinstance(e, NewBest):
            self.best = max(self.best, e.extra.get("time_speedup") or e.speedup or 1.0)
        elif isinstance(e, Branch):
            self.console.print(f"[green]branch {e.branch}[/green]: {e.title}")
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
