// Package archtest holds tests that turn the architecture's conventions into
// checks: which packages may import which (arrows only point down the table
// in docs/ARCHITECTURE.md), that every package is documented, and that the
// linker can drop unused methods (no template executor is reachable).
package archtest
