"""AlphaZero for Tic-Tac-Toe and Little-Go: batched tree search, self-play training, the ``az`` agent.

* the game object (``tictacgo.games.make_game``) is what a network plays: its variant, its batched
  engine, its input planes (``game.encoder``) and its symmetries; ``modelfile`` writes it into
  ``model.json`` (``game_to_json``). ``variant`` (``Variant``) and ``features`` (``encoder_for``)
  are deprecated shims.
* ``search``: Gumbel MuZero and AlphaZero (PUCT) search over many games at once, trees as arrays.
* ``network``: ``PolicyValueNet`` (residual CNN), ``NetworkEvaluator``, ``save_model``/``load_model``;
  ``precision`` names its inference precision (``"auto"``: bfloat16 where the CPU runs it fast),
  ``onednn`` runs bfloat16's trunk on oneDNN, ``numpy_net`` runs a saved network without torch,
  ``device`` turns ``cpu``/``cuda``/``auto`` into a torch device (training's and the agent's rule).
* ``tree_reuse``: ``TreeReuse``, the agent's next search started from the subtree the game went into.
* ``replay``: ``ReplayBuffer``, augmented by the game's symmetries.
* ``selfplay``: ``SelfPlay``, B games of self-play on the batched engine.
* ``train``: ``train(AlphaZeroConfig(...))``, the training loop.
* ``actors``: self-play on Ray actors for ``--actors N`` (the ``ray`` extra); ``actor_throughput`` times it.
* ``checkpoint``: each checkpoint written whole or not at all, and read back for ``--resume``.
* ``agent``: ``AZAgent``, registered as ``az``.

``modelfile``, ``precision``, ``device``, ``numpy_net``, ``search``, ``tree_reuse``, ``replay``,
``selfplay`` and ``agent`` import only numpy (an agent imports torch when it is built, ``device``
when it resolves a name); ``network``, ``onednn``, ``checkpoint``, ``train``, ``actors`` and
``actor_throughput`` need torch (and Ray only when actors start).
"""
