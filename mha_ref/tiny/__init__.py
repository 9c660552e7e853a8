"""Page 4's model: heads that training shaped rather than a hand, measured as the papers measure heads.

corpus.py generates the language, model.py is the one-block model and its gradients, train.py
trains it deterministically and keeps the weights on disk, trained.py measures its heads.
voita.py and importance.py take any model's maps and gate callables: heads measured strictly as
Voita et al. measure them, Michel et al.'s importance and pruning curves.
"""
