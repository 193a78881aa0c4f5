"""What keeps secrets and forged tags out: hygiene (controls, escaping), redaction, its rules and rule sets."""
