"""Checks of the local GitHub search service without sockets: `make test` runs them, and
`python3 -m unittest discover -s scripts -t scripts` alone. The Swift tests check it over HTTP."""
