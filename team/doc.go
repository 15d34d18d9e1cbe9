// Package team runs subagents: the Task tool's child loops, their
// definitions, background subagents and the mailbox between agents.
package team
