"""``pymc-aot export``: chosen entries as one signed bundle file that travels."""

from __future__ import annotations

from pathlib import Path

import click

from ...cache import CacheStore
from ...cache.paths import ENV_SIGNING_KEY, human_bytes
from ...cache.transfer import export_bundle
from .errors import UserError, as_user_error
from .options import cache_dir_option
from .state import CliState, pass_state


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, writable=True))
@click.argument("key_prefixes", nargs=-1)
@click.option("--model", default=None, help="Only this model's entries (named as `inspect` shows it, or file.py:NAME).")
@click.option(
    "--signing-key",
    metavar="PEM",
    envvar=ENV_SIGNING_KEY,
    default=None,
    help=f"The operator's Ed25519 private key file (default ${ENV_SIGNING_KEY}); `python -m pymc_aot.cache keygen`.",
)
@cache_dir_option
@pass_state
def export(
    state: CliState, file: str, key_prefixes: tuple[str, ...], model: str | None, signing_key: str | None,
    cache_dir: str | None,
) -> None:
    """Write cached entries (all, or those of KEY_PREFIX ... / --model) to FILE, a signed bundle.

    \b
    Each entry (executable, metadata, auto's choice and candidates) is signed with the
    operator's Ed25519 key; workers verify it with `pymc-aot import FILE --public-key PEM`.
    Examples:
      pymc-aot export models.pmaot --signing-key keys/cache-signing-key.pem
      pymc-aot export one.pmaot 3fa9c0 --model eight_schools:model
    """
    if not signing_key:
        raise UserError(f"--signing-key: expected the operator's Ed25519 private key file (or ${ENV_SIGNING_KEY})")
    store = CacheStore(cache_dir)
    with as_user_error():
        manifest = export_bundle(store, file, signing_key, key_prefixes, model)
    n, size = len(manifest["entries"]), human_bytes(Path(file).stat().st_size)
    what = f"{n} entr{'y' if n == 1 else 'ies'}"
    state.output.echo(f"exported {what} to {file} ({size}, signed by key {manifest['key_id']})")
