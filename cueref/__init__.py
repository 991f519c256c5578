"""cueref, the application: the command line and the pipeline wiring."""

__version__ = "0.1.0"
