"""``pymc-aot keygen``: the operator's key pair for a shared, read-only cache."""

from __future__ import annotations

import click

from ...cache import CachePermissionError
from .errors import as_user_error
from .state import CliState, pass_state


@click.command()
@click.argument("directory", type=click.Path(file_okay=False))
@pass_state
def keygen(state: CliState, directory: str) -> None:
    """Write a new Ed25519 key pair for signing a shared, read-only cache into DIRECTORY.

    DIRECTORY/cache-signing-key.pem (mode 600) stays with the operator who fills the cache;
    DIRECTORY/cache-public-key.pem goes to the workers who read it. A key is never overwritten.

    \b
    Example:
      pymc-aot keygen ~/pymc-aot-keys
    """
    from ...cache.__main__ import keypair_howto
    from ...cache.signing import Ed25519Verifier, generate_keypair, load_public_key

    with as_user_error(OSError, CachePermissionError):
        private_file, public_file = generate_keypair(directory)
        key_id = Ed25519Verifier(load_public_key(public_file)).key_id
    state.output.echo("\n".join(keypair_howto(private_file, public_file, key_id)))
