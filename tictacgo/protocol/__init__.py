"""Protocols that connect agents to the outside world.

``tictacgo.protocol.course``: the CSCI-561 course file protocol (``input.txt``
with the colour, previous and current boards; ``output.txt`` with ``i,j`` or
``PASS``), parsed with the course host's exact tolerance.
``tictacgo.protocol.player``: a course player backed by any registered agent
(behind ``tictacgo my-player``).
``tictacgo.protocol.host``: two player programs against each other through
that protocol, as the course host plays them (behind ``tictacgo host``).
``tictacgo.protocol.coords``: Go vertices (``C3``) and the course's ``i,j`` as actions.
``tictacgo.protocol.sgf``: SGF records of Little-Go (sgfmill, the ``sgf`` extra);
``tictacgo.protocol.replay``: a record replayed and checked (behind ``tictacgo replay FILE.sgf``).
``tictacgo.protocol.gtp``: a GTP v2 engine (behind ``tictacgo gtp``);
``tictacgo.protocol.gtp_match``: games between GTP engines refereed by the rules.
The subcommands' arguments live in ``tictacgo.cli``; nothing here parses a command line.
"""
