"""A figure's own code that runs in the build's process, not in a drawing process (its import, its
data() and readout()), is held to the same time limit as a frame (figures/engine/registry.limited):
code still running then is stopped and named, with where it was, instead of hanging the build or
`mkdocs serve`. Each test makes the code loop for ever and watches the limit stop it."""

import signal
import sys
import threading
import time

import pytest

from figures.engine import registry
from figures.engine.registry import FigureError
from figures.publish import bundles
from figures.site import figure_block
from figures.keep import disk

LIMIT = 0.25
HANGS = "x = 0\nwhile True:\n    x += 1\n"  # a figure module whose import never ends (lines 2-3 loop)


@pytest.fixture(autouse=True)
def tables_computed_afresh():
    """data_table keeps each table for the build: these tests change data() under it."""
    bundles.data_table.cache_clear()
    yield
    bundles.data_table.cache_clear()


@pytest.fixture
def short_limit(monkeypatch):
    monkeypatch.setenv("MHA_FIGURE_TIMEOUT", str(LIMIT))


@pytest.fixture
def hanging_figure(tmp_path, monkeypatch):
    """'hangs-on-import': a registered id whose module loops for ever when imported, as a file of the
    checkout (so that the error can say where)."""
    (tmp_path / "hangs_on_import.py").write_text(HANGS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "ORDER", [*registry.ORDER, "hangs-on-import"])
    monkeypatch.setattr(registry, "module_name", lambda fig_id: fig_id.replace("-", "_"))
    monkeypatch.setattr(registry, "ROOT", tmp_path)
    return "hangs-on-import"


def _forever(*args):
    while True:
        pass


def _stopped(call):
    """call()'s FigureError, and how long it ran."""
    started = time.monotonic()
    with pytest.raises(FigureError) as caught:
        call()
    return caught.value, time.monotonic() - started


def _after_the_limit(seconds):
    # a little more than the limit: a busy machine runs the handler late, but never minutes late
    assert LIMIT <= seconds < LIMIT + 20


def test_an_import_that_never_ends_is_stopped_and_named_with_its_line(short_limit, hanging_figure):
    error, seconds = _stopped(lambda: registry.get(hanging_figure))
    _after_the_limit(seconds)
    said = (f"figure 'hangs-on-import' (every language, every frame) failed to import: still running after "
            f"{LIMIT:g} s (the limit, MHA_FIGURE_TIMEOUT), so it was stopped (hangs_on_import.py, line ")
    assert error.headline in (said + "2)", said + "3)")  # the loop's test or its body
    assert "hangs_on_import" not in sys.modules  # not half-imported: the next build tries again


def _table_not_kept(monkeypatch) -> None:
    """A figure's data() patched in this process: its sources, which name its kept table, did not change."""
    monkeypatch.setenv(disk.CACHE_ENV, "0")


def test_a_data_table_that_never_ends_is_stopped_and_named(short_limit, monkeypatch):
    _table_not_kept(monkeypatch)
    monkeypatch.setattr(registry.get("peak-dip"), "data", _forever)
    error, seconds = _stopped(lambda: bundles.data_table("peak-dip", "zh"))
    _after_the_limit(seconds)
    assert error.headline.startswith("figure 'peak-dip' (zh, every frame) failed to give its data table: still "
                                     f"running after {LIMIT:g} s (the limit, MHA_FIGURE_TIMEOUT), so it was stopped")
    # the CSV download is refused the same way, and under serve simply left out
    with pytest.raises(FigureError, match="failed to give its data table: still running"):
        bundles.write_tables(["zh"], ["peak-dip"], lambda *args: None)
    assert bundles.write_tables(["zh"], ["peak-dip"], lambda *args: None, keep_going=True) == 0


def test_a_data_table_that_raises_is_named_once(monkeypatch):
    def broken(lang):
        raise ZeroDivisionError("on purpose")

    _table_not_kept(monkeypatch)
    monkeypatch.setattr(registry.get("peak-dip"), "data", broken)
    with pytest.raises(FigureError) as caught:
        bundles.write_tables(["en"], ["peak-dip"], lambda *args: None)
    assert caught.value.headline.startswith(
        "figure 'peak-dip' (en, every frame) failed to give its data table: ZeroDivisionError: on purpose")


def _placed(fig_id, show_failures):
    return figure_block.figure_html(fig_id, "en", 1, lambda path: "../figures/" + path, where="page.md",
                                    show_failures=show_failures)


@pytest.mark.parametrize("name", ["readout", "data"])
def test_a_placed_figure_whose_code_never_ends_is_an_error_card_under_serve(short_limit, monkeypatch, name):
    fig_id = "width-slices"  # a slider with a readout under each frame, and a data table
    mod = registry.get(fig_id)
    assert callable(getattr(mod, name))
    _table_not_kept(monkeypatch)
    monkeypatch.setattr(mod, name, _forever)
    stage = {"readout": "give its readout", "data": "give its data table"}[name]
    with pytest.raises(FigureError, match=f"failed to {stage}: still running after"):
        _placed(fig_id, show_failures=False)  # a build stops, naming it
    card = _placed(fig_id, show_failures=True)  # serve shows the failure where the figure goes
    assert f'id="fig-{fig_id}"' in card and f"failed to {stage}: still running after" in card


def test_code_that_ends_in_time_leaves_no_timer_and_the_handler_as_it_was(short_limit):
    before = signal.getsignal(signal.SIGALRM)
    with registry.limited("peak-dip", "en", "import"):
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0  # the limit runs while the code does
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is before
    time.sleep(LIMIT * 2)  # nothing fires later


def test_without_a_limit_or_outside_the_main_thread_the_code_runs_unwatched(monkeypatch):
    monkeypatch.setenv("MHA_FIGURE_TIMEOUT", "0")
    with registry.limited("peak-dip", "en", "import"):
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    monkeypatch.setenv("MHA_FIGURE_TIMEOUT", str(LIMIT))
    timers = []

    def elsewhere():
        with registry.limited("peak-dip", "en", "import"):
            timers.append(signal.getitimer(signal.ITIMER_REAL))

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert timers == [(0.0, 0.0)]  # a signal reaches only the main thread: no limit there
