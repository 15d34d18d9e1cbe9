// Package temporal tests nova's Temporal engine end to end: the nova and
// nova-temporal binaries (nova batch --engine temporal, nova worker)
// against a Temporal server running in the test process and the scripted
// model of llm/llmtest. Its tests are all in _test files; see go.mod for
// why it is a module of its own.
package temporal
