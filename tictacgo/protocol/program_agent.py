"""Any course-protocol program as an agent: ``program:cmd=python3 /path/my_player3.py``.

The program is run once per move exactly as the course's host runs it
(``tictacgo.protocol.host``): ``input.txt`` written in its working folder,
the program started there under a supervisor that owns its whole process
tree (every process it started ends with the move), ``output.txt`` read
with the host's tolerance, a run past the time limit killed and lost, a
missing, malformed or illegal answer a forfeit. The working folder is the
agent's own for its whole life, so the helper files a program keeps (a
Q-table it learns, a move counter) survive between its moves and games, as
on the course's servers; it is removed when the agent is discarded, and by
the supervisor if the process that holds the agent dies during a move. So
the arena, the course report
(``tictacgo arena littlego --course-report "program:cmd=python3 $PWD/my_player3.py"``)
and the envs grade a student's program as the course would. The command
is a shell command line run in that folder, so give scripts by absolute
path; it may not contain a comma (commas separate an agent spec's
parameters).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from pathlib import Path

import numpy as np

from tictacgo.games import littlego
from tictacgo.protocol.host import ProgramPlayer
from tictacgo.protocol.player import SEED_ENV
from tictacgo.validate import check_number


def make_program_agent(game, rng: np.random.Generator, cmd: str = "", time: float = 10.0) -> ProgramPlayer:
    """The registry's ``program`` factory.

    Args:
        game: a Little-Go game (the course protocol's boards).
        rng: seeds the program through ``$TICTACGO_SEED`` (``tictacgo my-player`` reads it).
        cmd: the program's shell command line.
        time: seconds of wall clock a move may take (the course's limit is 10 s).
    Raises:
        ValueError: an empty command, a time that is not a finite positive number, or not Little-Go.
    """
    if not isinstance(game, littlego.LittleGo):
        raise ValueError(f"a course-protocol program plays Little-Go, not {game.spec.name}")
    if not isinstance(cmd, str) or not cmd.strip():
        raise ValueError("cmd must be the program's command line, e.g. "
                         "program:cmd=python3 /home/me/my_player3.py")
    time = check_number("time", time, positive=True, max=3600.0,
                        expected="a finite positive number of seconds (the course allows 10)")
    workdir = Path(tempfile.mkdtemp(prefix="tictacgo-program-"))
    env = dict(os.environ)
    env[SEED_ENV] = str(int(rng.integers(2**31)))
    agent = ProgramPlayer(cmd, workdir / "work", None, time, env, [], game=game, owner_dir=workdir)
    agent.workdir.mkdir()
    weakref.finalize(agent, shutil.rmtree, workdir, True)
    return agent
