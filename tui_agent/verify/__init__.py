"""Citation checks: an answer's claims and the check of each against its source."""
