"""Everything about one stored entry, as ``pymc-aot inspect KEY`` prints it."""

from __future__ import annotations

import json
from typing import Any

from ...cache import CacheStore, EntryRecord
from ...cache.entry import EntryMetadata
from ...render import Table, flops, human_bytes, memory_scope, memory_total, when
from .catalog import candidate_digests, entry_json, fold, listed_json, meta, role
from .output import Output

CANDIDATE_HEADERS = ("candidate", "key", "peak", "temp", "steps", "fits", "stored")


def show_entry(
    output: Output, store: CacheStore, records: list[EntryRecord], record: EntryRecord, as_json: bool
) -> None:
    listed = candidate_digests(records)
    item = next((i for i in fold(records) if i.record.digest == record.digest), None)
    owners = [i.record for i in fold(records) if any(c.summary.key == record.digest for c in i.candidates)]
    if as_json:
        doc = listed_json(item, listed) if item else _candidate_doc(record, listed)
        doc.update(key_parts=dict(meta(record).key), candidate_of=[o.digest for o in owners])
        output.json({"location": str(store.directory), "entry": doc})
        return
    for name, value in _facts(record, role(record, listed)):
        output.echo(f"{name:10s} {value}")
    for owner in owners:
        output.echo(
            f"{'auto':10s} a candidate of {owner.digest[:12]} ({meta(owner).kind}, chose {meta(owner).chosen})"
        )
    auto = meta(record).auto
    if auto is not None and item is not None:
        output.echo(f"{'auto':10s} chose {auto.chosen} under a budget of {human_bytes(auto.budget)}")
        output.echo(f"{'rule':10s} {auto.rule}")
        if auto.pending:
            output.echo(f"{'pending':10s} not compiled yet: {', '.join(auto.pending)} ({auto.note})")
        rows = [
            (
                c.summary.strategy + (" *" if c.chosen else ""),
                (c.summary.key or "-")[:12],
                human_bytes(c.summary.peak),
                human_bytes(c.summary.temp),
                c.summary.steps,
                "yes" if c.summary.fits else "no",
                "yes" if c.record else "evicted",
            )
            for c in item.candidates
        ]
        sharded = any(c.summary.strategy.startswith("sharded") for c in item.candidates)
        caption = "* chosen" + ("; sharded candidates' peak and temp are per device" if sharded else "")
        output.table(Table.of(CANDIDATE_HEADERS, rows, caption), indent="  ")
    output.echo("key parts")
    for k, v in meta(record).key.items():
        output.echo(f"  {k:12s} {json.dumps(v)}")


def _candidate_doc(record: EntryRecord, listed: set[str]) -> dict[str, Any]:
    return entry_json(meta(record), record, role=role(record, listed))


def _memory_line(e: EntryMetadata) -> str:
    """XLA's memory figures; for a sharded entry, labelled per device, with the total."""
    m, scope, total = e.memory, memory_scope(e.mesh_devices), memory_total(e.memory.peak, e.mesh_devices)
    figures = (
        f"input {human_bytes(m.argument)}, output {human_bytes(m.output)}, "
        f"temp {human_bytes(m.temp)}, aliased {human_bytes(m.alias)}, "
        f"code {human_bytes(m.generated_code)}  ->  peak {human_bytes(m.peak)}"
    )
    return f"{scope}: {figures}; {total}" if scope else figures


def _facts(record: EntryRecord, kind_of_entry: str) -> list[tuple[str, str]]:
    e = meta(record)
    cost = e.cost
    return [
        ("key", record.digest),
        (
            "model",
            f"{e.model_name or '-'}   {e.kind}   {e.chains} chains x {e.draws} draws   {e.label}   ({kind_of_entry})",
        ),
        ("outputs", ", ".join(e.output_names)),
        ("memory", _memory_line(e)),
        ("cost", f"{flops(cost.flops)} flops, {human_bytes(cost.bytes_accessed)} accessed"),
        ("compile", ", ".join(f"{k} {v:.3f} s" for k, v in e.timings.as_dict().items())),
        (
            "stored",
            f"{human_bytes(record.executable_bytes)} executable, created {when(e.created)}, "
            f"last used {when(record.last_used)}, {record.hits} hits",
        ),
    ]
