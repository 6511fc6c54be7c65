"""Little-Go (5x5 Go of the CSCI-561 homework) as a single-agent Gymnasium env: ``LittleGo-v0``.

The learner plays Black (first) or White (second) against an opponent agent;
each ``step()`` is the learner's action followed by the opponent's reply:

    import gymnasium, tictacgo
    env = gymnasium.make("LittleGo-v0", opponent="minimax:depth=2", learner="random")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(12)   # the centre point

* **Action space**: ``Discrete(n*n + 1)`` (26 on 5x5): ``i*n + j`` places a
  stone on row i, column j; ``n*n`` is PASS
* **Observation space**: ``"flat"``: ``Box(-1, 1, (n*n,), int8)``;
  ``"board"``: ``Box(-1, 1, (n, n), int8)``; ``"planes"``: ``Box(0, 1, (6, n,
  n), float32)`` (own, opponent, legal, ko-forbidden, actions left, to_move:
  all ones when Black is to move, zeros when White is); ``"planes_hwc"``: the
  same planes channels last, ``Box(0, 1, (n, n, 6), float32)``
* **Rewards**: +1 win, -1 loss (also for an illegal action under
  ``illegal="lose"``), 0 otherwise; no draws with the default fractional komi;
  ``illegal_penalty`` for a refused action under ``illegal="penalty"``
* **Termination**: after action ``max_actions`` (24 on 5x5, passes included),
  two passes in a row, Black passing on the very first action, or an illegal
  action (``illegal="lose"``); never truncated
* **Action mask**: ``env.action_masks()`` (bool) and ``info["action_mask"]``
  (int8); PASS is always legal
* **Import**: ``gymnasium.make("tictacgo:LittleGo-v0")``

Rules: exactly the course host's (``docs/littlego.md``): no suicide, simple
ko with one step of memory, no superko; score = stones on the board, komi
``n / 2`` to White; no territory. See ``tictacgo.games.littlego``.

Keyword arguments: ``board_size`` (5), ``komi`` (None: ``n / 2``),
``max_actions`` (None: ``n*n - 1``), and the common ones: ``opponent``
(default ``"random"``), ``learner`` (``"first"``, ``"second"``,
``"alternate"``, ``"random"``), ``observation`` (``"flat"``, ``"board"``,
``"planes"``, ``"planes_hwc"``), ``render_mode`` (``"ansi"``, ``"rgb_array"``, ``"human"``),
``render_cell``, ``render_fps``; and through ``gymnasium.make`` also
``illegal`` (``"lose"``, ``"penalty"``: applies
``tictacgo.wrappers.IllegalMovePenalty``), ``illegal_penalty`` (-1.0) and
``max_illegal_in_a_row``. See ``tictacgo.envs.single_agent`` for their
meaning and for ``set_opponent``. ``info`` adds to the common entries
``scores`` (float64 array: Black's, White's), ``t`` (actions played) and
``reason`` one of ``max_actions``/``double_pass``/``pass_on_empty_start``/
``illegal``.
"""

from __future__ import annotations

from typing import Any

from tictacgo.envs.single_agent import TurnBasedEnv
from tictacgo.games import LittleGo


def env(board_size: int = 5, komi: float | None = None, max_actions: int | None = None,
        **kwargs: Any) -> TurnBasedEnv:
    """The Little-Go single-agent env (see the module docstring).

    Args:
        board_size: n, 2..19.
        komi: White's bonus (default ``n / 2``).
        max_actions: actions before the game ends (default ``n*n - 1``).
        **kwargs: ``TurnBasedEnv``'s (``opponent``, ``learner``, ``observation``,
            ``render_mode``, ``render_cell``, ``render_fps``, ``opponent_resolver``).
    Raises:
        TypeError / ValueError: a bad board size, komi or action limit.
    """
    return TurnBasedEnv(LittleGo(board_size, komi, max_actions), **kwargs)
