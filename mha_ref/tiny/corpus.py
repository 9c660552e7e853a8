"""A small generated language whose sentences need four kinds of looking around, one per head.

Every sentence opens with the start symbol <s> and has two clauses joined by a conjunction; the
second clause's subject is the pronoun `it`, which always stands for the subject of the first
clause (its first noun):

    <s> DET [ADJ]{0,2} NOUN VERB_T DET [ADJ]{0,2} OBJECT [ADV] CONJ it [PRE_VERB] VERB_I
    <s> DET [ADJ]{0,2} NOUN VERB_T DET [ADJ]{0,2} OBJECT [ADV] CONJ it [PRE_VERB] VERB_T DET [ADJ] OBJECT

Exactly one object of the sentence is a rare word (RARE: each in about one sentence in len(RARE),
every other word more often, so it is always the sentence's least frequent word); the other object
is a common noun, never the subject's own (the second clause may end at its verb when the rare word
came first). The model reads the whole sentence at once (no causal mask, like the encoder Voita et
al. studied) and, at every word, answers four questions, one per read-out:

(a) previous / next: which word stands just before, and just after, this one? The answer is always
    one step away, so a head that looks at a fixed relative position answers it: the positional
    role (the paper's positional heads look one step back or one step ahead). The conjunction and
    the optional word after `it` are drawn at random, so that no answer can be guessed without
    looking (at a fixed `and it` a head could skip those words and do something else there).
(b) subject: which noun is the subject of this word's clause? In the first clause it is the noun
    itself; in the second, the noun `it` stands for. Adjectives, the object and adverbs come
    between, and the first object is a noun nearer to `it`, so neither a fixed offset nor "the
    nearest noun" finds it: a head must find the first clause's subject noun. From `it` that is
    its antecedent: the syntactic role (trained.py measures it on that relation and on nsubj).
(c) rare: which rare animal does the sentence mention? It sits in either clause, so the only head
    that answers from every position looks for the rare word wherever it is: the rare-word role.

One head could not do all four: its weights at a word form a single distribution, and the answers
sit at four different places. Whether four heads give each question a head of its own is what
mha_ref.trained measures. Nothing here is trained; sentences and answers come from a seeded generator.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

import numpy as np

PAD = "<pad>"
BOS = "<s>"  # opens every sentence, so that every word has one before it
DETS = ("the", "this", "that")
ADJS = ("big", "small", "old", "red")
NOUNS = ("cat", "dog", "bird", "fox", "cow", "pig")
VERBS_T = ("saw", "fed", "chased", "liked")  # take an object
VERBS_I = ("ran", "slept", "sang")  # take none
ADVS = ("today", "again", "twice")  # may close the first clause
CONJS = ("and", "but", "so", "then")
PRE_VERB = ("also", "soon", "still")  # may stand between `it` and its verb
RARE = ("zebra", "otter", "lynx", "heron", "ibis", "yak", "newt", "okapi", "tapir", "dingo", "egret", "gecko",
        "bison", "koala", "lemur", "llama", "moose", "panda", "quail", "raven", "sloth", "stoat", "vole", "wombat")
IT = "it"
VOCAB = (PAD, BOS, *DETS, *ADJS, *NOUNS, *VERBS_T, *VERBS_I, *ADVS, *CONJS, *PRE_VERB, *RARE, IT)
INDEX = {w: i for i, w in enumerate(VOCAB)}
MAX_LEN = 18  # 1 + 4 + 1 + 4 + 1 + 2 + 1 + 4 tokens at most
IGNORE = -1  # a position with no answer to a question


class Sentence(NamedTuple):
    """One generated sentence and where its parts stand (positions into words)."""

    words: tuple[str, ...]  # BOS first
    subject: int  # the first clause's noun
    verbs: tuple[int, int]  # the two verbs
    pronoun: int  # `it`
    rare: int  # the rare word

    def nsubj(self, verb: int) -> int:
        """The grammatical subject of a verb: the noun for the first verb, `it` for the second."""
        return self.subject if verb == self.verbs[0] else self.pronoun


def _noun_phrase(rng, noun: str, most_adjectives: int) -> list[str]:
    adjectives = rng.choice(ADJS, size=rng.integers(0, most_adjectives + 1), replace=False)
    return [str(rng.choice(DETS)), *map(str, adjectives), noun]


def sentence(rng: np.random.Generator) -> Sentence:
    """One sentence of the language, drawn with rng."""
    noun = str(rng.choice(NOUNS))
    other = str(rng.choice([n for n in NOUNS if n != noun]))
    rare = str(rng.choice(RARE))
    rare_first = bool(rng.integers(2))
    words = [BOS, *_noun_phrase(rng, noun, 2)]
    subject = len(words) - 1
    words.append(str(rng.choice(VERBS_T)))
    verb_1 = len(words) - 1
    words += _noun_phrase(rng, rare if rare_first else other, 2)
    rare_at = len(words) - 1 if rare_first else None
    if rng.integers(2):
        words.append(str(rng.choice(ADVS)))
    words += [str(rng.choice(CONJS)), IT]
    pronoun = len(words) - 1
    if rng.integers(2):
        words.append(str(rng.choice(PRE_VERB)))
    if rare_first and rng.integers(2):  # the second clause may end at its verb
        words.append(str(rng.choice(VERBS_I)))
        verb_2 = len(words) - 1
    else:
        words.append(str(rng.choice(VERBS_T)))
        verb_2 = len(words) - 1
        words += _noun_phrase(rng, other if rare_first else rare, 1)
        rare_at = rare_at if rare_first else len(words) - 1
    return Sentence(tuple(words), subject, (verb_1, verb_2), pronoun, rare_at)


def sentences(count: int, seed: int) -> list[Sentence]:
    """count sentences from the generator seeded with seed."""
    rng = np.random.default_rng(seed)
    return [sentence(rng) for _ in range(count)]


class Batch(NamedTuple):
    """Sentences as arrays, padded to MAX_LEN. Answers are word indices, IGNORE where none."""

    tokens: np.ndarray  # [batch, MAX_LEN] word indices, PAD after the sentence
    previous: np.ndarray  # [batch, MAX_LEN] (a) the word before; IGNORE at the first token
    next: np.ndarray  # [batch, MAX_LEN] (a) the word after; IGNORE at the last token
    subject: np.ndarray  # [batch, MAX_LEN] (b) the subject noun, at every word (not at <s>)
    rare: np.ndarray  # [batch, MAX_LEN] (c) the sentence's rare word, at every token

    @property
    def keys(self) -> np.ndarray:
        """[batch, MAX_LEN, MAX_LEN] True where a query may look: every real token, no padding."""
        real = self.tokens != INDEX[PAD]
        return np.broadcast_to(real[:, None, :], (*self.tokens.shape, self.tokens.shape[1]))

    @property
    def answers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.previous, self.next, self.subject, self.rare


QUESTIONS = ("previous", "next", "subject", "rare")


def batch(items: list[Sentence]) -> Batch:
    """Sentences -> a Batch of their words and the four answers at each position."""
    shape = (len(items), MAX_LEN)
    tokens = np.full(shape, INDEX[PAD])
    previous, following, subject, rare = (np.full(shape, IGNORE) for _ in range(4))
    for b, s in enumerate(items):
        ids = [INDEX[w] for w in s.words]
        n = len(ids)
        tokens[b, :n] = ids
        previous[b, 1:n] = ids[:-1]
        following[b, : n - 1] = ids[1:]
        subject[b, 1:n] = ids[s.subject]
        rare[b, :n] = ids[s.rare]
    return Batch(tokens, previous, following, subject, rare)


def frequencies(items: list[Sentence]) -> dict[str, int]:
    """How often each word occurs in these sentences (every word of VOCAB but PAD, 0 if never)."""
    counts = Counter(w for s in items for w in s.words)
    return {w: counts[w] for w in VOCAB if w != PAD}
