"""Screens: main, prompt inspector, setup (no model), question, model change, help, confirm."""
