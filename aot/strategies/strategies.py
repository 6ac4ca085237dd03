"""How a per-draw function is mapped over arrays shaped ``(chains, draws, *shape)``.

Each strategy turns ``f(*values, *data) -> tuple`` into ``g(*values, *data) -> tuple`` over
whole sample arrays; data arguments are broadcast, never mapped. ``streamed(B)`` is the
exception: ``g(start, *values, *data)`` computes the one batch of B flattened draws that
begins at ``start``, and the runtime (``runtime/streams/streaming.py``) calls it once per batch;
over D devices (``devices=``) each computes B/D of it from its own block of the samples.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from numbers import Integral
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
from jax import lax

from ...cache.entry import SIZED_STRATEGIES, strategy_label

if TYPE_CHECKING:
    from .sharding import MeshPlan

PerDraw = Callable[..., tuple[Any, ...]]
Batched = Callable[..., tuple[Any, ...]]


@dataclass(frozen=True)
class Strategy:
    """A named vectorization of a per-draw function.

    ``chain_map`` / ``draw_map`` say how the chain and draw axes are walked: ``vmap`` (all at
    once), ``scan`` (one after another) or ``batches`` (sequential batches of flattened draws;
    for ``streamed`` the loop over batches runs on the host, one call per batch).
    """

    name: str
    chain_map: str
    draw_map: str
    donate: bool
    batch_size: int | None = None
    mesh: MeshPlan | None = None
    """``sharded``, and ``streamed`` given ``devices=``: its devices and split axis (:meth:`on_mesh`)."""

    @property
    def label(self) -> str:
        """``streamed(B) over D devices`` names the mesh: ``auto`` weighs it beside ``streamed(B)``."""
        label = strategy_label(self.name, self.batch_size)
        return f"{label} over {self.mesh.size} devices" if self.streams and self.mesh is not None else label

    @property
    def streams(self) -> bool:
        """One call computes one batch; the caller loops (``runtime/streams/streaming.py``)."""
        return self.name == "streamed"

    @property
    def leading_arguments(self) -> tuple[tuple[str, tuple[int, ...], str], ...]:
        """Arguments before the samples: a streamed batch's first flattened draw."""
        return (("start", (), "int32"),) if self.streams else ()

    def spans(self, devices: Any) -> bool:
        """Whether ``devices=`` puts this strategy on a mesh: ``sharded`` always (None: its
        default), ``streamed`` unless it is None or 1 (then it runs on one device, as without)."""
        if self.name == "streamed":
            return devices is not None and not (isinstance(devices, Integral) and devices == 1)
        return self.name == "sharded"

    def on_mesh(self, mesh: MeshPlan) -> Strategy:
        """This strategy bound to ``mesh``. A streamed batch is split over the devices, so B must
        be a multiple of their count: refused otherwise (not padded: the key names B as asked)."""
        if self.streams and self.batch_size is not None and self.batch_size % mesh.size:
            raise ValueError(
                f"streamed({self.batch_size}) over {mesh.size} devices (the most of those asked for that split "
                f"the chains or the draws evenly): batch_size must be a multiple of {mesh.size}, got {self.batch_size}"
            )
        return replace(self, mesh=mesh)

    def steps(self, chains: int, draws: int) -> int:
        """Sequential steps over ``chains`` x ``draws`` draws (1 for vmap)."""
        if self.mesh is not None:  # sharded, or streamed over devices: B per device, or B/D each
            assert self.batch_size is not None
            per_device = -(-chains * draws // self.mesh.size)
            per_call = self.batch_size // self.mesh.size if self.streams else self.batch_size
            return -(-per_device // per_call)
        if self.name in SIZED_STRATEGIES:
            assert self.batch_size is not None
            return -(-chains * draws // self.batch_size)
        over_chains = chains if self.chain_map.startswith("scan") else 1
        return over_chains * (draws if self.draw_map.startswith("scan") else 1)

    def apply(self, f: PerDraw, n_values: int) -> Batched:
        """The whole-sample function for ``f`` with ``n_values`` mapped arguments."""
        if self.name == "sharded":
            if self.mesh is None:
                raise ValueError("a sharded strategy is bound to its devices before compiling (make_request)")
            return _sharded(f, n_values, self.batch_size, self.mesh)
        if self.streams and self.mesh is not None:
            return _streamed_sharded(f, n_values, self.batch_size, self.mesh)
        return _BUILDERS[self.name](f, n_values, self.batch_size)


def _split(args: tuple[Any, ...], n_values: int) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    return args[:n_values], args[n_values:]


def _over_draws_vmap(f: PerDraw, data: tuple[Any, ...]) -> Callable[..., tuple[Any, ...]]:
    return jax.vmap(lambda *v: tuple(f(*v, *data)))


def _over_draws_scan(f: PerDraw, data: tuple[Any, ...]) -> Callable[..., tuple[Any, ...]]:
    return lambda *v: lax.map(lambda xs: tuple(f(*xs, *data)), v)


def _vmap(f: PerDraw, n_values: int, _: int | None) -> Batched:
    def run(*args: Any) -> tuple[Any, ...]:
        values, data = _split(args, n_values)
        return jax.vmap(_over_draws_vmap(f, data))(*values)

    return run


def _scan(f: PerDraw, n_values: int, _: int | None) -> Batched:
    def run(*args: Any) -> tuple[Any, ...]:
        values, data = _split(args, n_values)
        over_chains = _over_draws_vmap(f, data)  # vmap over the chain axis of one draw
        swapped = tuple(jnp.swapaxes(v, 0, 1) for v in values)
        _, outs = lax.scan(lambda c, xs: (c, over_chains(*xs)), (), swapped)
        return tuple(jnp.swapaxes(o, 0, 1) for o in outs)

    return run


def _scan_vmap(f: PerDraw, n_values: int, _: int | None) -> Batched:
    def run(*args: Any) -> tuple[Any, ...]:
        values, data = _split(args, n_values)
        over_draws = _over_draws_vmap(f, data)
        return lax.map(lambda xs: over_draws(*xs), values)

    return run


def _vmap_scan(f: PerDraw, n_values: int, _: int | None) -> Batched:
    def run(*args: Any) -> tuple[Any, ...]:
        values, data = _split(args, n_values)
        return jax.vmap(_over_draws_scan(f, data))(*values)

    return run


def _nested_scan(f: PerDraw, n_values: int, _: int | None) -> Batched:
    def run(*args: Any) -> tuple[Any, ...]:
        values, data = _split(args, n_values)
        over_draws = _over_draws_scan(f, data)
        return lax.map(lambda xs: over_draws(*xs), values)

    return run


def _batched(f: PerDraw, n_values: int, batch_size: int | None) -> Batched:
    """Sequential batches of B flattened draws, vmap inside, written into one buffer.

    The last batch is clamped to end at the final draw (it recomputes a few draws instead
    of producing a short remainder), so no output is ever concatenated or copied.
    """
    assert batch_size is not None and batch_size >= 1

    def run(*args: Any) -> tuple[Any, ...]:
        values, data = _split(args, n_values)
        chains, draws = values[0].shape[:2]
        n = chains * draws
        flat = tuple(v.reshape((n, *v.shape[2:])) for v in values)
        per_draw = lambda *xs: tuple(f(*xs, *data))
        one = jax.eval_shape(per_draw, *(jax.ShapeDtypeStruct(x.shape[1:], x.dtype) for x in flat))
        b = max(1, min(batch_size, n))
        buffers = tuple(jnp.zeros((n, *o.shape), o.dtype) for o in one)
        if n == 0:
            outs = buffers
        else:
            mapped = jax.vmap(per_draw)

            def body(i: Any, bufs: tuple[Any, ...]) -> tuple[Any, ...]:
                start = jnp.minimum(i * b, n - b)
                xs = tuple(lax.dynamic_slice_in_dim(x, start, b) for x in flat)
                ys = mapped(*xs)
                return tuple(lax.dynamic_update_slice_in_dim(buf, y, start, 0) for buf, y in zip(bufs, ys, strict=True))

            outs = lax.fori_loop(0, math.ceil(n / b), body, buffers)
        return tuple(o.reshape((chains, draws, *o.shape[1:])) for o in outs)

    return run


def _streamed(f: PerDraw, n_values: int, batch_size: int | None) -> Batched:
    """One batch of B flattened draws starting at ``start`` (an argument), vmap inside.

    ``start`` is clamped to ``n - B`` as ``batched`` clamps its last batch, so every call
    returns exactly B draws; the inputs are only read (never donated), so one set of device
    inputs serves every batch.
    """
    assert batch_size is not None and batch_size >= 1

    def run(start: Any, *args: Any) -> tuple[Any, ...]:
        values, data = _split(args, n_values)
        n = values[0].shape[0] * values[0].shape[1]
        flat = tuple(v.reshape((n, *v.shape[2:])) for v in values)
        per_draw = lambda *xs: tuple(f(*xs, *data))
        b = min(batch_size, n)
        if b == 0:
            one = jax.eval_shape(per_draw, *(jax.ShapeDtypeStruct(x.shape[1:], x.dtype) for x in flat))
            return tuple(jnp.zeros((0, *o.shape), o.dtype) for o in one)
        first = jnp.clip(start, 0, n - b)
        xs = tuple(lax.dynamic_slice_in_dim(x, first, b) for x in flat)
        return jax.vmap(per_draw)(*xs)

    return run


def _sharded(f: PerDraw, n_values: int, batch_size: int | None, mesh: MeshPlan) -> Batched:
    """``batched(B)`` on each device's block; every output comes back split like the samples."""
    return mesh.on_blocks(_batched(f, n_values, batch_size), 0, n_values, mesh.spec)


def _streamed_sharded(f: PerDraw, n_values: int, batch_size: int | None, mesh: MeshPlan) -> Batched:
    """``streamed(B)`` over ``mesh``: each device computes B/D draws of its own block, from
    ``start`` *within that block*; the ``(B, ...)`` batch comes back split along its rows
    (rows ``d*B/D ..`` are device d's; ``runtime/streams/streaming.py`` puts each where it belongs)."""
    assert batch_size is not None and batch_size % mesh.size == 0
    return mesh.on_blocks(_streamed(f, n_values, batch_size // mesh.size), 1, n_values, mesh.row_spec)


_BUILDERS: dict[str, Callable[[PerDraw, int, int | None], Batched]] = {
    "vmap": _vmap,
    "scan": _scan,
    "scan_vmap": _scan_vmap,
    "vmap_scan": _vmap_scan,
    "nested_scan": _nested_scan,
    "batched": _batched,
    "streamed": _streamed,
    "sharded": _batched,  # per device; Strategy.apply wraps it in the mesh (_sharded)
}

_DESCRIPTIONS = {  # chain_map, draw_map, donate
    "vmap": ("vmap", "vmap", True),
    "scan": ("vmap", "scan (swapaxes)", False),
    "scan_vmap": ("scan", "vmap", False),
    "vmap_scan": ("vmap", "scan", False),
    "nested_scan": ("scan", "scan", False),
    "batched": ("batches", "batches", False),
    "streamed": ("batches", "batches", False),
    "sharded": ("devices x batches", "devices x batches", False),
}

STRATEGY_NAMES: tuple[str, ...] = tuple(_BUILDERS)

AUTO = "auto"
"""Not a vectorization: the request to choose one (see ``aot.choice.auto``)."""


def _parse_sized(name: str) -> tuple[str, int | None]:
    """``("batched", 10)`` from ``"batched(10)"``; other names unchanged, without a size."""
    for sized in SIZED_STRATEGIES:
        if name.startswith(f"{sized}(") and name.endswith(")"):
            inner = name[len(sized) + 1 : -1]
            if not inner.isdigit():
                raise ValueError(f"strategy {name!r}: the batch size must be a positive integer")
            return sized, int(inner)
    return name, None


def get_strategy(name: str, batch_size: int | None = None) -> Strategy | None:
    """The strategy called ``name``; ``batched`` and ``streamed`` need ``batch_size``
    (also written ``"batched(B)"``, ``"streamed(B)"``).

    ``"auto"`` gives None: no strategy yet, one is to be chosen (see ``aot.choice.auto``)."""
    if not isinstance(name, str):
        raise TypeError(f"strategy: expected a name such as 'auto', 'vmap' or 'batched(16)', got {name!r}")
    name, size = _parse_sized(name)
    batch_size = size if size is not None else batch_size
    if name == AUTO:
        if batch_size is not None:
            raise ValueError("batch_size applies to 'batched', 'streamed' and 'sharded'; 'auto' chooses its own")
        return None
    if name not in _BUILDERS:
        raise ValueError(
            f"unknown strategy {name!r}; choose auto, {', '.join(STRATEGY_NAMES)}"
            f" ({', '.join(SIZED_STRATEGIES)} written with a batch size: name(B))"
        )
    chain_map, draw_map, donate = _DESCRIPTIONS[name]
    if name in SIZED_STRATEGIES:
        if batch_size is None or int(batch_size) < 1:
            raise ValueError(f"strategy {name!r} needs a positive batch_size, got {batch_size!r}")
        return Strategy(name, chain_map, draw_map, donate, int(batch_size))
    if batch_size is not None:
        raise ValueError(
            f"batch_size={batch_size} only applies to the 'batched' strategy, 'streamed' and 'sharded', not {name!r}"
        )
    return Strategy(name, chain_map, draw_map, donate)
