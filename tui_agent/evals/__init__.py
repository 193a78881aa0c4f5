"""Regression sets: run a set of questions as labelled sessions (``runs``), check their answers
(``cases``), and compare two labelled runs case by case (``compare``)."""
