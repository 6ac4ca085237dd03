"""Run cached postprocessing transforms: lookup-or-compile, run, PyMC integration."""

from runtime.engine import COUNTERS, clear_memo, get_store, log_likelihood, postprocess
from runtime.validate import SampleError

__all__ = ["COUNTERS", "SampleError", "clear_memo", "get_store", "log_likelihood", "postprocess"]
