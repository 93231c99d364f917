"""Training learning players: ``qlearning`` trains the tabular Q-learner, with checkpoints and a learning curve."""
