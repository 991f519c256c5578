"""Subcommands of the ``cueref`` command line, one module each."""
