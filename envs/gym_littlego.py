"""Little-Go (5x5 Go of the CSCI-561 homework) as a single-agent Gymnasium env: ``LittleGo-v0``.

The learner plays Black (first) or White (second) against an opponent agent;
each ``step()`` is the learner's action followed by the opponent's reply::

    import gymnasium, tictacgo
    env = gymnasium.make("LittleGo-v0", opponent="minimax:depth=2", learner="random")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(12)   # the centre point

======================  ===================================================
Action space            ``Discrete(n*n + 1)`` (26 on 5x5): ``i*n + j`` places
                        a stone on row i, column j; ``n*n`` is PASS
Observation space       ``"flat"``: ``Box(-1, 1, (n*n,), int8)``;
                        ``"board"``: ``Box(-1, 1, (n, n), int8)``;
                        ``"planes"``: ``Box(0, 1, (5, n, n), float32)``
                        (own, opponent, legal, ko-forbidden, actions left)
Rewards                 +1 win, -1 loss (also for an illegal action under
                        ``illegal="lose"``), 0 otherwise; no draws with the
                        default fractional komi; ``illegal_penalty`` for a
                        refused action under ``illegal="penalty"``
Termination             after action ``max_actions`` (24 on 5x5, passes
                        included), two passes in a row, Black passing on
                        the very first action, or an illegal action
                        (``illegal="lose"``); never truncated
Action mask             ``env.action_masks()`` (bool) and
                        ``info["action_mask"]`` (int8); PASS is always legal
Import                  ``gymnasium.make("tictacgo:LittleGo-v0")``
======================  ===================================================

Rules: exactly the course host's (``specs/littlego.md``): no suicide, simple
ko with one step of memory, no superko; score = stones on the board, komi
``n / 2`` to White; no territory. See ``tictacgo.games.littlego``.

Keyword arguments: ``board_size`` (5), ``komi`` (None: ``n / 2``),
``max_actions`` (None: ``n*n - 1``), and the common ones: ``opponent``
(default ``"random"``), ``learner`` (``"first"``, ``"second"``,
``"alternate"``, ``"random"``), ``observation`` (``"flat"``, ``"board"``,
``"planes"``), ``illegal`` (``"lose"``, ``"penalty"``), ``illegal_penalty``
(-1.0), ``render_mode`` (``"ansi"``, ``"rgb_array"``, ``"human"``). See
``tictacgo.envs.single_agent`` for their meaning. ``info`` adds to the
common entries ``scores`` ((Black's, White's)), ``t`` (actions played) and
``reason`` one of ``max_actions``/``double_pass``/``pass_on_empty_start``/
``illegal``.

Version history: v0, the first release.
"""

from __future__ import annotations

from typing import Any

from tictacgo.envs.single_agent import TurnBasedEnv
from tictacgo.games import littlego


class LittleGoEnv(TurnBasedEnv):
    """Little-Go against an opponent agent (see the module docstring).

    Args:
        opponent: agent spec, ``Agent`` or callable ``f(state) -> action``.
        learner: "first" (Black), "second" (White), "alternate" or "random".
        board_size: n, 2..19 (default 5).
        komi: White's bonus (default ``n / 2``).
        max_actions: actions before the game ends (default ``n*n - 1``).
        observation: "flat", "board" or "planes".
        illegal: "lose" or "penalty".
        illegal_penalty: the reward of a refused action under ``illegal="penalty"``.
        render_mode: None, "ansi", "rgb_array" or "human".
    """

    game = littlego

    def __init__(self, opponent: Any = "random", learner: str = "first", board_size: int = 5,
                 komi: float | None = None, max_actions: int | None = None,
                 observation: str = "flat", illegal: str = "lose",
                 illegal_penalty: float = -1.0, render_mode: str | None = None):
        # Validates the size and caches the geometry before the base builds spaces.
        littlego.geometry(board_size, komi, max_actions)
        self.board_size = int(board_size)
        self.komi = komi
        self.max_actions = max_actions
        super().__init__(opponent=opponent, learner=learner, observation=observation,
                         illegal=illegal, illegal_penalty=illegal_penalty, render_mode=render_mode)

    def _initial_state(self) -> littlego.GoState:
        return littlego.initial_state(self.board_size, self.komi, self.max_actions)

    def _stone_bits(self, state: littlego.GoState) -> tuple[int, int]:
        return state.black, state.white

    def _extra_info(self, state: littlego.GoState, info: dict) -> None:
        info["scores"] = littlego.scores(state)
        info["t"] = state.t
