"""The site's address and footer, set on MkDocs' config from pyproject.toml (figures/publish/identity.py),
their one home: what the hooks' on_config does for each language's build (figures/site/hooks.py). A
build at a placeholder address says so once, in a warning --strict does not count."""

from __future__ import annotations

import logging

from mkdocs.exceptions import PluginError


def identify(config, serving: bool) -> None:
    """The site's URL and footer come from IDENTITY (pyproject.toml), its one home; mkdocs.yml holds
    no second copy. `mkdocs serve` sets its own local site_url, which is kept. Material and
    static-i18n print config.site_url unescaped (the canonical link, the language menu, every link
    of 404.html), so it is set in the form a page writes (identity.attribute_url). In a release
    (`mike deploy`, identity.RELEASE_ENV) it is the release's own folder, site_url + "X.Y.Z/"."""
    try:
        from ..publish import identity
    except ValueError as e:  # identity.IdentityError: one line naming the value and where it came from
        raise PluginError(str(e)) from None
    from . import cite, offline  # after identity: both read it on import
    site_url = identity.attribute_url(identity.IDENTITY.site_url)
    if not serving:
        if config.site_url not in (None, site_url):  # the en build finds the zh build's value
            raise PluginError(f"site_url is set in pyproject.toml ([tool.mha-explained] site_url = "
                              f"{site_url!r}), not in mkdocs.yml (which says {config.site_url!r})")
        config.site_url = site_url
        tell_placeholder(identity)
    # Material's version selector and its banner on an earlier release; not in the offline copy of a
    # release (MHA_OFFLINE with MIKE_DOCS_VERSION: it cites the release, and has no versions.json)
    if identity.IDENTITY.release and not offline.wanted():
        config.extra["version"] = {"provider": "mike", "default": identity.LATEST, "alias": True}
    i18n = config.plugins["i18n"]  # its on_config, which picks the language, runs after this one
    lang = i18n.current_language or i18n.default_language
    root = offline.footer_root(lang, i18n.default_language)
    config.copyright = cite.footer(lang, root=root)  # the offline copy links its own licence files


_told = False  # on_config runs once per language: the line is said once


def tell_placeholder(identity) -> None:
    """A build at a placeholder address says so in one warning line, which --strict does not turn
    into a failure (a local build is fine without a real address); where a real one is required
    (identity.REQUIRE_SITE_URL_ENV, set by the publishing workflow), the build stops instead."""
    global _told
    notice = identity.placeholder_notice(identity.IDENTITY.site_url)
    if notice is None:
        return
    if identity.require_real_site_url():
        raise PluginError(f"{notice} ({identity.REQUIRE_SITE_URL_ENV} is set: this build is published)")
    if not _told:
        _told = True
        _uncounted_warning(notice)


def _uncounted_warning(message: str) -> None:
    """`message` as mkdocs prints a warning, on its console handler only: not through the "mkdocs"
    logger, whose handler counts warnings for --strict (mkdocs.yml sets strict: true)."""
    logger = logging.getLogger("mkdocs.plugins.figures.address")
    logger.propagate = False
    console = [h for h in logging.getLogger("mkdocs").handlers if h.get_name() == "MkDocsStreamHandler"]
    if not console:  # mkdocs run from Python, not its command line
        console = [logging.StreamHandler()]
        console[0].setFormatter(logging.Formatter("%(levelname)-8s-  %(message)s"))
    logger.handlers = console
    logger.warning(message)
