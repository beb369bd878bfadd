"""Pieces shared by every game in cardenv: card encoding, errors, option checking, the AEC env
base."""
