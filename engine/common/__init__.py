"""What every tool shares and the playing core does not need: ``pools`` (the one process-pool
factory, and CPU counted with child processes), ``seeds`` (the one seed derivation),
``progress`` (a bar on a terminal, lines in a log), ``runfolder`` (a run folder's file names and
errors, and whether a run holds its lock), ``generation_record`` (the record of a generation and
its one reader, for ``evolve`` and the web app alike), ``json_lines`` (files of JSON lines a kill may
cut short), ``gzip_documents`` (the versioned gzipped files of positions), ``hosts`` (whether an
address is this machine's own) and ``plain_state`` (state kept as
plain data: random states as JSON, old pickles read admitting known plain types only)."""
