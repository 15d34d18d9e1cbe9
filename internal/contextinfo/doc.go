// Package contextinfo builds what the agent knows about its surroundings
// before the first event: the SystemPrompt, an <env> block (working
// directory, platform, date, git state), the memory files (AGENTS.md,
// NOVA.md, CLAUDE.md) of the user and of the project, and the Preamble that
// joins both into one <system-reminder> for the start of a conversation (and
// again after each compaction).
//
// It also owns the other direction: an Extractor asks the model which durable
// facts a session taught it and appends them to the project memory file.
//
// Everything here that runs before a session starts is cheap and
// side-effect free: git runs read-only (no optional locks, so no index
// refresh is written), with a timeout, and with every repository setting that
// could execute a program switched off, because a repository's own config is
// not trusted.
package contextinfo
