"""Exit codes of every command, in one table."""

EXIT_OK = 0  # an answer was produced (normal or forced); the command did what it was asked
EXIT_NO_ANSWER = 1  # no answer, a page not read, a session that needs review, a regression
EXIT_USAGE = 2  # bad usage or configuration
EXIT_BROKEN_PIPE = 141  # the reader of standard output went away (`| head`): 128 + SIGPIPE, as shells report it
