"""Protocols that connect agents to the outside world.

``tictacgo.protocol.course``: the CSCI-561 course file protocol (``input.txt``
with the colour, previous and current boards; ``output.txt`` with ``i,j`` or
``PASS``), parsed with the course host's exact tolerance.
``tictacgo.protocol.player``: the ``tictacgo my-player`` subcommand, a course
player backed by any registered agent.
``tictacgo.protocol.host``: the ``tictacgo host`` subcommand, which plays two
player programs against each other through that protocol as the course host does.
``tictacgo.protocol.coords``: Go vertices (``C3``) and the course's ``i,j`` as actions.
``tictacgo.protocol.sgf``: SGF records of Little-Go (sgfmill, the ``sgf`` extra);
``tictacgo.protocol.replay``: the ``tictacgo replay FILE.sgf`` subcommand.
``tictacgo.protocol.gtp``: the ``tictacgo gtp`` subcommand, a GTP v2 engine;
``tictacgo.protocol.gtp_match``: games between GTP engines refereed by the rules.
"""
