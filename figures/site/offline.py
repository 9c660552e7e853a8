"""The offline copy: `MHA_OFFLINE=1` builds a site that works opened from disk (file://), search
included, for a lecture hall without network.

Material's `offline` plugin does the work: links point at index.html files (use_directory_urls
off) and the search index is inlined as a script. It stays off unless MHA_OFFLINE=1, so the normal
build and its URLs never change. Its one request to a third-party host, the iframe-worker shim
that lets search run from file:// (browsers refuse a Web Worker there), is served from our own
copy (vendor/iframe-worker-shim.js, npm iframe-worker 1.0.4, MIT) instead.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

SHIM = "assets/vendor/iframe-worker-shim.js"  # the plugin adds no shim of its own once one is named
SHIM_SOURCE = Path(__file__).with_name("vendor") / "iframe-worker-shim.js"


def wanted() -> bool:
    """MHA_OFFLINE: "1" builds the offline copy, unset, "" or "0" the normal site."""
    value = os.environ.get("MHA_OFFLINE", "")
    if value not in ("", "0", "1"):
        raise PluginError(f"MHA_OFFLINE={value!r}: set it to 1 for the offline copy, or to 0 or nothing")
    return value == "1"


def configure(config) -> None:
    """Turn Material's offline plugin on (before it reads its own config), with our shim."""
    if not wanted():
        return
    plugin = config.plugins.get("material/offline") or config.plugins.get("offline")
    if plugin is None:
        raise PluginError("MHA_OFFLINE=1, but mkdocs.yml lists no `offline` plugin")
    plugin.config.enabled = True
    config.use_directory_urls = False  # the plugin does this too; static-i18n reads it before
    config.extra["polyfills"] = [SHIM]


def add_shim(files: Files, config) -> Files:
    """The shim as a site file, in the offline build only."""
    if wanted() and files.get_file_from_path(SHIM) is None:
        files.append(File.generated(config, SHIM, abs_src_path=str(SHIM_SOURCE)))
    return files


# Material's page script fetches each language's sitemap.xml for the <link rel="alternate"> tags in
# the head (to map a page to its twin); from file:// every fetch fails with a console error. The
# language menu's own links already name each page's twin, so the offline copy drops the tags.
ALTERNATE = re.compile(r'[ \t]*<link rel="alternate" href="[^"]*" hreflang="[^"]*">\n?')


def without_alternate_links(html: str) -> str:
    """The page's HTML for the offline copy: no head links that would fetch a sitemap."""
    return ALTERNATE.sub("", html) if wanted() else html
