"""The user's request keywords are written down once (``aot.build.options.RequestOptions``).

Public functions forward theirs with ``RequestOptions.pick(locals())``; a keyword that is not a
field would be dropped without a word, so each public signature is checked against the fields.
"""

from __future__ import annotations

import dataclasses
import inspect

import pytest
from zoo import draws_for, scalars

import pymc_aot
from pymc_aot.aot import make_request, value_signature
from pymc_aot.aot.build.options import RequestOptions
from pymc_aot.aot.choice.compare import compare
from pymc_aot.runtime.transforms.engine import from_posterior, postprocess

FIELDS = {f.name for f in dataclasses.fields(RequestOptions)}
NOT_OPTIONS = {
    postprocess: {"model", "samples", "cache", "out"},
    from_posterior: {"model", "posterior", "cache"},
    pymc_aot.precompile: {"model", "chains", "draws", "cache", "progress", "inputs"},
    compare: {"model", "chains", "draws", "cache", "run", "progress"},
}


@pytest.mark.parametrize("function", list(NOT_OPTIONS), ids=lambda f: f.__qualname__)
def test_every_keyword_is_an_option_or_known_not_to_be(function):
    params = set(inspect.signature(function).parameters)
    unknown = params - FIELDS - NOT_OPTIONS[function]
    assert not unknown, f"{function.__qualname__}: {sorted(unknown)} would not reach the request"


def test_pick_takes_the_options_and_replace_refuses_others():
    options = RequestOptions.pick({"strategy": "vmap", "batch_size": None, "model": object(), "cache": "x"})
    assert options == RequestOptions(strategy="vmap")
    assert options.replace(log_likelihood=True).log_likelihood and not options.log_likelihood
    with pytest.raises(TypeError, match="devise"):
        options.replace(devise=2)


def test_options_and_keywords_make_the_same_request():
    model = scalars()
    values = value_signature(model, pymc_aot.aot.fingerprint_model(model), 2, 7)
    by_keywords = make_request(model, values, strategy="batched(3)", log_likelihood=True)
    by_options = make_request(model, values, RequestOptions(strategy="batched", batch_size=3, log_likelihood=True))
    both = make_request(model, values, RequestOptions(strategy="vmap"), strategy="batched(3)", log_likelihood=True)
    assert by_keywords.key.digest == by_options.key.digest == both.key.digest
    assert by_keywords.strategy is not None and by_keywords.strategy.label == "batched(3)"
    assert make_request(model, values).strategy is None, "auto by default"


def test_postprocess_forwards_its_options(cache_dir):
    model = scalars()
    ll = postprocess(model, draws_for(model), strategy="nested_scan", log_likelihood=True)
    assert set(ll) == {rv.name for rv in model.observed_RVs}
    (record,) = pymc_aot.CacheStore(cache_dir).entries()
    assert (record.metadata["key"]["strategy"], record.metadata["key"]["kind"]) == ("nested_scan", "log_likelihood")
