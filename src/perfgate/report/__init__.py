"""Reporters: what users read (trend pages, feeds).  Each format is one module."""
