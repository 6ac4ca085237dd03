"""``pymc-aot doctor``: one screen of what a run would use here, and what is wrong."""

from __future__ import annotations

import click

from .options import cache_dir_option, json_option
from .state import CliState, pass_state


@click.command()
@cache_dir_option
@json_option
@pass_state
def doctor(state: CliState, cache_dir: str | None, as_json: bool) -> None:
    """Versions, devices, x64, the cache root and the memory budget auto would use.

    Exits 1 after one line on stderr for each problem found (a cache others can write,
    entries from other library versions, versions outside the tested ranges, ...).

    \b
    Example:
      pymc-aot doctor
    """
    from .diagnose import diagnose

    found = diagnose(cache_dir)
    if as_json:
        state.output.json(found.to_json())
    else:
        for section, facts in found.sections.items():
            state.output.echo(section)
            for label, value in facts:
                state.output.echo(f"  {label:13s} {value}")
        state.output.echo("no problems found" if not found.problems else f"{len(found.problems)} problem(s):")
    for problem in found.problems:
        state.output.problem(problem)
    if found.problems:
        click.get_current_context().exit(1)
