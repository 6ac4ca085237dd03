"""``pymc-aot inspect``: the entries you asked for, or everything about one of them."""

from __future__ import annotations

import click

from ...cache import CacheStore, EntryRecord
from ...cache.other_key import signed_with_another_key
from ...render import Table, peak_cell, shape, when
from .catalog import Listed, candidate_digests, fold, is_orphan_candidate, listed_json, match, meta, read_records, role
from .entry_view import show_entry
from .errors import UserError
from .options import cache_dir_option, json_option
from .state import CliState, pass_state

HEADERS = ("model", "key", "transform", "shape", "strategy", "candidates", "peak", "last used", "hits")
"""Fits 120 columns; inspect KEY has the rest (temp, sizes on disk, compile times, key parts)."""


@click.command()
@click.argument("key_prefix", required=False)
@click.option("--all", "everything", is_flag=True, help="List every stored executable, auto's candidates included.")
@cache_dir_option
@json_option
@pass_state
def inspect(state: CliState, key_prefix: str | None, everything: bool, cache_dir: str | None, as_json: bool) -> None:
    """List cached transforms, or show everything about the one whose key starts with KEY_PREFIX.

    One row per entry you asked for: an auto entry (the candidates it compiled are folded
    under it; inspect its key to see them) or a strategy you compiled explicitly.

    \b
    Examples:
      pymc-aot inspect
      pymc-aot inspect 3fa9c0 --json
      pymc-aot inspect --all
    """
    store = CacheStore(cache_dir)
    records = read_records(store)
    if key_prefix:
        show_entry(state.output, store, records, _one(records, key_prefix, store), as_json)
        return
    listed = candidate_digests(records)
    items = [Listed(r) for r in records] if everything else fold(records)
    others = len(signed_with_another_key(store))
    if as_json:
        entries = [listed_json(i, listed) for i in items]
        state.output.json({"location": str(store.directory), "entries": entries, "signed_with_another_key": others})
        return
    if not items:
        empty = _another_key(others, store) or f"no cached transforms in {store.directory}"
        state.output.echo("\n".join(filter(None, [empty, "" if everything else _hint(items, records)])))
        return
    rows = [_row(i, listed, everything) for i in items]
    hint = "" if everything else _hint(items, records)
    headers = (*HEADERS[:5], "role", *HEADERS[6:]) if everything else HEADERS
    state.output.table(Table.of(headers, rows, hint))
    if others:
        state.output.echo(_another_key(others, store))


def _hint(items: list[Listed], records: list[EntryRecord]) -> str:
    folded = sum(len(i.candidates) for i in items)
    listed = candidate_digests(records)
    orphans = sum(is_orphan_candidate(r, listed) for r in records)
    parts = [f"{folded} auto candidates folded; `pymc-aot inspect KEY` shows them" if folded else ""]
    parts.append(f"{orphans} candidates of auto runs that found nothing fitting" if orphans > 0 else "")
    shown = "; ".join(filter(None, parts))
    return f"{shown}; --all lists them" if shown else ""


def _another_key(count: int, store: CacheStore) -> str:
    if not count:
        return ""
    return f"{count} entr{'y' if count == 1 else 'ies'} in {store.directory} signed with another key (not listed)"


def _one(records: list[EntryRecord], prefix: str, store: CacheStore) -> EntryRecord:
    matches = match(records, prefix)
    if not matches:
        raise UserError(f"no cached entry has a key starting with {prefix!r} in {store.directory}")
    if len(matches) > 1:
        names = ", ".join(f"{r.digest[:12]} ({meta(r).model_name or '-'}, {meta(r).label})" for r in matches)
        raise UserError(f"key prefix {prefix!r} is ambiguous: {names}")
    return matches[0]


def _row(item: Listed, listed: set[str], everything: bool) -> tuple[str | int, ...]:
    r, m = item.record, meta(item.record)
    chains_draws = shape(m.chains, m.draws) if m.key.get("values") else "-"
    if everything:
        folded = role(r, listed)
    else:
        folded = str(len(item.candidates)) if m.auto is not None else "-"
    return (
        m.model_name or "-",
        r.digest[:12],
        m.kind,
        chains_draws,
        m.label,
        folded,
        peak_cell(m.peak, m.mesh_devices),
        when(r.last_used),
        r.hits,
    )
