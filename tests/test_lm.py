"""The masked language model (mha_ref.tiny.lm), its training (lm_train) and its language (language).

Every backward step of lm.py (lm_backward.py) is checked against central finite differences in float64, as
test_backward.py checks the attention's: layer norm, the MLP, the embeddings, the cross-entropy, the
gated attention (gates included), a whole block, and the whole model on a tiny configuration. A
wrong factor (a missing 1 / n in the layer norm's mean, say) is far outside RTOL.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from mha_ref.tiny import arithmetic, language, lm, lm_backward, lm_train
from figures.keep import disk, tiny_lm
from test_backward import ATOL, RTOL, numeric_grad

TINY = lm.Config(d_model=8, h=4, layers=2, d_ff=12, dtype="float64")  # d_k = 2; 2 layers x 4 heads, as the real model
SMALL = lm_train.LMTrainConfig(model=TINY, train_sentences=120, held_out=12, steps=6, batch=16)
SENTENCES = language.sentences(400, 7)


def tiny_model(seed=0) -> lm.Model:
    """A tiny model with every weight random (gains and biases too, so none sits at a special value)."""
    m = lm.init(TINY, seed)
    rng = np.random.default_rng(seed + 100)
    return lm.replace_arrays(m, [a + 0.3 * rng.standard_normal(a.shape) for a in lm.arrays(m)])


def tiny_batch(seed=0, count=3) -> lm.Batch:
    return lm.masked_batch(SENTENCES[10 * seed: 10 * seed + count], np.random.default_rng(seed))


def assert_matches(analytic, loss, array, name, entries=None):
    numeric = numeric_grad(loss, array, entries)
    if entries is None:
        np.testing.assert_allclose(analytic, numeric, rtol=RTOL, atol=ATOL, err_msg=name)
    else:
        for e in entries:
            np.testing.assert_allclose(analytic[e], numeric[e], rtol=RTOL, atol=ATOL, err_msg=f"{name} {e}")


# --------------------------------------------------------------------------------------------
# each backward step against finite differences
# --------------------------------------------------------------------------------------------

def test_layer_norm_backward():
    rng = np.random.default_rng(1)
    x, d_y = rng.standard_normal((2, 3, 8)), rng.standard_normal((2, 3, 8))
    norm = lm.Norm(rng.standard_normal(8), rng.standard_normal(8))

    def loss():
        return float(np.sum(lm.layer_norm(x, norm)[0] * d_y))

    d_norm, d_x = lm_backward.layer_norm_backward(norm, lm.layer_norm(x, norm)[1], d_y)
    assert_matches(d_norm.gain, loss, norm.gain, "gain")
    assert_matches(d_norm.bias, loss, norm.bias, "bias")
    assert_matches(d_x, loss, x, "x")


def test_mlp_backward():
    rng = np.random.default_rng(2)
    x, d_out = rng.standard_normal((2, 3, 8)), rng.standard_normal((2, 3, 8))
    p = lm.MLP(rng.standard_normal((8, 12)), rng.standard_normal(12), rng.standard_normal((12, 8)),
               rng.standard_normal(8))

    def loss():
        return float(np.sum(lm.mlp(x, p)[0] * d_out))

    d_p, d_x = lm_backward.mlp_backward(x, p, lm.mlp(x, p)[1], d_out)
    assert (lm.mlp(x, p)[1].u < 0).any() and (lm.mlp(x, p)[1].u > 0).any()  # ReLU cuts some, passes some
    for name in lm.MLP._fields:
        assert_matches(getattr(d_p, name), loss, getattr(p, name), name)
    assert_matches(d_x, loss, x, "x")


def test_embed_backward_adds_up_repeated_tokens():
    m = tiny_model()
    tokens = np.array([[5, 6, 5, language.EOS], [7, 5, language.EOS, language.PAD]])
    d_x = np.random.default_rng(3).standard_normal((*tokens.shape, TINY.d_model))

    def loss():
        return float(np.sum((m.embed[tokens] + m.position[: tokens.shape[1]]) * d_x))

    d_embed, d_position = lm_backward.embed_backward(m, tokens, d_x)
    assert_matches(d_embed, loss, m.embed, "embed", [(t, j) for t in (5, 6, 7, 8) for j in range(TINY.d_model)])
    assert_matches(d_position, loss, m.position, "position")
    np.testing.assert_allclose(d_embed[5], d_x[0, 0] + d_x[0, 2] + d_x[1, 1])  # three times token 5


def test_cross_entropy_backward_and_ignored_positions():
    rng = np.random.default_rng(4)
    logits = rng.standard_normal((2, 4, 7))
    targets = np.array([[3, lm.IGNORE, 0, lm.IGNORE], [lm.IGNORE, 6, lm.IGNORE, lm.IGNORE]])
    loss_value, d_logits = lm.cross_entropy(logits, targets)
    assert_matches(d_logits, lambda: lm.cross_entropy(logits, targets)[0], logits, "logits")
    assert np.all(d_logits[targets == lm.IGNORE] == 0)
    # the mean of -log softmax at the three targets, written out
    p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    assert loss_value == pytest.approx(-np.mean([np.log(p[0, 0, 3]), np.log(p[0, 2, 0]), np.log(p[1, 1, 6])]))


def gated_case(seed=5):
    """a [2, 5, 8], params, keys with the second sentence padded after 3 tokens, gates, d_out."""
    m = tiny_model(seed)
    rng = np.random.default_rng(seed)
    a, d_out = rng.standard_normal((2, 5, 8)), rng.standard_normal((2, 5, 8))
    real = np.array([[True] * 5, [True] * 3 + [False] * 2])
    keys = np.broadcast_to(real[:, None, :], (2, 5, 5))
    gates = rng.uniform(0.2, 1.5, TINY.h)
    return m.layers[0].mha, a, keys, gates, d_out


def test_gated_attention_backward_gates_included():
    p, a, keys, gates, d_out = gated_case()

    def loss():
        return float(np.sum(lm.gated_attention(a, p, TINY.h, keys, gates)[0] * d_out))

    t = lm.gated_attention(a, p, TINY.h, keys, gates)[1]
    d_p, d_gates, d_a = lm_backward.gated_attention_backward(a, p, TINY.h, t, gates, d_out)
    for name, w, g in zip(p._fields, p, d_p):
        assert_matches(g, loss, w, name)
    assert_matches(d_gates, loss, gates, "gates")
    assert_matches(d_a, loss, a, "a")


def test_block_backward():
    m = tiny_model(6)
    _, x, keys, gates, d_out = gated_case(6)
    layer = m.layers[1]

    def loss():
        return float(np.sum(lm.block(x, layer, TINY.h, keys, gates)[0] * d_out))

    d_layer, d_gates, d_x = lm_backward.block_backward(layer, TINY.h, lm.block(x, layer, TINY.h, keys, gates)[1], gates, d_out)
    for w, g in zip(lm.arrays(layer), lm.arrays(d_layer), strict=True):
        assert_matches(g, loss, w, "a weight of the block")
    assert_matches(d_gates, loss, gates, "gates")
    assert_matches(d_x, loss, x, "x")


def test_whole_model_gradient_and_gate_gradient():
    m, b = tiny_model(7), tiny_batch(1)
    gates = np.random.default_rng(7).uniform(0.5, 1.5, (TINY.layers, TINY.h))
    _, grads, d_gates = lm_backward.loss_and_grads(m, b, gates)

    def loss():
        return lm_backward.loss_and_grads(m, b, gates)[0]

    names = list(lm.named_arrays(m))
    assert list(lm.named_arrays(grads)) == names  # the gradients have the model's shape of tree
    rng = np.random.default_rng(0)
    for name, a, g in zip(names, lm.arrays(m), lm.arrays(grads), strict=True):
        assert g.shape == a.shape, name
        # the entries of largest gradient, and some drawn at random (zeros too: unused words' rows)
        largest = np.argsort(np.abs(g), axis=None)[-3:]
        drawn = rng.choice(a.size, size=3, replace=False)
        entries = [np.unravel_index(k, a.shape) for k in {*largest.tolist(), *drawn.tolist()}]
        assert name.endswith(".b_k") or np.abs(g).max() > 1e-4, f"{name} gets no gradient: the check would be empty"
        assert_matches(g, loss, a, name, entries)
    assert d_gates.shape == (TINY.layers, TINY.h)
    assert_matches(d_gates, loss, gates, "gates")


# --------------------------------------------------------------------------------------------
# shapes, padding, gates
# --------------------------------------------------------------------------------------------

def test_shapes():
    m, b = tiny_model(), tiny_batch(count=5)
    batch, n = b.inputs.shape
    t = lm.forward(m, b.inputs, b.real)
    assert len(t.weights) == TINY.layers
    assert all(w.shape == (batch, TINY.h, n, n) for w in t.weights)
    assert t.logits.shape == (batch, n, len(language.VOCAB))
    s = SENTENCES[0]
    maps = lm.attention_maps(m, s)
    assert maps.shape == (TINY.layers, TINY.h, len(s.tokens), len(s.tokens))
    np.testing.assert_allclose(maps.sum(axis=-1), 1.0)


def test_padding_is_never_attended_and_changes_nothing():
    m = tiny_model()
    items = SENTENCES[:6]
    tokens, real = lm.pad(items)
    assert not real.all()  # some padding to ignore
    t = lm.forward(m, tokens, real)
    for w in t.weights:
        assert np.all(w[np.broadcast_to(~real[:, None, None, :], w.shape)] == 0)
    for i, s in enumerate(items):  # each sentence alone, unpadded: the same numbers at its tokens
        alone = lm.forward(m, s.tokens[None], np.ones((1, len(s.tokens)), dtype=bool))
        n = len(s.tokens)
        np.testing.assert_allclose(t.logits[i, :n], alone.logits[0], rtol=1e-10, atol=1e-12)
        for w, w_alone in zip(t.weights, alone.weights):
            np.testing.assert_allclose(w[i, :, :n, :n], w_alone[0], rtol=1e-10, atol=1e-12)


def test_a_closed_gate_removes_its_head_and_open_gates_are_the_default():
    m, b = tiny_model(), tiny_batch()
    default = lm.forward(m, b.inputs, b.real).logits
    np.testing.assert_array_equal(lm.forward(m, b.inputs, b.real, np.ones((TINY.layers, TINY.h))).logits, default)
    gates = np.ones((TINY.layers, TINY.h))
    gates[1, 2] = 0
    # the same as taking head 2's rows out of layer 1's W_O
    d_k = TINY.d_model // TINY.h
    w_o = m.layers[1].mha.w_o.copy()
    w_o[2 * d_k: 3 * d_k] = 0
    layer = m.layers[1]._replace(mha=m.layers[1].mha._replace(w_o=w_o))
    cut = m._replace(layers=(m.layers[0], layer))
    np.testing.assert_allclose(lm.forward(m, b.inputs, b.real, gates).logits,
                               lm.forward(cut, b.inputs, b.real).logits, rtol=1e-12, atol=1e-12)
    assert not np.allclose(lm.forward(m, b.inputs, b.real, gates).logits, default)


def test_masking_never_masks_eos_or_padding_and_masks_every_sentence():
    tokens, real = lm.pad(SENTENCES)
    b = lm.mask_tokens(tokens, real, np.random.default_rng(0))
    masked = b.inputs == language.MASK
    assert np.array_equal(masked, b.targets != lm.IGNORE)
    assert np.array_equal(b.targets[masked], tokens[masked])
    assert np.array_equal(b.inputs[~masked], tokens[~masked])
    assert not (masked & ~real).any() and not (masked & (tokens == language.EOS)).any()
    assert masked.any(axis=1).all()
    share = masked.sum() / (real & (tokens != language.EOS)).sum()
    assert lm.MASK_RATE <= share <= lm.MASK_RATE + 0.05  # the rate, plus the sentences given one


def test_evaluate_masks_each_token_alone_and_counts_each_relation():
    m, items = tiny_model(), SENTENCES[:20]
    e = lm.evaluate(m, items, chunk=64)
    # the same numbers the long way: each token masked in its own forward pass
    right, losses, by_relation = [], [], {}
    for s in items:
        for j in range(len(s.tokens) - 1):
            inputs = s.tokens.copy()
            inputs[j] = language.MASK
            logits = lm.forward(m, inputs[None], np.ones((1, len(inputs)), dtype=bool)).logits[0, j]
            log_p = logits - np.log(np.sum(np.exp(logits)))
            right.append(int(np.argmax(logits)) == s.tokens[j])
            losses.append(-log_p[s.tokens[j]])
            for a in s.arcs:
                if a.dependent == j:
                    by_relation.setdefault(a.relation, []).append(right[-1])
    assert e.accuracy == pytest.approx(np.mean(right))
    assert e.loss == pytest.approx(np.mean(losses))
    assert e.per_relation == pytest.approx({r: np.mean(v) for r, v in by_relation.items()})
    assert {len(v) for v in by_relation.values()} == {sum(a.relation == r for s in items for a in s.arcs)
                                                      for r in by_relation}  # each arc's dependent masked once


# --------------------------------------------------------------------------------------------
# training: determinism, the digest, the disk cache
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "float32"])  # the tests' and training's
def test_the_same_seed_trains_the_same_weights(dtype):
    config = SMALL._replace(model=TINY._replace(dtype=dtype))
    first, again, other = (lm_train.train(config, s) for s in (0, 0, 1))
    for a, b in zip(lm.arrays(first.model), lm.arrays(again.model), strict=True):
        assert a.dtype == b.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(first.losses, again.losses)
    assert not np.array_equal(first.model.embed, other.model.embed)
    assert np.all(np.isfinite(first.losses)) and len(first.losses) == SMALL.steps


def test_training_lowers_the_loss():
    t = lm_train.train(SMALL._replace(steps=60, learning_rate=1e-2), 0)
    assert t.losses[-10:].mean() < t.losses[:10].mean() - 0.5


def test_batches_cover_every_sentence_once_a_pass_with_similar_lengths():
    lengths = np.array([len(s.tokens) for s in SENTENCES])
    order = lm_train.batch_order(lengths, 16, np.random.default_rng(0))
    assert sorted(np.concatenate(order).tolist()) == list(range(len(SENTENCES)))
    assert max(len(b) for b in order) == 16
    spread = np.mean([np.ptp(lengths[b]) for b in order])
    assert spread <= 1.0 < np.ptp(lengths)  # a batch is about one length, the pass is not


def test_learning_rate_warms_up_then_falls_to_a_tenth():
    c = SMALL._replace(steps=50, warmup=10, learning_rate=1.0)
    rates = [lm_train.learning_rate(c, s) for s in range(c.steps)]
    assert rates[0] == pytest.approx(0.1) and rates[9] == pytest.approx(1.0)
    assert rates[-1] == pytest.approx(0.1) and max(rates) == pytest.approx(1.0)
    assert all(a <= b for a, b in zip(rates[:10], rates[1:10])) and all(a >= b for a, b in zip(rates[9:], rates[10:]))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    monkeypatch.setenv(disk.UNWRITABLE_ENV, "")
    tiny_lm._trained.cache_clear()
    yield tmp_path / "trained-lm"
    tiny_lm._trained.cache_clear()


def test_trained_keeps_the_weights_and_loads_them_without_training(cache, monkeypatch):
    t = tiny_lm.trained(1, SMALL)
    path = disk.sealed_path(cache / f"{tiny_lm.weights_digest(SMALL, 1)}.npz")
    assert path.is_file() and tiny_lm.weights_digest(SMALL, 1) != tiny_lm.weights_digest(SMALL, 0)
    tiny_lm._trained.cache_clear()
    monkeypatch.setattr(arithmetic, "pinned_here", lambda: True)  # training would call the stub in this process
    monkeypatch.setattr(lm_train, "train", lambda *a: pytest.fail("trained again"))
    loaded = tiny_lm.trained(1, SMALL)
    assert loaded is not t and loaded.seed == 1
    for a, b in zip(lm.arrays(t.model), lm.arrays(loaded.model), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(t.losses, loaded.losses)


def test_damaged_weights_are_dropped_and_trained_again(cache, caplog):
    t = tiny_lm.trained(0, SMALL)
    path = disk.sealed_path(cache / f"{tiny_lm.weights_digest(SMALL, 0)}.npz")
    path.write_bytes(path.read_bytes()[:500])  # truncated
    tiny_lm._trained.cache_clear()
    again = tiny_lm.trained(0, SMALL)
    np.testing.assert_array_equal(again.model.embed, t.model.embed)
    assert [r.getMessage() for r in caplog.records if r.name == disk.log.name] == [
        f"figure cache: {path}, trained weights, is damaged (its bytes do not match the digest kept with them): "
        "dropped, making it again"]


def test_two_seeds_weights_swapped_are_dropped_and_trained_again(cache, caplog):
    trained = [tiny_lm.trained(seed, SMALL) for seed in (0, 1)]
    paths = [disk.sealed_path(cache / f"{tiny_lm.weights_digest(SMALL, seed)}.npz") for seed in (0, 1)]
    data = [p.read_bytes() for p in paths]
    paths[0].write_bytes(data[1])  # each a whole, valid file of weights, but the other seed's
    paths[1].write_bytes(data[0])
    tiny_lm._trained.cache_clear()
    for seed, t in zip((0, 1), trained):
        np.testing.assert_array_equal(tiny_lm.trained(seed, SMALL).model.embed, t.model.embed)
    assert [r.getMessage() for r in caplog.records if r.name == disk.log.name] == [
        f"figure cache: {p}, trained weights, holds a file kept under another name (moved or swapped): "
        "dropped, making it again" for p in paths]
    for p in paths:  # trained again, and kept under the right name
        disk.unseal(p.read_bytes(), p.with_suffix(""))


def test_prepare_trains_and_measures_every_seed_unless_the_cache_cannot_be_written(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(tiny_lm, "seed_heads", lambda seed: calls.append(seed))
    monkeypatch.setenv(disk.CACHE_ENV, str(tmp_path))
    monkeypatch.setenv(disk.UNWRITABLE_ENV, str(tmp_path))
    tiny_lm.prepare()
    assert calls == []  # kept nowhere: each frame does the work itself
    monkeypatch.setenv(disk.UNWRITABLE_ENV, "")
    tiny_lm.prepare()
    # the seeds side by side, each measured once, through every head (which trains it)
    assert sorted(calls) == sorted(lm_train.SEEDS)
    assert len(lm_train.SEEDS) >= 5
    calls.clear()
    monkeypatch.setenv(disk.CACHE_ENV, "0")  # kept in memory, where figures.engine.render runs it
    tiny_lm.prepare()
    assert sorted(calls) == sorted(lm_train.SEEDS)


def test_the_digest_changes_with_the_configuration_and_seed():
    digests = {tiny_lm.weights_digest(c, s) for c, s in ((SMALL, 0), (SMALL, 1), (SMALL._replace(steps=7), 0),
                                                      (SMALL._replace(model=TINY._replace(d_ff=16)), 0))}
    assert len(digests) == 4


# A fresh process in a copy of the checkout: SMALL's digest for seed 0 after each edit (each undone
# before the next), as JSON.
DIGESTS_AFTER_EDITS = f"""
import json, sys
from pathlib import Path
from figures.keep import tiny_lm
from mha_ref.tiny.lm import Config
from mha_ref.tiny.lm_train import LMTrainConfig
digests = []
for file, old, new in json.loads(sys.argv[1]):
    path = Path(file)
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (file, old)
    path.write_text(text.replace(old, new), encoding="utf-8")
    tiny_lm.weights_digest.cache_clear()
    digests.append(tiny_lm.weights_digest({SMALL!r}, 0))
    path.write_text(text, encoding="utf-8")
print(json.dumps(digests))
"""

EDITS = [  # (file, old, new, whether the digest must change)
    ("mha_ref/tiny/lm_backward.py", "return d_z * (u > 0)", "return d_z * (u >= 0)", True),  # the MLP's backward
    ("mha_ref/tiny/language.py", "< 0.35)]", "< 0.36)]", True),  # how often a noun is plural
    ("mha_ref/tiny/lm_train.py", "return config.learning_rate * (0.1 + 0.9 * left)",
     "return config.learning_rate * (0.2 + 0.8 * left)", True),
    ("mha_ref/tiny/lm_train.py", "m_hat = m / (1 - self.b1 ** self.t)", "m_hat = m / (1 - self.b1 ** (self.t + 0))",
     True),  # Adam
    ("mha_ref/backward.py", "d_v = np.swapaxes(weights, -1, -2) @ d_out", "d_v = np.swapaxes(weights, -2, -1) @ d_out",
     True),  # the reference's attention backward
    ("mha_ref/tiny/lm.py", "# the batch: padded sentences, some tokens masked", "# the batch", False),  # a comment
    ("mha_ref/tiny/lm.py", '"""[...] -> [...]: max(u, 0)."""', '"""ReLU."""', False),  # a docstring
]


def test_the_digest_follows_the_code_training_runs(checkout):
    edits = [(f, old, old) for f, old, _, _ in EDITS[:1]] + [(f, old, new) for f, old, new, _ in EDITS]
    run = subprocess.run([sys.executable, "-c", DIGESTS_AFTER_EDITS, json.dumps(edits)], cwd=checkout,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    before, *after = json.loads(run.stdout)
    assert before == tiny_lm.weights_digest(SMALL, 0)  # the copy, unedited, is this checkout
    assert [d != before for d in after] == [changes for *_, changes in EDITS], [e[:2] for e in EDITS]


# --------------------------------------------------------------------------------------------
# the language
# --------------------------------------------------------------------------------------------

def test_sentences_are_drawn_from_their_seed():
    again, other = language.sentences(50, 7), language.sentences(50, 8)
    assert [s.words for s in again] == [s.words for s in SENTENCES[:50]]
    assert all(np.array_equal(a.tokens, b.tokens) and a.arcs == b.arcs for a, b in zip(again, SENTENCES))
    assert [s.words for s in other] != [s.words for s in again]


def test_tokens_words_and_vocabulary_agree():
    assert len(set(language.VOCAB)) == len(language.VOCAB)
    assert (language.VOCAB[language.PAD], language.VOCAB[language.MASK], language.VOCAB[language.EOS]) == (
        "<pad>", "<mask>", "<eos>")
    for s in SENTENCES:
        assert [language.VOCAB[t] for t in s.tokens] == list(s.words)
        assert s.tokens[-1] == language.EOS and language.EOS not in s.tokens[:-1]
        assert language.PAD not in s.tokens and language.MASK not in s.tokens
        assert len(s.tokens) <= language.MAX_LEN
    assert language.counts(SENTENCES).sum() == sum(len(s.tokens) for s in SENTENCES)
    assert language.counts(SENTENCES)[language.EOS] == len(SENTENCES)


def test_dependency_arcs_form_one_tree_per_sentence():
    for s in SENTENCES:
        n = len(s.tokens)
        heads = {}
        for a in s.arcs:
            assert 0 <= a.dependent < n - 1 and 0 <= a.head < n - 1 and a.dependent != a.head, (s.words, a)
            assert a.relation in language.RELATIONS
            if a.relation in language.DEPENDENCIES:
                assert a.dependent not in heads, (s.words, a)  # one syntactic head per word
                heads[a.dependent] = a.head
        roots = [i for i in range(n - 1) if i not in heads]
        assert len(roots) == 1, (s.words, roots)  # the first verb
        for i in range(n - 1):  # every word reaches the root: no cycle
            seen = set()
            while i in heads:
                assert i not in seen, s.words
                seen.add(i)
                i = heads[i]
            assert i == roots[0]


def arcs_of(relation):
    return [(s.words, a) for s in SENTENCES for a in s.arcs if a.relation == relation]


PLURAL_DETS, SINGULAR_DETS = {"some", "these", "those", "many"}, {"a", "this", "that", "every"}


def is_plural_noun(word):  # from the spelling, not from the language's own lists
    return (word.endswith("s") and not word.endswith("ss")) or word in ("men", "women", "wolves")


def test_determiners_agree_with_their_nouns():
    found = arcs_of("det")
    assert len(found) > 300
    for words, a in found:
        det, noun = words[a.dependent], words[a.head]
        assert a.dependent < a.head
        assert det == "the" or (det in PLURAL_DETS) == is_plural_noun(noun), (words, det, noun)
    assert {words[a.dependent] for words, a in found} == {"the"} | PLURAL_DETS | SINGULAR_DETS


def test_verbs_agree_with_their_subjects_across_the_words_between():
    found, across = arcs_of("nsubj"), 0
    for words, a in found:
        subject, verb = words[a.dependent], words[a.head]
        assert subject not in ("him", "her", "them"), words
        plural_subject = subject == "they" or (subject not in language.NAMES and is_plural_noun(subject))
        singular_verb = verb.endswith("s")  # sees, watches, carries; see, watch, carry
        assert plural_subject != singular_verb, (words, subject, verb)
        across += a.head - a.dependent > 1
    assert across > 0.15 * len(found)  # often not side by side: a prepositional phrase between


def test_pronouns_agree_with_their_antecedents_and_names_repeat():
    pronouns = {"he": "man", "him": "man", "she": "woman", "her": "woman"}
    for words, a in arcs_of("coref"):
        pronoun, antecedent = words[a.dependent], words[a.head]
        assert a.head < a.dependent
        if pronoun in ("they", "them"):
            assert is_plural_noun(antecedent), words
        elif pronoun == "it":
            assert not is_plural_noun(antecedent) and antecedent not in sum(
                (language.NOUNS[k] for k in ("man", "woman")), ()), words
        else:
            assert antecedent in language.NOUNS[pronouns[pronoun]], words
    repeats = arcs_of("repeat")
    assert len(repeats) > 20
    for words, a in repeats:
        assert words[a.dependent] == words[a.head] in language.NAMES and a.head < a.dependent
        assert words.count(words[a.head]) == 2  # the name, and its repetition


def test_names_are_long_tailed():
    counts = language.counts(language.sentences(3000, 0))
    names = np.sort(counts[[language.INDEX[n] for n in language.NAMES]])[::-1]
    assert names[0] > 30 * max(names[-1], 1)  # Zipf: the first name against the hundredth
    assert (names <= 0.01 * names.sum()).sum() > len(names) // 2  # most names rare


# --------------------------------------------------------------------------------------------
# the full model (slow: trains the real configuration, a minute a seed)
# --------------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.trained
def test_the_trained_model_beats_guessing_the_commonest_word():  # the session's weights: kept ones when this code trained them
    t = tiny_lm.trained(0)
    e = lm.evaluate(t.model, lm_train.held_out())
    train_counts = language.counts(lm_train.data()[0])
    commonest = language.VOCAB[int(np.argmax(np.where(np.arange(len(train_counts)) == language.EOS, 0, train_counts)))]
    baseline = np.mean([w == commonest for s in lm_train.held_out() for w in s.words[:-1]])
    assert e.accuracy > baseline + 0.2
    assert e.per_relation["repeat"] > 0.5 and e.per_relation["coref"] > 0.5
