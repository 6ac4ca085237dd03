"""Says which heavy libraries were imported before this model file, then stops the command."""

import sys

HEAVY = ("jax", "jaxlib", "pymc", "pytensor")
print(f"MODEL-IMPORT heavy={sorted(m for m in HEAVY if m in sys.modules)}", file=sys.stderr, flush=True)
raise RuntimeError("stop after reporting")
