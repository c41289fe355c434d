"""Rendering of results: rich tables, matplotlib plots, JSON files."""
