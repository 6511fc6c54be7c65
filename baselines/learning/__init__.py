"""Learned baselines (``tictacgo.baselines.learning``; needs the ``train`` extra).

* ``returns``: ``illegal_aware_returns``, the actor-critic chapter's credit assignment as a pure function.
* ``a2c``: ``IllegalAwareA2C``, A2C that trains with that credit assignment.
* ``networks``: the actor-critic chapter's two-branch network and a small residual CNN, by name.
* ``policy_agent``: ``PolicyAgent`` (a trained model as an agent) and ``load_model``.
* ``training_config``: ``TrainConfig``, every setting of a run with its default and help text.
* ``training``: ``train(TrainConfig(...))``: opponents, self-play, evaluation, checkpoints.
* ``rllib``: the AEC envs, a masked PPO RLModule and self-play for RLlib (needs the ``rllib`` extra).

``tictacgo.baselines.learning.returns`` imports only numpy; the rest imports torch (and ``rllib``, ray).
"""

from tictacgo.baselines.learning.returns import illegal_aware_returns

__all__ = ["illegal_aware_returns"]
