package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxToolName is the longest tool name the providers take.
const MaxToolName = 64

// sanitize makes s a part of a tool name: every character other than a
// letter, digit, "_" or "-" becomes "_".
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// Prefix is what the names of a server's tools start with,
// mcp__<server>__; permission rules name the whole server as
// mcp__<server>.
func Prefix(server string) string { return "mcp__" + sanitize(server) + "__" }

// ToolName is the name a server's tool has for the model and in
// permission rules: mcp__<server>__<tool>, every character outside
// [A-Za-z0-9_-] replaced by "_". A name longer than MaxToolName keeps its
// prefix and as much of the tool's name as fits, and ends in a short hash
// of the whole, so that two long names stay apart.
func ToolName(server, tool string) string {
	name := Prefix(server) + sanitize(tool)
	if len(name) <= MaxToolName {
		return name
	}
	h := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(h[:4])
	return name[:MaxToolName-len(suffix)] + suffix
}
