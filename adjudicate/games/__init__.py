"""One module per discipline family; each defines ``GAMES``, a list of game objects.

The engine discovers them by scanning this folder: adding a discipline is adding a file.
"""
