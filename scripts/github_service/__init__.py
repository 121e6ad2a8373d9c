"""A local GitHub search service answering GET /search/repositories from the shipped data.

scripts/github-service runs it; Docs/GitHubClient.md describes what it imitates and what not.
"""
