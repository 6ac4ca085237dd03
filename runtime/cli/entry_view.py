"""Everything about one stored entry, as ``pymc-aot inspect KEY`` prints it."""

from __future__ import annotations

import json
from typing import Any

from ...cache import CacheStore, EntryRecord
from ...render import Table, flops, human_bytes, strategy_label, when
from .catalog import candidate_digests, entry_json, fold, listed_json, role
from .output import Output

CANDIDATE_HEADERS = ("candidate", "key", "peak", "temp", "steps", "fits", "stored")


def show_entry(
    output: Output, store: CacheStore, records: list[EntryRecord], record: EntryRecord, as_json: bool
) -> None:
    listed = candidate_digests(records)
    item = next((i for i in fold(records) if i.record.digest == record.digest), None)
    owners = [i.record for i in fold(records) if any(c.summary.get("key") == record.digest for c in i.candidates)]
    if as_json:
        doc = listed_json(item, listed) if item else _candidate_doc(record, listed)
        doc.update(key_parts=record.metadata["key"], candidate_of=[o.digest for o in owners])
        output.json({"location": str(store.directory), "entry": doc})
        return
    for name, value in _facts(record, role(record, listed)):
        output.echo(f"{name:10s} {value}")
    for owner in owners:
        output.echo(
            f"{'auto':10s} a candidate of {owner.digest[:12]} ({owner.metadata['key']['kind']}, "
            f"chose {owner.metadata['auto']['chosen']})"
        )
    auto = record.metadata.get("auto")
    if auto and item is not None:
        output.echo(f"{'auto':10s} chose {auto['chosen']} under a budget of {human_bytes(auto['budget'])}")
        output.echo(f"{'rule':10s} {auto['rule']}")
        rows = [
            (
                c.summary["strategy"] + (" *" if c.chosen else ""),
                (c.summary.get("key") or "-")[:12],
                human_bytes(c.summary["peak"]),
                human_bytes(c.summary["temp"]),
                c.summary["steps"],
                "yes" if c.summary["fits"] else "no",
                "yes" if c.record else "evicted",
            )
            for c in item.candidates
        ]
        output.table(Table.of(CANDIDATE_HEADERS, rows, "* chosen"), indent="  ")
    output.echo("key parts")
    for k, v in record.metadata["key"].items():
        output.echo(f"  {k:12s} {json.dumps(v)}")


def _candidate_doc(record: EntryRecord, listed: set[str]) -> dict[str, Any]:
    return entry_json(record.metadata, record, role=role(record, listed))


def _facts(record: EntryRecord, kind_of_entry: str) -> list[tuple[str, str]]:
    meta = record.metadata
    m, cost, t = meta["memory"], meta.get("cost", {}), meta.get("timings", {})
    values = meta["key"].get("values") or [[None, [0, 0], None]]
    return [
        ("key", record.digest),
        (
            "model",
            f"{meta.get('model_name') or '-'}   {meta['key']['kind']}   "
            f"{values[0][1][0]} chains x {values[0][1][1]} draws   "
            f"{strategy_label(meta['key'], meta.get('auto'))}   ({kind_of_entry})",
        ),
        ("outputs", ", ".join(meta.get("output_names", []))),
        (
            "memory",
            f"input {human_bytes(m['argument'])}, output {human_bytes(m['output'])}, "
            f"temp {human_bytes(m['temp'])}, aliased {human_bytes(m['alias'])}, "
            f"code {human_bytes(m['generated_code'])}  ->  peak {human_bytes(m['peak'])}",
        ),
        ("cost", f"{flops(cost.get('flops'))} flops, {human_bytes(cost.get('bytes_accessed'))} accessed"),
        ("compile", ", ".join(f"{k} {v:.3f} s" for k, v in t.items())),
        (
            "stored",
            f"{human_bytes(record.executable_bytes)} executable, created {when(meta.get('created'))}, "
            f"last used {when(record.last_used)}, {record.hits} hits",
        ),
    ]
