"""The network evaluator makes the process keep freed memory in its heap (glibc), so its buffers do
not page-fault at every call; a user's own malloc settings and the opt-out variable win.

The setting is the process's, so each case runs in a fresh Python process. What it asserts is the
effect: after a 20 MB buffer is freed, allocating and filling another one touches no new pages (with
glibc's adaptive defaults the second buffer comes from fresh heap pages: about 500 faults on this
kernel, which maps several pages a fault).
"""

import json
import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                                reason="the setting is glibc's")

PROBE = """
import json, resource, sys
import numpy as np
setup = sys.argv[1]
result = None
if setup == "function":
    from tictacgo.baselines.learning.alphazero.heap import keep_freed_memory
    result = keep_freed_memory()
elif setup == "evaluator":
    from tictacgo.baselines.learning.alphazero.network import Architecture, NetworkEvaluator, PolicyValueNet
    from tictacgo.games import make_game
    game = make_game("tictactoe")
    NetworkEvaluator(PolicyValueNet(Architecture.for_game(game, channels=4, blocks=1)), game)
    from tictacgo.baselines.learning.alphazero.heap import keep_freed_memory
    result = keep_freed_memory()
size = 20 << 20
a = np.ones(size, np.uint8); del a
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
b = np.ones(size, np.uint8)
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
print(json.dumps({"result": result, "faults": faults}))
"""


def probe(setup: str, **env) -> dict:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    environ.pop("TICTACGO_KEEP_FREED_MEMORY", None)
    environ.update(env)
    out = subprocess.run([sys.executable, "-c", PROBE, setup], env=environ, capture_output=True, text=True,
                         check=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


FRESH = 100   # at least this many faults: the buffer came as fresh pages
REUSED = 10   # at most this many: it reused the freed one


def test_glibc_defaults_fault_on_the_second_buffer():
    # the premise: without the setting the second 20 MB buffer comes as fresh pages
    assert probe("none")["faults"] > FRESH


def test_keep_freed_memory_reuses_the_freed_buffer():
    got = probe("function")
    assert got["result"] == "set"
    assert got["faults"] <= REUSED


def test_a_cpu_evaluator_sets_it():
    torch = pytest.importorskip("torch")
    assert torch is not None
    got = probe("evaluator")
    assert got["result"] == "set"
    assert got["faults"] <= REUSED


def test_the_opt_out_variable_turns_it_off():
    got = probe("function", TICTACGO_KEEP_FREED_MEMORY="0")
    assert got["result"] == "turned off"
    assert got["faults"] > FRESH


def test_the_users_malloc_variable_wins():
    got = probe("function", MALLOC_TRIM_THRESHOLD_="131072")
    assert got["result"] == "the user's setting"


def test_it_is_set_once_per_process():
    from tictacgo.baselines.learning.alphazero import heap
    first = heap.keep_freed_memory()
    assert heap.keep_freed_memory() == first
