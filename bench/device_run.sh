#!/bin/bash
# The device-machine run of 2026-12-04 (BENCHMARKS.md: "On 16 cores", "On the GPU"): issue 25's fleet
# and issue 27's first run on the machine's CPUs, issue 23's predictive on its GPU.
# The machine is offline: carry Python 3.12 manylinux wheels of what its image lacks (pymc, pytensor,
# arviz and its parts, diskcache, cryptography, dask, distributed, zarr, ...) in .whl/ (git-ignored;
# `pip download --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux_2_28_x86_64
# -d .whl NAME==VERSION` for each), then, in a copy of the repository (it links aot/, cache/ and
# runtime/ under pymc_aot/): bash bench/device_run.sh [PYTHON]. The wheels go to a user site:
# pymc-aot trusts library code only under site and user-site folders (aot/identity).
PY=${1:-python3}
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
export PYTHONUSERBASE=/tmp/pyuser PYTHONUNBUFFERED=1
SITE=/tmp/pyuser/lib/python3.12/site-packages
t0=$(date +%s)
$PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" $(ls .whl/*.whl | grep -v pymc_aot) > $OUT/install.log 2>&1 || { echo install failed; tail -5 $OUT/install.log; }
for d in aot cache runtime; do [ -e pymc_aot/$d ] || ln -s ../$d pymc_aot/$d; done
export PYTHONPATH="$PWD:$SITE"
echo "install $(( $(date +%s) - t0 )) s"
nproc; nvidia-smi -L 2>&1 | head -2
$PY - <<'PYEOF' 2>&1 | grep -v -i warn
import pymc, pytensor, jax, numpyro, pymc_aot, dask, distributed, scipy, xarray, numpy
print("versions", pymc.__version__, pytensor.__version__, jax.__version__, numpyro.__version__, numpy.__version__, scipy.__version__, xarray.__version__, distributed.__version__)
print("jax devices", jax.devices())
import pytensor.tensor as pt
x = pt.dvector("x")
try:
    f = pytensor.function([x], (x * 2).sum()); print("pytensor default linker ok", f([1.0, 2.0]))
except Exception as e:
    print("pytensor default linker FAILED", type(e).__name__, e)
PYEOF
if ! $PY -c "import pytensor, pytensor.tensor as pt; x=pt.dvector(); pytensor.function([x], x.sum())([1.0])" >/dev/null 2>&1; then
  export PYTENSOR_FLAGS=linker=cvm; echo "PYTENSOR_FLAGS=linker=cvm"
fi
run() { # name limit cmd...
  local name=$1 lim=$2; shift 2
  echo "=== $name (limit ${lim}s) at $(( $(date +%s) - t0 )) s"
  timeout $lim "$@" > $OUT/$name.log 2>&1; echo "rc $? after $(( $(date +%s) - t0 )) s"
  grep -v -i "warn\|^ *$" $OUT/$name.log | tail -${TAILN:-25}
}
JAX_PLATFORMS=cpu run fleet ${FLEET_S:-170} $PY bench/fleet.py
run predictive_quick ${PQ_S:-70} $PY bench/predictive.py --quick --no-peak --no-jax
run predictive ${PF_S:-170} $PY bench/predictive.py --no-peak --no-jax
JAX_PLATFORMS=cpu run first_run ${FR_S:-150} $PY bench/first_run.py --quick --models wide_hierarchical,gp_latent
echo "done at $(( $(date +%s) - t0 )) s"
