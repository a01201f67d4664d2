"""The `tooluse` command line.

`schema`, `check`, `chat`, `serve`, and loading the files, folders and modules its
targets name.

Imports: any layer (it is the top).
"""
