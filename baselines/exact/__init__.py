"""Agents built on the exact search (``tictacgo.solver``): ``solver``, ``perfect`` and ``championship``.

* ``solver`` (``solver_agent``): its book's proved-best move, else exact endgame search, else a
  fallback agent's move;
* ``perfect`` (``perfect``): plays the proof of the game (the book of ``tictacgo.proof``, a live
  proof near the end, a fallback elsewhere) and says where each move came from;
* ``championship`` (``championship``, ``championship_search``): iterative-deepening alpha-beta on a
  stone, liberty and eye evaluation, the exact solver near the end.

Each needs numba (the ``fast`` extra). The registry names them by ``"module:attr"``
(``tictacgo.baselines.registry``), so importing ``tictacgo.baselines`` imports none of them and
needs no numba; importing this package imports nothing either.
"""
