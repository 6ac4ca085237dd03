"""``pymc-aot push``: the operator uploads entries to the remote tier, signed with their key."""

from __future__ import annotations

import click

from ...cache import CacheStore
from ...cache.paths import ENV_SIGNING_KEY
from ...cache.remote import ENV_REMOTE, RemoteTier
from ...cache.signing import Ed25519Signer, load_private_key
from ...cache.transfer import choose
from .errors import UserError
from .options import cache_dir_option
from .state import CliState, pass_state


@click.command()
@click.argument("key_prefixes", nargs=-1)
@click.option("--model", default=None, help="Only this model's entries (named as `inspect` shows it).")
@click.option("--remote", metavar="URL", envvar=ENV_REMOTE, default=None, help=f"fsspec URL (default ${ENV_REMOTE}).")
@click.option("--signing-key", metavar="PEM", envvar=ENV_SIGNING_KEY, default=None,
              help=f"The operator's Ed25519 private key file (default ${ENV_SIGNING_KEY}).")
@cache_dir_option
@pass_state
def push(
    state: CliState, key_prefixes: tuple[str, ...], model: str | None, remote: str | None, signing_key: str | None,
    cache_dir: str | None,
) -> None:
    """Upload cached entries (all, or those of KEY_PREFIX ... / --model) to the remote tier.

    \b
    Workers with PYMC_AOT_CACHE_REMOTE=URL and PYMC_AOT_CACHE_REMOTE_PUBLIC_KEY=PEM fetch and
    verify them on a local miss. Example:
      pymc-aot push --remote s3://bucket/pymc-aot --signing-key keys/cache-signing-key.pem
    """
    if not remote:
        raise UserError(f"--remote: expected an fsspec URL such as s3://bucket/prefix (or ${ENV_REMOTE})")
    if not signing_key:
        raise UserError(f"--signing-key: expected the operator's Ed25519 private key file (or ${ENV_SIGNING_KEY})")
    signer = Ed25519Signer(load_private_key(signing_key, "--signing-key"))
    store = CacheStore(cache_dir)
    chosen = choose(store.entries(), key_prefixes, model)
    if not chosen:
        raise UserError(f"no cached entry matches {' '.join(key_prefixes) or 'any key'} in {store.directory}")
    tier = RemoteTier(remote)
    pushed = 0
    for record in chosen:
        found = store.get(record.digest)
        if found is not None:
            tier.push(record.digest, found[0], found[1], signer)
            pushed += 1
    what = f"{pushed} entr{'y' if pushed == 1 else 'ies'}"
    state.output.echo(f"pushed {what} to {remote} (signed by key {signer.key_id})")
