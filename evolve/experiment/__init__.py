"""An experiment as its TOML file declares it: ``config`` reads and validates the file
(``experiments/*.toml``) into the records ``schema`` declares (``Config`` and one record a table),
whose keys ``config_keys`` declares (one ``ConfigKey`` row each: its type, default, check and range in
words), and ``config_genome`` reads the genes, their bounds, the start weights and a course agent's
``[individual]``."""
