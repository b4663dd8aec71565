// Placeholder until this target lands; see docs/ARCHITECTURE.md.
enum SecurityRulesPlaceholder {}
