// Package mcp makes the tools of Model Context Protocol servers NovaCode
// tools. It reads server definitions in Claude Code's format (.mcp.json,
// "mcpServers" in a settings file), starts the servers in the background
// with a Manager (stdio children in their own process group, streamable
// HTTP, the old SSE transport), and offers each server tool as a tool.Tool
// named mcp__<server>__<tool>, whose calls wait for a server still
// connecting, restart one that exited once, and come back as tool results
// whatever the server does. Which servers may start (trust, approval) is
// the caller's decision; this package starts what it is given.
//
// It is built on the official Go SDK, github.com/modelcontextprotocol/go-sdk.
package mcp
