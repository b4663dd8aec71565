// Placeholder until this target has tests.
