"""The host CPU's instruction-set features, as XLA's CPU compiler targets them.

XLA compiles CPU executables for the host it runs on: LLVM's host CPU name and the host's
features (``llvm::sys::getHostCPUFeatures``), capped by ``--xla_cpu_max_isa`` (see
``xla/backends/cpu/target_machine_options.cc``). An executable built on a host with AVX-512
can crash a host without it, so a CPU entry's key names the instruction-set extensions the
kernel reports (``/proc/cpuinfo``) and the cap, read once per process. Flags that are not
instruction sets (power management, virtualization, bugs) are left out, so hosts that only
differ in those share entries.
"""

from __future__ import annotations

import functools
import os
import platform
import re

_X86_ISA = re.compile(
    r"^(mmx|fxsr|cmov|cx8|cx16|lm|sse.*|ssse3|pni|avx.*|amx.*|fma.*|f16c|bmi\d|popcnt|abm|lzcnt|movbe|aes|vaes"
    r"|pclmulqdq|vpclmulqdq|sha_ni|gfni|adx|rdrand|rdseed|xsave.*|3dnowprefetch|prfchw|clflushopt|clwb|movdir.*"
    r"|serialize|tbm|xop|lahf_lm)$"
)


def cpuinfo_flags(path: str = "/proc/cpuinfo") -> list[str] | None:
    """The first processor's feature flags (x86 ``flags``, Arm ``Features``), or None."""
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            for line in f:
                name, _, value = line.partition(":")
                if name.strip() in ("flags", "Features"):
                    return value.split()
    except OSError:
        return None
    return None


def _max_isa() -> str:
    match = re.search(r"--xla_cpu_max_isa=(\S+)", os.environ.get("XLA_FLAGS", ""))
    return match.group(1).upper() if match else ""


def isa_features(flags: list[str], machine: str) -> list[str]:
    """The instruction-set extensions among ``flags``, sorted (on Arm every listed feature is one)."""
    keep = [f for f in flags if _X86_ISA.match(f)] if machine in ("x86_64", "AMD64", "i686") else flags
    return sorted(set(keep))


@functools.cache
def cpu_features() -> str:
    """``"<machine>: <sorted instruction-set flags>"`` plus ``max_isa=...`` when XLA is capped."""
    machine = platform.machine() or "unknown"
    flags = cpuinfo_flags()
    features = platform.processor() or "unknown features" if flags is None else " ".join(isa_features(flags, machine))
    cap = _max_isa()
    return f"{machine}: {features}" + (f" max_isa={cap}" if cap else "")


XLA_FLAGS_NOT_IN_KEY = ("--xla_force_host_platform_device_count", "--xla_dump_", "--xla_cpu_max_isa")
"""XLA flags that do not change what an executable computes (host device count: the mesh is keyed
separately; dumps) or are keyed elsewhere (the ISA cap, in ``cpu_features``). Every other flag
(``--xla_cpu_enable_fast_math=true``, ...) is part of the key."""


def xla_flags() -> str:
    """``XLA_FLAGS`` as XLA's compiler sees it, sorted, without ``XLA_FLAGS_NOT_IN_KEY``."""
    flags = os.environ.get("XLA_FLAGS", "").split()
    return " ".join(sorted(f for f in flags if not f.startswith(XLA_FLAGS_NOT_IN_KEY)))
