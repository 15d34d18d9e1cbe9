// Package config loads NovaCode's settings: the user's file
// (~/.novacode/settings.json, or $NOVA_HOME/settings.json), the project's
// (.novacode/settings.json, shared through the repository) and the local one
// (.novacode/settings.local.json, personal). Later files refine earlier ones
// field by field. Environment variables and flags, applied by the caller,
// beat all of them.
//
// The project's file and the local one are in the workspace, where a
// repository can put them: until the person trusts the workspace, the
// settings in them that would widen what NovaCode may do apply only in part
// (trust.go). The user's file remembers which workspaces are trusted.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Settings is everything a settings file may say. Pointer and map fields
// tell "not set" apart from a zero value, so layers merge field by field.
type Settings struct {
	// Provider is "anthropic", "openai" or "openai-chat".
	Provider *string `json:"provider,omitempty"`
	Model    *string `json:"model,omitempty"`
	// Providers holds per-protocol endpoint settings.
	Providers map[string]Endpoint `json:"providers,omitempty"`
	// ContextWindow overrides what the endpoint and the built-in table say.
	ContextWindow *int `json:"contextWindow,omitempty"`
	// MaxOutputTokens overrides the output limit per call.
	MaxOutputTokens *int `json:"maxOutputTokens,omitempty"`
	// CompactThreshold is the prompt size (tokens) at which the history is
	// compacted; negative turns automatic compaction off.
	CompactThreshold *int `json:"compactThreshold,omitempty"`
	// Prices per model name, USD per million tokens.
	Prices   map[string]Price `json:"prices,omitempty"`
	Thinking *Thinking        `json:"thinking,omitempty"`
	// MaxRetries for failed model calls (negative: none).
	MaxRetries *int      `json:"maxRetries,omitempty"`
	Timeouts   *Timeouts `json:"timeouts,omitempty"`
	// Sandbox is "auto", "on" or "off" for the OS sandbox around commands.
	Sandbox *string `json:"sandbox,omitempty"`
	// WebSearch asks for the model provider's own web search (Anthropic,
	// OpenAI Responses): true offers it, asking once per session unless a
	// WebSearch rule allows it; false never offers it; unset offers it only
	// where a rule allows it.
	WebSearch *bool `json:"webSearch,omitempty"`
	// Permissions is read rule by rule by the permission layer (with
	// positions, so a bad rule can be reported and the rest kept); here it
	// is only kept raw.
	Permissions json.RawMessage `json:"permissions,omitempty"`
	// Workspaces is what the person decided about each workspace, by its
	// Key. Read from the user's file only.
	Workspaces map[string]WorkspaceRecord `json:"workspaces,omitempty"`
	// MCPServers are MCP servers, in Claude Code's format: an object of
	// server definitions by name ({"command", "args", "env"} or {"type":
	// "http", "url", "headers"}). Each file's servers keep their scope, so
	// they are read per file (File.Settings), never merged.
	MCPServers json.RawMessage `json:"mcpServers,omitempty"`
	// EnabledMcpjsonServers names servers of the project's .mcp.json that
	// start without asking; DisabledMcpjsonServers names those that never
	// start (it wins). Both add up over the files.
	EnabledMcpjsonServers  []string `json:"enabledMcpjsonServers,omitempty"`
	DisabledMcpjsonServers []string `json:"disabledMcpjsonServers,omitempty"`
	// EnableAllProjectMcpServers starts every server of .mcp.json without
	// asking (but those disabled).
	EnableAllProjectMcpServers *bool `json:"enableAllProjectMcpServers,omitempty"`
	// MCPToolSearch decides which MCP tools wait behind ToolSearch: "auto"
	// (all of them once their schemas would take a tenth of the context
	// window), "always" or "never".
	MCPToolSearch *string `json:"mcpToolSearch,omitempty"`
	// AutoMemory is "suggest" (the default: when a run ends in the TUI,
	// durable facts are proposed for a memory file, written only once the
	// person accepts them) or "off".
	AutoMemory *string `json:"autoMemory,omitempty"`
	// Hooks are commands run at the loop's events, in Claude Code's format:
	// by event name ("PreToolUse"), groups of a matcher and the commands
	// it selects. Every file's hooks run (none replaces another's), each
	// keeping its file, so they are read per file (File.Settings), never
	// merged.
	Hooks map[string][]HookGroup `json:"hooks,omitempty"`
	// Env is the environment commands get. Only the user's own file sets
	// it: a project's files (.novacode/settings.json and
	// settings.local.json, which a repository can ship) could otherwise
	// hand the user's credentials to the commands its text talks the
	// model into. Read from the user's file only, trusted or not.
	Env *Env `json:"env,omitempty"`
}

// HookGroup is one matcher of an event's hooks and the commands it runs.
type HookGroup struct {
	// Matcher selects the calls (a tool name, "Bash|Edit", a regular
	// expression; empty or "*" is every one), or for SessionStart,
	// PreCompact, Notification and SessionEnd the source, trigger,
	// notification type or reason.
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []HookCommand `json:"hooks"`
}

// HookCommand is one hook: a shell command.
type HookCommand struct {
	// Type is "command", the only kind NovaCode runs.
	Type    string `json:"type"`
	Command string `json:"command"`
	// Timeout is in seconds; 0 means the default (60).
	Timeout float64 `json:"timeout,omitempty"`
}

// Env configures the environment of the commands NovaCode runs (Bash, the
// TUI's !cmd).
type Env struct {
	// Passthrough names the credentials commands may see, which are
	// otherwise withheld (permission/cmdenv): names (GITHUB_TOKEN) or
	// prefixes ending in * (AWS_*).
	Passthrough []string `json:"passthrough,omitempty"`
}

// WorkspaceRecord is what the user's settings file remembers about one
// workspace.
type WorkspaceRecord struct {
	// SettingsHash names the project-level settings needing trust that
	// Trusted answers for (Workspace.Hash); when they change, the person
	// is asked again.
	SettingsHash string `json:"settingsHash,omitempty"`
	// Trusted is the answer: apply those settings, or leave them out.
	Trusted bool `json:"trusted,omitempty"`
	// Allow holds the rules the person answered "allow always" in this
	// workspace: their own choices, which the repository cannot forge, so
	// they apply whether or not the workspace is trusted.
	Allow []string `json:"allow,omitempty"`
	// MCPServers holds the person's answers about the servers of the
	// workspace's .mcp.json, by name: kept here, where the repository
	// cannot write, each for the definition it was given for.
	MCPServers map[string]MCPAnswer `json:"mcpjsonServers,omitempty"`
}

// MCPAnswer is the person's answer about one server of a project's
// .mcp.json.
type MCPAnswer struct {
	// Approved: start it; otherwise never ask again.
	Approved bool `json:"approved"`
	// Hash names the server's definition the answer was given for (its
	// command, arguments, environment, URL and headers as written); when
	// the repository changes it, the person is asked again.
	Hash string `json:"hash,omitempty"`
}

// Endpoint is one protocol's connection settings.
type Endpoint struct {
	APIKey  string `json:"apiKey,omitempty"`
	BaseURL string `json:"baseURL,omitempty"`
}

// Price overrides the built-in price table for one model.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// Thinking configures reasoning. Enabled nil means "provider default".
type Thinking struct {
	Enabled      *bool  `json:"enabled,omitempty"`
	BudgetTokens int    `json:"budgetTokens,omitempty"`
	Effort       string `json:"effort,omitempty"`
}

// Timeouts bound how long a silent model endpoint is waited for.
type Timeouts struct {
	FirstEvent Duration `json:"firstEvent,omitzero"`
	Idle       Duration `json:"idle,omitzero"`
}

// Duration is a time.Duration written as "30s" in JSON.
type Duration struct{ time.Duration }

// UnmarshalJSON reads "30s" or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil || v < 0 {
			return fmt.Errorf("invalid duration %q (write it like \"30s\" or \"2m\")", s)
		}
		d.Duration = v
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil || secs < 0 {
		return fmt.Errorf("invalid duration %s (write it like \"30s\" or \"2m\")", b)
	}
	d.Duration = time.Duration(secs * float64(time.Second))
	return nil
}

// MarshalJSON writes the Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// Layer says which settings file a File is.
type Layer string

// The layers, lowest precedence first.
const (
	LayerUser    Layer = "user"
	LayerProject Layer = "project"
	LayerLocal   Layer = "local"
)

// File is one loaded settings file, as applied.
type File struct {
	Path  string
	Layer Layer
	// Data is the file's bytes, for parsers that report positions. Members
	// that do not apply are blanked out in place (see withhold), so
	// positions hold.
	Data     []byte
	Settings Settings
	// Unknown lists keys this version does not understand (typos, or
	// settings of a newer version); the caller warns about them.
	Unknown []string
	// Ignored lists settings a project-level file may not set at all
	// (user-only ones); the caller warns about them.
	Ignored []string
}

// Paths returns the settings files for a workspace, lowest precedence first.
func Paths(dataDir, workspace string) []string {
	return []string{
		filepath.Join(dataDir, "settings.json"),
		filepath.Join(workspace, ".novacode", "settings.json"),
		filepath.Join(workspace, ".novacode", "settings.local.json"),
	}
}

func parse(path string, data []byte) (File, error) {
	f := File{Path: path, Data: data}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	if err := json.Unmarshal(data, &f.Settings); err != nil {
		return f, fmt.Errorf("settings file %s%s: %s; fix or remove it and run again", path, position(data, err), describe(err))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err == nil {
		for k := range raw {
			// "$schema" is classified (accepted) for editors.
			if _, _, ok := canonical("", k); !ok {
				f.Unknown = append(f.Unknown, k)
			}
		}
		sort.Strings(f.Unknown)
	}
	return f, nil
}

func position(data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return ""
	}
	before := data[:min(int(off), len(data))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf(":%d:%d", line, col)
}

func describe(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%q should be %s, not %s", te.Field, kind(te.Type.Kind().String()), te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func kind(k string) string {
	switch k {
	case "int", "int64", "float64":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "map", "struct":
		return "an object"
	}
	return k
}

// merge returns base refined by over. User-only settings (Workspaces,
// Env) are not merged: Workspace.Resolve takes them from the user's file;
// nor are MCPServers and Hooks, read per file.
func merge(base, over Settings) Settings {
	if over.Provider != nil {
		base.Provider = over.Provider
	}
	if over.Model != nil {
		base.Model = over.Model
	}
	if len(over.Providers) > 0 {
		m := make(map[string]Endpoint, len(base.Providers)+len(over.Providers))
		for k, v := range base.Providers {
			m[k] = v
		}
		for k, v := range over.Providers {
			e := m[k]
			if v.APIKey != "" {
				e.APIKey = v.APIKey
			}
			if v.BaseURL != "" {
				e.BaseURL = v.BaseURL
			}
			m[k] = e
		}
		base.Providers = m
	}
	if over.ContextWindow != nil {
		base.ContextWindow = over.ContextWindow
	}
	if over.MaxOutputTokens != nil {
		base.MaxOutputTokens = over.MaxOutputTokens
	}
	if over.CompactThreshold != nil {
		base.CompactThreshold = over.CompactThreshold
	}
	if len(over.Prices) > 0 {
		m := make(map[string]Price, len(base.Prices)+len(over.Prices))
		for k, v := range base.Prices {
			m[k] = v
		}
		for k, v := range over.Prices {
			m[k] = v
		}
		base.Prices = m
	}
	if over.Thinking != nil {
		base.Thinking = over.Thinking
	}
	if over.MaxRetries != nil {
		base.MaxRetries = over.MaxRetries
	}
	if over.Sandbox != nil {
		base.Sandbox = over.Sandbox
	}
	if over.WebSearch != nil {
		base.WebSearch = over.WebSearch
	}
	base.EnabledMcpjsonServers = union(base.EnabledMcpjsonServers, over.EnabledMcpjsonServers)
	base.DisabledMcpjsonServers = union(base.DisabledMcpjsonServers, over.DisabledMcpjsonServers)
	if over.EnableAllProjectMcpServers != nil {
		base.EnableAllProjectMcpServers = over.EnableAllProjectMcpServers
	}
	if over.MCPToolSearch != nil {
		base.MCPToolSearch = over.MCPToolSearch
	}
	if over.AutoMemory != nil {
		base.AutoMemory = over.AutoMemory
	}
	if over.Timeouts != nil {
		t := Timeouts{}
		if base.Timeouts != nil {
			t = *base.Timeouts
		}
		if over.Timeouts.FirstEvent.Duration != 0 {
			t.FirstEvent = over.Timeouts.FirstEvent
		}
		if over.Timeouts.Idle.Duration != 0 {
			t.Idle = over.Timeouts.Idle
		}
		base.Timeouts = &t
	}
	return base
}

// union is a with the members of b it lacks, in order.
func union(a, b []string) []string {
	for _, x := range b {
		if !slices.Contains(a, x) {
			a = append(a, x)
		}
	}
	return a
}
