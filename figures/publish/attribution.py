"""What a figure file says about itself: its title, figure number, page, licence and version.

A frame is drawn once and cached without any attribution (figures/engine/); the attribution is
stamped into the bytes when the file is written (stamp.py), by the site build and by the CLI alike,
so both write the same bytes, and a figure that gets a new number or moves to another page is not
drawn again.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from ..engine import registry
from ..engine.render import Frame
from ..kit.words import FIGURE_LABEL, LANGS
from ..text.constructs import expand_values, first_sentence, plain, python_constant
from . import expansions
from .expansions import CAPTIONS
from .identity import IDENTITY, licence_name


WORDS = {
    "zh": {"unnumbered": "图（未编号）", "of": "{figure}，出自《{site}》：{url}",
           "licence": "采用 {licence} 许可（{url}），署名：{authors}", "version": "版本 {}", "unreleased": "（非正式发布的构建，地址不固定）",
           "latest": "，最新版：{}"},
    "en": {"unnumbered": "Figure (unnumbered)", "of": "{figure} of {site}: {url}",
           "licence": "Licensed {licence} ({url}); attribute to {authors}", "version": "version {}", "unreleased": " (a build, not a release: the address is not frozen)",
           "latest": "; newest version: {}"},
}
# the line to paste under a reused figure: title, author, source and licence, as Creative Commons asks
CREDIT = {"zh": "{figure}，出自《{site}》（{authors}），{licence} 许可，{url}",
          "en": "{figure} from “{site}” by {authors}, {licence}, {url}"}


class Attribution(NamedTuple):
    title: str         # "图 1.2 一个头只能混合", the number and the caption's first sentence
    description: str   # figure, site, page URL, frame, licence and version, in one paragraph
    source: str        # the page that explains the figure, with #fig-<id>
    rights: str        # licence, its URL and whom to credit
    identifier: str    # "<id>/<frame slug>@<version>"
    lang: str
    keywords: str      # for the PDF's Keywords


def page_url(nav_entry: str, lang: str) -> str:
    """The full URL of a page ("one-head-blends.md") in a language; the first language sits at the root."""
    path = "" if nav_entry == "index.md" else nav_entry.removesuffix(".md") + "/"
    return IDENTITY.site_url + ("" if lang == LANGS[0] else f"{lang}/") + path


def caption(fig_id: str, lang: str, where: str = "") -> str:
    """The figure's caption for a language, numbers filled in, as Markdown (screen/print spans
    expanded: a caption says what the frames show in print, not how to move the slider). An error
    names the line of the figure module the caption is written on, and `where` it is placed."""
    mod = registry.get(fig_id)
    name = "CAPTION_ZH" if lang == "zh" else "CAPTION_EN"
    return _expanded(getattr(mod, name), getattr(mod, "__file__", None), name, fig_id, lang, where)


@lru_cache(maxsize=None)  # every frame's file carries its caption; serve re-imports this module after an edit
def _expanded(text: str, module_file: str | None, name: str, fig_id: str, lang: str, where: str) -> str:
    """The caption expanded, kept on disk (expansions.py: captions/) under its text and the code's
    digest: a build in which neither changed computes none of its numbers."""
    path = Path(module_file).resolve() if module_file else None
    file = registry.module_name(fig_id) if path is None else \
        path.relative_to(registry.ROOT).as_posix() if path.is_relative_to(registry.ROOT) else str(path)
    what = f"caption of figure {fig_id!r} ({lang})" + (f", placed at {where}" if where else "")
    # `where` names the place only in an error, which is never kept: a page's lines moving by a
    # prose edit do not expand its captions again
    return expansions.kept(CAPTIONS, (text, file, name, fig_id, lang),
                           lambda: expand_values(python_constant(text, path, name, file, what)).text,
                           "an expanded caption", figures=(fig_id,))


def _first_sentence(text: str) -> str:
    """A caption's first sentence, as plain text in its print wording (a file taken away is read
    as on paper): its title."""
    return first_sentence(plain(text, media="print"))


def _figure_and_source(fig_id: str, lang: str, number) -> tuple[str, str]:
    """"图 1.2" and the URL of the figure on the page that explains it (the site's for an unplaced one)."""
    figure = FIGURE_LABEL[lang].format(number.number) if number else WORDS[lang]["unnumbered"]
    return figure, (page_url(number.home, lang) if number else IDENTITY.site_url) + f"#fig-{fig_id}"


def figure_url(fig_id: str, lang: str, number) -> str:
    """The figure's address on the page that explains it (the site's for an unplaced one): in a
    release, this release's frozen one."""
    return _figure_and_source(fig_id, lang, number)[1]


def _release_words(w: dict, source: str) -> str:
    """After the version: in a release, the newest version's address of the same figure (`source`
    being this release's, frozen); in any other build, that it is none (its address is not frozen)."""
    if IDENTITY.release is None:
        return w["unreleased"]
    return w["latest"].format(IDENTITY.latest(source))


def credit_line(fig_id: str, lang: str, number) -> str:
    """The credit a lecturer pastes under the figure on a slide. number: numbering.FigureNumber or None."""
    figure, source = _figure_and_source(fig_id, lang, number)
    return CREDIT[lang].format(figure=figure, site=IDENTITY.title[lang], authors=", ".join(IDENTITY.authors),
                               licence=licence_name(IDENTITY.content_licence), url=source)


def frame_words(frame: Frame, lang: str) -> str:
    """Which frame of its figure this is: its place and its value ("第 2/6 帧：4 · it", "frame 2 of
    6: 4 · it"); "" for a figure of one frame."""
    control = registry.get(frame.fig_id).CONTROL
    if control is None or frame.slug is None:
        return ""
    k, n, value = list(control.values).index(frame.value) + 1, len(control.values), control.value_label(frame.value, lang)
    return f"第 {k}/{n} 帧：{value}" if lang == "zh" else f"frame {k} of {n}: {value}"


def attribution(frame: Frame, lang: str, number) -> Attribution:
    """What a file of this frame says about itself. number: numbering.FigureNumber or None (unplaced)."""
    w = WORDS[lang]
    figure, source = _figure_and_source(frame.fig_id, lang, number)
    title = f"{figure} {_first_sentence(caption(frame.fig_id, lang))}"
    shown = frame_words(frame, lang)
    shown = (f"（{shown}）" if lang == "zh" else f" ({shown})") if shown else ""
    rights = w["licence"].format(licence=IDENTITY.content_licence, url=IDENTITY.content_licence_url,
                                 authors=", ".join(IDENTITY.authors))
    version = w["version"].format(IDENTITY.version) + _release_words(w, source)
    description = (w["of"].format(figure=figure + shown, site=IDENTITY.title[lang], url=source)
                   + ("。" if lang == "zh" else ". ") + rights + ("；" if lang == "zh" else "; ") + version)
    identifier = f"{frame.fig_id}/{frame.slug or frame.fig_id}@{IDENTITY.version}"
    keywords = "; ".join([frame.fig_id, IDENTITY.content_licence, source, f"v{IDENTITY.version}"])
    return Attribution(title, description, source, rights, identifier, lang, keywords)
