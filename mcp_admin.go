package nova

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/mcp"
)

// MCPServerConfig is one MCP server's definition in Claude Code's format:
// a command (stdio) or the URL of an HTTP or SSE endpoint (mcp.ServerConfig).
type MCPServerConfig = mcp.ServerConfig

// The scopes MCPAdd writes to and MCPRemove removes from.
const (
	// MCPScopeUser is "mcpServers" in the user's settings file: theirs,
	// started in every workspace without asking.
	MCPScopeUser = "user"
	// MCPScopeProject is the workspace's .mcp.json, shared through its
	// repository: the person who adds a server there has approved it for
	// themselves (the answer is kept in their own file); others are asked.
	MCPScopeProject = "project"
	// MCPScopeLocal is "mcpServers" in the workspace's
	// .novacode/settings.local.json: theirs, in this workspace only, started
	// once the workspace is trusted (as every setting of that file that
	// runs programs).
	MCPScopeLocal = "local"
)

// The states MCPList and MCPGet report beside Session.MCPServers' own
// (connected, failed, disabled).
const (
	// MCPNeedsApproval: a server of .mcp.json the person has not approved.
	MCPNeedsApproval = "needs approval"
	// MCPNeedsTrust: a server of the workspace's settings files, which
	// start only in a trusted workspace (nova trust).
	MCPNeedsTrust = "needs trust"
)

// MCPServerDetail is one configured server: its status and its definition.
type MCPServerDetail struct {
	MCPServerStatus
	// Config is its definition as its file writes it (${VAR} unexpanded).
	Config MCPServerConfig
}

// MCPList reports every MCP server configured for the workspace at dir —
// in the user's settings, .mcp.json and the workspace's settings files,
// as a session there would read them (settings that need trust only once
// the workspace is trusted; servers of .mcp.json only once approved) —
// after connecting to each that may start and waiting for it, bounded by
// the start timeout ($MCP_TIMEOUT, in milliseconds, else 30 s; all at once)
// and ctx; then it stops them. State is connected, failed (Error says why),
// disabled (declined), MCPNeedsApproval or MCPNeedsTrust; Describe is the
// command line or URL as written. A definition left out of its file is
// failed, saying why; a file whose servers could not be read at all makes
// the error, beside the servers of the others. dataDir "" means the
// default.
func MCPList(ctx context.Context, dir, dataDir string) ([]MCPServerStatus, error) {
	ds, err := inspectMCP(ctx, dir, dataDir, "")
	out := make([]MCPServerStatus, len(ds))
	for i, d := range ds {
		out[i] = d.MCPServerStatus
	}
	return out, err
}

// MCPGet reports the server name as MCPList does (connecting to it alone),
// with its definition; the error is MCPList's, or that no server of that
// name is configured.
func MCPGet(ctx context.Context, dir, dataDir, name string) (MCPServerDetail, error) {
	ds, err := inspectMCP(ctx, dir, dataDir, name)
	if len(ds) == 0 && err == nil {
		err = fmt.Errorf("no MCP server named %q is configured for %s (nova mcp list lists them)", name, config.Visible(dir))
	}
	if len(ds) == 0 {
		return MCPServerDetail{}, err
	}
	return ds[0], err
}

// inspectMCP starts the servers configured for dir (only the one named
// only, if set) that may start, waits for them and reports on every one.
func inspectMCP(ctx context.Context, dir, dataDir, only string) ([]MCPServerDetail, error) {
	dir, err := workspace(dir)
	if err != nil {
		return nil, err
	}
	data, err := dataDirOf(dataDir)
	if err != nil {
		return nil, err
	}
	ws, err := config.LoadWorkspace(data, dir)
	if err != nil {
		return nil, err
	}
	trusted := !ws.NeedsTrust()
	if !trusted {
		t, ok := ws.Remembered()
		trusted = ok && t
	}
	settings, files := ws.Resolve(trusted)
	var problems []string
	note := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	all := []config.Layer{config.LayerUser, config.LayerProject, config.LayerLocal}
	defs, err := gatherMCP(dir, files, all, nil, nil, false, note)
	if err != nil {
		return nil, err
	}
	// What the workspace's files would add once it is trusted.
	needsTrust := map[string]bool{}
	if !trusted {
		_, withTrust := ws.Resolve(true)
		project := slices.DeleteFunc(withTrust, func(f config.File) bool { return f.Layer == config.LayerUser })
		more, _ := gatherMCP(dir, project, nil, nil, nil, false, func(string, ...any) {})
		for _, name := range more.order {
			if _, ok := defs.byName[name]; !ok {
				defs.order = append(defs.order, name)
				defs.byName[name] = more.byName[name]
				needsTrust[name] = true
			}
		}
	}
	_, disabled, pending := approveMCP(defs, settings, ws.Record.MCPServers)
	// Definitions left out of their files: failed, saying why (unless
	// another file defines the name).
	broken := map[string]*mcp.DefinitionError{}
	for _, p := range defs.problems {
		var de *mcp.DefinitionError
		if errors.As(p, &de) && defs.byName[de.Server] == nil && broken[de.Server] == nil {
			broken[de.Server] = de
			defs.order = append(defs.order, de.Server)
		}
	}

	lookup := func(k string) (string, bool) { v := os.Getenv(k); return v, v != "" }
	mgr := mcp.NewManager(mcp.Options{ClientName: "nova", Dir: dir,
		SpillDir: filepath.Join(os.TempDir(), "nova-mcp-list"),
		Timeouts: mcp.Timeouts{Start: millisFrom(lookup, "MCP_TIMEOUT")}})
	defer mgr.Close()
	state := map[string]string{}  // reported instead of the Manager's
	refused := map[string]error{} // the Manager would not take it
	var names []string
	for _, name := range defs.order {
		if only != "" && name != only {
			continue
		}
		names = append(names, name)
		d := defs.byName[name]
		if d == nil {
			continue // broken
		}
		var err error
		switch {
		case needsTrust[name]:
			state[name] = MCPNeedsTrust
			err = mgr.AddDisabled(d.Server, fmt.Sprintf("this workspace is not trusted, so the servers of %s do not start: run nova trust to trust it", relFile(ws, d.Source)))
		case slices.ContainsFunc(pending, func(p MCPServerInfo) bool { return p.Name == name }):
			state[name] = MCPNeedsApproval
			err = mgr.AddDisabled(d.Server, "not approved: run nova (interactive) to approve it, or name it in enabledMcpjsonServers in your settings")
		case disabled[name] != "":
			err = mgr.AddDisabled(d.Server, disabled[name])
		default:
			c, xerr := mcp.Expand(d.Config, lookup)
			if xerr != nil {
				state[name] = string(mcp.StateFailed)
				err = mgr.AddDisabled(d.Server, xerr.Error())
				break
			}
			s := d.Server
			s.Config = c
			err = mgr.Start(s)
		}
		if err != nil {
			refused[name] = err
		}
	}
	if err := mgr.Settle(ctx); err != nil {
		return nil, err
	}
	var out []MCPServerDetail
	for _, name := range names {
		if de := broken[name]; de != nil {
			out = append(out, MCPServerDetail{MCPServerStatus: MCPServerStatus{Name: name, Scope: scopeOfFile(ws, dir, de.File), Source: de.File,
				State: string(mcp.StateFailed), Error: "its definition is not usable: " + de.Reason}})
			continue
		}
		d := defs.byName[name]
		var st MCPServerStatus
		if err := refused[name]; err != nil {
			st = MCPServerStatus{Name: name, Scope: string(d.Scope), Source: d.Source, Transport: d.written.Transport(),
				State: string(mcp.StateFailed), Error: err.Error()}
		} else {
			ms, _ := mgr.Status(name)
			st = statusOf(ms)
			if s, ok := state[name]; ok {
				st.State = s
			}
		}
		// As written: an expanded argument may hold a secret.
		st.Describe = d.written.Describe()
		out = append(out, MCPServerDetail{MCPServerStatus: st, Config: d.written})
	}
	var errs []error
	for _, p := range problems {
		errs = append(errs, errors.New(p))
	}
	return out, errors.Join(errs...)
}

// scopeOfFile names the scope of a settings file or .mcp.json of the
// workspace.
func scopeOfFile(ws *config.Workspace, dir, file string) string {
	paths := config.Paths(filepath.Dir(ws.UserPath), dir)
	switch file {
	case paths[0]:
		return string(mcp.ScopeUser)
	case paths[1]:
		return string(mcp.ScopeWorkspace)
	case paths[2]:
		return string(mcp.ScopeLocal)
	}
	return string(mcp.ScopeProject)
}

// MCPEdit is what MCPAdd or MCPRemove did.
type MCPEdit struct {
	// Name is the server's; Scope where it was written (or removed from),
	// File that file.
	Name, Scope, File string
	// Notice says what else the person should know, in sentences (""
	// when nothing): that the server waits for trust, or that another
	// definition of the name wins in this workspace.
	Notice string
}

// mcpScopeFile is the file a scope's servers are written to, and whether
// it is the person's own (private) rather than the project's.
func mcpScopeFile(scope, dir, data string) (path string, private bool, err error) {
	paths := config.Paths(data, dir)
	switch scope {
	case MCPScopeUser:
		return paths[0], true, nil
	case MCPScopeProject:
		return filepath.Join(dir, ".mcp.json"), false, nil
	case MCPScopeLocal:
		return paths[2], true, nil
	}
	return "", false, fmt.Errorf("the scope must be user, project or local, not %q", scope)
}

// MCPAdd writes the server name, defined by c, to the file of scope for
// the workspace at dir (MCPScopeUser, MCPScopeProject, MCPScopeLocal),
// keeping the rest of the file as it is. A name the file defines already is
// an error (remove it first). A server added to .mcp.json is approved for
// this definition in the user's own file, as if they had answered the
// question; one added to the local file applies once the workspace is
// trusted — if it was trusted before (or nothing in it needed trust), it
// stays trusted with this addition, the person's own. dataDir "" means the
// default.
func MCPAdd(dir, dataDir, scope, name string, c MCPServerConfig) (MCPEdit, error) {
	dir, data, err := mcpDirs(dir, dataDir)
	if err != nil {
		return MCPEdit{}, err
	}
	path, private, err := mcpScopeFile(scope, dir, data)
	if err != nil {
		return MCPEdit{}, err
	}
	if err := mcp.Validate(name, c); err != nil {
		return MCPEdit{}, fmt.Errorf("MCP server %q: %v", name, err)
	}
	have, err := config.MCPServerNames(path)
	if err != nil {
		return MCPEdit{}, err
	}
	if slices.Contains(have, name) {
		return MCPEdit{}, fmt.Errorf("MCP server %q is already defined in %s; remove it first (nova mcp remove %s --scope %s)", name, path, shellQuote(name), scope)
	}
	raw, err := json.Marshal(c)
	if err != nil {
		return MCPEdit{}, err
	}
	edit := MCPEdit{Name: name, Scope: scope, File: path}
	err = keepingTrust(dir, data, scope == MCPScopeLocal, true, &edit, func() error {
		_, err := config.SetMCPServer(path, name, raw, private)
		return err
	})
	if err != nil {
		return edit, err
	}
	if scope == MCPScopeProject {
		ws, err := config.LoadWorkspace(data, dir)
		if err == nil {
			err = config.RememberMCP(ws.UserPath, ws.Key, map[string]config.MCPAnswer{name: {Approved: true, Hash: c.Hash()}})
		}
		if err != nil {
			edit.Notice += fmt.Sprintf("Your approval of it could not be saved (%v): nova will ask before it starts it. ", err)
		}
	}
	edit.Notice = strings.TrimSpace(edit.Notice + shadowNotice(dir, data, scope, name, true))
	return edit, nil
}

// MCPRemove removes the server name from the file of scope for the
// workspace at dir; with scope "", from the one file of the three that
// defines it (an error when several do: say which). The rest of the file
// stays as it is.
func MCPRemove(dir, dataDir, scope, name string) (MCPEdit, error) {
	dir, data, err := mcpDirs(dir, dataDir)
	if err != nil {
		return MCPEdit{}, err
	}
	if scope == "" {
		var in []string
		for _, sc := range []string{MCPScopeUser, MCPScopeProject, MCPScopeLocal} {
			path, _, _ := mcpScopeFile(sc, dir, data)
			have, err := config.MCPServerNames(path)
			if err != nil {
				return MCPEdit{}, err
			}
			if slices.Contains(have, name) {
				in = append(in, sc)
			}
		}
		switch len(in) {
		case 0:
			msg := fmt.Sprintf("no MCP server named %q in your settings (user), .mcp.json (project) or .novacode/settings.local.json (local)", name)
			if have, _ := config.MCPServerNames(config.Paths(data, dir)[1]); slices.Contains(have, name) {
				msg += "; .novacode/settings.json (the project's settings) defines it: edit that file"
			}
			return MCPEdit{}, fmt.Errorf("%s", msg)
		case 1:
			scope = in[0]
		default:
			return MCPEdit{}, fmt.Errorf("MCP server %q is defined in several scopes (%s); say which with --scope", name, strings.Join(in, ", "))
		}
	}
	path, private, err := mcpScopeFile(scope, dir, data)
	if err != nil {
		return MCPEdit{}, err
	}
	edit := MCPEdit{Name: name, Scope: scope, File: path}
	removed := false
	err = keepingTrust(dir, data, scope == MCPScopeLocal, false, &edit, func() error {
		var err error
		removed, err = config.RemoveMCPServer(path, name, private)
		return err
	})
	if err != nil {
		return edit, err
	}
	if !removed {
		return edit, fmt.Errorf("no MCP server named %q in %s", name, path)
	}
	edit.Notice = strings.TrimSpace(edit.Notice + shadowNotice(dir, data, scope, name, false))
	return edit, nil
}

func mcpDirs(dir, dataDir string) (string, string, error) {
	dir, err := workspace(dir)
	if err != nil {
		return "", "", err
	}
	data, err := dataDirOf(dataDir)
	if err != nil {
		return "", "", err
	}
	return dir, data, nil
}

// keepingTrust runs change, an edit of the workspace's local settings file
// when local is set, and keeps the workspace's trust through it: the
// person's own edit must not make nova ask again about what they trusted,
// nor about the server they just added. If the workspace was trusted
// before (or nothing in it needed trust), it stays trusted for its settings
// as they are now; if it was not, the notice says a server added waits for
// trust.
func keepingTrust(dir, data string, local, adding bool, edit *MCPEdit, change func() error) error {
	if !local {
		return change()
	}
	before, err := config.LoadWorkspace(data, dir)
	if err != nil {
		return err
	}
	trusted, remembered := before.Remembered()
	wasTrusted := !before.NeedsTrust() || remembered && trusted
	if err := change(); err != nil {
		return err
	}
	after, err := config.LoadWorkspace(data, dir)
	if err != nil {
		return err
	}
	switch {
	case !after.NeedsTrust():
	case wasTrusted:
		if err := config.RememberTrust(after.UserPath, after.Key, after.Hash, true); err != nil {
			edit.Notice += fmt.Sprintf("The workspace's trust could not be updated (%v): nova will ask again. ", err)
		}
	case adding:
		edit.Notice += fmt.Sprintf("This workspace is not trusted, so the servers of %s do not start until you trust it: run nova trust %s (the interactive UI asks). ",
			relFile(after, edit.File), config.Visible(shellQuote(after.Key)))
	}
	return nil
}

// shadowNotice names the other scopes' definitions of name, which a
// session in this workspace reads in this order, later ones winning: the
// user's file, .mcp.json, the local file. added: name was added to scope
// (else removed from it).
func shadowNotice(dir, data, scope, name string, added bool) string {
	order := []string{MCPScopeUser, MCPScopeProject, MCPScopeLocal}
	at := slices.Index(order, scope)
	var b strings.Builder
	for i, sc := range order {
		if sc == scope {
			continue
		}
		path, _, _ := mcpScopeFile(sc, dir, data)
		if have, _ := config.MCPServerNames(path); !slices.Contains(have, name) {
			continue
		}
		switch {
		case !added:
			fmt.Fprintf(&b, "%s is still defined in %s (%s). ", name, path, sc)
		case i > at:
			fmt.Fprintf(&b, "In this workspace the definition of %s in %s (%s) is used instead. ", name, path, sc)
		default:
			fmt.Fprintf(&b, "In this workspace it is used instead of the definition in %s (%s). ", path, sc)
		}
	}
	return b.String()
}
