"""BENCHMARKS.md as sections: regenerate some, keep the others' text as it is.

A section runs from a ``## `` heading (outside a fenced code block) to the next one; the text
before the first heading is a section too, headed by its first line (``# Benchmarks``). A
generated section replaces the section with the very same heading line; one the file does not
have yet goes right after the generated section before it (the first one: at the top).
Every other section is kept, text and order, byte for byte (the file ends in one newline).
"""

from __future__ import annotations


def split(text: str) -> list[str]:
    """``text`` as its sections, in order; ``"".join(split(text)) == text``."""
    sections: list[str] = []
    current: list[str] = []
    fenced = False
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        if line.startswith("## ") and not fenced and current:
            sections.append("".join(current))
            current = []
        current.append(line)
    if current:
        sections.append("".join(current))
    return sections


def heading(section: str) -> str:
    """A section's heading line, without its newline."""
    return section.split("\n", 1)[0].rstrip()


def merge(old: str, generated: list[str]) -> str:
    """``old`` with each of the ``generated`` sections (each starting with its heading) in place."""
    for section in generated:
        if len(split(section)) != 1:
            raise ValueError(f"a generated section holds another '## ' heading: {heading(section)!r}")
    new = {heading(s): s.rstrip("\n") + "\n\n" for s in generated}
    out = split(old)
    names = [heading(s) for s in out]
    out = [new.get(name, s) for name, s in zip(names, out, strict=True)]
    for i, section in enumerate(generated):
        name = heading(section)
        if name in names:
            continue
        before = [heading(g) for g in generated[:i] if heading(g) in names]
        at = names.index(before[-1]) + 1 if before else 0
        out.insert(at, new[name])
        names.insert(at, name)
    return "".join(s if s.endswith("\n") else s + "\n" for s in out).rstrip("\n") + "\n"
