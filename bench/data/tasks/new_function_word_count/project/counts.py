"""Counting helpers."""
