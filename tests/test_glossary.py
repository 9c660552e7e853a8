"""The glossary (docs/glossary.*.md): the same entries in both languages, each "first explained"
link landing on a real heading, and every content page linking its first use of each term.

What counts as a use of a term on a page: its name in the page's language (the glossary heading
gives both names) appears in the page's plain text, that is outside headings, figures, tables,
formulas, code, other links and the screen-or-print wording, and not as part of a longer term
("注意力" inside "多头注意力", "head" inside "head width"). English names match as whole words,
in any case, with a plural. A few names need more than that, in ALIASES and NOT_A_USE below.
"""

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import numpy as np
import pytest
from bs4 import NavigableString

from built_pages import parsed

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LANGS = ("zh", "en")
# the front page and pages 1-8: every page that teaches (reference, glossary, gallery and
# references only gather what these pages teach)
CONTENT = ["index.md", "one-head-blends.md", "slicing-the-width.md", "heads-side-by-side.md",
           "what-trained-heads-do.md", "concatenate-then-mix.md", "what-it-costs.md", "the-code.md",
           "attention-today.md"]

# Other ways the pages write a term (regular expressions, one list per language).
ALIASES = {
    "score": {"zh": ["打分"], "en": [r"scor(?:ed|ing)"]},
    "weighted-average": {"zh": ["加权求和"], "en": [r"weighted\s+sums?"]},
    "scaling": {"en": ["scaled"]},
    "single-head": {"zh": ["单头"], "en": ["single-head"]},
    "multi-head-attention": {"zh": ["多头"], "en": ["multi-head"]},
    "concatenation": {"en": [r"concatenat(?:e|es|ed|ing)"]},
    "h": {"en": [r"head\s+counts?"]},
    "position-head": {"en": [r"positional\s+heads?"]},
    "syntax-head": {"en": [r"syntactic\s+heads?"]},
    "rare-token-head": {"en": [r"rare-words?\s+heads?"]},
    "dependency": {"zh": ["依存"], "en": [r"dependenc(?:y|ies)"]},
    "pruning": {"zh": ["剪掉"], "en": [r"prun(?:e|es|ed)"]},
    "mask": {"en": [r"mask(?:ed|ing)"]},
    "kv-cache": {"en": [r"key/value\s+caches?", r"KV\s+caches?"]},
    "rope": {"zh": ["旋转位置编码", "RoPE"], "en": [r"rotary\s+position\s+embeddings?", "RoPE"]},
}
# A name that is also an everyday word: the senses that are not the term. In Chinese, 头 ends
# 开头, 回头, 两头, 从头 and 大头 (the larger share) and 箭头; 值 is part of 数值, 取值, 均值,
# 最大值 and 值得; 键 of 方向键 and 关键; 多头 (multi-head) of 许多头 (many heads). In English,
# the arrow keys are keys of a keyboard, and a hyphenated "-head" (multi-head, per-head,
# head-by-head) is an adjective, not a head.
NOT_A_USE = {
    "head": {"zh": r"(?:开|回|两|从|大|箭)头", "en": r"\bheads?-|-heads?\b"},
    "value": {"zh": r"(?:数|取|均|大)值|值得|值不值"},
    "key": {"zh": r"(?:方向|关)键", "en": r"arrow\s+keys"},
    "multi-head-attention": {"zh": "许多"},
}


@dataclass(frozen=True)
class Entry:
    id: str
    names: dict        # language -> the term's name ("查询", "query")
    symbol: str        # "$d_k$", or "" for a word


HEADING = re.compile(r"^### (?P<text>.+?) \{#(?P<id>[a-z0-9-]+)\}\s*$", re.M)


def entries(lang: str) -> list[Entry]:
    """The glossary's entries in page order: "### [$sym$ · ]own name[ · other name] {#id}"."""
    found = []
    for m in HEADING.finditer((DOCS / f"glossary.{lang}.md").read_text(encoding="utf-8")):
        parts = m["text"].split(" · ")
        symbol = parts.pop(0) if parts[0].startswith("$") else ""
        own, other = parts if len(parts) == 2 else parts * 2
        found.append(Entry(m["id"], {lang: own, ("en" if lang == "zh" else "zh"): other}, symbol))
    return found


def test_both_languages_list_the_same_entries_with_both_names_in_the_same_order():
    zh, en = entries("zh"), entries("en")
    assert len(zh) >= 40
    assert [e.id for e in zh] == [e.id for e in en]
    assert len({e.id for e in zh}) == len(zh)
    for a, b in zip(zh, en):
        assert a == b, f"#{a.id}: the zh page names it {a.names} {a.symbol}, the en page {b.names} {b.symbol}"
        assert re.search(r"[\u4e00-\u9fff]", a.names["zh"]) or a.names["zh"] == a.names["en"], a.id
    assert set(ALIASES) | set(NOT_A_USE) <= {e.id for e in zh}


def test_a_symbol_reads_as_text_in_the_table_of_contents(site):
    from figures.site.mathml import toc_title
    assert toc_title(r"\(d_\text{model}\) · 模型宽度") == "d_model · 模型宽度"
    assert toc_title(r"\(\alpha\) · blend ratio") == "α · blend ratio"
    assert toc_title(r"\(W^Q\)") == "W^Q"
    for lang in LANGS:
        toc = parsed(site / built("glossary.md", lang))
        titles = [a.get_text(" ", strip=True) for a in toc.select("nav.md-nav--secondary a")]
        assert "d_model · " in " ".join(titles) and not [t for t in titles if "\\" in t]


def test_the_glossary_is_in_the_nav_after_the_reference_page():
    nav = re.findall(r"^  - (\S+\.md)$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    assert nav[nav.index("reference.md") + 1] == "glossary.md"
    assert nav[:len(CONTENT)] == CONTENT  # the pages numbered 1 to 8 keep their numbers


# what a page uses, and where it links ---------------------------------------------------------
def _pattern(name: str, lang: str) -> str:
    """A name as a regular expression: "逐层相关性传播（LRP）" is either part; English as words."""
    abbreviation = re.search(r"\s*[（(]([A-Z]+)[）)]$", name)
    names = [name[:abbreviation.start()], abbreviation[1]] if abbreviation else [name]
    if lang == "zh":
        return "|".join(re.escape(n) for n in names)
    words = [r"\s+".join(re.escape(w) for w in n.split()) for n in names]
    # a consonant's y makes -ies (dependency, dependencies); a vowel's takes -s (key, keys)
    return "|".join(w[:-1] + "(?:y|ies)" if re.search(r"[^aeiou]y$", w) else w + "(?:s|es)?" for w in words)


def term_patterns(lang: str) -> dict[str, re.Pattern]:
    patterns = {}
    for e in entries(lang):
        alternatives = [_pattern(e.names[lang], lang)] + ALIASES.get(e.id, {}).get(lang, [])
        body = "|".join(f"(?:{a})" for a in alternatives)
        patterns[e.id] = re.compile(body if lang == "zh" else rf"(?<![\w-])(?:{body})(?![\w-])", re.I)
    return patterns


def uses(text: str, patterns: dict[str, re.Pattern], lang: str) -> list[tuple[int, int, str]]:
    """Every use of a term in `text`, as (start, end, term id): leftmost, longest first, so that a
    term inside a longer one is not a use ("注意力" in "多头注意力")."""
    found = [(m.start(), m.end(), term) for term, p in patterns.items() for m in p.finditer(text)]
    for term, rule in NOT_A_USE.items():
        if lang in rule:
            found += [(m.start(), m.end(), None) for m in re.finditer(rule[lang], text, re.I)]
    kept, end = [], 0
    for start, stop, term in sorted(found, key=lambda u: (u[0], u[0] - u[1])):
        if start >= end:
            kept.append((start, stop, term))
            end = stop
    return [u for u in kept if u[2]]


SKIP = "h1, h2, h3, h4, h5, h6, figure, table, pre, code, math, .mha-math, .mha-screen-only, .mha-print-only"


def text_runs(article, lang: str):
    """(text, the glossary term it links to or None) for every piece of plain text, in order,
    up to the page's end matter ("updated", "cite this page")."""
    skip = {id(el) for el in article.select(SKIP)}  # a Tag hashes by its whole markup: slow
    for node in article.descendants:
        if getattr(node, "get", None) and "mha-updated" in (node.get("class") or []):
            return
        if not isinstance(node, NavigableString) or not node.strip():
            continue
        parents = list(node.parents)
        if any(id(p) in skip for p in parents):
            continue
        link = next((p for p in parents if p.name == "a"), None)
        if link is None:
            yield str(node), None
        elif (target := glossary_link(link)) is not None:
            yield str(node), target  # the only links a term may be in


def glossary_link(a) -> str | None:
    """The entry a link goes to, if it goes to the glossary ("../glossary/#query" -> "query")."""
    url = urlparse(a.get("href", ""))
    return url.fragment if url.path.removesuffix("index.html").endswith("glossary/") else None


def built(page: str, lang: str) -> str:
    """"one-head-blends.md" -> "one-head-blends/index.html", under "en/" for English."""
    rel = "index.html" if page == "index.md" else f"{page.removesuffix('.md')}/index.html"
    return rel if lang == "zh" else f"en/{rel}"


def article(site: Path, page: str, lang: str):
    return parsed(site / built(page, lang)).select_one("article")


def first_uses(site: Path, page: str, lang: str) -> dict[str, tuple[str | None, str]]:
    """For each term the page uses: (the entry its first use links to or None, the words around it)."""
    patterns, first = term_patterns(lang), {}
    for text, link in text_runs(article(site, page, lang), lang):
        for start, stop, term in uses(text, patterns, lang):
            context = " ".join(text[max(0, start - 25):stop + 25].split())
            first.setdefault(term, (link, context))
    return first


def unlinked_first_uses(site: Path, page: str, lang: str) -> list[str]:
    return [f"{page} ({lang}) #{term}: “…{context}…”" + (f" links #{link}" if link else "")
            for term, (link, context) in first_uses(site, page, lang).items() if link != term]


@pytest.mark.parametrize("page", CONTENT)
def test_each_content_page_links_the_first_use_of_every_term_it_uses(site, page):
    for lang in LANGS:
        assert len(first_uses(site, page, lang)) >= 8  # the matching finds the terms at all
        missing = unlinked_first_uses(site, page, lang)
        assert not missing, "link these to glossary.md#<id>:\n" + "\n".join(missing)


def stray_links(site: Path, page: str, lang: str) -> list[str]:
    """Glossary links whose words are not a use of the entry they go to (or of no entry at all)."""
    patterns, ids, stray = term_patterns(lang), {e.id for e in entries(lang)}, []
    for a in article(site, page, lang).select("a[href]"):
        target = glossary_link(a)
        if target is None:
            continue
        text = a.get_text()
        if target not in ids or [u[2] for u in uses(text, patterns, lang)] != [target]:
            stray.append(f"{page} ({lang}): “{text}” -> #{target}")
    return stray


@pytest.mark.parametrize("page", CONTENT)
def test_every_glossary_link_on_a_page_names_the_entry_it_goes_to(site, page):
    for lang in LANGS:
        assert not stray_links(site, page, lang)


# the "first explained" links -------------------------------------------------------------------
LABEL = {"zh": "首次讲解：", "en": "First explained in "}


def _heading_text(el) -> str:
    return " ".join("".join(t for t in el.find_all(string=True) if not t.find_parent(class_="headerlink")).split())


def first_explained(site: Path, lang: str) -> list[tuple[str, str, str, str]]:
    """(entry id, the link's words, the heading it lands on as "page title · heading", or why not)."""
    page = site / built("glossary.md", lang)
    soup = parsed(page)
    found = []
    for h3 in soup.select("article h3[id]"):
        links = []
        for sib in h3.find_next_siblings():
            if sib.name in ("h2", "h3") or "mha-updated" in (sib.get("class") or []):
                break
            if sib.name == "p" and " ".join(sib.get_text().split()).startswith(LABEL[lang].strip()):
                links += sib.select("a[href]")
        if len(links) != 1:
            found.append((h3["id"], "", f"{len(links)} first-explained links"))
            continue
        url = urlparse(links[0]["href"])
        target = (page.parent / url.path).resolve()
        target = target / "index.html" if target.is_dir() else target
        if not target.is_file() or not url.fragment:
            found.append((h3["id"], links[0].get_text(), f"no page {url.path}#{url.fragment}"))
            continue
        there = parsed(target)
        heading = there.select_one(f"article #{url.fragment}")
        if heading is None or heading.name not in ("h2", "h3", "h4"):
            found.append((h3["id"], links[0].get_text(), f"no heading #{url.fragment} in {url.path}"))
            continue
        found.append((h3["id"], _heading_text(links[0]), f"{_heading_text(there.select_one('article h1'))} · "
                                                        f"{_heading_text(heading)}"))
    return found


def test_every_first_explained_link_lands_on_the_heading_it_names(site):
    for lang in LANGS:
        found = first_explained(site, lang)
        assert [f[0] for f in found] == [e.id for e in entries(lang)]
        wrong = [f"#{term} ({lang}): “{words}” -> {landing}" for term, words, landing in found if words != landing]
        assert not wrong, "\n".join(wrong)


# what the definitions say, against mha_ref -----------------------------------------------------
def test_what_the_definitions_say_holds_in_mha_ref():
    from mha_ref import costs, roles
    from mha_ref.example import toy
    from mha_ref.attention import mha_trace, softmax
    t, n = toy.trace(), len(toy.TOKENS)
    weights = {name: t.weights[toy.head_index(name)] for name in ("position", "syntax", "rare", "diffuse")}
    # softmax, attention weight: rows never negative, summing to one, blind to a constant added
    s = np.array([[2.0, -1.0, 0.5], [30.0, 29.0, -4.0]])
    assert (softmax(s) >= 0).all() and np.allclose(softmax(s).sum(-1), 1)
    assert np.allclose(softmax(s + 7.5), softmax(s))
    # score, scaling: the scores are the dot products divided by sqrt(d_k)
    assert np.allclose(t.scores, t.q @ np.swapaxes(t.k, -1, -2) / np.sqrt(toy.D_K))
    # weighted average: each head's output is its row of weights applied to its values
    assert np.allclose(t.heads, t.weights @ t.v)
    # concatenation: h heads of width d_v back to d_model; W^O: the sum of the heads' row blocks
    h = t.heads.shape[0]
    assert t.concat.shape[-1] == h * t.heads.shape[-1] == toy.D_MODEL
    p = toy.params()
    blocks = sum(t.heads[i] @ p.w_o[i * toy.D_K:(i + 1) * toy.D_K] for i in range(h))
    assert np.allclose(t.concat @ p.w_o, blocks)
    # parameter count 4 d_model^2 + 4 d_model and multiply-adds whatever h; weight table h n^2
    for d_model in (8, 64, 768):
        heads = [h for h in range(1, d_model + 1) if d_model % h == 0]
        assert {costs.param_count(d_model, h) for h in heads} == {4 * d_model ** 2 + 4 * d_model}
        assert len({costs.multiply_adds(100, d_model, h) for h in heads}) == 1
        assert all(costs.attention_weights(100, h) == h * 100 ** 2 for h in heads)
    # mask, causal mask: a masked key gets a weight of exactly zero
    causal = np.tril(np.ones((n, n), dtype=bool))
    masked = mha_trace(toy.inputs(), p, h, mask=causal).weights
    assert (masked[:, ~causal] == 0).all() and np.allclose(masked.sum(-1), 1)
    # position head: the previous token, the first token itself; rare-token head: cat, the rarest
    assert list(roles.top_keys(weights["position"])) == [0] + list(range(n - 1))
    assert {toy.TOKENS[k] for k in roles.top_keys(weights["rare"])} == {"cat"}
    assert roles.rarest_token(toy.TOKENS, toy.FREQUENCIES) == "cat"
    # syntax head: its top key is each token's dependency target
    assert (roles.top_keys(weights["syntax"]) == toy.targets("syntax")).all()
    # diffuse head: largest weight barely above 1/n; removing it barely moves the output
    assert 1 / n < weights["diffuse"].max() < 1.1 / n
    loss = toy.ablation()
    assert loss[toy.head_index("diffuse")] < 0.05 * min(loss[toy.head_index(x)] for x in ("position", "syntax", "rare"))
    # confidence: a head's largest weight at each query, averaged over the queries
    assert roles.confidence(weights["syntax"]) == pytest.approx(weights["syntax"].max(-1).mean())
