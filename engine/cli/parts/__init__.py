"""What a command line is made of, for ``littlego`` and ``evolve`` alike: ``argument_types`` (the
values an argument may take, and the files a command will write, checked: a user's mistake in one
is a clear line and exit 2), ``arguments`` (the options several commands share, each group added
and read back by one pair of functions), ``commands`` (the command tree: a tool's parser, and a command
whose handler's docstring is its help) and ``exits`` (the one way a command ends: one line for a user's
mistake, a traceback for a bug, the exit statuses)."""
