"""``evolve ship``: params.json replaced only after a test at the playing budget accepts the weights.
``ship_plan`` fixes the plan first (the candidate, the current weights, the screen and the SPRT, in the
run's ``ship/`` folder, and a test already under way); ``ship`` plays the screen and the SPRT on it and
ships."""
