"""Model files for the CLI's error paths."""

import pymc as pm

not_a_model = 42


def broken():
    raise RuntimeError("the user's own bug")


def small():
    with pm.Model() as m:
        pm.Normal("x", 0, 1, shape=2)
    return m
