"""One way to derive the seed of a part of the work (a game, a player, an opening) from a
parent seed, so that every part depends only on its own numbers and replays exactly."""

_MIX = 1000003  # a prime larger than any count of parts at one level
_RANGE = 2**63


def derive_seed(seed: int, *parts: int) -> int:
    """The seed of the part numbered ``parts`` (outermost first) under ``seed``; distinct parts
    get distinct seeds, and the same parts the same seed, on every machine."""
    for part in parts:
        seed = seed * _MIX + part
    return seed % _RANGE
