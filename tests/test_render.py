"""pymc_aot.render: units and tables, the same numbers in text, markdown, HTML and rich."""

from __future__ import annotations

import subprocess
import sys

from pymc_aot.render import Table, duration, flops, human_bytes, seconds, shape, strategy_label

TABLE = Table.of(["strategy", "peak"], [["vmap", human_bytes(1536)], ["batched(16)", human_bytes(3 * 2**30)]], "note")


def test_units():
    assert human_bytes(1536) == "1.5 KiB" and human_bytes(None) == "-" and human_bytes(12) == "12 B"
    assert flops(3.24e7) == "32.4M" and flops(None) == "-" and flops(12) == "12"
    assert seconds(0.4412) == "0.44 s" and duration(1.5) == "1.50 s" and duration(0.0031) == "3.1 ms"
    assert duration(8.5e-5) == "85 µs" and duration(None) == "-" and shape(4, 1000) == "4x1000"


def test_strategy_label_from_stored_key_parts():
    assert strategy_label({"strategy": "batched", "batch_size": 10}) == "batched(10)"
    assert strategy_label({"strategy": "auto"}, {"chosen": "scan_vmap"}) == "auto:scan_vmap"
    assert strategy_label({"strategy": "vmap", "batch_size": None}) == "vmap"


def test_text_table_aligns_names_left_and_numbers_right():
    lines = TABLE.text(indent="  ").splitlines()
    assert lines[0] == "  strategy        peak"
    assert lines[1] == "  -----------  -------"
    assert lines[2] == "  vmap         1.5 KiB" and lines[3] == "  batched(16)  3.0 GiB" and lines[4] == "  note"


def test_markdown_and_html_hold_the_same_cells():
    md = TABLE.markdown().splitlines()
    assert md[:3] == ["| strategy | peak |", "| --- | --: |", "| vmap | 1.5 KiB |"]
    html = Table.of(["a<b"], [["x&y"]]).html()
    assert html.startswith("<table") and "a&lt;b" in html and "x&amp;y" in html and "<td" in html


def test_rich_table_renders_every_cell_uncut_in_a_narrow_console():
    from rich.console import Console

    console = Console(width=14, record=True, force_terminal=False)
    console.print(TABLE.rich())
    text = console.export_text()
    assert "…" not in text and "batche" in text and "d(16)" in text, "folded onto two lines, not cut"


def test_render_imports_neither_jax_pymc_nor_rich():
    code = "import sys, pymc_aot.render; print(sorted(m for m in ('jax', 'pymc', 'pytensor', 'rich') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr


def test_html_has_classes_and_a_caption_line_per_line():
    from pymc_aot.render import Table

    page = Table.of(["a", "b"], [["x", "1"]], "first line\nsecond line").html()
    assert page.startswith('<table class="pymc-aot">') and 'class="pymc-aot-caption"' in page
    assert "first line<br>second line" in page and "\n" not in page
