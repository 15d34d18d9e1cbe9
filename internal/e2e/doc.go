// Package e2e holds end-to-end tests: they build the real nova binary and run
// it as a subprocess against the scripted model server (llm/llmtest), the way
// a user or CI would, and check what it prints and what it sent.
package e2e
