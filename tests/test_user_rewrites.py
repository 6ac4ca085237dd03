"""Which registered rewriters hold user code (``aot.identity.rewrites``): every way of holding it is found.

The check skips the values it can tell are data by their class alone (plain values, classes,
versioned ops); these tests pin that nothing holding user code is skipped with them.
"""

from __future__ import annotations

import collections
import copy
import functools
import sys
import types

import pytensor.tensor as pt
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.graph.rewriting.basic import FromFunctionNodeRewriter, NodeRewriter, node_rewriter
from pytensor.tensor.rewriting.basic import local_useless_elemwise

from pymc_aot.aot.identity import rewrites
from pymc_aot.aot.identity.rewrites import _holds_user_code
from pymc_aot.aot.identity.trust import is_versioned_function


class UserOp(Op):
    def make_node(self, x):  # pragma: no cover - never run
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):  # pragma: no cover - never run
        outputs[0][0] = inputs[0]


class UserRewriter(NodeRewriter):
    def transform(self, fgraph, node):  # pragma: no cover - never run
        return False


class Callback:
    def __call__(self, *args):  # pragma: no cover - never run
        return None

    def method(self, *args):  # pragma: no cover - never run
        return None


def _user_fn(fgraph, node):  # pragma: no cover - never run
    return None


class UserList(list):
    pass


def _versioned() -> FromFunctionNodeRewriter:
    """A copy of a rewriter PyTensor registers: versioned code, versioned ops in its tracks."""
    rewriter = local_useless_elemwise
    assert isinstance(rewriter, FromFunctionNodeRewriter) and not _holds_user_code(rewriter)
    return copy.copy(rewriter)


def _with(**attrs: object) -> FromFunctionNodeRewriter:
    rewriter = _versioned()
    for name, value in attrs.items():
        setattr(rewriter, name, value)
    return rewriter


def test_the_rewriters_pytensor_and_pymc_register_hold_no_user_code():
    import pymc.logprob.rewriting  # noqa: F401 - registers PyMC's databases

    assert rewrites.user_rewrites() == ()
    assert rewrites._verdicts and not any(held for _, held in rewrites._verdicts.values())


def test_user_code_held_anywhere_a_few_attributes_deep_is_found():
    holding = {
        "a user function": FromFunctionNodeRewriter(_user_fn, [pt.exp]),
        "a user rewriter class": UserRewriter(),
        "a user op in its tracks": _with(_tracks=[pt.exp, UserOp()]),
        "a user callable in a set": _with(_tracked_ops={Callback()}),
        "a bound method of a user object": _with(failure_callback=Callback().method),
        "a user function in a dict": _with(extra={"when": _user_fn}),
        "a user list subclass holding a user function": _with(_tracks=UserList([_user_fn])),
        "a user function in a versioned function's closure": _with(fn=node_rewriter([_user_fn])),
        "a user rewriter inside a versioned one": _with(node_rewriter=UserRewriter()),
        "a user function nested in tuples": _with(requirements=((("deep", _user_fn),),)),
        "a user function in a functools.partial": _with(fn=functools.partial(_user_fn)),
        "a user function bound as a partial's argument": _with(fn=functools.partial(map, _user_fn)),
        "a user function in a UserDict": _with(extra=collections.UserDict(when=_user_fn)),
        "a user function in a deque": _with(extra=collections.deque([_user_fn])),
    }
    assert is_versioned_function(node_rewriter([_user_fn]))
    missed = [what for what, rewriter in holding.items() if not _holds_user_code(rewriter)]
    assert not missed


def test_versioned_data_held_by_a_versioned_rewriter_is_not_user_code():
    plain = _with(_tracks=[pt.exp, pt.log, Op], name="copy", extra={"n": 1, "on": True, "none": None})
    assert not _holds_user_code(plain)
    wrapped = _with(extra=collections.deque([pt.exp]), fn=functools.partial(_versioned().fn))
    assert not _holds_user_code(wrapped)


def test_a_user_rewriter_in_a_nested_database_is_listed_under_its_path(monkeypatch):
    from pytensor.graph.rewriting.db import EquilibriumDB, SequenceDB

    outer, inner = SequenceDB(), EquilibriumDB()
    inner.register("users_rewrite", FromFunctionNodeRewriter(_user_fn, [pt.exp]))
    inner.register("pytensors_rewrite", _versioned())
    outer.register("inner", inner, position=1)
    module = types.ModuleType("fake_rewrite_roots")
    module.db = outer
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(rewrites, "ROOTS", ((module.__name__, "db"),))
    assert [(db, name) for db, name, _ in rewrites.user_rewrites()] == [("db/inner", "users_rewrite")]


def test_a_user_function_behind_a_partial_changes_the_fingerprint(monkeypatch):
    """Found is not enough: the key must change with the code the partial binds."""
    import pymc as pm
    from pytensor.graph.rewriting.db import SequenceDB

    from pymc_aot.aot.identity.fingerprint import fingerprint_model

    def replaced(fgraph, node):  # pragma: no cover - never run
        return [node.outputs[0]]

    db = SequenceDB()
    module = types.ModuleType("fake_rewrite_roots_partial")
    module.db = db
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(rewrites, "ROOTS", ((module.__name__, "db"),))
    with pm.Model() as model:
        pm.Deterministic("y", pt.exp(pm.Normal("x")))
    without = fingerprint_model(model)
    db.register("users_rewrite", _with(fn=functools.partial(_user_fn)), position=1)
    first = fingerprint_model(model)
    db.__db__["users_rewrite"] = {_with(fn=functools.partial(replaced))}  # replaced under its name
    second = fingerprint_model(model)
    assert len({repr(without), repr(first), repr(second)}) == 3
