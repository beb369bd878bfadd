"""PettingZoo AEC environments over the rules engines (the only layer that imports PettingZoo)."""
