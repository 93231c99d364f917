"""What every tool shares and the playing core does not need: process pools and seeds."""
