"""Where and how the learner computes: its device, its precision and its CPU threads.

Training settings name them (``device: auto | cpu | cuda | cuda:N``, ``precision: auto | fp32
| bf16``, ``torch_threads: auto | N``); this module turns each into what torch needs, with the
reason for an ``auto`` choice, so that a run can say at its start what it chose and why, and
refuses with a ``ConfigError`` what the machine cannot do (``bf16`` on a CPU without bf16
instructions, ``cuda`` without CUDA).

bf16 is ``torch.autocast``: the matrix products run in bfloat16 while the weights, their
gradients and the optimizer's state stay float32 (``autocast`` below). On a CPU it pays only
with bf16 instructions: AMX (Intel Sapphire Rapids and later) or AVX512-BF16 (Intel Cooper Lake,
AMD Zen 4 and later); elsewhere it emulates them and is slower than fp32, which ``auto`` then
keeps.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

import torch

from cardenv.cli import MAX_THREADS
from cardenv.core.errors import ConfigError

DEVICES = ("auto", "cpu", "cuda", "cuda:N")
PRECISIONS = ("auto", "fp32", "bf16")


def cpu_bf16_flags() -> list[str]:
    """The bf16 instruction sets of this CPU that torch can use: ``amx_bf16``,
    ``avx512_bf16`` (empty without either)."""
    found = []
    probes = (("amx_bf16", "_is_amx_tile_supported"), ("avx512_bf16", "_is_avx512_bf16_supported"))
    flags = _proc_cpu_flags()
    for name, probe in probes:
        check = getattr(torch.cpu, probe, None)  # private probes; /proc/cpuinfo where absent
        try:
            ok = bool(check()) if check is not None else name in flags
        except Exception:  # noqa: BLE001 -- a probe that fails means "not usable"
            ok = False
        if ok:
            found.append(name)
    return found


def _proc_cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def available_cores() -> int:
    """The CPU cores this process may run on (its affinity; ``os.cpu_count()`` where the
    platform has none)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


@dataclass(frozen=True)
class Compute:
    """The resolved settings: ``device`` (a ``torch.device``), ``precision`` ("fp32" or "bf16"),
    ``threads`` (torch CPU threads of the update), and why each was chosen."""

    device: torch.device
    precision: str
    threads: int
    reasons: tuple[str, ...] = ()

    @property
    def dtype(self) -> torch.dtype | None:
        """The autocast dtype (``None``: float32 throughout)."""
        return torch.bfloat16 if self.precision == "bf16" else None

    def autocast(self, device_type: str | None = None):
        """The context the learner's forward passes run in on ``device_type`` (default: its
        device): bf16 autocast, or nothing for fp32."""
        return autocast(self.precision, device_type or self.device.type)

    def describe(self) -> str:
        return (f"learner on {self.device}, {self.precision}, {self.threads} torch thread"
                f"{'s' if self.threads != 1 else ''} ({'; '.join(self.reasons)})")


def autocast(precision: str, device_type: str = "cpu"):
    """``torch.autocast`` to bfloat16 for ``precision == "bf16"``, else a no-op context: float32
    master weights and optimizer state either way."""
    if precision == "bf16":
        return torch.autocast(device_type, dtype=torch.bfloat16)
    return contextlib.nullcontext()


def resolve_device(spec) -> tuple[torch.device, str]:
    """``auto`` (CUDA when ``torch.cuda.is_available()``, else the CPU), ``cpu``, ``cuda`` or
    ``cuda:N``, with the reason; ``ConfigError`` for anything else or a CUDA device that is not
    there."""
    if not isinstance(spec, str):
        raise ConfigError(f"config: device must be one of {', '.join(DEVICES)}, got {spec!r}")
    if spec == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda"), "device auto: CUDA is available"
        return torch.device("cpu"), "device auto: no CUDA device, the CPU"
    if spec == "cpu":
        return torch.device("cpu"), "device cpu: as set"
    if spec == "cuda" or (spec.startswith("cuda:") and spec[5:].isdigit()):
        if not torch.cuda.is_available():
            raise ConfigError(f"config: device {spec!r}: CUDA is not available on this machine "
                              f"(torch {torch.__version__}, built "
                              f"{'with' if torch.version.cuda else 'without'} CUDA); use "
                              f"device: cpu or auto")
        index = int(spec[5:]) if ":" in spec else 0
        count = torch.cuda.device_count()
        if index >= count:
            raise ConfigError(f"config: device {spec!r}: this machine has {count} CUDA "
                              f"device{'s' if count != 1 else ''} (cuda:0..cuda:{count - 1})")
        return torch.device(spec), f"device {spec}: as set"
    raise ConfigError(f"config: device must be one of {', '.join(DEVICES)}, got {spec!r}")


def bf16_support(device: torch.device) -> tuple[bool, str]:
    """Whether ``device`` runs bf16 matrix products natively, and what says so."""
    if device.type == "cuda":
        ok = bool(torch.cuda.is_bf16_supported())
        name = torch.cuda.get_device_name(device)
        return ok, f"{name} {'supports' if ok else 'does not support'} bf16"
    if device.type == "cpu":
        flags = cpu_bf16_flags()
        if flags:
            return True, f"the CPU has {' and '.join(f.upper() for f in flags)}"
        return False, "the CPU has neither AMX nor AVX512-BF16"
    return False, f"bf16 on {device.type} is not supported here"


def resolve_precision(spec, device: torch.device) -> tuple[str, str]:
    """``auto`` (bf16 where ``device`` runs it natively, else fp32), ``fp32`` or ``bf16``,
    with the reason; ``ConfigError`` for ``bf16`` where it cannot run, or anything else."""
    if spec not in PRECISIONS:
        raise ConfigError(f"config: precision must be one of {', '.join(PRECISIONS)}, got "
                          f"{spec!r}")
    if spec == "fp32":
        return "fp32", "precision fp32: as set"
    ok, why = bf16_support(device)
    if spec == "bf16":
        if not ok:
            raise ConfigError(f"config: precision bf16 cannot run on this {device.type}: "
                              f"{why}; use precision: fp32 or auto")
        return "bf16", f"precision bf16: as set ({why})"
    return ("bf16", f"precision auto: bf16, {why}") if ok else \
        ("fp32", f"precision auto: fp32, {why}")


def resolve_threads(spec) -> tuple[int, str]:
    """``auto`` (every core this process may use) or an int >= 1, with the reason."""
    if spec == "auto":
        cores = available_cores()
        return cores, f"torch_threads auto: the {cores} core{'s' if cores != 1 else ''} " \
                      f"this process may use"
    if isinstance(spec, bool) or not isinstance(spec, int) or not 1 <= spec <= MAX_THREADS:
        raise ConfigError(f"config: torch_threads must be auto or an int >= 1 (at most "
                          f"{MAX_THREADS}), got {spec!r}")
    return spec, f"torch_threads {spec}: as set"


def resolve(device="auto", precision="auto", threads="auto") -> Compute:
    """All three settings at once (see ``resolve_device``, ``resolve_precision``,
    ``resolve_threads``)."""
    dev, why_device = resolve_device(device)
    prec, why_precision = resolve_precision(precision, dev)
    count, why_threads = resolve_threads(threads)
    return Compute(dev, prec, count, (why_device, why_precision, why_threads))


def cpu_times() -> tuple[float, float] | None:
    """(idle, total) CPU time of the whole machine so far, in clock ticks (Linux's
    ``/proc/stat``); ``None`` where there is none."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    ticks = [float(x) for x in fields[1:]]
    return ticks[3] + (ticks[4] if len(ticks) > 4 else 0.0), sum(ticks[:8])


class FreeCores:
    """How many cores the update may take, measured while collection runs: ``start()`` before
    collecting, ``count()`` after. Collection keeps one core busy; whatever other cores the
    machine left idle meanwhile are free too; the cores other processes kept busy are not (a
    second thread on a core another process holds made the update slower, not faster: beside
    a busy process ``python train.py`` took 126 s with two update threads against 84 s with
    one; with this choice, 63-77 s against 65 s with one, and 56 s on an idle machine).
    Never more than ``cores`` (the process's own), never less than 1; ``cores`` where the
    machine's times cannot be read."""

    def __init__(self, cores: int, times=cpu_times, machine_cores: int | None = None):
        self.cores, self.times = cores, times
        self.machine_cores = machine_cores or os.cpu_count() or cores
        self.mark = None

    def start(self) -> None:
        self.mark = self.times()

    def count(self) -> int:
        now, mark = self.times(), self.mark
        if now is None or mark is None or now[1] <= mark[1]:
            return self.cores
        idle_share = (now[0] - mark[0]) / (now[1] - mark[1])
        idle = idle_share * self.machine_cores
        return max(1, min(self.cores, 1 + int(idle + 0.25)))  # a core 3/4 idle counts


@contextlib.contextmanager
def threads(count: int):
    """Run the block with ``count`` torch CPU threads, then restore the previous count (the
    update takes every core while collection is idle; collection keeps one)."""
    before = torch.get_num_threads()
    if count != before:
        torch.set_num_threads(count)
    try:
        yield
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)
