"""Page 4's trained figures and sections: what they draw is the trained model's numbers, and every
claim their captions and text make about the trained heads holds on the unrounded values."""

import math

import matplotlib.pyplot as plt
import numpy as np
import pytest

from mha_ref.tiny import corpus, trained
from mha_ref import models, roles
from figures.engine import registry

LANGS = ("zh", "en")


def _fig(fig_id, value=None, lang="en"):
    fig = registry.get(fig_id).draw(lang, value)
    plt.close(fig)
    return fig


# what the figures draw ----------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("head", range(trained.train.CONFIG.h))
def test_trained_maps_draw_the_heads_weights_beside_its_partner(lang, head):
    from mha_ref.example import toy
    left, right = _fig("trained-maps", head, lang).axes
    np.testing.assert_array_equal(left.images[0].get_array(), trained.weights(0)[head])
    partner = trained.partner(trained.heads()[head])
    np.testing.assert_array_equal(right.images[0].get_array(), toy.trace().weights[toy.head_index(partner)])
    assert str(head) in left.get_title(loc="left")


@pytest.mark.parametrize("lang", LANGS)
def test_trained_roles_bars_are_the_measured_shares_and_labels_the_roles(lang):
    from figures.gallery import trained_roles
    ax = _fig("trained-roles", lang=lang).axes[0]
    heads = trained.heads()
    for k, measure in enumerate(trained_roles.MEASURES):
        drawn = [bar.get_height() for bar in ax.containers[k]]
        assert drawn == [trained_roles.shares(h)[measure] for h in heads]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    for h, label in zip(heads, labels):
        assert (h.roles == ()) == (label.endswith("none") or label.endswith("无"))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("sentence", range(6))
def test_trained_lines_are_each_heads_top_key(lang, sentence):
    ax = _fig("trained-position-vs-rare", sentence, lang).axes[0]
    top = trained.weights(sentence).argmax(axis=-1)
    assert len(ax.lines) == top.shape[0]
    for h, line in enumerate(ax.lines):
        x, y = line.get_data()
        assert list(x) == list(range(1, top.shape[1]))
        assert list(y) == list(top[h, 1:])


@pytest.mark.parametrize("lang", LANGS)
def test_trained_pruning_draws_the_pruning_steps(lang):
    left, right = _fig("trained-pruning", lang=lang).axes[:2]
    steps = trained.pruning()
    assert list(left.lines[0].get_ydata()) == [s.loss for s in steps]
    for q, line in zip(corpus.QUESTIONS, right.lines):
        assert list(line.get_ydata()) == [s.accuracy[q] for s in steps]


# the measures themselves ----------------------------------------------------------------------------
def test_roles_are_met_by_the_papers_bars_and_at_least_two_emerge():
    assert len(trained.roles_emerged()) >= 2  # at least two of the three roles
    for h in trained.heads():
        assert ("rare" in h.roles) == (h.rare_share >= roles.ROLE_BARS["rare"].share)
        assert ("positional" in h.roles) == (h.offset_share >= roles.ROLE_BARS["positional"].share)


def test_best_fixed_offset_is_the_best_of_every_offset():
    for r in trained.RELATIONS:
        pairs = trained.relation_pairs(r)
        offset, share = trained.best_fixed_offset(r)
        for o in range(-corpus.MAX_LEN, corpus.MAX_LEN):
            assert np.mean([k - q == o for _, q, k in pairs]) <= share
        assert np.mean([k - q == offset for _, q, k in pairs]) == share


def test_pruning_removes_the_cheapest_head_at_each_step():
    steps = trained.pruning()
    assert steps[0].removed is None and len(steps) == trained.train.CONFIG.h + 1
    assert sorted(s.removed for s in steps[1:]) == list(range(trained.train.CONFIG.h))
    means = trained.mean_outputs()
    for before, after in zip(steps, steps[1:]):
        gone = tuple(s.removed for s in steps[1:steps.index(after)])
        for h in before.kept:
            if h != after.removed:
                assert trained._evaluate(gone + (h,), means)[0] >= after.loss


# claims of the captions and the page ----------------------------------------------------------------
def test_the_syntactic_head_looks_at_the_subject_from_every_word():
    # trained-maps caption: "from every word at the subject noun"; text: "each head took one question";
    # trained-position-vs-rare caption: "level too", for every held-out query
    h = trained.with_role("syntactic")[0]
    assert trained.subject_share(h) == 1.0


def test_the_rare_head_fills_the_rare_words_column():
    h = trained.heads()[trained.with_role("rare")[0]]
    assert h.rare_share >= 0.9


def test_each_head_took_one_question():
    # four distinct jobs: the syntactic head, the rare head, one step back, one step ahead
    jobs = [trained.with_role("syntactic")[0], trained.with_role("rare")[0],
            trained.neighbour_head(-1).head, trained.neighbour_head(1).head]
    assert sorted(jobs) == list(range(trained.train.CONFIG.h))


def test_the_neighbour_heads_mostly_look_next_door_but_fall_short_of_the_positional_bar():
    bar = roles.ROLE_BARS["positional"].share
    for offset in (-1, 1):
        h = trained.neighbour_head(offset)
        assert 0.5 < h.offset_share < bar  # "mostly", "a little short"
        assert h.offset_share > bar - 0.1
        assert "positional" not in h.roles


def test_the_previous_word_head_clears_the_bar_past_the_first_word_and_never_looks_back_at_it():
    h = trained.neighbour_head(-1).head
    assert trained.share_past_first_word(h, -1) >= roles.ROLE_BARS["positional"].share  # "at least"
    assert trained.share_at_first_word(h, -1) < trained.neighbour_head(-1).offset_share
    # why: the answer at the first word is always the start symbol
    b = corpus.batch(list(trained.held_out()))
    assert set(b.previous[:, 1]) == {corpus.INDEX[corpus.BOS]}


def test_the_syntactic_head_beats_every_fixed_offset_on_the_antecedent_only():
    # "syntactic, through coreference": it passes on the antecedent, and falls under the bar on the
    # one dependency relation, nsubj
    h = trained.heads()[trained.with_role("syntactic")[0]]
    assert h.relation_share["antecedent"] >= trained.best_fixed_offset("antecedent")[1] + trained.SYNTAX_MARGIN
    assert h.relation_share["antecedent"] >= trained.syntactic_bar("antecedent")
    assert h.relation_share["nsubj"] < trained.syntactic_bar("nsubj")
    assert trained.syntactic_bar("nsubj") == max(SYNTACTIC_BAR, trained.best_fixed_offset("nsubj")[1] + SYNTAX_MARGIN)


@pytest.mark.parametrize("sentence", range(6))
def test_lines_caption_level_and_diagonal_in_every_frame(sentence):
    top = trained.weights(sentence).argmax(axis=-1)[:, 1:]  # queries after the start symbol
    s = trained.held_out()[sentence]
    assert set(top[trained.with_role("rare")[0]]) == {s.rare}  # a level line at the rare word
    syntactic = top[trained.with_role("syntactic")[0]]
    assert set(syntactic) == {s.subject}  # "level too", at the subject
    q = np.arange(1, len(s.words))
    assert np.mean(top[trained.neighbour_head(-1).head] == q - 1) >= 0.5  # a step below the diagonal
    assert np.mean(top[trained.neighbour_head(1).head] == q + 1) >= 0.5  # a step above


def test_pruning_claims():
    steps = trained.pruning()
    losses = [s.loss for s in steps]
    assert all(b > a for a, b in zip(losses, losses[1:]))  # "every later step raises the loss further"
    assert steps[-1].removed == trained.with_role("rare")[0]  # the last head left is the rare-word head
    assert steps[1].removed == trained.with_role("syntactic")[0]  # the first to go: the subject pointer
    assert steps[1].accuracy["subject"] < 0.5  # the subject question mostly lost with the first head
    assert steps[-2].accuracy["rare"] >= 0.9  # alone, it still names the rare animal
    # "most of their encoder heads"
    assert models.VOITA_ENCODER_HEADS - models.VOITA_PRUNED["heads_kept"] > models.VOITA_ENCODER_HEADS / 2


def test_the_corpus_shape_the_page_describes():
    # "exactly one rare animal", "it stands for the subject of the first clause" (its first noun,
    # after a determiner), "<s>" first
    for s in trained.held_out():
        assert s.words[0] == corpus.BOS and s.words[1] in corpus.DETS
        assert sum(w in corpus.RARE for w in s.words) == 1
        assert s.words[s.pronoun] == corpus.IT
        assert s.subject == next(i for i, w in enumerate(s.words) if w in corpus.NOUNS)


@pytest.mark.parametrize("lang", LANGS)
def test_trained_maps_table_names_each_heads_top_key_and_its_weight(lang):
    from figures.gallery import trained_maps
    _, rows = trained_maps.data(lang)
    w = trained.weights(trained_maps.SENTENCE)
    words = trained.tokens(trained_maps.SENTENCE)
    assert len(rows) == len(words)
    for q, row in enumerate(rows):
        for h, cell in enumerate(row[1:]):
            k = int(w[h, q].argmax())
            assert cell == f"{k} {words[k]} ({w[h, q, k]:.2f})"


# checks that derive their expectation by hand, not from the helper the code uses -----------------------
def _usual_offset_by_hand(head: int, lang: str) -> str:
    """The offset a head's top key takes most often over the held-out queries (the start symbol left
    out), counted with a plain loop, as the table prints it: "tied" when two offsets share the most."""
    counts: dict[int, int] = {}
    for i in range(len(trained.held_out())):
        w = trained.weights(i)[head]
        for q in range(1, len(w)):
            o = int(np.argmax(w[q])) - q
            counts[o] = counts.get(o, 0) + 1
    most = max(counts.values())
    usual = [o for o, c in counts.items() if c == most]
    if len(usual) > 1:
        return {"zh": "并列", "en": "tied"}[lang]
    return f"{usual[0]:+d}" if usual[0] else "0"


@pytest.mark.parametrize("lang", LANGS)
def test_trained_roles_table_prints_each_heads_usual_offset_counted_by_hand(lang):
    from figures.gallery import trained_roles
    _, rows = trained_roles.data(lang)
    for h in range(trained.train.CONFIG.h):
        assert rows[h][0] == str(h)
        assert rows[h][3] == _usual_offset_by_hand(h, lang), f"head {h}"


# the syntactic role: our bar of half the relation's queries, and 10 points above what the best fixed
# offset scores on that relation (mha_ref/tiny/trained.py's docstring); written out here, not read from
# the code, so that a rule changed in the code shows up as a failure
SYNTACTIC_BAR = 0.5
SYNTAX_MARGIN = 0.10


def _relation_pairs_by_hand() -> dict[str, list[tuple[int, int, int]]]:
    """(sentence, query, related word) per relation, from the sentences' own fields: `it` -> the
    subject noun; the first verb -> the subject noun, the second verb -> `it`."""
    pairs = {"antecedent": [], "nsubj": []}
    for i, s in enumerate(trained.held_out()):
        pairs["antecedent"].append((i, s.pronoun, s.subject))
        pairs["nsubj"] += [(i, s.verbs[0], s.subject), (i, s.verbs[1], s.pronoun)]
    return pairs


def _best_fixed_share_by_hand(pairs) -> float:
    offsets = [k - q for _, q, k in pairs]
    return max(offsets.count(o) for o in set(offsets)) / len(offsets)


def _syntactic_by_hand(shares: dict[str, float], best: dict[str, float]) -> bool:
    return any(shares[r] >= SYNTACTIC_BAR and shares[r] >= best[r] + SYNTAX_MARGIN for r in shares)


def test_the_rule_and_the_code_name_the_same_bar_and_margin():
    assert roles.ROLE_BARS["syntactic"].share == SYNTACTIC_BAR
    assert trained.SYNTAX_MARGIN == pytest.approx(SYNTAX_MARGIN)


@pytest.fixture
def hand_built_heads(monkeypatch):
    """trained.heads() measuring four hand-built heads (one-hot weights on the held-out sentences)
    instead of the trained model's: previous word; the subject noun; nsubj for a share of the verbs
    between the best fixed offset's and 10 points above it (itself elsewhere); nsubj for every verb."""
    import types
    sentences = trained.held_out()
    pairs = _relation_pairs_by_hand()
    best = {r: _best_fixed_share_by_hand(p) for r, p in pairs.items()}
    nsubj = pairs["nsubj"]
    k = math.ceil((best["nsubj"] + SYNTAX_MARGIN / 2) * len(nsubj))
    partly = {(i, q): t for i, q, t in nsubj[:k]}
    every = {(i, q): t for i, q, t in nsubj}
    w = np.zeros((len(sentences), 4, corpus.MAX_LEN, corpus.MAX_LEN))
    for i, s in enumerate(sentences):
        for q in range(len(s.words)):
            w[i, 0, q, max(q - 1, 0)] = 1
            w[i, 1, q, s.subject] = 1
            w[i, 2, q, partly.get((i, q), q)] = 1
            w[i, 3, q, every.get((i, q), q)] = 1
    shares = []
    for h in range(4):
        shares.append({r: float(np.mean([w[i, h, q].argmax() == t for i, q, t in p])) for r, p in pairs.items()})
    # the two heads the margin is for: past half the verbs, not 10 points past the best fixed offset
    for h in (0, 2):
        assert SYNTACTIC_BAR <= shares[h]["nsubj"] < best["nsubj"] + SYNTAX_MARGIN, (h, shares[h], best)
    monkeypatch.setattr(trained, "model", lambda: types.SimpleNamespace(h=4))
    monkeypatch.setattr(trained, "_weights", lambda: w)
    trained._top_keys.cache_clear()
    trained.heads.cache_clear()
    yield shares, best
    trained._top_keys.cache_clear()  # nothing hand-built may reach a later test
    trained.heads.cache_clear()


def test_a_head_past_half_but_not_10_points_past_the_best_fixed_offset_is_not_syntactic(hand_built_heads):
    shares, best = hand_built_heads
    got = trained.heads()
    for h, head in enumerate(got):
        assert head.relation_share == pytest.approx(shares[h]), h
    verdicts = [("syntactic" in head.roles) for head in got]
    assert verdicts == [_syntactic_by_hand(s, best) for s in shares]
    assert verdicts == [False, True, False, True], (verdicts, shares, best)


def test_the_trained_heads_syntactic_verdicts_by_hand():
    """Each trained head is syntactic exactly when the rule, counted by hand, says so; and the
    previous-word head, which passes half the verbs only by looking one step back, is not."""
    pairs = _relation_pairs_by_hand()
    best = {r: _best_fixed_share_by_hand(p) for r, p in pairs.items()}
    verdicts = []
    for h in range(trained.train.CONFIG.h):
        shares = {r: float(np.mean([trained.weights(i)[h, q].argmax() == t for i, q, t in p]))
                  for r, p in pairs.items()}
        verdicts.append(_syntactic_by_hand(shares, best))
        assert ("syntactic" in trained.heads()[h].roles) == verdicts[-1], (h, shares, best)
    assert sum(verdicts) == 1
    previous = max(range(trained.train.CONFIG.h), key=lambda h: np.mean(
        [trained.weights(i)[h, q].argmax() == q - 1 for i in range(len(trained.held_out()))
         for q in range(1, len(trained.tokens(i)))]))
    prev_nsubj = np.mean([trained.weights(i)[previous, q].argmax() == t for i, q, t in pairs["nsubj"]])
    assert prev_nsubj >= SYNTACTIC_BAR  # what makes the margin matter: half the verbs, one step back
    assert not verdicts[previous]
