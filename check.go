package nova

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/permission/sandbox"
	"github.com/novacode/nova/tool/builtin"
)

// CheckOptions say how CheckPermission decides.
type CheckOptions struct {
	// Dir is the workspace ("" = the current directory); DataDir the data
	// directory ("" = the default).
	Dir, DataDir string
	// PermissionMode and the rules, as in Options.
	PermissionMode   string
	Allow, Ask, Deny []string
	TrustWorkspace   bool
	// Sandbox is what confines commands for this decision: "" detects it
	// as a session here would (the "sandbox" setting, bubblewrap or
	// Landlock, and what they can promise for this workspace); "assumed"
	// decides as if commands were fully confined; "none" as if they ran
	// unconfined.
	Sandbox string
}

// CheckResult is the chain's decision for one call.
type CheckResult struct {
	permission.Decision
	// Sandbox is bubblewrap, landlock or none as detected; assumed or none
	// as told.
	Sandbox string `json:"sandbox"`
	// Notice is what the person should know about the settings and the
	// sandbox (as Session.Notice).
	Notice string `json:"-"`
}

// CheckPermission returns the decision the permission chain makes for one
// call of tool with input, without running it (nova permission check).
func CheckPermission(ctx context.Context, tool string, input json.RawMessage, o CheckOptions) (CheckResult, error) {
	var res CheckResult
	dir, err := workspace(o.Dir)
	if err != nil {
		return res, err
	}
	data, err := dataDirOf(o.DataDir)
	if err != nil {
		return res, err
	}
	ws, err := config.LoadWorkspace(data, dir)
	if err != nil {
		return res, err
	}
	trusted, trustNotice, err := decideTrust(ctx, ws, trustChoice{Flag: o.TrustWorkspace})
	if err != nil {
		return res, err
	}
	var notice strings.Builder
	notice.WriteString(prefixed(trustNotice))
	settings, files := ws.Resolve(trusted)
	warnSettings(&notice, files)
	pin := permissionInputs{Mode: o.PermissionMode, Allow: o.Allow, Ask: o.Ask, Deny: o.Deny,
		Always: ws.Record.Allow, AlwaysFrom: ws.UserPath, DataDir: data}
	res.Sandbox = o.Sandbox
	switch o.Sandbox {
	case "assumed":
		pin.Sandboxed = true
	case "":
		pin.Sandbox = func(additional []string) (*sandbox.Sandbox, error) {
			mode, err := sandboxMode(settings)
			if err != nil {
				return nil, err
			}
			// No TempDir: New makes one, and Close removes it.
			return sandbox.New(mode, sandbox.Policy{Workspace: dir, Writable: additional, ReadOnly: []string{data}})
		}
	}
	c, sb, err := buildChecker(pin, dir, files, &notice)
	if err != nil {
		return res, err
	}
	defer sb.Close()
	if o.Sandbox == "" {
		res.Sandbox = sb.Kind()
		if n := sb.Notice(); n != "" {
			notice.WriteString("nova: " + n + "\n")
		}
	}
	readOnly := false
	for _, t := range builtin.All() {
		if t.Name() == tool {
			readOnly = t.ReadOnly()
		}
	}
	res.Decision = c.Check(permission.Call{Tool: tool, Input: input, ReadOnly: readOnly})
	res.Notice = notice.String()
	return res, nil
}
