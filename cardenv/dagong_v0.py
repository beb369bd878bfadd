"""Xianning Dagong (咸宁打拱) as a PettingZoo AEC environment; see ``cardenv.envs.dagong``."""

from cardenv.envs.dagong import env, raw_env

__all__ = ["env", "raw_env"]
