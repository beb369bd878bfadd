"""Huludao Dabang (葫芦岛打棒) as a PettingZoo AEC environment; see ``cardenv.envs.dabang``."""

from cardenv.envs.dabang import env, raw_env

__all__ = ["env", "raw_env"]
