"""``pymc-aot stats``: where the cache is and how full."""

from __future__ import annotations

import click

from ...cache import CacheStore
from ...cache.signing import how_signed
from ...render import human_bytes
from .catalog import fold, read_records
from .options import cache_dir_option, json_option
from .state import CliState, pass_state


@click.command()
@cache_dir_option
@json_option
@pass_state
def stats(state: CliState, cache_dir: str | None, as_json: bool) -> None:
    """Where the cache is, how many entries it holds, how many executables back them, how full it is.

    \b
    Example:
      pymc-aot stats --json
    """
    store = CacheStore(cache_dir)
    exists = store.directory.exists()
    records = read_records(store)
    entries = len(fold(records))
    doc = {
        "location": str(store.directory),
        "entries": entries,
        "executables": len(records),
        "candidates": len(records) - entries,
        "bytes_used": store.volume() if exists else 0,
        "size_limit": store.size_limit,
        "signed": how_signed(store),
    }
    if as_json:
        state.output.json(doc)
        return
    out = state.output
    out.echo(f"location     {doc['location']}")
    backing = f"backed by {len(records)} executables ({doc['candidates']} of them auto candidates)"
    out.echo(f"entries      {entries}, {backing}")
    out.echo(f"used         {human_bytes(doc['bytes_used'])} of {human_bytes(store.size_limit)}")
    out.echo(f"signed       {doc['signed']}")
