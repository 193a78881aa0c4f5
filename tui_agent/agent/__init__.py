"""The research loop and what runs it: the engine, the tool runner, approval, the run's control and the runner that wires one run."""
