"""Export a trained MLP policy (MaskablePPO or A2C zip) to numpy (.npz), and check it.

The export plays without torch (``tictacgo.baselines.numpy_policy``); the
shipped models are exported this way. The script compares the two on
``--positions`` random positions of the game and refuses to write the file if
any log-probability differs by more than 1e-4 or any greedy move differs.

    python scripts/export_numpy_policy.py baselines/models/tictactoe_ppo.zip --game tictactoe
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tictacgo.baselines.learning.policy_agent import PolicyAgent, load_model
from tictacgo.baselines.learning.training import sample_states
from tictacgo.baselines.learning.training_config import setting
from tictacgo.baselines.numpy_policy import NumpyPolicyAgent, export_mlp, save_npz
from tictacgo.cli.options import add_options
from tictacgo.games import GAMES, make_game


@dataclass
class Args:
    model: str = setting("", "The SB3 model zip.")
    game: str = setting("tictactoe", "The game the model plays.", choices=GAMES)
    algo: str | None = setting(None, "The algorithm that trained it.", choices=("maskable-ppo", "a2c"),
                               default_text="a2c if the file name has 'a2c' in it, else maskable-ppo")
    out: str | None = setting(None, "Where to write the export.", default_text="the model's path with .npz")
    positions: int = setting(2000, "Random positions the export is checked on.")


def log_softmax(z: np.ndarray) -> np.ndarray:
    """Logits up to their additive constant (torch's Categorical normalises them, the export does not)."""
    z = z - z.max()
    return z - np.log(np.exp(z).sum())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_options(p, Args(), positional=("model",))
    args = dataclasses.replace(Args(), **vars(p.parse_args(argv)))
    algo = args.algo or ("a2c" if "a2c" in Path(args.model).name else "maskable-ppo")
    game = make_game(args.game)
    model = load_model(args.model, algo, game)
    try:
        arrays = export_mlp(model.policy)
    except ValueError as e:
        print(f"export_numpy_policy: error: {e}", file=sys.stderr)
        return 2
    torch_agent, numpy_agent = PolicyAgent(game, model), NumpyPolicyAgent(game, arrays)
    states = sample_states(game, args.positions, np.random.default_rng(0))
    worst = max(float(np.abs(log_softmax(torch_agent.logits(s)) - log_softmax(numpy_agent.logits(s))).max())
                for s in states)
    moves = sum(torch_agent.act(s) != numpy_agent.act(s) for s in states)
    print(f"{len(states)} positions: largest log-probability difference {worst:.2e}, {moves} different moves")
    if worst > 1e-4 or moves:
        print("not written: the export does not match the model", file=sys.stderr)
        return 1
    out = args.out or str(Path(args.model).with_suffix(".npz"))
    save_npz(arrays, out)
    print(f"wrote {out} ({Path(out).stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
