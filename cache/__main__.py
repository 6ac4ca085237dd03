"""``python -m pymc_aot.cache keygen DIR``: the key pair of a shared, read-only cache."""

from __future__ import annotations

import argparse
import sys

from .errors import CachePermissionError
from .paths import ENV_PUBLIC_KEY, ENV_READ_ONLY, ENV_SIGNING_KEY
from .signing import Ed25519Verifier, generate_keypair, load_public_key


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pymc_aot.cache", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    keygen = commands.add_parser(
        "keygen",
        help="write a new Ed25519 key pair for signing a shared cache",
        description="Write DIR/cache-signing-key.pem (mode 600, for the operator who fills the cache) and "
        "DIR/cache-public-key.pem (for the workers who read it). Never overwrites a key.",
    )
    keygen.add_argument("directory", metavar="DIR")
    args = parser.parse_args(argv)
    try:
        private_file, public_file = generate_keypair(args.directory)
        key_id = Ed25519Verifier(load_public_key(public_file)).key_id
    except (OSError, CachePermissionError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print("\n".join(keypair_howto(private_file, public_file, key_id)))
    return 0


def keypair_howto(private_file: object, public_file: object, key_id: str) -> list[str]:
    """Where the new keys are and the environment the operator and the workers set."""
    return [
        f"private key  {private_file}  (mode 600: keep it where the cache is filled)",
        f"public key   {public_file}  (key {key_id}: give it to the workers)",
        "\noperator, filling the shared cache (then `chmod -R go-w,go+rX` it):",
        f"  export {ENV_SIGNING_KEY}={private_file}",
        "workers, reading it:",
        f"  export {ENV_READ_ONLY}=1 {ENV_PUBLIC_KEY}={public_file}",
    ]


if __name__ == "__main__":
    sys.exit(main())
