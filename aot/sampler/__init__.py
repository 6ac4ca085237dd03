"""The NUTS sampler itself, compiled ahead of time and stored like a transform.

Three programs per run, each a stored executable (``SamplerKey.program``):

* ``logp``: the model's log density at one point (checks PyMC's jittered initial points);
* ``init``: the sampler state of every chain from the initial points and the chains' keys;
* ``chunk``: up to ``settings.chunk`` steps of every chain (warmup or sampling; the state
  knows which), returning the new state, the draws and the sample statistics.

The logp takes ``pm.Data`` as arguments, so new data of the same shape reuse the executables.
A hit reads the key (a fingerprint walk) and deserializes; nothing is rewritten or traced.
"""

from __future__ import annotations

from .key import SamplerKey, sampler_key
from .settings import SAMPLERS, SamplerSettings, UnsupportedSettings

__all__ = ["SAMPLERS", "SamplerKey", "SamplerSettings", "UnsupportedSettings", "sampler_key"]
