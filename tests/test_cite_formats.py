""""Cite this page" in its three formats (figures/site/cite.py) for hand-made pages and a fixed
identity: exact strings, BibTeX read back with pybtex. test_cite.py checks the built pages."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pybtex.database import parse_string

import identities
from figures.site import cite

ID = identities.ID
ZH = cite.PageCitation("zh", "one-head-blends", "一个头只能混合", "https://x.example/repo/one-head-blends/",
                       "2025-03-07", ID, translated="One head can only blend")
EN = cite.PageCitation("en", "index", "Multi-head attention, explained", "https://x.example/repo/en/",
                       "2025-12-31", ID)


# ---- GB/T 7714-2015 ---------------------------------------------------------------------------

def test_gbt7714_zh():
    assert cite.gbt7714(ZH) == ("mha-explained contributors. 一个头只能混合[EB/OL]. 1.2.0版. "
                                "(2025-03-07)[YYYY-MM-DD]. https://x.example/repo/one-head-blends/.")


def test_gbt7714_en():
    assert cite.gbt7714(EN) == ("mha-explained contributors. Multi-head attention, explained[EB/OL]. Version 1.2.0. "
                                "(2025-12-31)[YYYY-MM-DD]. https://x.example/repo/en/.")


# ---- APA 7 ------------------------------------------------------------------------------------

def test_apa7_zh():
    assert cite.apa7(ZH) == ("mha-explained contributors. (2025, March 7). 一个头只能混合 [One head can only blend] "
                             "(Version 1.2.0). 多头注意力. Retrieved Month D, YYYY, from "
                             "https://x.example/repo/one-head-blends/")


def test_apa7_en():
    assert cite.apa7(EN) == ("mha-explained contributors. (2025, December 31). Multi-head attention, explained "
                             "(Version 1.2.0). Multi-head attention, explained. Retrieved Month D, YYYY, from "
                             "https://x.example/repo/en/")


@pytest.mark.parametrize("date, says", [("2024-01-01", "(2024, January 1)"), ("2024-02-29", "(2024, February 29)"),
                                        ("2030-10-09", "(2030, October 9)")])
def test_apa7_date_has_the_month_by_name_and_no_leading_zero(date, says):
    c = cite.PageCitation("en", "x", "T", "https://x.example/x/", date, ID)
    assert f". {says}. T (Version" in cite.apa7(c)


# ---- BibTeX -----------------------------------------------------------------------------------

BIB_ZH = r"""@misc{mha-explained-one-head-blends-zh,
  title   = "{一个头只能混合}",
  author  = "{mha-explained contributors}",
  url     = "https://x.example/repo/one-head-blends/",
  urldate = "YYYY-MM-DD",
  note    = "多头注意力，版本 1.2.0，更新于 2025-03-07",
  year    = "2025"
}"""

BIB_EN = r"""@misc{mha-explained-index-en,
  title   = "{Multi-head attention, explained}",
  author  = "{mha-explained contributors}",
  url     = "https://x.example/repo/en/",
  urldate = "YYYY-MM-DD",
  note    = "Multi-head attention, explained, version 1.2.0, updated 2025-12-31",
  year    = "2025"
}"""


@pytest.mark.parametrize("c, expected", [(ZH, BIB_ZH), (EN, BIB_EN)], ids=["zh", "en"])
def test_bibtex_exact(c, expected):
    assert cite.bibtex(c) == expected
    assert "{{" not in cite.bibtex(c)  # the site would read it as a construct left unexpanded


@pytest.mark.parametrize("c", [ZH, EN], ids=["zh", "en"])
def test_bibtex_parses_with_pybtex(c):
    data = parse_string(cite.bibtex(c), "bibtex")
    (key, entry), = data.entries.items()
    assert key == f"mha-explained-{c.slug}-{c.lang}" and entry.type == "misc"
    assert entry.fields["title"] == "{" + c.title + "}"
    assert [str(p) for p in entry.persons["author"]] == ["{mha-explained contributors}"]  # one organisation
    assert entry.fields["url"] == c.url and "howpublished" not in entry.fields  # biblatex would print the URL twice
    assert entry.fields["urldate"] == "YYYY-MM-DD" and entry.fields["year"] == c.date[:4]


SPECIAL = 'A~B^C & 50% #1 a_b {x} $y$ "q"'
SPECIAL_TEX = r'A\textasciitilde{}B\textasciicircum{}C \& 50\% \#1 a\_b \{x\} \$y\$ {"}q{"}'


def test_tex_escapes_each_special_character():
    assert cite._tex(SPECIAL) == SPECIAL_TEX
    for char, escaped in [("~", r"\textasciitilde{}"), ("^", r"\textasciicircum{}"), ("&", r"\&"), ("%", r"\%"),
                          ("#", r"\#"), ("_", r"\_"), ("$", r"\$"), ('"', '{"}')]:
        assert cite._tex(f"a{char}b") == f"a{escaped}b"
    assert cite._tex("{}") == r"\{\}"
    assert cite._tex("中文，标点；") == "中文，标点；"


def test_special_characters_in_title_and_authors_survive_a_bibtex_parser():
    ident = replace(ID, authors=("Zhang San", "O'Neil & Co_"))
    c = cite.PageCitation("en", "x", SPECIAL, "https://x.example/repo/en/x/", "2020-01-02", ident)
    entry = parse_string(cite.bibtex(c), "bibtex").entries["mha-explained-x-en"]
    assert entry.fields["title"] == "{" + SPECIAL_TEX + "}"
    assert [str(p) for p in entry.persons["author"]] == ["{Zhang San}", r"{O'Neil \& Co\_}"]
    assert cite.bibtex(c).count(" and ") == 1


def test_a_backslash_becomes_textbackslash():
    assert cite._tex(r"C:\path") == r"C:\textbackslash{}path"


@pytest.mark.parametrize("title", ["a { b", "a } b"])
def test_a_lone_brace_still_parses(title):
    c = cite.PageCitation("en", "x", title, "https://x.example/x/", "2020-01-02", ID)
    parse_string(cite.bibtex(c), "bibtex")


# ---- the section, the meta tags, the footer ---------------------------------------------------------

def test_the_section_in_english_exact():
    assert cite.markdown(EN) == "\n".join([
        "", "",
        "Updated 2025-12-31 · v1.2.0",
        "{: .mha-updated }",
        "",
        "## Cite this page {#cite data-search-exclude }",
        "",
        "This is a build, not a release: the address below shows whatever the site holds now and changes with it; "
        "no frozen address exists.",
        "{: .mha-cite-where }",
        "",
        "`YYYY-MM-DD` and `Month D, YYYY` stand for the day you read the page (GB/T 7714's access date, APA's "
        "retrieval date, BibTeX's urldate); with scripts on, the page has filled in today's date, and print keeps "
        "the placeholders.",
        "",
        "**GB/T 7714-2015**", "", "```text", cite.gbt7714(EN), "```", "",
        "**APA 7**", "", "```text", cite.apa7(EN), "```", "",
        "**BibTeX**", "", "```bibtex", BIB_EN, "```", "",
    ])


def test_a_release_cites_its_frozen_address_with_the_newest_beside_it():
    """.github/CONTRIBUTING.md, "Releases": the release's own folder in every form, the same page in `latest` beside it."""
    released = replace(ID, site_url="https://x.example/repo/1.2.0/", release="1.2.0", home_url="https://x.example/repo/")
    for c, frozen, living in ((replace(EN, url="https://x.example/repo/1.2.0/en/", identity=released),
                               "https://x.example/repo/1.2.0/en/", "https://x.example/repo/latest/en/"),
                              (replace(ZH, url="https://x.example/repo/1.2.0/one-head-blends/", identity=released),
                               "https://x.example/repo/1.2.0/one-head-blends/", "https://x.example/repo/latest/one-head-blends/")):
        text = cite.markdown(c)
        where = text.split("\n{: .mha-cite-where }")[0].rsplit("\n", 1)[1]
        assert where.index(f"<{frozen}>") < where.index(f"<{living}>") and "v1.2.0" in where
        assert "not a release" not in text and "不是正式发布" not in text
        assert cite.gbt7714(c).endswith(f" {frozen}.") and cite.apa7(c).endswith(f"from {frozen}")
        assert f'url     = "{frozen}"' in cite.bibtex(c) and living not in cite.bibtex(c)
        assert (cite.meta(c)["url"], cite.meta(c)["latest"]) == (frozen, living)
    assert cite.meta(EN)["latest"] is None  # no release: no newest to name


def test_the_section_in_chinese_has_the_same_id_and_its_own_words():
    text = cite.markdown(ZH)
    assert text.startswith("\n\n更新于 2025-03-07 · v1.2.0\n{: .mha-updated }\n\n## 引用本页 {#cite data-search-exclude }\n")
    assert ("`YYYY-MM-DD` 与 `Month D, YYYY` 处填你读到本页的日期（GB/T 7714 的引用日期，APA 的检索日期，BibTeX 的 "
            "urldate）；开着脚本时，页面已替你填上今天的日期；打印出来的仍是占位符。") in text
    assert f"```bibtex\n{BIB_ZH}\n```" in text


def test_meta_tags_for_scholar_and_zotero():
    assert cite.meta(ZH) == {
        "title": "一个头只能混合", "authors": ["mha-explained contributors"], "date": "2025/03/07",
        "language": "zh", "url": "https://x.example/repo/one-head-blends/", "latest": None,
        "licence_url": "https://creativecommons.org/licenses/by/4.0/",
    }


@pytest.mark.parametrize("spdx, name", [("CC-BY-4.0", "CC BY 4.0"), ("CC-BY-SA-4.0", "CC BY SA 4.0"),
                                        ("MIT", "MIT"), ("Apache-2.0", "Apache-2.0")])
def test_licence_names(spdx, name):
    assert cite.licence_name(spdx) == name


def test_footer_in_both_languages_escapes_the_authors():
    ident = replace(ID, authors=("A & B", "<C>"))
    assert cite.footer("en", ident) == (
        'Text and figures: <a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>; code: '
        '<a href="https://opensource.org/license/mit">MIT</a> · A &amp; B, &lt;C&gt; · '
        '<a href="https://github.com/o/r">Source code</a>')
    assert cite.footer("zh", ID) == (
        '文字与图采用 <a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a> 许可，代码采用 '
        '<a href="https://opensource.org/license/mit">MIT</a> 许可 · mha-explained contributors · '
        '<a href="https://github.com/o/r">源代码</a>')


def test_a_page_is_dated_by_its_own_file_its_figures_and_mha_ref():
    assert cite.page_sources("one-head-blends.en.md", ["figures.gallery.blend_slider", "figures.gallery.peak_dip"]) == [
        "docs/one-head-blends.en.md", "figures/gallery/blend_slider.py", "figures/gallery/peak_dip.py", "mha_ref"]
    assert cite.page_sources("index.zh.md", []) == ["docs/index.zh.md", "mha_ref"]


def test_without_git_the_fallback_date_is_cited(tmp_path):
    assert cite.last_changed(tmp_path, ["docs/index.zh.md"], "2026-11-30") == "2026-11-30"


def test_a_chinese_page_is_translated_by_its_english_twins_title(tmp_path):
    (tmp_path / "x.zh.md").write_text("# 一个头 {#x}\n\n正文\n", encoding="utf-8")
    (tmp_path / "x.en.md").write_text("# One head {#x}\n\nText\n", encoding="utf-8")
    assert cite.english_title(str(tmp_path / "x.zh.md")) == "One head"
    (tmp_path / "x.en.md").write_text("No title\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"x\.en\.md: a page starts with its title"):
        cite.english_title(str(tmp_path / "x.zh.md"))
