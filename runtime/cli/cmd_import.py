"""``pymc-aot import``: a signed bundle's entries into the cache, all verified first."""

from __future__ import annotations

import click

from ...cache import CacheStore
from ...cache.bundle import BundleError
from ...cache.paths import ENV_PUBLIC_KEY
from ...cache.transfer import import_bundle
from .errors import UserError, as_user_error
from .options import cache_dir_option
from .state import CliState, pass_state


@click.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--public-key",
    metavar="PEM",
    envvar=ENV_PUBLIC_KEY,
    default=None,
    help=f"The operator's Ed25519 public key (file or PEM text; default ${ENV_PUBLIC_KEY}).",
)
@cache_dir_option
@pass_state
def import_(state: CliState, file: str, public_key: str | None, cache_dir: str | None) -> None:
    """Verify every entry of the bundle FILE with the operator's public key, then store them.

    \b
    One entry that fails (tampered, truncated, signed with another key, another format)
    refuses the whole bundle: nothing is stored. Example:
      pymc-aot import models.pmaot --public-key /etc/pymc-aot/cache-public-key.pem
    """
    if not public_key:
        raise UserError(f"--public-key: expected the operator's Ed25519 public key (or ${ENV_PUBLIC_KEY}), got none")
    store = CacheStore(cache_dir)
    with as_user_error(BundleError, OSError, ValueError):
        manifest, entries = import_bundle(store, file, public_key)
    n = len(entries)
    state.output.echo(f"imported {n} entr{'y' if n == 1 else 'ies'} from {file} (signed by key {manifest['key_id']})")
