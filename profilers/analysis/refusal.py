"""Why a recogniser did not read a kernel as its shape (copies, stencils, block trees, atomics): the kernel and
a reason a user can act on, which a plan that does not apply passes on as its `not_applied` line."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Refusal:
    kernel: str
    reason: str
    not_this_shape: bool = False  # the kernel is not this shape at all: nothing worth telling the user
