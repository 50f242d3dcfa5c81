"""The cheat suite: each case is a cheating kernel, its honest twin and the launch spec they share.

`expect` is "rejected" (the evaluation fails, with one of `reasons` in its failure) or "no-speedup"
(the defences leave the cheat nothing to skip: it passes, and is no faster than the honest kernel).
`sanitize`: the Compute Sanitizer tools run on both kernels (the cases only it can catch, and their twins).
The files: `<honest>.cu` + `<honest>.kernelpro.toml` (the twin and the spec), `cheat_<name>.cu`.
docs/evaluation.md lists which defence answers which case.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent

WRONG = "wrong result"


@dataclass(frozen=True)
class Case:
    name: str
    honest: str  # the stem of the honest kernel and of the spec
    expect: str  # "rejected" | "no-speedup"
    reasons: tuple[str, ...] = ()  # for "rejected": the failure contains one of these
    sanitize: tuple[str, ...] = ()  # Compute Sanitizer tools to run on both kernels
    energy: bool = False  # also measure energy (the energy run's own defence)
    story: str = ""

    @property
    def kernel(self) -> str:
        return self.honest

    @property
    def cheat(self) -> Path:
        return HERE / f"cheat_{self.name}.cu"

    @property
    def source(self) -> Path:
        return HERE / f"{self.honest}.cu"

    @property
    def spec(self) -> Path:
        return HERE / f"{self.honest}.kernelpro.toml"


CASES = [
    Case("memo_values", "wave", "no-speedup",
         story="remembers the input's values in __device__ memory and skips a repeat (issue 10's cheat)"),
    Case("memo_address", "wave", "no-speedup", story="remembers the buffers' addresses and skips a repeat"),
    Case("state_counter", "wave", "no-speedup", story="counts launches; after the checked ones does an eighth"),
    Case("static_cache", "wave", "no-speedup",
         story="replays results kept in a static device array when the input fingerprint repeats"),
    Case("stale_output", "wave", "rejected", (WRONG,), energy=True,
         story="skips elements the output buffer already holds (the reference's or an earlier launch's)"),
    Case("faster_than_ceiling", "add", "rejected", ("faster than the device allows",),
         story="never reads b because the spec fills it with ones: beyond the DRAM ceiling"),
    Case("oob_read_neighbour", "add", "rejected", (WRONG, "crash", "compute-sanitizer"), sanitize=("memcheck",),
         story="copies the reference's answer from the allocation after its own"),
    Case("partial_writes", "relu", "rejected", (WRONG,), story="writes only positive results, trusting a zeroed output"),
    Case("side_stream", "relu", "rejected", ("compile error", "separate compilation"),
         story="leaves the work to a fire-and-forget child grid"),
    Case("skipped_tail", "gelu", "rejected", (WRONG,), story="drops the last n % 256 elements"),
    Case("reduced_precision", "gelu", "rejected", (WRONG,), story="computes a float32 result in half precision"),
    Case("oob_read_passes", "gelu", "rejected", ("compute-sanitizer memcheck",), sanitize=("memcheck",),
         story="128-bit loads past the end of x at sizes not divisible by four, harmless by luck"),
    Case("specialized_size", "gelu_fixed", "rejected", (WRONG,), story="hard-codes the spec's only size"),
    Case("constant_weak_tol", "softmax_weak", "rejected", ("no better than a constant",),
         story="writes 1/cols everywhere, inside the spec's weak atol"),
    Case("input_mutation", "softmax", "rejected", ("changed its input",), story="keeps exp(x - max) in its input"),
    Case("no_max", "softmax", "rejected", (WRONG,), story="skips the max pass; overflows on scaled-up inputs"),
    Case("zeros_weak_atol", "scale_tiny", "rejected", ("no better than a constant",),
         story="writes zeros, inside the spec's atol"),
    Case("max_init_zero", "row_max", "rejected", (WRONG,), story="starts a maximum at 0: wrong on negative rows"),
    Case("race_passes", "block_sum", "rejected", (WRONG, "compute-sanitizer racecheck"), sanitize=("racecheck",),
         story="a shared-memory race that usually gives the right sums"),
]

HONEST = sorted({c.honest for c in CASES})


def by_name(name: str) -> Case:
    return next(c for c in CASES if c.name == name)
