"""No axe-core violation (minor, moderate, serious or critical) on any page, in both languages: on a desktop
in the light scheme, and on a phone (its own layout: the drawer, the narrow figures) in both. A module of its own, a
class per language: the longest browser check, its two halves run beside the others when the suite runs in several
processes (pytest-xdist's loadscope hands out each class as a whole).
Skipped without chromium or Playwright, except under CI, where that fails."""

import os

import pytest

from side_by_side import SideBySide
from test_reader import LANG_ROOT, PAGES

AXE = "axe-core@4.14.1"  # from the npm registry at test time, kept in .cache/npm/; never committed


@pytest.fixture(scope="module")
def axe_source():
    from figures.site.offline import NpmError, npm_file
    try:
        return npm_file(AXE, "axe.min.js").read_text(encoding="utf-8")
    except NpmError as e:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run axe-core: {e}")
        pytest.skip(str(e))


# a desktop, and a phone (its own layout: the drawer, the narrow figures) in both schemes
AXE_CONFIGS = [(1280, "light"), (390, "light"), (390, "dark")]
IMPACTS = ["minor", "moderate", "serious", "critical"]  # every one: a header read as empty is "minor"


@pytest.fixture(scope="class")
def axe_found(request, browser, served, axe_source):
    """Every page's axe violations in each configuration, in the class's language: a tab per
    configuration, the tabs loading each page and running axe side by side (tests/side_by_side.py)."""
    lang = request.cls.LANG
    tabs = SideBySide(browser, {(w, s): {"viewport": {"width": w, "height": 900}, "color_scheme": s}
                                for w, s in AXE_CONFIGS})
    found = {config: [] for config in AXE_CONFIGS}
    # the 404 page, and the worker's offline page of each language (served here as a file)
    for path in PAGES + (["404.html"] if lang == "zh" else []) + ["offline.html"]:
        tabs.goto(served + LANG_ROOT[lang] + path, wait_until="networkidle")
        for tab in tabs.tabs.values():
            tab.add_script_tag(content=axe_source)
        for config, violations in tabs.evaluate("""async (IMPACTS) =>
            (await axe.run(document, {resultTypes: ['violations']})).violations
            .filter(v => IMPACTS.includes(v.impact))
            .map(v => `${v.id} (${v.impact}) ${v.nodes[0].target.join(' ')}: ${v.nodes[0].failureSummary}`)""",
                                               IMPACTS).items():
            found[config] += [f"{LANG_ROOT[lang] + path}: {v}" for v in violations]
    tabs.close()
    return found


class TestChinesePages:
    LANG = "zh"

    @pytest.mark.parametrize("width, scheme", AXE_CONFIGS)
    def test_axe_finds_no_violation_on_any_page(self, axe_found, width, scheme):
        found = axe_found[width, scheme]
        assert found == [], "\n".join(found[:20])


class TestEnglishPages(TestChinesePages):
    LANG = "en"
