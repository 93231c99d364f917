"""Training learning players: ``trainer`` trains the tabular Q-learner, with checkpoints and a learning curve."""
