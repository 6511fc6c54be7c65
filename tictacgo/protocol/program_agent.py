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
parameters). ``dir=FOLDER`` copies the program's own folder into the
working folder first, as the course copies a student's files, so that
``program:cmd=python3 my_player3.py,dir=/home/me/hw2`` runs the copy: a
program that reads ``input.txt`` beside itself, or imports the course's
``host.py``/``read.py``/``write.py`` from its folder, works as on the
course's servers.

Time: ``time`` (10 s by default) is wall-clock time a move, the process
started to its answer. The course's rules give 10 seconds of CPU time a
move (``tictacgo my-player`` keeps to that budget); a program's wall-clock
time is its CPU time plus its waiting, so on a busy machine the limit here
is the stricter one: give ``time=`` more where the machine is loaded.
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

#: The most a program's folder (``dir=``) may hold, in all, to be copied for each agent.
MAX_COPY_BYTES = 256 << 20


def make_program_agent(game, rng: np.random.Generator, cmd: str = "", time: float = 10.0,
                       dir: str | None = None) -> ProgramPlayer:  # noqa: A002 - the spec's word
    """The registry's ``program`` factory.

    Args:
        game: a Little-Go game (the course protocol's boards).
        rng: seeds the program through ``$TICTACGO_SEED`` (``tictacgo my-player`` reads it).
        cmd: the program's shell command line.
        time: seconds of wall clock a move may take (the course's limit is 10 s).
        dir: the program's own folder, copied into its working folder before its first move, as the
            course copies a student's files: then ``cmd=python3 my_player3.py`` runs the copy, which
            finds the files beside it (the course's ``host.py``, ``read.py``, a saved table).
    Raises:
        ValueError: an empty command, a time that is not a finite positive number, not Little-Go, or a
            ``dir`` that is not a folder or holds more than ``MAX_COPY_BYTES``.
    """
    if not isinstance(game, littlego.LittleGo):
        raise ValueError(f"a course-protocol program plays Little-Go, not {game.spec.name}")
    if not isinstance(cmd, str) or not cmd.strip():
        raise ValueError("cmd must be the program's command line, e.g. "
                         "program:cmd=python3 /home/me/my_player3.py")
    time = check_number("time", time, positive=True, max=3600.0,
                        expected="a finite positive number of seconds (the course allows 10)")
    source = None if dir is None else _program_folder(dir)
    workdir = Path(tempfile.mkdtemp(prefix="tictacgo-program-"))
    env = dict(os.environ)
    env[SEED_ENV] = str(int(rng.integers(2**31)))
    agent = ProgramPlayer(cmd, workdir / "work", None, time, env, [], game=game, owner_dir=workdir)
    weakref.finalize(agent, shutil.rmtree, workdir, True)
    if source is None:
        agent.workdir.mkdir()
    else:
        # the program's files, its subfolders too, not links out of it; input.txt and output.txt are the
        # host's to write and read
        shutil.copytree(source, agent.workdir, symlinks=True,
                        ignore=shutil.ignore_patterns("input.txt", "output.txt"))
    return agent


def _program_folder(path) -> Path:
    """``dir=``'s folder, checked: a folder of at most ``MAX_COPY_BYTES`` of files."""
    if not isinstance(path, str) or not path.strip():
        raise ValueError(f"dir must be the program's folder, got {path!r}")
    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise ValueError(f"dir {path!r} is not a folder (the program's own folder, copied for each game)")
    total = 0
    for f in folder.rglob("*"):
        if f.is_file() and not f.is_symlink():
            total += f.stat().st_size
            if total > MAX_COPY_BYTES:
                raise ValueError(f"dir {path!r} holds more than {MAX_COPY_BYTES >> 20} MB; give the folder "
                                 "of the program's files alone")
    return folder
