"""An experiment's records, as its TOML file declares them: ``schema`` declares ``Config`` and one record a
table, whose keys ``config_keys`` declares (one ``ConfigKey`` row each: its type, default, check and range
in words). Below every other part of ``evolve``, which reads them; reading and validating a file into them
is ``evolve.config``'s (with ``evolve.config_genome`` for the genes, their bounds, the start weights and a
course agent's ``[individual]``), above the agents it checks."""
