package nova

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/mcp"
	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/tool"
	"github.com/novacode/nova/tool/builtin"
)

// Options configure a Session. The zero value behaves as `nova` run in the
// current directory does: the model from the environment and the settings
// files, the built-in tools, the default permission chain with the OS
// sandbox, the environment and memory files at the start of the
// conversation, and a transcript under $NOVA_HOME (or ~/.novacode).
type Options struct {
	// Dir is the workspace: the working directory of tools and commands,
	// the root the path guard confines them to, and where project settings
	// and memory files are read. Empty means the current directory.
	Dir string
	// DataDir holds the user's settings, transcripts and snapshots. Empty
	// means $NOVA_HOME, else ~/.novacode.
	DataDir string
	// Getenv reads the environment the model endpoint is chosen from
	// (ANTHROPIC_API_KEY, OPENAI_BASE_URL, …). Nil means os.Getenv.
	Getenv func(string) string

	// Client is the model client to use. Nil chooses one as the CLI does:
	// Provider, the environment, then the settings files.
	Client llm.Client
	// Provider is "anthropic", "openai" (Responses) or "openai-chat"
	// (Chat Completions, for any compatible server). With Client set it
	// names the protocol Client speaks (for web search); empty means
	// anthropic then.
	Provider string
	// Model names the model. Empty: $ANTHROPIC_MODEL / $OPENAI_MODEL, the
	// settings, or the provider's default. Required with Client.
	Model string
	// Effort turns on reasoning: "low", "medium" or "high".
	Effort string

	// SystemPrompt replaces NovaCode's system prompt; AppendSystemPrompt is
	// added after it (or after SystemPrompt).
	SystemPrompt       string
	AppendSystemPrompt string
	// NoContext leaves out what opens a new conversation by default: the
	// environment block (directory, platform, date, git status) and the
	// memory files (AGENTS.md, NOVA.md, CLAUDE.md).
	NoContext bool

	// Tools are the tools the model may call. Nil means the built-in set
	// (BuiltinTools()); add typed tools of your own made with tool.New:
	//
	//	Tools: append(nova.BuiltinTools(), myTool)
	Tools []tool.Tool

	// MCPServers are MCP servers to start, by name, in Claude Code's
	// format (mcp.ServerConfig; ${VAR} expanded with Getenv). The program
	// chose them: they start without asking anyone.
	MCPServers map[string]mcp.ServerConfig
	// MCPConfigFiles are files in .mcp.json's format ({"mcpServers":
	// {...}}) whose servers start without asking (the CLI's
	// --mcp-config: the person named them). A file that cannot be read or
	// parsed fails Open; a bad server in it is left out with a notice.
	MCPConfigFiles []string
	// StrictMCPConfig starts only the servers of MCPServers and
	// MCPConfigFiles: none from the settings files or .mcp.json.
	StrictMCPConfig bool
	// MCPToolSearch decides which MCP tools are listed in every request
	// and which wait behind ToolSearch (found by the model, then called):
	// "auto" defers them when their schemas would take more than a tenth
	// of the context window, "always" always, "never" never. Empty: the
	// settings' mcpToolSearch, else auto.
	MCPToolSearch string
	// ApproveMCPServers asks the person about the servers of the project's
	// .mcp.json that they have not answered for (a repository chose
	// them): it returns the names approved; the answers are remembered in
	// the user's settings for this workspace and these definitions. Nil:
	// nobody is asked, such servers do not start, and Notice says so.
	ApproveMCPServers func(ctx context.Context, servers []MCPServerInfo) (approved []string, err error)
	// MCPTimeouts bound MCP servers' starts and tool calls; a zero field
	// means $MCP_TIMEOUT or $MCP_TOOL_TIMEOUT (milliseconds, read with
	// Getenv), else 30 s to start and 10 minutes a call.
	MCPTimeouts mcp.Timeouts

	// PermissionMode is "default", "acceptEdits", "plan" or
	// "bypassPermissions"; empty means the settings' defaultMode, else
	// default.
	PermissionMode string
	// Allow, Ask and Deny are permission rules in Claude Code's syntax
	// ("Bash(npm run test:*)", "Edit(src/**)", "WebFetch(domain:go.dev)"),
	// applied over the settings' rules. A bare tool name in Deny also
	// hides the tool from the model.
	Allow, Ask, Deny []string
	// CanUseTool answers what the chain would ask a person: a call no rule
	// allows, the session's web search. Nil: see Interactive.
	CanUseTool func(ctx context.Context, req PermissionRequest) Decision
	// Interactive says the consumer of the events answers
	// permission_request and question events itself (Respond), as the TUI
	// does. Without it and without CanUseTool, nobody is asked: such calls
	// are denied with a result telling the model why, and the Result lists
	// them (print mode).
	Interactive bool

	// SettingSources are the settings files read. Nil means all three
	// (SettingsUser, SettingsProject, SettingsLocal); an empty, non-nil
	// slice reads none.
	SettingSources []SettingSource
	// TrustWorkspace applies the workspace's own settings that need trust
	// (those that widen what may run, or choose the endpoint) without
	// asking. Otherwise Trust is asked, when set, and its answer is
	// remembered in the user's settings; else they are left out and
	// Notice says so.
	TrustWorkspace bool
	Trust          func(ctx context.Context, q TrustQuestion) (bool, error)

	// Resume continues the session with this id; Continue continues the
	// workspace's latest one.
	Resume   string
	Continue bool
	// InMemory keeps nothing on disk: no transcript, no file snapshots
	// (Rewind is unavailable), spilled results in a temporary directory.
	InMemory bool

	// MaxTurns ends a Send after that many model calls; 0 means no limit.
	// Each subagent has the same limit for its own run.
	MaxTurns int
	// SubagentMaxTurns limits each subagent's run instead of MaxTurns: 0
	// takes MaxTurns, a negative value means no limit. An engine that
	// steps a session one model call at a time (MaxTurns 1) gives
	// subagents the task's own limit here: a subagent runs whole within
	// its parent's step.
	SubagentMaxTurns int
	// SessionID names a stored session to open: continued when it exists
	// (as Resume), started with this id when it does not. Engines that
	// may run the same task twice (a fleet worker retrying after a crash)
	// use it so that the retry continues the session instead of starting
	// another. Ignored with InMemory; Resume and Continue take precedence.
	SessionID string
	// SubagentDepth is how deep subagents (the Task tool) may nest: 0 or
	// 1 lets the session's agent start subagents and none of them start
	// more; negative leaves Task, TaskOutput and SendMessage out.
	SubagentDepth int
	// CompactThreshold is the prompt size in tokens at which the history
	// is compacted; 0 means the settings' or one derived from the context
	// window, negative turns automatic compaction off.
	CompactThreshold int
	// Sandbox is the OS sandbox for commands: "auto" (bubblewrap, else
	// Landlock, else none, said in Notice), "on" (fail if there is none)
	// or "off". Empty means the settings' "sandbox", else auto.
	Sandbox string
	// WebSearch offers the provider's own web search: nil decides from the
	// settings; true asks once per session where no rule allows it.
	WebSearch *bool

	// Hooks are Go functions run at the loop's events.
	Hooks Hooks

	// EditorFS, if set, is the editor the session runs in (an ACP client
	// that offers its file system): Read, Write and Edit read and write
	// files through it, its unsaved buffers included, after the path
	// guard has judged each path as it judges files on disk. nil: the disk.
	EditorFS tool.EditorFS

	// PermissionLog, if set, receives one line per permission decision
	// (the CLI's --debug permissions).
	PermissionLog io.Writer
	// DebugPermissionsFile writes that log to debug.log in the session's
	// directory instead, and says where in Notice (the TUI's choice: a
	// line on standard error would tear its screen).
	DebugPermissionsFile bool
}

// SettingSource names a settings file.
type SettingSource string

// The settings files, lowest precedence first.
const (
	// SettingsUser is $NOVA_HOME/settings.json.
	SettingsUser SettingSource = "user"
	// SettingsProject is .novacode/settings.json in the workspace.
	SettingsProject SettingSource = "project"
	// SettingsLocal is .novacode/settings.local.json in the workspace.
	SettingsLocal SettingSource = "local"
)

// PermissionRequest is what the permission chain would ask a person.
type PermissionRequest struct {
	// ID is the tool call's id ("web_search" for the session's web search).
	ID string
	// Tool is the tool's name; Input its arguments.
	Tool  string
	Input json.RawMessage
	// Reason says why the chain asks.
	Reason string
	// Suggest lists the rules an "always" answer would remember.
	Suggest []string
	// Plan, for ExitPlanMode in plan mode, is the plan (Markdown) the model
	// asks to approve: answer ApprovePlan(ModeAcceptEdits),
	// ApprovePlan(ModeDefault) or KeepPlanning(feedback). Session.Mode
	// says the mode once approved.
	Plan string
}

// Decision answers a PermissionRequest; see Allow, AllowAlways and Deny.
type Decision = event.Decision

// Allow lets the call run once.
func Allow() Decision { return Decision{Behavior: event.Allow} }

// AllowAlways lets the call run and remembers the request's suggested
// rules for the session and, in the user's settings, for this workspace.
func AllowAlways() Decision { return Decision{Behavior: event.Allow, Always: true} }

// Deny refuses the call; message, if any, is passed to the model.
func Deny(message string) Decision { return Decision{Behavior: event.Deny, Message: message} }

// TrustQuestion asks whether to apply a workspace's own settings that need
// trust.
type TrustQuestion struct {
	// Dir is the workspace.
	Dir string
	// Changed says the person answered before, for other settings.
	Changed bool
	// Settings are the settings that wait for the answer.
	Settings []TrustSetting
}

// TrustSetting is one setting that needs trust.
type TrustSetting struct {
	File    string // relative to the workspace when inside it
	Setting string
	Value   string
	Says    string // what it would allow
}

// Permission modes, for Options.PermissionMode and Session.SetMode.
const (
	ModeDefault           = "default"
	ModeAcceptEdits       = "acceptEdits"
	ModePlan              = "plan"
	ModeBypassPermissions = "bypassPermissions"
)

// ValidMode returns an error naming the valid modes unless mode is one
// (or empty, which means the settings' default).
func ValidMode(mode string) error {
	if mode == "" {
		return nil
	}
	_, err := permission.ParseMode(mode)
	return err
}

// BuiltinTools returns NovaCode's built-in tools: all of them, or those
// named (Read, Write, Edit, Bash, Glob, Grep, LS, AskUserQuestion,
// WebFetch, TodoWrite, ExitPlanMode). An unknown name is an error's worth of surprise,
// so it panics: names are constants in the calling program.
func BuiltinTools(names ...string) []tool.Tool {
	all := builtin.All()
	if len(names) == 0 {
		return all
	}
	var out []tool.Tool
	for _, n := range names {
		i := slices.IndexFunc(all, func(t tool.Tool) bool { return t.Name() == n })
		if i < 0 {
			panic(fmt.Sprintf("nova.BuiltinTools: no built-in tool %q", n))
		}
		out = append(out, all[i])
	}
	return out
}
