"""AlphaZero for Tic-Tac-Toe and Little-Go: batched tree search, self-play training, the ``az`` agent.

* ``variant``: ``Variant``, the game and variant a network plays; it builds the games.
* ``features``: the network's input planes, from the batched engine or one state.
* ``search``: Gumbel MuZero and AlphaZero (PUCT) search over many games at once, trees as arrays.
* ``network``: ``PolicyValueNet`` (residual CNN), ``NetworkEvaluator``, ``save_model``/``load_model``.
* ``replay``: ``ReplayBuffer`` and the eight board symmetries.
* ``selfplay``: ``SelfPlay``, B games of self-play on the batched engine.
* ``train``: ``train(AlphaZeroConfig(...))``, the training loop.
* ``actors``: self-play on Ray actors for ``--actors N`` (the ``ray`` extra); ``actor_throughput`` times it.
* ``checkpoint``: each checkpoint written whole or not at all, and read back for ``--resume``.
* ``agent``: ``AZAgent``, registered as ``az``.

``variant``, ``features``, ``search``, ``replay``, ``selfplay`` and ``agent`` import
only numpy (an agent imports torch when it is built); ``network``, ``checkpoint``, ``train``,
``actors`` and ``actor_throughput`` need torch (and Ray only when actors start).
"""
