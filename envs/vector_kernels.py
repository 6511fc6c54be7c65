"""Compiled steps of the native vector env against its built-in opponents: one call a step.

``BatchedMatch`` (``tictacgo.envs.vector_env``) plays a step (the learner's
moves, the opponent's replies, the resets, the next observations and masks)
with a few dozen numpy calls, whose fixed cost dominates a small batch. On an
engine of the ``"numba"`` backend, with the built-in ``"random"`` or
``"greedy"`` opponent, it instead makes one call of this module's
``*_match_step`` kernel, which walks the games on scalar bitboards:

0. check every action (in range; an action the mask allows is one the rules
   allow) and change nothing if one fails (it returns which);
1. play the learner's moves (a masked-out action forfeits the game) and the
   opponent's replies, and record the results;
2. draw the learner colours of the games that reset (``learner="random"``);
3. reset the games that ended in the previous step, let the opponent open
   where it plays first, and write the observations, masks and ``info``
   arrays.

The random numbers come from the match's ``numpy.random.Generator`` itself,
through its bit generator's ctypes interface (``BitGenerator.ctypes``:
``next_double``, ``next_uint32`` and the state address, passed in as
integers), in the order and the amounts of the numpy path: ``n_actions``
doubles per reply (``rng.random((k, n_actions))``), then one bounded integer
per reset colour (``rng.integers(1, 3, size=k)``), then ``n_actions`` doubles
per opening. A seed gives the same games on both paths; the kernels skip the
generator's lock, so a generator must not be shared with another thread
while a step runs.

The rules are those of the batched engines' kernels
(``tictacgo.games.batched_kernels``; ``go_place`` places a stone) applied to
one game's scalars, written out here rather than called through helpers that
take the engine's arrays: numba passes array arguments between compiled
functions at a cost that, per game, exceeds the work. Importing this module
imports numba; ``kernels_for(engine)`` is None where no kernel applies (the
numpy backend, an engine without one here).
"""

from __future__ import annotations

import ctypes

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from tictacgo.games import tictactoe as ttt
from tictacgo.games.batched_common import BatchedGame
from tictacgo.games.batched_kernels import (
    GO_END_DOUBLE_PASS,
    GO_END_MAX_ACTIONS,
    GO_END_NONE,
    GO_END_PASS_ON_EMPTY_START,
    LEGAL,
    TTT_END_DRAW,
    TTT_END_NONE,
    TTT_END_WIN,
    TTT_FULL,
    go_most_captures,
    go_place,
    nbrs,
    popcount,
)
from tictacgo.games.batched_littlego import REASONS, BatchedLittleGo
from tictacgo.games.batched_tictactoe import END_ILLEGAL as TTT_END_ILLEGAL
from tictacgo.games.batched_tictactoe import HAS_LINE, BatchedTicTacToe

# Learner modes, in vector_env.LEARNER_MODES order.
FIRST, SECOND, ALTERNATE, RANDOM = range(4)


# -- random numbers from a numpy bit generator -------------------------------------------
def _bitgen_call(restype):
    """An intrinsic ``f(function_address, state_address)`` calling a bit generator's C function."""
    def codegen(context, builder, sig, args):
        void_p = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(context.get_value_type(restype), [void_p])
        fn = builder.inttoptr(args[0], fnty.as_pointer())
        return builder.call(fn, [builder.inttoptr(args[1], void_p)])

    def typer(typingctx, fn, state):
        return restype(types.intp, types.intp), codegen
    return intrinsic(typer)


bitgen_double = _bitgen_call(types.float64)
bitgen_uint32 = _bitgen_call(types.uint32)


def bitgen_addresses(rng: np.random.Generator) -> tuple[int, int, int]:
    """``(state, next_double, next_uint32)`` addresses of ``rng``'s bit generator, for the kernels.

    They stay valid while the bit generator lives (the caller keeps ``rng``).
    """
    iface = rng.bit_generator.ctypes
    return (int(iface.state_address), ctypes.cast(iface.next_double, ctypes.c_void_p).value,
            ctypes.cast(iface.next_uint32, ctypes.c_void_p).value)


@njit(cache=True)
def draw_choice(rng, allowed, num_actions, row_size):
    """Draw a row of ``row_size`` doubles and return the allowed action (bit of ``allowed``)
    with the largest one (the first on a tie): ``vector_env._uniform_choice`` on one row."""
    state, next_double = rng[0], rng[1]
    best, pick = -1.0, 0
    for c in range(row_size):
        u = bitgen_double(next_double, state)
        if c < num_actions and (allowed >> c) & 1 and u > best:
            best, pick = u, c
    return pick


@njit(cache=True)
def draw_colours(rng, needs_reset, learner_colour):
    """``rng.integers(1, 3, size=k)`` into the learner colours of the k games that reset."""
    state, next_uint32 = rng[0], rng[2]
    for i in range(needs_reset.shape[0]):
        if needs_reset[i]:
            # numpy's bounded integers on a range of 2 (Lemire's method, threshold 0): the top bit.
            learner_colour[i] = 1 + (bitgen_uint32(next_uint32, state) >> 31)


# -- shared ----------------------------------------------------------------------------
@njit(cache=True)
def new_colour(mode, next_alternate, learner_colour, i):
    """The learner's colour in the new game ``i`` (``learner="random"``: drawn by ``draw_colours``)."""
    if mode == FIRST:
        return 1
    if mode == SECOND:
        return 2
    if mode == ALTERNATE:
        c = next_alternate[i]
        next_alternate[i] = 3 - c
        return c
    return learner_colour[i]


@njit(cache=True)
def learner_reward(winner, colour):
    """+1, -1 or 0: the result of a finished game with ``winner`` for the learner playing ``colour``."""
    if winner == colour:
        return 1.0
    if winner == 3 - colour:
        return -1.0
    return 0.0


@njit(cache=True)
def bad_action(actions, num_actions):
    """The first game whose action is out of ``[0, num_actions)``, -1 when none."""
    for i in range(actions.shape[0]):
        if actions[i] < 0 or actions[i] >= num_actions:
            return i
    return -1


# -- Tic-Tac-Toe -----------------------------------------------------------------------
@njit(cache=True)
def ttt_apply(x, o, mover, a, has_line):
    """Mark ``a`` for ``mover``: ``(x, o, to_move, done, end, winner)``."""
    bit = np.int64(1) << a
    if mover == 1:
        x |= bit
        mine = x
    else:
        o |= bit
        mine = o
    if has_line[mine]:
        return x, o, 3 - mover, True, TTT_END_WIN, mover
    if (x | o) == TTT_FULL:
        return x, o, 3 - mover, True, TTT_END_DRAW, 0
    return x, o, 3 - mover, False, TTT_END_NONE, -1


@njit(cache=True)
def ttt_match_step(x, o, to_move, last_action, done, end, winner,
                   learner_colour, next_alternate, needs_reset, ended_at_reset, mask, mode, greedy, actions,
                   rng, obs, rewards, terminated, opponent_action, illegal, new_mask, info_mask, t_out):
    """One vector step of Tic-Tac-Toe against the random opponent (see the module docstring;
    ``greedy`` plays as random: no placement captures).

    Returns ``(bad, refused, 0, finished)``: the first game whose action is out of range, the
    first whose masked-in action is a taken cell (-1: none; then the step was played), and
    the number of finished games after the step.
    """
    B = x.shape[0]
    bad = bad_action(actions, 9)
    if bad >= 0:
        return bad, -1, 0, 0
    for i in range(B):
        if not (needs_reset[i] or ended_at_reset[i] or done[i]) and mask[i, actions[i]] \
                and ((x[i] | o[i]) >> actions[i]) & 1:
            return -1, i, 0, 0
    for i in range(B):  # 1: the learner's moves and the replies
        xi, oi, tm, la, dn, en, wn = x[i], o[i], to_move[i], last_action[i], done[i], end[i], winner[i]
        playing = not needs_reset[i] and not ended_at_reset[i]
        a = actions[i]
        ill = playing and not mask[i, a]
        reply = -1
        if playing and not dn:
            if ill:
                dn, en, wn = True, TTT_END_ILLEGAL, 3 - tm
            else:
                xi, oi, tm, dn, en, wn = ttt_apply(xi, oi, tm, a, HAS_LINE)
                la = a
                if not dn:
                    reply = draw_choice(rng, TTT_FULL & ~(xi | oi), 9, 9)
                    xi, oi, tm, dn, en, wn = ttt_apply(xi, oi, tm, reply, HAS_LINE)
                    la = reply
        x[i], o[i], to_move[i], last_action[i], done[i], end[i], winner[i] = xi, oi, tm, la, dn, en, wn
        ended = (playing or ended_at_reset[i]) and dn
        terminated[i], opponent_action[i], illegal[i] = ended, reply, ill
        rewards[i] = learner_reward(wn, learner_colour[i]) if ended else 0.0
    if mode == RANDOM:  # 2
        draw_colours(rng, needs_reset, learner_colour)
    finished = 0
    for i in range(B):  # 3: resets and openings; what the step returns
        opened_to_end = False
        if needs_reset[i]:
            xi, oi, tm, la, dn, en, wn = 0, 0, 1, -1, False, TTT_END_NONE, -1
            colour = new_colour(mode, next_alternate, learner_colour, i)
            learner_colour[i] = colour
            if colour != tm:
                reply = draw_choice(rng, TTT_FULL, 9, 9)
                xi, oi, tm, dn, en, wn = ttt_apply(xi, oi, tm, reply, HAS_LINE)
                la = reply
                opponent_action[i] = reply
            x[i], o[i], to_move[i], last_action[i], done[i], end[i], winner[i] = xi, oi, tm, la, dn, en, wn
            opened_to_end = dn
        needs_reset[i], ended_at_reset[i] = terminated[i], opened_to_end
        xi, oi = x[i], o[i]
        finished += done[i]
        legal = 0 if done[i] else TTT_FULL & ~(xi | oi)
        own, opp = (xi, oi) if learner_colour[i] == 1 else (oi, xi)
        waiting = opened_to_end  # the info's mask: all 1 only for a game the opponent's opening ended
        for c in range(9):
            lg = (legal >> c) & 1
            new_mask[i, c] = lg
            info_mask[i, c] = 1 if waiting else lg
            obs[i, c] = 1 if (own >> c) & 1 else (-1 if (opp >> c) & 1 else 0)
        t_out[i] = popcount(xi | oi)
    return -1, -1, 0, finished


# -- Little-Go -------------------------------------------------------------------------
@njit(cache=True)
def go_sides(black, white, prev_black, prev_white, to_move, ko_armed):
    """``(own, opp, ko_own, ko_opp)`` of the player to move (the ko board -1s when no ko applies)."""
    if to_move == 1:
        own, opp, ko_own, ko_opp = black, white, prev_black, prev_white
    else:
        own, opp, ko_own, ko_opp = white, black, prev_white, prev_black
    if not ko_armed:
        ko_own, ko_opp = np.int64(-1), np.int64(-1)
    return own, opp, ko_own, ko_opp


@njit(cache=True)
def go_legal_bits(own, opp, ko_own, ko_opp, nb, n, full, left, right):
    """The legal placements of a live game as bits (PASS, always legal, is not among them)."""
    empty = full & ~(own | opp)
    bits = empty & nbrs(empty, n, full, left, right)  # an empty neighbour: always legal
    hard = empty & ~bits
    for p in range(n * n):
        if (hard >> p) & 1 and go_place(own, opp, p, ko_own, ko_opp, nb, n, full, left, right)[0] == LEGAL:
            bits |= np.int64(1) << p
    return bits


@njit(cache=True)
def go_ends(t, last_pass, a, pass_action, max_actions):
    """The end code action ``a`` gives a game after ``t`` actions (``GO_END_NONE``: it goes on)."""
    e = GO_END_NONE
    if a == pass_action:
        if t == 0:
            e = GO_END_PASS_ON_EMPTY_START
        elif last_pass:
            e = GO_END_DOUBLE_PASS
    if t + 1 >= max_actions:
        e = GO_END_MAX_ACTIONS
    return e


@njit(cache=True)
def go_apply(black, white, to_move, t, last_pass, a, own2, opp2, dead, pass_action, max_actions, komi):
    """Play the checked action ``a`` (a placement's ``go_place`` outcome ``own2, opp2, dead``).

    Returns the game's new ``(black, white, prev_black, prev_white, to_move, t, ko_armed,
    last_pass, captured, done, end, winner)``.
    """
    prev_black, prev_white = black, white
    e = go_ends(t, last_pass, a, pass_action, max_actions)
    if a == pass_action:
        ko_armed, captured, last_pass = False, 0, True
    else:
        if to_move == 1:
            black, white = own2, opp2
        else:
            white, black = own2, opp2
        ko_armed, captured, last_pass = dead != 0, popcount(dead), False
    done = e != GO_END_NONE
    winner = -1
    if done:
        b = float(popcount(black))
        w = popcount(white) + komi
        winner = 1 if b > w else (2 if w > b else 0)
    return (black, white, prev_black, prev_white, 3 - to_move, t + 1, ko_armed, last_pass, captured, done, e,
            winner)


@njit(cache=True)
def go_opponent_move(black, white, prev_black, prev_white, to_move, ko_armed, nb, n, full, left, right,
                     pass_action, greedy, rng, counts):
    """The built-in opponent's action: a random legal placement (``greedy``: among those capturing
    the most), PASS only without one; and its ``go_place`` outcome ``(own2, opp2, dead)``.
    Draws ``pass_action + 1`` doubles, as ``rng.random((1, n_actions))``."""
    own, opp, ko_own, ko_opp = go_sides(black, white, prev_black, prev_white, to_move, ko_armed)
    allowed = go_legal_bits(own, opp, ko_own, ko_opp, nb, n, full, left, right)
    if greedy and allowed:
        allowed = go_most_captures(allowed, own, opp, ko_own, ko_opp, nb, n, full, left, right, counts)
    a = draw_choice(rng, allowed, pass_action, pass_action + 1)
    if not allowed:
        return pass_action, own, opp, np.int64(0)
    _, own2, opp2, dead = go_place(own, opp, a, ko_own, ko_opp, nb, n, full, left, right)
    return a, own2, opp2, dead


@njit(cache=True)
def go_match_step(black, white, prev_black, prev_white, to_move, t, ko_armed, last_pass, captured,
                  last_action, done, end, winner, nb, n, full, left, right, pass_action, max_actions, komi,
                  end_illegal, scratch, learner_colour, next_alternate, needs_reset, ended_at_reset, mask,
                  mode, greedy, actions, rng,
                  obs, rewards, terminated, opponent_action, illegal, new_mask, info_mask, t_out, scores):
    """One vector step of Little-Go against the random or greedy opponent (see the module docstring).

    Returns ``(bad, refused, code, finished)``: the first game whose action is out of range,
    the first whose masked-in placement the rules refuse, their refusal code (-1, -1, 0: the
    step was played), and the number of finished games after the step. ``scratch``: (3, B)
    int64 for the learner placements' outcomes.
    """
    B, N = black.shape[0], n * n
    bad = bad_action(actions, pass_action + 1)
    if bad >= 0:
        return bad, -1, 0, 0
    for i in range(B):  # 0: the learner's placements, checked before any game changes
        a = actions[i]
        if needs_reset[i] or ended_at_reset[i] or done[i] or not mask[i, a] or a == pass_action:
            continue
        own, opp, ko_own, ko_opp = go_sides(black[i], white[i], prev_black[i], prev_white[i], to_move[i],
                                            ko_armed[i])
        code, own2, opp2, dead = go_place(own, opp, a, ko_own, ko_opp, nb, n, full, left, right)
        if code != LEGAL:
            return -1, i, code, 0
        scratch[0, i], scratch[1, i], scratch[2, i] = own2, opp2, dead
    counts = np.zeros(N, np.int64)
    for i in range(B):  # 1: the learner's moves and the replies
        bl, wh, pb, pw, tm, tt = black[i], white[i], prev_black[i], prev_white[i], to_move[i], t[i]
        ko, lp, cap, la = ko_armed[i], last_pass[i], captured[i], last_action[i]
        dn, en, wn = done[i], end[i], winner[i]
        playing = not needs_reset[i] and not ended_at_reset[i]
        a = actions[i]
        ill = playing and not mask[i, a]
        reply = -1
        if playing and not dn:
            if ill:
                dn, en, wn = True, end_illegal, 3 - tm
            else:
                bl, wh, pb, pw, tm, tt, ko, lp, cap, dn, en, wn = go_apply(
                    bl, wh, tm, tt, lp, a, scratch[0, i], scratch[1, i], scratch[2, i], pass_action,
                    max_actions, komi)
                la = a
                if not dn:
                    reply, own2, opp2, dead = go_opponent_move(bl, wh, pb, pw, tm, ko, nb, n, full, left,
                                                               right, pass_action, greedy, rng, counts)
                    bl, wh, pb, pw, tm, tt, ko, lp, cap, dn, en, wn = go_apply(
                        bl, wh, tm, tt, lp, reply, own2, opp2, dead, pass_action, max_actions, komi)
                    la = reply
        black[i], white[i], prev_black[i], prev_white[i], to_move[i], t[i] = bl, wh, pb, pw, tm, tt
        ko_armed[i], last_pass[i], captured[i], last_action[i] = ko, lp, cap, la
        done[i], end[i], winner[i] = dn, en, wn
        ended = (playing or ended_at_reset[i]) and dn
        terminated[i], opponent_action[i], illegal[i] = ended, reply, ill
        rewards[i] = learner_reward(wn, learner_colour[i]) if ended else 0.0
    if mode == RANDOM:  # 2
        draw_colours(rng, needs_reset, learner_colour)
    finished = 0
    for i in range(B):  # 3: resets and openings; what the step returns
        opened_to_end = False
        if needs_reset[i]:
            bl, wh, pb, pw, tm, tt = 0, 0, 0, 0, 1, 0
            ko, lp, cap, la, dn, en, wn = False, False, 0, -1, False, GO_END_NONE, -1
            colour = new_colour(mode, next_alternate, learner_colour, i)
            learner_colour[i] = colour
            if colour != tm:
                reply, own2, opp2, dead = go_opponent_move(bl, wh, pb, pw, tm, ko, nb, n, full, left, right,
                                                           pass_action, greedy, rng, counts)
                bl, wh, pb, pw, tm, tt, ko, lp, cap, dn, en, wn = go_apply(
                    bl, wh, tm, tt, lp, reply, own2, opp2, dead, pass_action, max_actions, komi)
                la = reply
                opponent_action[i] = reply
            black[i], white[i], prev_black[i], prev_white[i], to_move[i], t[i] = bl, wh, pb, pw, tm, tt
            ko_armed[i], last_pass[i], captured[i], last_action[i] = ko, lp, cap, la
            done[i], end[i], winner[i] = dn, en, wn
            opened_to_end = dn
        needs_reset[i], ended_at_reset[i] = terminated[i], opened_to_end
        bl, wh = black[i], white[i]
        finished += done[i]
        if done[i]:
            legal = np.int64(0)
        else:
            own, opp, ko_own, ko_opp = go_sides(bl, wh, prev_black[i], prev_white[i], to_move[i], ko_armed[i])
            legal = go_legal_bits(own, opp, ko_own, ko_opp, nb, n, full, left, right)
        mine, theirs = (bl, wh) if learner_colour[i] == 1 else (wh, bl)
        waiting = opened_to_end  # the info's mask: all 1 only for a game the opponent's opening ended
        for p in range(N):
            lg = (legal >> p) & 1
            new_mask[i, p] = lg
            info_mask[i, p] = 1 if waiting else lg
            obs[i, p] = 1 if (mine >> p) & 1 else (-1 if (theirs >> p) & 1 else 0)
        new_mask[i, N] = not done[i]
        info_mask[i, N] = 1 if waiting or not done[i] else 0
        t_out[i] = t[i]
        scores[i, 0] = popcount(bl)
        scores[i, 1] = popcount(wh) + komi
    return -1, -1, 0, finished


# -- the engines' adapters ---------------------------------------------------------------
class MatchKernel:
    """A match-step kernel bound to one engine.

    Call ``step(*engine_args, learner_colour, next_alternate, needs_reset, ended_at_reset,
    mask, mode, greedy, actions, rng, obs, rewards, terminated, opponent_action, illegal,
    new_mask, info_mask, t_out[, scores])`` (``scores`` where ``scored``): it returns
    ``(bad, refused, code, finished)``; a refused action's reason is ``refusals[code]``. The engine's
    arrays are bound once: the engines update them in place, never replace them.
    """

    def __init__(self, kernel, engine_args: tuple, refusals: tuple, scored: bool):
        self.kernel, self.engine_args, self.refusals, self.scored = kernel, engine_args, refusals, scored
        self._compiled = None  # the compiled entry point for the first call's argument types

    def step(self, *args):
        """``kernel(*args)``, calling the compiled code for the first call's argument types directly.

        numba's dispatcher works out the types of the 24 arguments on every call (about 0.6 us of a
        1.5 us call, measured on a kernel with these arguments); here they repeat, so the caller
        must pass arrays of the first call's dtypes, dimensions and flags (C order, aligned,
        writable) every time.
        """
        if self._compiled is not None:
            return self._compiled(*args)
        result = self.kernel(*args)
        types = tuple(self.kernel.typeof_pyval(x) for x in args)
        # The dispatcher may have run an overload compiled for other (convertible) types: then it stays.
        self._compiled = self.kernel.get_overload(types) if types in self.kernel.overloads else self.kernel
        return result


def kernels_for(engine: BatchedGame) -> MatchKernel | None:
    """The compiled match step of ``engine`` (None on the numpy backend or for an engine without one)."""
    if engine.backend != "numba":
        return None
    e = engine
    if type(e) is BatchedTicTacToe:
        return MatchKernel(ttt_match_step, (e.x, e.o, e.to_move, e.last_action, e.done, e.end, e.winner),
                           (ttt.OCCUPIED,), False)
    if type(e) is BatchedLittleGo:
        game = e.game
        geometry = (np.array(game.neighbour_bits, dtype=np.int64), game.size, np.int64(game.full),
                    np.int64(game.not_first_col), np.int64(game.not_last_col))
        scratch = np.zeros((3, e.batch_size), np.int64)  # the learner placements' outcomes
        return MatchKernel(go_match_step, (e.black, e.white, e.prev_black, e.prev_white, e.to_move, e.t,
                                           e.ko_armed, e.last_pass, e.captured, e.last_action, e.done, e.end,
                                           e.winner, *geometry, e.pass_action, e.max_actions, e.komi,
                                           e.END_ILLEGAL, scratch), REASONS, True)
    return None
