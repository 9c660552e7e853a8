"""A generated English-like language for a masked language model, every sentence with its parse.

One sentence is one or two clauses, then the end symbol:

    Clause [CONJ Clause] <eos>
    Clause = Subject Verb [Object] [ADV]
    NP     = DET [ADJ]{0,2} NOUN [PREP DET [ADJ] NOUN]  |  NAME  |  PRONOUN

What a model could use to fill a masked word, none of it named by the objective:

- local order: a determiner opens a noun phrase, adjectives sit between it and its noun, an
  adverb closes a clause; many words are best guessed from the word beside them.
- agreement across distance: nouns and verbs come singular and plural (`dog`/`dogs`,
  `sees`/`see`); a determiner agrees with its noun (`a`, `this`: singular; `some`, `these`:
  plural; `the`: either), a verb with its subject, across a prepositional phrase whose noun may
  have the other number (`the dog near the cats sees ...`); a pronoun agrees in gender and number
  with its antecedent (`the queen ... her`, `the kings ... they`); verbs choose their subject's and
  object's kind (`eats` an apple, `reads` a letter, only people `cook`).
- copying rare words: names (a hundred of them, drawn with Zipf's law, so most are rare) occur at
  most once in the first clause; the second clause usually mentions the first clause again: its name,
  repeated, if it had one, or else a pronoun for its subject. A masked repeated name can only be
  found by reading its first mention, wherever that stands.

Every word of the content classes is drawn with Zipf's law over its class (rank r with weight
1 / r), so the vocabulary is long-tailed. Every sentence comes with its arcs: the dependency relations
(head conventions of the Stanford dependencies: det, amod, nsubj, dobj, prep, pobj, advmod, cc,
conj; the first verb is the root and has no arc) and two relations that are not dependencies:
coref (a pronoun -> the noun it stands for) and repeat (a name's second mention -> its first).
The end symbol has no arc. Everything is drawn from a seeded numpy generator.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np


class Arc(NamedTuple):
    dependent: int  # token index in the sentence
    head: int  # token index of its syntactic head (for coref and repeat: the earlier mention)
    relation: str


class Sentence(NamedTuple):
    tokens: np.ndarray  # [n] int token ids, ends with EOS
    words: tuple[str, ...]  # [n] VOCAB[tokens[i]], "<eos>" last
    arcs: tuple[Arc, ...]


DEPENDENCIES = ("det", "amod", "nsubj", "dobj", "prep", "pobj", "advmod", "cc", "conj")
NOT_DEPENDENCIES = ("coref", "repeat")
RELATIONS = DEPENDENCIES + NOT_DEPENDENCIES

# Nouns by kind, most frequent first; gender decides the pronoun (None: it / they).
NOUNS = {
    "man": ("man", "boy", "king", "father", "son", "prince", "uncle"),
    "woman": ("woman", "girl", "queen", "mother", "daughter", "princess", "aunt"),
    "animal": ("dog", "cat", "bird", "horse", "fox", "cow", "goat", "duck", "frog", "wolf"),
    "food": ("apple", "cake", "egg", "pear", "pie", "plum"),
    "text": ("book", "letter", "poem", "note", "map"),
    "thing": ("ball", "box", "cup", "key", "hat", "chair"),
}
IRREGULAR_PLURAL = {"man": "men", "woman": "women", "wolf": "wolves"}
PERSON, ANIMATE = ("man", "woman"), ("man", "woman", "animal")
INANIMATE, ANY = ("food", "text", "thing"), tuple(NOUNS)
# verb: (its subject's kinds, its object's kinds or None for an intransitive verb)
VERBS = {
    "see": (ANIMATE, ANY), "like": (ANIMATE, ANY), "find": (ANIMATE, ANY), "want": (ANIMATE, ANY),
    "watch": (ANIMATE, ANY), "help": (PERSON, ANIMATE), "meet": (PERSON, ANIMATE), "follow": (ANIMATE, ANIMATE),
    "feed": (PERSON, ANIMATE), "chase": (ANIMATE, ("animal",)), "eat": (ANIMATE, ("food",)),
    "cook": (PERSON, ("food",)), "read": (PERSON, ("text",)), "write": (PERSON, ("text",)),
    "carry": (ANIMATE, INANIMATE),
    "run": (ANIMATE, None), "sleep": (ANIMATE, None), "sing": (ANIMATE, None), "wait": (ANIMATE, None),
    "laugh": (PERSON, None), "smile": (PERSON, None), "swim": (ANIMATE, None),
}
ADJECTIVES = {  # kinds -> adjectives that may describe them
    ANY: ("big", "small", "old", "new", "red"),
    ANIMATE: ("happy", "hungry", "angry", "young"),
    ("food",): ("sweet", "fresh"),
    ("text",): ("long", "short"),
}
DETS = {"either": ("the",), "sg": ("a", "this", "that", "every"), "pl": ("some", "these", "those", "many")}
PREPS = ("near", "behind", "with", "under", "beside")
ADVS = ("today", "again", "often", "quietly", "slowly", "now")
CONJS = ("and", "but", "so", "while")
PRONOUNS = {  # (gender or None, number) -> (subject form, object form)
    ("man", "sg"): ("he", "him"), ("woman", "sg"): ("she", "her"),
    (None, "sg"): ("it", "it"), (None, "pl"): ("they", "them"),
}
NAMES = ("ada", "sam", "tom", "ann", "leo", "mia", "ben", "eva", "max", "zoe", "dan", "ida", "jon", "kay",
         "ned", "uma", "otto", "pia", "raj", "rosa", "finn", "gus", "hana", "ivan", "jane", "kai", "lily", "lou",
         "nina", "omar", "sara", "vera", "walt", "xena", "yuri", "alan", "bob", "carl", "cleo", "dora",
         "emil", "fay", "gil", "hugo", "iris", "joel", "kim", "lars", "mona", "nils", "olga", "paul", "quin",
         "ruth", "saul", "tess", "ugo", "vik", "wren", "yves", "zack", "abel", "bea", "cyd", "dirk", "elke",
         "fritz", "greta", "hal", "inge", "jory", "knut", "lena", "milo", "nora", "oren", "pim", "rhea",
         "stig", "tove", "ulla", "vito", "wim", "yara", "zeno", "arlo", "bryn", "cato", "dina", "enzo",
         "flor", "gwen", "hild", "ines", "juno", "kirk", "lise", "mads", "nell", "odo")


def plural(noun: str) -> str:
    """dogs, foxes, princesses, men."""
    if noun in IRREGULAR_PLURAL:
        return IRREGULAR_PLURAL[noun]
    return noun + ("es" if noun.endswith(("ch", "sh", "s", "x")) else "s")


def third_person(verb: str) -> str:
    """The singular present: sees, watches, carries."""
    if verb.endswith(("ch", "sh", "s", "x")):
        return verb + "es"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _noun_forms() -> tuple[str, ...]:
    return tuple(f for kind in NOUNS.values() for noun in kind for f in (noun, plural(noun)))


PAD, MASK, EOS = 0, 1, 2
VOCAB: tuple[str, ...] = (
    "<pad>", "<mask>", "<eos>",
    *(d for ds in DETS.values() for d in ds), *PREPS, *ADVS, *CONJS,
    *dict.fromkeys(w for forms in PRONOUNS.values() for w in forms),
    *(a for adjs in ADJECTIVES.values() for a in adjs),
    *_noun_forms(), *(f for v in VERBS for f in (third_person(v), v)), *NAMES)
INDEX = {w: i for i, w in enumerate(VOCAB)}
_NP, _PP = 4, 4  # DET ADJ ADJ NOUN; PREP DET ADJ NOUN
MAX_LEN = (_NP + _PP + 1 + _NP + _PP + 1) + (1 + _NP + _PP + 1 + _NP + 1) + 1  # the clauses, then <eos>


def counts(sentences) -> np.ndarray:
    """[vocab]: how often each token occurs in the sentences."""
    return np.bincount(np.concatenate([s.tokens for s in sentences]), minlength=len(VOCAB))


@functools.lru_cache(maxsize=None)
def _zipf_cumulative(count: int) -> np.ndarray:
    """[count]: the running sum of the weights 1 / r, r = 1 ... count, scaled to end at 1."""
    weights = np.cumsum(1.0 / np.arange(1, count + 1))
    return weights / weights[-1]


def zipf(rng: np.random.Generator, items: tuple):
    """One of items, rank r (from 1) drawn with weight 1 / r."""
    return items[int(np.searchsorted(_zipf_cumulative(len(items)), rng.random(), side="right"))]


class Entity(NamedTuple):
    """What a noun phrase refers to: where its head word stands, and what agrees with it."""

    head: int
    kind: str  # a key of NOUNS
    number: str  # "sg" or "pl"
    name: bool


class _Builder(NamedTuple):
    words: list
    arcs: list

    def add(self, word: str) -> int:
        self.words.append(word)
        return len(self.words) - 1

    def arc(self, dependent: int, head: int, relation: str) -> None:
        self.arcs.append(Arc(dependent, head, relation))


def _common_np(rng, b: _Builder, kinds: tuple, *, most_adjectives=2, pp=0.0) -> Entity:
    """DET [ADJ]{0..most} NOUN [PREP DET [ADJ] NOUN]: a noun of one of kinds, in either number."""
    kind = zipf(rng, kinds)
    noun, number = zipf(rng, NOUNS[kind]), ("sg", "pl")[int(rng.random() < 0.35)]
    det = b.add(zipf(rng, DETS["either"] + DETS[number]))
    allowed = tuple(a for ks, adjs in ADJECTIVES.items() if kind in ks for a in adjs)
    count = min(most_adjectives, int(np.searchsorted((0.55, 0.85), rng.random(), side="right")))  # 0, 1, 2
    adjectives = [b.add(allowed[i]) for i in rng.permutation(len(allowed))[:count]]
    head = b.add(noun if number == "sg" else plural(noun))
    b.arc(det, head, "det")
    for a in adjectives:
        b.arc(a, head, "amod")
    if rng.random() < pp:  # the attractor: a noun between subject and verb, in either number
        prep = b.add(zipf(rng, PREPS))
        b.arc(prep, head, "prep")
        b.arc(_common_np(rng, b, ANY, most_adjectives=1).head, prep, "pobj")
    return Entity(head, kind, number, False)


def _name(rng, b: _Builder) -> Entity:
    name = zipf(rng, NAMES)
    return Entity(b.add(name), ("man", "woman")[NAMES.index(name) % 2], "sg", True)


def _mention(b: _Builder, first: Entity, case: int) -> Entity:
    """The first clause's entity again: its name repeated, or a pronoun for it (case 0 subject, 1 object)."""
    if first.name:
        word, relation = b.words[first.head], "repeat"
    else:
        gender = first.kind if first.kind in PERSON and first.number == "sg" else None
        word, relation = PRONOUNS[gender, first.number][case], "coref"
    at = b.add(word)
    b.arc(at, first.head, relation)
    return first._replace(head=at)


def _verb(rng, b: _Builder, subject: Entity, verbs: tuple) -> tuple[int, str]:
    verb = zipf(rng, verbs)
    return b.add(third_person(verb) if subject.number == "sg" else verb), verb


def _verbs(subject_kind: str, *, transitive: bool | None = None, object_kind: str | None = None) -> tuple:
    """The verbs that take a subject of that kind (and an object of object_kind, if given)."""
    return tuple(v for v, (subj, obj) in VERBS.items() if subject_kind in subj
                 and (transitive is None or (obj is not None) == transitive)
                 and (object_kind is None or (obj is not None and object_kind in obj)))


def _clause_one(rng, b: _Builder) -> tuple[Entity, int, Entity | None]:
    """Subject Verb [Object] [ADV]; at most one name. -> (subject, verb, the name or None)."""
    subject = _name(rng, b) if rng.random() < 0.4 else _common_np(rng, b, ANIMATE, pp=0.3)
    verb, lemma = _verb(rng, b, subject, _verbs(subject.kind, transitive=bool(rng.random() < 0.75)))
    b.arc(subject.head, verb, "nsubj")
    named = subject if subject.name else None
    kinds = VERBS[lemma][1]
    if kinds is not None:
        if named is None and set(PERSON) & set(kinds) and rng.random() < 0.5:
            named = obj = _name(rng, b)
        else:
            obj = _common_np(rng, b, kinds, pp=0.15)
        b.arc(obj.head, verb, "dobj")
    return subject, verb, named


def _clause_two(rng, b: _Builder, first: Entity, verb_1: int) -> None:
    """CONJ Subject Verb [Object] [ADV], mentioning `first` again (as subject or object) most of the time."""
    cc = b.add(zipf(rng, CONJS))
    again = rng.random() < 0.9
    as_subject = again and rng.random() < 0.5
    subject = _mention(b, first, 0) if as_subject else _common_np(rng, b, ANIMATE, pp=0.3)
    if again and not as_subject:
        verbs = _verbs(subject.kind, object_kind=first.kind)
    else:
        verbs = _verbs(subject.kind)
    verb, lemma = _verb(rng, b, subject, verbs)
    b.arc(subject.head, verb, "nsubj")
    b.arc(cc, verb, "cc")
    b.arc(verb, verb_1, "conj")
    kinds = VERBS[lemma][1]
    if kinds is not None:
        obj = _mention(b, first, 1) if again and not as_subject else _common_np(rng, b, kinds)
        b.arc(obj.head, verb, "dobj")
    _adverb(rng, b, verb)


def _adverb(rng, b: _Builder, verb: int) -> None:
    if rng.random() < 0.3:
        b.arc(b.add(zipf(rng, ADVS)), verb, "advmod")


def sentence(rng: np.random.Generator) -> Sentence:
    """One sentence drawn with rng, with its arcs."""
    b = _Builder([], [])
    subject, verb, named = _clause_one(rng, b)
    _adverb(rng, b, verb)
    if rng.random() < 0.85:
        _clause_two(rng, b, named or subject, verb)
    b.add("<eos>")
    tokens = np.array([INDEX[w] for w in b.words])
    return Sentence(tokens, tuple(b.words), tuple(sorted(b.arcs)))


def sentences(count: int, seed: int) -> tuple[Sentence, ...]:
    """count sentences drawn from a generator seeded with seed."""
    rng = np.random.default_rng(seed)
    return tuple(sentence(rng) for _ in range(count))
