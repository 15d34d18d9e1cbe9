// Package archtest holds tests that turn the architecture's conventions into
// checks: which packages may import which (arrows only point down the table
// in docs/ARCHITECTURE.md), what each package may reach through its
// imports (TestTransitiveDeps: an allow-list of the module's packages and
// the heavy third-party modules it must not link, each with its reason),
// that every package is documented, and that the linker can drop unused
// methods (no template executor is reachable).
package archtest
