"""The ``pymc-aot`` command: thin commands over the library API.

Exit codes: 0 success, 1 user error (one line on stderr), 2 internal error.
Heavy libraries (jax, pymc) are imported inside the commands that need them, so
``--help``, ``stats`` and ``inspect`` answer quickly.
"""

from __future__ import annotations

import functools
import json
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import click

from ..cache import CachePermissionError, CacheStore
from ..cache.paths import human_bytes

DEBUG = {"on": False}


class UserError(click.ClickException):
    """A mistake the user can fix: exit code 1, one line."""

    exit_code = 1


def _store(cache_dir: str | None) -> CacheStore:
    return CacheStore(cache_dir)


def _when(ts: float | None) -> str:
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else "-"


def _label(meta: dict[str, Any]) -> str:
    """``batched(10)``, ``auto:batched(16)`` or the strategy's name, from stored metadata."""
    parts = meta["key"]
    if parts.get("strategy") == "batched":
        return f"batched({parts['batch_size']})"
    if parts.get("strategy") == "auto" and "auto" in meta:
        return f"auto:{meta['auto']['chosen']}"
    return str(parts.get("strategy"))


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[str(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]

    def line(r: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))

    return "\n".join([line(headers), "  ".join("-" * w for w in widths), *(line(r) for r in cells)])


def _flops(x: float | None) -> str:
    if x is None:
        return "-"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.1f}{unit}"
    return f"{x:.0f}"


def _progress(enabled: bool) -> Callable[[str], None]:
    start = time.perf_counter()

    def say(step: str) -> None:
        if enabled:
            click.echo(f"  [{time.perf_counter() - start:6.2f} s] {step}", err=True)

    return say


def _entry_json(meta: dict[str, Any], record: Any | None = None, *, cached: bool | None = None) -> dict[str, Any]:
    parts = meta["key"]
    values = parts.get("values") or [[None, [0, 0], None]]
    out: dict[str, Any] = {
        "key": meta["digest"],
        "short_key": meta["digest"][:12],
        "model_name": meta.get("model_name", ""),
        "kind": parts.get("kind"),
        "strategy": _label(meta),
        "chains": values[0][1][0],
        "draws": values[0][1][1],
        "outputs": meta.get("output_names", []),
        "memory": meta["memory"],
        "cost": meta.get("cost", {}),
        "compile_seconds": meta.get("timings", {}),
        "executable_bytes": meta.get("executable_size"),
        "created": meta.get("created"),
    }
    if record is not None:
        out["hits"] = record.hits
        out["last_used"] = record.last_used
    if cached is not None:
        out["cached"] = cached
    return out


def _options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The shape options shared by precompile and compare."""
    for option in reversed(
        [
            click.option("--chains", default=4, show_default=True, type=click.IntRange(min=1), help="Chains sampled."),
            click.option(
                "--draws", default=1000, show_default=True, type=click.IntRange(min=0), help="Draws kept per chain."
            ),
            click.option(
                "--var-names", default=None, help="Comma-separated posterior variables to keep (default: all)."
            ),
            click.option(
                "--keep-untransformed", is_flag=True, help="Also return transformed values (the *__ variables)."
            ),
            click.option(
                "--backend",
                type=click.Choice(["cpu", "gpu"]),
                default=None,
                help="Device to compile for (default: JAX's).",
            ),
            click.option(
                "--cache-dir",
                type=click.Path(file_okay=False),
                default=None,
                envvar="PYMC_AOT_CACHE_DIR",
                help="Cache root (default: $PYMC_AOT_CACHE_DIR, else ~/.cache/pymc-aot).",
            ),
            click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout."),
        ]
    ):
        func = option(func)
    return func


def _load(ref: str) -> Any:
    from .modelref import ModelRefError, load_model

    try:
        return load_model(ref)
    except ModelRefError as exc:
        raise UserError(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - the user's model code can raise anything
        if DEBUG["on"]:
            traceback.print_exc()
        last = traceback.extract_tb(exc.__traceback__)[-1]
        raise UserError(f"the model code raised {type(exc).__name__}: {exc} ({last.filename}:{last.lineno})") from None


def _ref_name(ref: str) -> str:
    """``examples/regression.py:model`` -> ``regression:model``, the label ``inspect`` shows."""
    target, _, name = ref.rpartition(":") if ":" in ref else (ref, ":", "model")
    stem = target.rsplit("/", 1)[-1].removesuffix(".py")
    return f"{stem}:{name or 'model'}"


def _split_names(text: str | None) -> list[str] | None:
    return [n.strip() for n in text.split(",") if n.strip()] if text else None


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--debug", is_flag=True, help="Show full tracebacks, including your model code's.")
@click.version_option(package_name="pymc-aot")
def cli(debug: bool) -> None:
    """Ahead-of-time compiled, cached postprocessing for PyMC's JAX samplers.

    \b
    Before a long run:   pymc-aot precompile model.py:model --chains 4 --draws 2000
    What is cached:      pymc-aot inspect
    Which strategy fits: pymc-aot compare model.py:model --run
    """
    DEBUG["on"] = debug


@cli.command()
@click.argument("model_ref", metavar="MODEL")
@_options
@click.option(
    "--strategy",
    default="auto",
    show_default=True,
    help="auto, vmap, scan, scan_vmap, vmap_scan, nested_scan or batched.",
)
@click.option(
    "--memory-budget",
    default=None,
    help="For auto: bytes, a size (12GiB) or a fraction of free device memory (0.5); default 80% of it.",
)
@click.option("--batch-size", type=click.IntRange(min=1), default=None, help="Draws per batch for --strategy batched.")
@click.option("--log-likelihood", is_flag=True, help="Also compile the pointwise log-likelihood transform.")
def precompile(
    model_ref: str,
    chains: int,
    draws: int,
    var_names: str | None,
    keep_untransformed: bool,
    backend: str | None,
    cache_dir: str | None,
    as_json: bool,
    strategy: str,
    memory_budget: str | None,
    batch_size: int | None,
    log_likelihood: bool,
) -> None:
    """Compile and store the postprocessing of MODEL before sampling, and say what it will cost.

    MODEL is path/to/file.py:NAME or package.module:NAME, where NAME is a pm.Model or a
    function returning one (default NAME: model). A second identical run finds the entry
    already cached and compiles nothing. With --strategy auto (the default) the candidates are
    compiled and the fastest whose predicted peak fits --memory-budget is kept; if none fits,
    the command fails (exit 1) saying what is needed, what is available and what would fit.

    \b
    Example:
      pymc-aot precompile examples/regression.py:model --draws 2000 --log-likelihood
    """
    say = _progress(True)
    say("loading model")
    model = _load(model_ref)
    say("importing jax")
    from .. import aot

    store = _store(cache_dir)
    entries = []
    for ll in [False, True] if log_likelihood else [False]:
        what = "log-likelihood" if ll else "posterior"
        try:
            entry = aot.precompile(
                model,
                chains=chains,
                draws=draws,
                strategy=strategy,
                batch_size=batch_size,
                var_names=_split_names(var_names),
                keep_untransformed=keep_untransformed,
                log_likelihood=ll,
                backend=backend,
                cache=store,
                model_name=_ref_name(model_ref),
                memory_budget=memory_budget,
                progress=lambda step, w=what: say(f"{w}: {step}"),
            )
        except ValueError as exc:
            raise UserError(str(exc)) from None
        say(f"{what}: {'already cached' if entry.cached else 'stored' if entry.stored else 'compiled (not stored)'}")
        entries.append(entry)
    if as_json:
        docs = []
        for e in entries:
            meta = store.metadata(e.digest)
            docs.append(
                _entry_json(meta, cached=e.cached) if meta else {"key": e.digest, "cached": False, "stored": False}
            )
        click.echo(json.dumps({"location": str(store.directory), "entries": docs}, indent=2))
        return
    rows = [
        [
            e.key.kind,
            e.digest[:12],
            e.strategy,
            human_bytes(e.memory.argument),
            human_bytes(e.memory.output),
            human_bytes(e.memory.temp),
            human_bytes(e.memory.peak),
            _flops(e.cost.flops),
            "cached" if e.cached else f"{e.timings.get('total', 0):.2f} s",
        ]
        for e in entries
    ]
    click.echo(_table(["transform", "key", "strategy", "input", "output", "temp", "peak", "flops", "compile"], rows))
    click.echo(f"\n{chains} chains x {draws} draws; stored in {store.directory}")
    click.echo("peak = input + output + temp - aliased (XLA's memory analysis, before anything runs)")


@cli.command()
@click.argument("key_prefix", required=False)
@click.option(
    "--cache-dir", type=click.Path(file_okay=False), default=None, envvar="PYMC_AOT_CACHE_DIR", help="Cache root."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
def inspect(key_prefix: str | None, cache_dir: str | None, as_json: bool) -> None:
    """List cached transforms, or show everything about the one whose key starts with KEY_PREFIX.

    \b
    Examples:
      pymc-aot inspect
      pymc-aot inspect 3fa9c0 --json
    """
    store = _store(cache_dir)
    records = store.entries() if store.directory.exists() else []
    if key_prefix:
        matches = [r for r in records if r.digest.startswith(key_prefix)]
        if not matches:
            raise UserError(f"no cached entry has a key starting with {key_prefix!r} in {store.directory}")
        if len(matches) > 1:
            names = ", ".join(
                f"{r.digest[:12]} ({r.metadata.get('model_name') or '-'}, {_label(r.metadata)})" for r in matches
            )
            raise UserError(f"key prefix {key_prefix!r} is ambiguous: {names}")
        (record,) = matches
        doc = {**_entry_json(record.metadata, record), "key_parts": record.metadata["key"]}
        if as_json:
            click.echo(json.dumps({"location": str(store.directory), "entry": doc}, indent=2))
            return
        m = doc["memory"]
        click.echo(f"key        {record.digest}")
        shape = f"{doc['chains']} chains x {doc['draws']} draws"
        click.echo(f"model      {doc['model_name'] or '-'}   {doc['kind']}   {shape}   {doc['strategy']}")
        click.echo(f"outputs    {', '.join(doc['outputs'])}")
        click.echo(
            f"memory     input {human_bytes(m['argument'])}, output {human_bytes(m['output'])}, "
            f"temp {human_bytes(m['temp'])}, aliased {human_bytes(m['alias'])}, code {human_bytes(m['generated_code'])}"
            f"  ->  peak {human_bytes(m['peak'])}"
        )
        cost = doc["cost"]
        click.echo(f"cost       {_flops(cost.get('flops'))} flops, {human_bytes(cost.get('bytes_accessed'))} accessed")
        t = doc["compile_seconds"]
        click.echo("compile    " + ", ".join(f"{k} {v:.3f} s" for k, v in t.items()))
        click.echo(
            f"stored     {human_bytes(doc['executable_bytes'])} executable, created {_when(doc['created'])}, "
            f"last used {_when(doc['last_used'])}, {doc['hits']} hits"
        )
        auto = record.metadata.get("auto")
        if auto:
            click.echo(
                f"auto       chose {auto['chosen']} under a budget of {human_bytes(auto['budget'])}: {auto['rule']}"
            )
            rows = [
                [
                    c["strategy"],
                    human_bytes(c["peak"]),
                    human_bytes(c["temp"]),
                    c["steps"],
                    "yes" if c["fits"] else "no",
                ]
                for c in auto["candidates"]
            ]
            for line in _table(["candidate", "peak", "temp", "steps", "fits"], rows).splitlines():
                click.echo(f"  {line}")
        click.echo("key parts")
        for k, v in record.metadata["key"].items():
            click.echo(f"  {k:12s} {json.dumps(v)}")
        return
    if as_json:
        click.echo(
            json.dumps(
                {"location": str(store.directory), "entries": [_entry_json(r.metadata, r) for r in records]}, indent=2
            )
        )
        return
    if not records:
        click.echo(f"no cached transforms in {store.directory}")
        return
    rows = [
        [
            r.metadata.get("model_name") or "-",
            r.digest[:12],
            r.metadata["key"]["kind"],
            "x".join(map(str, r.metadata["key"]["values"][0][1][:2])) if r.metadata["key"]["values"] else "-",
            _label(r.metadata),
            human_bytes(r.metadata["memory"]["peak"]),
            human_bytes(r.metadata["memory"]["temp"]),
            human_bytes(r.executable_bytes),
            _when(r.metadata.get("created")),
            _when(r.last_used),
            r.hits,
        ]
        for r in records
    ]
    click.echo(
        _table(
            [
                "model",
                "key",
                "transform",
                "chains x draws",
                "strategy",
                "peak",
                "temp",
                "on disk",
                "created",
                "last used",
                "hits",
            ],
            rows,
        )
    )


@cli.command()
@click.option(
    "--cache-dir", type=click.Path(file_okay=False), default=None, envvar="PYMC_AOT_CACHE_DIR", help="Cache root."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
def stats(cache_dir: str | None, as_json: bool) -> None:
    """Where the cache is, how many entries it holds and how full it is.

    \b
    Example:
      pymc-aot stats --json
    """
    store = _store(cache_dir)
    records = store.entries() if store.directory.exists() else []
    used = store.volume() if store.directory.exists() else 0
    doc = {
        "location": str(store.directory),
        "entries": len(records),
        "bytes_used": used,
        "size_limit": store.size_limit,
    }
    if as_json:
        click.echo(json.dumps(doc, indent=2))
        return
    click.echo(f"location    {doc['location']}")
    click.echo(f"entries     {doc['entries']}")
    click.echo(f"used        {human_bytes(used)} of {human_bytes(store.size_limit)}")


@cli.command()
@click.argument("key_prefix", required=False)
@click.option("--all", "everything", is_flag=True, help="Remove every entry.")
@click.option(
    "--older-than", type=click.FloatRange(min=0), default=None, help="Only entries not used for this many days."
)
@click.option(
    "--stale", is_flag=True, help="Only entries no current key can reach (other library versions or key format)."
)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option(
    "--cache-dir", type=click.Path(file_okay=False), default=None, envvar="PYMC_AOT_CACHE_DIR", help="Cache root."
)
def clear(
    key_prefix: str | None, everything: bool, older_than: float | None, stale: bool, yes: bool, cache_dir: str | None
) -> None:
    """Remove cached entries: one KEY_PREFIX, --all, --stale ones, or those unused for --older-than DAYS.

    \b
    Examples:
      pymc-aot clear 3fa9c0
      pymc-aot clear --stale --yes
      pymc-aot clear --older-than 30 --yes
    """
    if not (key_prefix or everything or stale or older_than is not None):
        raise UserError("say what to remove: a KEY_PREFIX, --all, --stale, or --older-than DAYS")
    if key_prefix and everything:
        raise UserError("give either a KEY_PREFIX or --all, not both")
    store = _store(cache_dir)
    records = store.entries() if store.directory.exists() else []
    chosen = [r for r in records if not key_prefix or r.digest.startswith(key_prefix)]
    if stale:
        from ..aot.key import KEY_FORMAT, library_versions

        current = dict(library_versions())
        chosen = [
            r
            for r in chosen
            if r.metadata["key"].get("versions") != current or r.metadata["key"].get("format") != KEY_FORMAT
        ]
    if older_than is not None:
        cutoff = time.time() - older_than * 86400
        chosen = [r for r in chosen if (r.last_used or r.metadata.get("created") or 0) < cutoff]
    if not chosen:
        click.echo("nothing to remove")
        return
    if not yes:
        click.confirm(
            f"remove {len(chosen)} entr{'y' if len(chosen) == 1 else 'ies'} from {store.directory}?", abort=True
        )
    removed = sum(store.delete(r.digest) for r in chosen)
    click.echo(f"removed {removed} entr{'y' if removed == 1 else 'ies'}")


def _compare_candidates(chains: int, draws: int) -> list[tuple[str, int | None]]:
    n = chains * draws
    sizes = sorted({b for b in (10, 100, 1000) if b < n} | ({n} if n else set()))
    return [(s, None) for s in ("vmap", "scan", "scan_vmap", "vmap_scan", "nested_scan")] + [
        ("batched", b) for b in sizes
    ]


@cli.command()
@click.argument("model_ref", metavar="MODEL")
@_options
@click.option("--log-likelihood", is_flag=True, help="Compare the log-likelihood transform instead of the posterior.")
@click.option("--run", "do_run", is_flag=True, help="Also run each on synthetic draws and report wall time.")
def compare(
    model_ref: str,
    chains: int,
    draws: int,
    var_names: str | None,
    keep_untransformed: bool,
    backend: str | None,
    cache_dir: str | None,
    as_json: bool,
    log_likelihood: bool,
    do_run: bool,
) -> None:
    """Compile every strategy for MODEL and compare predicted memory (and, with --run, time).

    Every strategy computes the same numbers; they differ in peak memory and speed. Entries
    compiled here land in the cache, so the one you pick is ready.

    \b
    Example:
      pymc-aot compare examples/regression.py:model --draws 1000 --run
    """
    say = _progress(True)
    say("loading model")
    model = _load(model_ref)
    say("importing jax")
    from .. import aot
    from ..aot.strategies import get_strategy

    store = _store(cache_dir)
    names = _split_names(var_names)
    rows: list[dict[str, Any]] = []
    samples = None
    for name, batch in _compare_candidates(chains, draws):
        strat = get_strategy(name, batch)
        try:
            entry = aot.precompile(
                model,
                chains=chains,
                draws=draws,
                strategy=name,
                batch_size=batch,
                var_names=names,
                keep_untransformed=keep_untransformed,
                log_likelihood=log_likelihood,
                backend=backend,
                cache=store,
                model_name=_ref_name(model_ref),
                progress=lambda s, lb=strat.label: say(f"{lb}: {s}"),
            )
        except ValueError as exc:
            raise UserError(str(exc)) from None
        row = {
            "strategy": strat.label,
            "chains": strat.chains,
            "draws": strat.draws,
            "key": entry.digest,
            "memory": entry.memory.as_dict(),
            "flops": entry.cost.flops,
            "compile_seconds": None if entry.cached else entry.timings.get("total"),
            "cached": entry.cached,
        }
        if do_run:
            from .. import runtime

            if samples is None:
                samples = _synthetic(entry.key)
            say(f"{strat.label}: running")
            run_once = functools.partial(
                runtime.postprocess,
                model,
                samples,
                strategy=name,
                batch_size=batch,
                var_names=names,
                keep_untransformed=keep_untransformed,
                log_likelihood=log_likelihood,
                backend=backend,
                cache=store,
            )
            run_once()  # load (and warm up) once
            t0 = time.perf_counter()
            out = run_once()
            for v in out.values():
                v.block_until_ready()
            row["run_seconds"] = time.perf_counter() - t0
            del out
        rows.append(row)
    best = min(rows, key=lambda r: r["memory"]["peak"])
    for r in rows:
        r["smallest_peak"] = r is best
    if as_json:
        click.echo(json.dumps({"chains": chains, "draws": draws, "strategies": rows}, indent=2))
        return
    headers = ["strategy", "chains", "draws", "peak", "temp", "output", "flops", "compile"] + (
        ["run"] if do_run else []
    )
    table_rows = []
    for r in rows:
        m = r["memory"]
        line = [
            r["strategy"] + (" *" if r["smallest_peak"] else ""),
            r["chains"],
            r["draws"],
            human_bytes(m["peak"]),
            human_bytes(m["temp"]),
            human_bytes(m["output"]),
            _flops(r["flops"]),
            "cached" if r["cached"] else f"{r['compile_seconds']:.2f} s",
        ]
        if do_run:
            line.append(f"{r['run_seconds']:.3f} s")
        table_rows.append(line)
    click.echo(_table(headers, table_rows))
    click.echo(f"\n* smallest predicted peak. {chains} chains x {draws} draws; peak = input + output + temp - aliased.")


def _synthetic(key: Any) -> list[Any]:
    import numpy as np

    rng = np.random.default_rng(0)
    return [rng.normal(scale=0.1, size=shape).astype(dtype) for _, shape, dtype in key.values]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run the CLI and map failures to exit codes 1 (user) and 2 (internal)."""
    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="pymc-aot", standalone_mode=False)
    except CachePermissionError as exc:
        click.echo(f"pymc-aot: {exc}", err=True)
        return 1
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 1
    except click.ClickException as exc:  # includes usage errors: a user error, one line
        click.echo(f"pymc-aot: {exc.format_message()}", err=True)
        return 1
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except Exception as exc:  # noqa: BLE001 - anything else is our bug
        if DEBUG["on"]:
            traceback.print_exc()
        click.echo(
            f"pymc-aot: internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback)", err=True
        )
        return 2
    return 0


def entry_point() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
