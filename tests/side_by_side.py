"""Browser tabs driven side by side: one tab per configuration (viewport, colour scheme), each
opened in it from the start and sent to the same address with the others, so that one tab's
loading, scripts and network-idle wait overlap the others' instead of following them. What each
tab sees is what a tab of its own would see: it is loaded in its configuration, as before."""

from __future__ import annotations


class SideBySide:
    def __init__(self, browser, configs: dict):
        """configs: name -> the keyword arguments of browser.new_page (viewport, color_scheme...)."""
        self.tabs = {name: browser.new_page(**kwargs) for name, kwargs in configs.items()}

    def goto(self, url, wait_until: str = "networkidle") -> None:
        """Every tab to url (or url(name), a function), as page.goto(url, wait_until=...) does, the
        loads running together."""
        for name, tab in self.tabs.items():
            tab.goto(url(name) if callable(url) else url, wait_until="commit")
        for tab in self.tabs.values():
            tab.wait_for_load_state(wait_until)

    def evaluate(self, script: str, arg=None) -> dict:
        """page.evaluate(script, arg) in every tab, an async script running in all at once: by name."""
        for tab in self.tabs.values():
            tab.evaluate(f"arg => {{ window.__sideBySide = Promise.resolve(({script})(arg)); }}", arg)
        return {name: tab.evaluate("() => window.__sideBySide") for name, tab in self.tabs.items()}

    def close(self) -> None:
        for tab in self.tabs.values():
            tab.close()
