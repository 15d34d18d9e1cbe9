package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// ServerConfig is one server as Claude Code's .mcp.json writes it: a
// command to run (stdio), or the URL of a streamable HTTP ("type": "http")
// or SSE ("type": "sse") endpoint. ${VAR} and ${VAR:-default} in Command,
// Args, Env, URL and Headers are replaced by Expand.
type ServerConfig struct {
	// Type is "stdio" (the default when Command is set), "http" or "sse".
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	// Headers are sent with every HTTP request: a bearer token goes here
	// ("Authorization": "Bearer ${TOKEN}").
	Headers map[string]string `json:"headers,omitempty"`
}

// The transports.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	TypeSSE   = "sse"
)

// Transport is the server's transport: Type, or stdio when Type is empty.
func (c ServerConfig) Transport() string {
	switch t := strings.ToLower(c.Type); t {
	case "":
		if c.URL != "" && c.Command == "" {
			return TypeHTTP
		}
		return TypeStdio
	case "streamable-http", "streamablehttp", "streamable_http":
		return TypeHTTP
	default:
		return t
	}
}

// Describe says in a few words what the server is: its command line, or
// its transport and URL.
func (c ServerConfig) Describe() string {
	if c.Transport() == TypeStdio {
		return strings.Join(append([]string{c.Command}, c.Args...), " ")
	}
	return c.Transport() + " " + c.URL
}

// Hash names the definition: an answer given for a server is remembered
// for it, and asked again when the definition changes.
func (c ServerConfig) Hash() string {
	b, _ := json.Marshal(c) // map keys sorted: stable
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// Validate checks a server's name and its definition as written (${VAR}
// references unexpanded), as ParseFile does: the error says what is wrong.
func Validate(name string, c ServerConfig) error {
	if err := checkName(name); err != nil {
		return err
	}
	return c.validate()
}

// validate checks a definition (after expansion).
func (c ServerConfig) validate() error {
	switch c.Transport() {
	case TypeStdio:
		if strings.TrimSpace(c.Command) == "" {
			return errors.New(`it has no "command" (a stdio server needs one; an HTTP server needs "type": "http" and a "url")`)
		}
	case TypeHTTP, TypeSSE:
		if c.URL == "" {
			return fmt.Errorf(`it has no "url" (a %s server needs one)`, c.Transport())
		}
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("its url %q is not an http or https URL", c.URL)
		}
	default:
		return fmt.Errorf(`its type %q is not one of "stdio", "http" or "sse"`, c.Type)
	}
	return nil
}

// Scope says where a server's definition comes from; it decides whether
// the server needs the person's approval (ScopeProject) and is shown next to
// its name.
type Scope string

// The scopes.
const (
	// ScopeProject is .mcp.json at the workspace's root: a repository's
	// choice, started only once the person approved it.
	ScopeProject Scope = "project"
	// ScopeUser is "mcpServers" in the user's own settings file.
	ScopeUser Scope = "user"
	// ScopeLocal is "mcpServers" in .novacode/settings.local.json (applied
	// only in a trusted workspace).
	ScopeLocal Scope = "local"
	// ScopeWorkspace is "mcpServers" in .novacode/settings.json (applied
	// only in a trusted workspace).
	ScopeWorkspace Scope = "workspace"
	// ScopeFlag is a file given with --mcp-config.
	ScopeFlag Scope = "flag"
	// ScopeSDK is a server an embedding program passed in its options.
	ScopeSDK Scope = "sdk"
)

// Server is one server to start: its name, its definition (expanded) and
// where it was defined.
type Server struct {
	Name   string
	Config ServerConfig
	Scope  Scope
	// Source is the file it was defined in, "" for ScopeSDK.
	Source string
}

// File is what a configuration file in Claude Code's format defines.
type File struct {
	// Servers are the usable definitions, as written (not expanded).
	Servers map[string]ServerConfig
	// Problems name each definition left out and why (each a
	// *DefinitionError).
	Problems []error
}

// DefinitionError is a server definition left out of a file, and why.
type DefinitionError struct {
	File, Server, Reason string
}

func (e *DefinitionError) Error() string {
	return fmt.Sprintf("%s: MCP server %q left out: %s", e.File, e.Server, e.Reason)
}

// Names lists the servers in name order.
func (f File) Names() []string {
	names := make([]string, 0, len(f.Servers))
	for n := range f.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ParseFile reads a configuration file in Claude Code's format,
// {"mcpServers": {"name": {...}}}; path names it in errors. A file that is
// not such an object is an error; a server whose definition is unusable
// is left out, with a Problem naming the file and the server.
func ParseFile(path string, data []byte) (File, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return File{}, fmt.Errorf("%s: not a JSON object: %v", path, strings.TrimPrefix(err.Error(), "json: "))
	}
	raw, ok := top["mcpServers"]
	if !ok {
		return File{}, fmt.Errorf(`%s: no "mcpServers" object (write {"mcpServers": {"name": {"command": "…"}}})`, path)
	}
	return ParseServers(path, raw)
}

// ParseServers reads the value of an "mcpServers" member: an object of
// server definitions by name. null defines none.
func ParseServers(path string, raw json.RawMessage) (File, error) {
	f := File{Servers: map[string]ServerConfig{}}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return f, nil
	}
	var defs map[string]json.RawMessage
	if err := json.Unmarshal(raw, &defs); err != nil {
		return File{}, fmt.Errorf(`%s: "mcpServers" is not an object of server definitions`, path)
	}
	seen := map[string]string{}
	for _, name := range sortedKeys(defs) {
		bad := func(format string, args ...any) {
			f.Problems = append(f.Problems, &DefinitionError{File: path, Server: name, Reason: fmt.Sprintf(format, args...)})
		}
		if err := checkName(name); err != nil {
			bad("%v", err)
			continue
		}
		var c ServerConfig
		dec := json.NewDecoder(bytes.NewReader(defs[name]))
		if err := dec.Decode(&c); err != nil {
			bad("%s", strings.TrimPrefix(err.Error(), "json: "))
			continue
		}
		if err := c.validate(); err != nil {
			bad("%v", err)
			continue
		}
		if other, ok := seen[Prefix(name)]; ok {
			bad("its tools would have the same names as those of server %q (%s…)", other, Prefix(name))
			continue
		}
		seen[Prefix(name)] = name
		f.Servers[name] = c
	}
	return f, nil
}

// checkName refuses server names that cannot make tool names: empty, or
// holding "__", which separates server and tool in mcp__server__tool (and
// in permission rules).
func checkName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return errors.New("a server needs a name")
	case strings.Contains(sanitize(name), "__"):
		return errors.New(`its name holds "__" (after characters other than letters, digits, "_" and "-" become "_"), which separates server and tool in mcp__server__tool; rename it`)
	}
	return nil
}

var varRef = regexp.MustCompile(`\$\{([^}]*)\}`)

// Expand replaces ${VAR} and ${VAR:-default} in the command, arguments,
// environment values, URL and header values with lookup's value (the
// default when lookup finds nothing or an empty value). A variable that is
// missing and has no default is an error naming it.
func Expand(c ServerConfig, lookup func(string) (string, bool)) (ServerConfig, error) {
	var missing []string
	expand := func(s string) string {
		return varRef.ReplaceAllStringFunc(s, func(ref string) string {
			inner := ref[2 : len(ref)-1]
			name, def, hasDef := strings.Cut(inner, ":-")
			if v, ok := lookup(name); ok && v != "" {
				return v
			}
			if hasDef {
				return def
			}
			if !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
			return ref
		})
	}
	out := c
	out.Command = expand(c.Command)
	out.URL = expand(c.URL)
	out.Args = nil
	for _, a := range c.Args {
		out.Args = append(out.Args, expand(a))
	}
	out.Env = expandMap(c.Env, expand)
	out.Headers = expandMap(c.Headers, expand)
	if len(missing) > 0 {
		return c, fmt.Errorf("environment variable %s is not set (write ${NAME:-default} for a default)", strings.Join(missing, ", "))
	}
	if err := out.validate(); err != nil {
		return c, err
	}
	return out, nil
}

func expandMap(m map[string]string, expand func(string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = expand(v)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
