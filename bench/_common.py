"""Helpers shared by the bench scripts: fresh-process runs and the machine's description."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def run_child(script: str, *args: str, env: dict[str, str] | None = None, timeout: int = 900) -> dict[str, Any]:
    """Run ``bench/<script>`` in a fresh interpreter; it prints one JSON line last."""
    full_env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "PYTHONWARNINGS": "ignore",
        **(env or {}),
    }
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{script} {' '.join(args)} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def posterior_idata(posterior: dict[str, Any], **kwargs: Any) -> Any:
    """``az.from_dict`` of a posterior over both ArviZ lines: 0.x (PyMC 5) takes each group as a
    keyword, 1.x (PyMC 6) one dict of groups."""
    import arviz as az

    if int(az.__version__.split(".")[0]) >= 1:
        return az.from_dict({"posterior": posterior}, **kwargs)
    return az.from_dict(posterior=posterior, **kwargs)


def machine() -> str:
    """Cores, memory and library versions, for the report."""
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        mem = float("nan")
    libs = ", ".join(f"{p} {version(p)}" for p in ("pymc", "pytensor", "jax", "jaxlib"))
    return f"{os.cpu_count()} cores, {mem:.0f} GiB RAM, Python {platform.python_version()}, {libs}"


def shape_arguments(parser: Any, *, models: Any) -> None:
    """The options every postprocessing bench takes."""
    parser.add_argument("--model", action="append", choices=sorted(models))
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--json", action="store_true")


def show(results: Any, opts: Any, render: Any) -> None:
    """Print ``results`` as JSON (``--json``) or as the machine line plus ``render``'s table."""
    if opts.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"machine: {machine()}\n{opts.chains} chains x {opts.draws} draws, scale {opts.scale}\n")
        print(render(results))


def median(xs: list[float]) -> float:
    s = sorted(xs)
    return s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2


def host_inputs(signature: Any) -> list[Any]:
    """Random draws on the host, one array per ``(name, shape, dtype)`` of ``signature``."""
    import numpy as np

    rng = np.random.default_rng(0)
    return [rng.normal(scale=0.1, size=shape).astype(dtype) for _, shape, dtype in signature]


def pymc_vmap_executable(model: Any, fresh: Any) -> Any:
    """PyMC's own postprocessing (``vmap`` of its jaxified graph), compiled for ``fresh()``'s arrays,
    donating them. ``fresh`` is called after ``pymc.sampling.jax`` is imported: that import turns
    on ``jax_enable_x64`` from floatX, which the arrays' dtypes depend on."""
    import jax
    from pymc.sampling.jax import get_jaxified_graph
    from pymc.util import get_default_varnames

    outputs = list(get_default_varnames(model.unobserved_value_vars, include_transformed=False))
    jax_fn = get_jaxified_graph(inputs=model.value_vars, outputs=outputs)
    return jax.jit(lambda xs: jax.vmap(jax.vmap(jax_fn))(*xs), donate_argnums=0).lower(fresh()).compile()


def measure_calls(
    call: Any, fresh: Any, track_file: str, repeats: int, before: Any = None
) -> tuple[int, int, list[float]]:
    """memray's peak of one ``call(fresh())``, its output bytes, and ``repeats`` timed calls
    (each on new arguments; ``before()`` runs ahead of every call, e.g. to clear a store)."""
    import math
    import time

    import memray
    import numpy as np

    def nbytes(result: Any) -> int:
        arrays = result.values() if isinstance(result, dict) else result
        return int(sum(np.dtype(a.dtype).itemsize * math.prod(a.shape) for a in arrays))

    xs = fresh()
    if before is not None:
        before()
    if os.path.exists(track_file):
        os.remove(track_file)
    with memray.Tracker(track_file):
        result = call(xs)
    peak = memray.FileReader(track_file).metadata.peak_memory
    os.remove(track_file)
    output_bytes = nbytes(result)
    del result, xs
    times = []
    for _ in range(int(repeats)):
        if before is not None:
            before()
        xs = fresh()
        t0 = time.perf_counter()
        call(xs)
        times.append(time.perf_counter() - t0)
        del xs
    return int(peak), output_bytes, times
