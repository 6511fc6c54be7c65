"""Agents to train and measure against, and the registry that names them.

Every agent works on a rules core (``tictacgo.games``) and takes an explicit
``numpy.random.Generator``. Build one by name with ``make_agent`` (a spec's
text is read once into an ``AgentSpec`` by ``parse_agent_spec``):

    from tictacgo.baselines import make_agent
    agent = make_agent("minimax", "tictactoe", rng=np.random.default_rng(0))
"""

from tictacgo.agent import Agent, FunctionAgent
from tictacgo.baselines.agent_spec import AgentSpec
from tictacgo.baselines.minimax import MinimaxAgent
from tictacgo.baselines.random_agent import RandomAgent
from tictacgo.baselines.registry import (
    available_agents,
    describe_agents,
    make_agent,
    parse_agent_spec,
    register_agent,
)

__all__ = ["Agent", "AgentSpec", "FunctionAgent", "MinimaxAgent", "RandomAgent", "available_agents",
           "describe_agents", "make_agent", "parse_agent_spec", "register_agent"]
