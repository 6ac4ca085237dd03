"""``pymc-aot clear``: remove entries, asking first; auto candidates go with their entry."""

from __future__ import annotations

import time

import click

from ...cache import CacheStore, EntryRecord
from ...cache.candidates import candidate_digests, is_candidate_only
from .errors import UserError
from .options import cache_dir_option
from .state import CliState, pass_state


@click.command()
@click.argument("key_prefix", required=False)
@click.option("--all", "everything", is_flag=True, help="Remove every entry.")
@click.option("--older-than", type=click.FloatRange(min=0), default=None, help="Only entries unused for DAYS.")
@click.option("--stale", is_flag=True, help="Only entries no current key can reach (other library versions or format).")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@cache_dir_option
@pass_state
def clear(
    state: CliState,
    key_prefix: str | None,
    everything: bool,
    older_than: float | None,
    stale: bool,
    yes: bool,
    cache_dir: str | None,
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
    store = CacheStore(cache_dir)
    records = store.entries() if store.directory.exists() else []
    chosen = [r for r in records if not key_prefix or r.digest.startswith(key_prefix)]
    if stale:
        chosen = [r for r in chosen if _is_stale(r)]
    if older_than is not None:
        cutoff = time.time() - older_than * 86400
        chosen = [r for r in chosen if (r.last_used or _created(r)) < cutoff]
    chosen = _with_orphaned_candidates(records, chosen)
    if not chosen:
        state.output.echo("nothing to remove")
        return
    what = _describe(records, chosen)
    if store.read_only:
        raise UserError(f"the cache at {store.directory} is read-only (PYMC_AOT_CACHE_READONLY): nothing removed")
    if not yes:
        click.confirm(f"remove {what} from {store.directory}?", abort=True)
    removed = [r for r in chosen if store.delete(r.digest)]
    state.output.echo(f"removed {_describe(records, removed)}")
    if len(removed) < len(chosen):
        gone = {r.digest for r in removed}
        raise UserError(f"could not remove {_describe(records, [r for r in chosen if r.digest not in gone])}")


def _created(record: EntryRecord) -> float:
    meta = record.schema
    return meta.created if meta is not None else 0.0


def _is_stale(record: EntryRecord) -> bool:
    """Compiled for other library versions or key format, or metadata this schema cannot read."""
    from ...aot.identity.versions import KEY_FORMAT, installed_versions

    meta = record.schema
    if meta is None:
        return True
    return meta.key.get("versions") != dict(installed_versions()) or meta.key.get("format") != KEY_FORMAT


def _with_orphaned_candidates(records: list[EntryRecord], chosen: list[EntryRecord]) -> list[EntryRecord]:
    """``chosen`` plus the candidates that only the chosen auto entries list."""
    going = {r.digest for r in chosen}
    staying = [r for r in records if r.digest not in going]
    still_listed = candidate_digests(staying)
    listed = candidate_digests(records)
    orphans = [
        r
        for r in staying
        if is_candidate_only(r, listed) and r.digest not in still_listed and r.digest in candidate_digests(chosen)
    ]
    return chosen + orphans


def _describe(records: list[EntryRecord], chosen: list[EntryRecord]) -> str:
    listed = candidate_digests(records)
    candidates = sum(is_candidate_only(r, listed) for r in chosen)
    entries = len(chosen) - candidates
    text = f"{entries} entr{'y' if entries == 1 else 'ies'}"
    if candidates:
        text += f" and {candidates} auto candidate{'' if candidates == 1 else 's'}"
    return text
