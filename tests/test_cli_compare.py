"""compare as a library call and a command: the numbers, auto's choice, the plot, notebook display."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from pymc_aot.runtime.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCHOOLS = str(ROOT / "examples" / "eight_schools.py")
SHAPE = ("--chains", "2", "--draws", "20")
needs_matplotlib = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib missing")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def schools():
    spec = importlib.util.spec_from_file_location("_schools_for_compare", SCHOOLS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.model


@pytest.fixture(scope="module")
def comparison(schools, tmp_path_factory):
    from pymc_aot import compare

    root = tmp_path_factory.mktemp("compare") / "cache"
    return compare(schools, chains=2, draws=20, cache=str(root), memory_budget="10KiB", run=True), root


def test_compare_returns_every_strategy_and_autos_choice(comparison):
    result, _ = comparison
    labels = [r.strategy for r in result.results]
    assert labels[:5] == ["vmap", "scan", "scan_vmap", "vmap_scan", "nested_scan"]
    assert "batched(10)" in labels and "batched(1)" in labels, "auto's probe is compared too"
    assert result.budget == 10 * 1024 and result.chosen in labels
    chosen = next(r for r in result.results if r.strategy == result.chosen)
    assert chosen.memory.peak <= result.budget
    assert any(r.memory.peak > result.budget for r in result.results), "the budget must exclude something here"
    assert all(r.run_seconds is not None and r.run_seconds > 0 for r in result.results)
    doc = result.to_json()
    assert [r["chosen"] for r in doc["strategies"]].count(True) == 1
    assert all(r["fits"] == (r["memory"]["peak"] <= doc["budget"]) for r in doc["strategies"])


def test_comparison_displays_the_same_numbers_as_text_and_html(comparison):
    from pymc_aot.render import human_bytes

    result, _ = comparison
    text, html = str(result), result._repr_html_()
    assert repr(result) == text and html.startswith("<table class=\"pymc-aot\">")
    for r in result.results:
        assert human_bytes(r.memory.peak) in text and human_bytes(r.memory.peak) in html
    assert f"{result.chosen} *" in text and "auto's choice under the budget of 10.0 KiB" in text


def test_cli_compare_marks_autos_choice_as_the_library_does(capsys, comparison):
    result, root = comparison
    code, out, _ = run(
        capsys, "compare", SCHOOLS, *SHAPE, "--memory-budget", "10KiB", "--json", "--cache-dir", str(root)
    )
    doc = json.loads(out)
    assert code == 0 and doc["chosen"] == result.chosen
    assert all(r["cached"] for r in doc["strategies"]), "the library call stored every strategy"
    assert [r["memory"]["peak"] for r in doc["strategies"]] == [r.memory.peak for r in result.results]


@needs_matplotlib
@pytest.mark.parametrize(("name", "header"), [("cmp.png", b"\x89PNG\r\n\x1a\n"), ("cmp.svg", b"<?xml")])
def test_compare_plot_writes_png_and_svg(capsys, comparison, tmp_path, name, header):
    _, root = comparison
    path = tmp_path / name  # the directory must exist: --plot never makes one
    code, out, err = run(
        capsys,
        "compare",
        SCHOOLS,
        *SHAPE,
        "--memory-budget",
        "10KiB",
        "--run",
        "--plot",
        str(path),
        "--cache-dir",
        str(root),
    )
    assert code == 0, err
    data = path.read_bytes()
    assert data.startswith(header) and len(data) > 10_000
    if name.endswith(".svg"):
        assert b"<svg" in data and b"vmap" in data
    assert f"plot written to {path}" in err and "run" in out


@needs_matplotlib
def test_library_plot_has_peaks_and_times(comparison):
    result, _ = comparison
    figure = result.plot()
    peak_ax, time_ax = figure.axes
    assert [t.get_text() for t in peak_ax.get_yticklabels()] == [r.strategy for r in result.results]
    assert "budget 10.0 KiB" in [t.get_text() for t in figure.legends[0].get_texts()]
    assert "run time" in time_ax.get_xlabel()


def test_plot_without_matplotlib_is_one_line_before_any_work(capsys, monkeypatch, tmp_path, comparison):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    code, _, err = run(capsys, "compare", SCHOOLS, "--plot", str(tmp_path / "x.png"))
    assert code == 1
    assert err.strip() == 'pymc-aot: plotting needs matplotlib, which is not installed: pip install -e ".[plot]"'
    from pymc_aot.plot import PlotUnavailableError

    with pytest.raises(PlotUnavailableError, match=r"pip install -e \"\.\[plot\]\""):
        comparison[0].plot()


def test_plot_format_follows_the_extension(capsys, tmp_path):
    code, _, err = run(capsys, "compare", SCHOOLS, "--plot", str(tmp_path / "x.pdf"))
    assert code == 1 and ".png or .svg, got 'x.pdf'" in err and "loading" not in err


def test_precompile_result_shows_the_cli_row(capsys, schools, tmp_path):
    from pymc_aot import precompile

    root = str(tmp_path / "cache")
    assert run(capsys, "precompile", SCHOOLS, *SHAPE, "--strategy", "vmap", "--cache-dir", root)[0] == 0
    entry = precompile(schools, chains=2, draws=20, strategy="vmap", cache=root)
    code, out, _ = run(capsys, "precompile", SCHOOLS, *SHAPE, "--strategy", "vmap", "--cache-dir", root)
    row = str(entry).splitlines()[2]
    assert entry.cached and code == 0 and row in out.splitlines()
    assert repr(entry) == str(entry)
    html = entry._repr_html_()
    assert html.startswith('<table class="pymc-aot">') and entry.digest[:12] in html and "cached" in html
    assert f"2 chains x 20 draws; stored in {root}</caption>" in html, "the CLI's footer"


@needs_matplotlib
def test_plot_shows_inline_in_a_notebook(comparison):
    """As the last line of a cell the figure is a picture, also where pyplot was never imported."""
    figure = comparison[0].plot()
    if importlib.util.find_spec("IPython") is not None:
        from IPython.core.formatters import DisplayFormatter

        data, _ = DisplayFormatter().format(figure)
        png, svg = data.get("image/png"), data.get("image/svg+xml")
    else:
        png, svg = figure._repr_png_(), figure._repr_svg_()
    assert png is not None and png.startswith(b"\x89PNG") and len(png) > 10_000
    assert svg is not None and "<svg" in svg


def test_compare_says_a_rule_chose_and_shows_no_flops(comparison):
    table = comparison[0].table()
    assert "flops" not in table.headers, "XLA counts a loop body once: loops and vmap cannot be compared by flops"
    assert "by a rule, not by timing" in table.caption
