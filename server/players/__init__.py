"""A lasting player: identity, profile, rating and ladder."""
