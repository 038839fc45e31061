"""Autograder for the Minesweeper teaching kit."""
